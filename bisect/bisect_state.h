#pragma once

// The saved state of a bisect: the range, the search (every pair measured,
// every build fact), the step log and the records written. It is rewritten
// atomically after every batch of pairs, so Ctrl-C or a killed process loses
// at most the batch in flight, and `culprit bisect resume` continues without
// re-measuring anything.

#include <filesystem>
#include <string>
#include <vector>

#include "base/result.h"

namespace culprit {

inline constexpr std::string_view kBisectStateSchema = "culprit.bisect/v1";

/// One search step: a candidate measured against a baseline until decisive.
struct BisectStepLog {
  int step = 0;
  std::string kind;      ///< "confirm", "measure" or "verify".
  int index = 0;         ///< Commit index in the range (0 = good).
  int baseline = 0;
  std::string commit;    ///< Full id.
  int pairs = 0;
  double ratio = 1, low = 1, high = 1;  ///< Over this step's pairs, 95% interval.
  double mass_at_or_before = 0;         ///< P(first bad ≤ index) after the step.
  std::string best_commit;              ///< Most probable first-bad commit after the step.
  double best_probability = 0;
  std::string record_id;
  std::string note;      ///< e.g. "unbuildable: skipped".
};

struct BisectState {
  std::string schema = std::string(kBisectStateSchema);
  std::string run_id;        ///< Links this bisect's records together.
  std::string status;        ///< "running", "interrupted", "done".
  std::string started, updated;
  std::string good_rev, bad_rev, query;
  bool first_parent = true;
  bool speedup = false;      ///< The bad end is faster: d's sign is flipped for the search.
  std::vector<std::string> commits;  ///< Index 0 = good, N = bad; full ids.
  std::string search_json;   ///< BisectSearch::ToJson.
  std::vector<BisectStepLog> log;
  std::vector<std::string> records;  ///< Ids of the records written, in order.
  std::string result_record;         ///< Id of the final "bisect" record, when done.
  std::string config_digest;
};

std::string BisectStateToJson(const BisectState& state);
/// Refuses other schemas and damaged files, naming `source`.
Result<BisectState> BisectStateFromJson(std::string_view json, std::string_view source);

Result<BisectState> LoadBisectState(const std::filesystem::path& path);
Status SaveBisectState(const std::filesystem::path& path, const BisectState& state);

}  // namespace culprit
