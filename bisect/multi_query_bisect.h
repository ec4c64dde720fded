#pragma once

// `culprit bisect run -q A -q B ...` (or `--from-table RECORD`): several queries bisected
// over one range, one after another, each a whole bisect of its own (BisectRunner::Run:
// confirmation, search, verification, decomposition, merge descents; its own state, steps
// and `bisect` record). The build cache is shared, so a commit built for one query is not
// built again for the next. A queue file beside the bisect state (bisect/bisect_queue.h)
// keeps the finished queries' results: a query whose bisect fails is reported as failed and
// the others still run; Ctrl-C stops the whole, and `culprit bisect resume` continues it.
// What the whole says is bisect/multi_query_report.h's, pure.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "bisect/bisect_queue.h"
#include "bisect/bisect_runner.h"
#include "records/multi_bisect_payload.h"
#include "records/record.h"

namespace culprit {

struct MultiBisectRequest {
  /// The range and the options every query's bisect starts with; its query is not used.
  BisectRequest request;
  std::vector<std::string> queries;
  /// The id (or a unique prefix) of a `table` record: its queries with a cell that moved
  /// (EFFECT against the baseline) are bisected too, after `queries`.
  std::string from_table;
};

struct MultiBisectReport {
  MultiBisectFacts facts;
  /// Every query's own report as this process ran it (a resumed bisect's earlier queries
  /// are in their records), then the summary of the whole.
  std::string text;
  std::filesystem::path record_path;
  int exit_code = 0;  ///< MultiBisectExitCode.
};

/// BisectDir/bisect-queue.json.
std::filesystem::path BisectQueuePath(const BisectSections& config);
/// Whether a multi-query bisect is saved and not finished (`bisect resume` continues it).
bool MultiBisectPending(const BisectSections& config);

/// The queries of a `table` record with a cell that moved against its row's baseline
/// (verdict EFFECT), in the table's row order; an error for a record of another kind or
/// without a table.
Result<std::vector<std::string>> QueriesThatMoved(const Record& table);

class MultiQueryBisect {
 public:
  /// `runner` and `reporter` must outlive this.
  MultiQueryBisect(const BisectSections& config, BisectRunner& runner, BisectReporter& reporter);

  /// Starts a bisect of every query of `request`; an unfinished bisect (of one query or of
  /// several) is an error that says to resume or reset it.
  Result<MultiBisectReport> Run(const MultiBisectRequest& request);
  /// Continues the saved multi-query bisect: the query that was running is resumed where it
  /// stopped, then the ones not run yet.
  Result<MultiBisectReport> Resume();

 private:
  Result<MultiBisectReport> Continue(BisectQueue queue, bool resuming);
  /// Query `i` of `queue`: resumed when `resuming` and its bisect was saved unfinished (or
  /// finished and not yet noted), else started.
  Result<MultiBisectQueryFacts> OneQuery(const BisectQueue& queue, size_t i, bool resuming,
                                         std::string& text);
  /// The unfinished state a failed query's bisect left, moved aside so that the next query
  /// can start; where it went, or "" when there was none.
  std::string SetAsideFailedState(const std::string& query, size_t i);
  Result<MultiBisectReport> Finish(BisectQueue& queue, std::string text);

  const BisectSections& config_;
  BisectRunner& runner_;
  BisectReporter& reporter_;
};

}  // namespace culprit
