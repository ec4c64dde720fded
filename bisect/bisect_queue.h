#pragma once

// The saved state of a bisect of several queries (`culprit bisect run -q A -q B ...`): the
// range, the queries in the order they are bisected, the options each bisect starts with,
// and each finished query's facts (records/multi_bisect_payload.h) with its result record.
// It lives beside the bisect state (BisectDir/bisect-queue.json) and is rewritten
// atomically after every query, so Ctrl-C or a failed query loses none of the others'
// results and `culprit bisect resume` continues with the query that was running.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "records/multi_bisect_payload.h"

namespace culprit {

inline constexpr std::string_view kBisectQueueSchema = "culprit.bisect-queue/v1";

struct BisectQueue {
  std::string schema = std::string(kBisectQueueSchema);
  std::string started;
  std::string good, bad;             ///< As given.
  std::string from_table;            ///< `--from-table`'s record id, or "".
  std::vector<std::string> queries;  ///< In the order they are bisected.
  /// The options every query's bisect starts with (BisectRequest's): 0 / false when not given.
  int max_pairs = 0;
  uint64_t seed = 0;
  double band = 0;
  bool prove_first = false;
  /// The finished queries' facts, in order: done[i] is queries[i]'s.
  std::vector<MultiBisectQueryFacts> done;
  bool finished = false;
  std::string result_record;  ///< The `multi-bisect` record, once finished.
};

std::string BisectQueueToJson(const BisectQueue& queue);
/// Refuses other schemas and damaged files, naming `source`.
Result<BisectQueue> BisectQueueFromJson(std::string_view json, std::string_view source);

Result<BisectQueue> LoadBisectQueue(const std::filesystem::path& path);
Status SaveBisectQueue(const std::filesystem::path& path, const BisectQueue& queue);

}  // namespace culprit
