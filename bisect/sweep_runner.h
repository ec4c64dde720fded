#pragma once

// `culprit sweep GOOD..BAD` as a library call: the range listed as the bisect
// lists it (first parent), the selected commits made the columns of one table
// sitting (probes/table_command.h: one build per commit serves every query,
// balanced blocks, calibration, the table's multiplicity), each query's series
// read from it and its changes located (bisect/sweep.h), and one `sweep` record
// archived that holds the sitting and the located changes
// (records/sweep_payload.h).

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "engine/history.h"
#include "probes/measure_commands.h"
#include "probes/table_command.h"
#include "records/record.h"
#include "records/sweep_payload.h"

namespace culprit {

struct SweepRequest {
  std::string good, bad;             ///< The range's ends (GOOD..BAD).
  std::vector<std::string> queries;  ///< -q; empty: every configured query.
  std::optional<int> every;          ///< --every K.
  std::optional<int> points;         ///< --points N (neither: 10 points).
  MeasureFlags flags;
};

struct SweepOutcome {
  TableOutcome table;  ///< The sitting; its record is not archived (the sweep's is).
  SweepFacts facts;
  Record record;
  std::filesystem::path record_path;
  std::optional<Error> archive_error;
};

/// "GOOD..BAD" as its two ends; a usage error for anything else (a missing end, "...").
Result<std::pair<std::string, std::string>> ParseSweepRange(const std::string& spec);

/// Lists the range (first parent, as the bisect does), selects the commits, measures them in
/// one table sitting against the start and locates each query's changes. Usage errors before
/// anything is built: an unknown revision, GOOD not an ancestor of BAD, a bad --every or
/// --points. A commit that does not build is a point not measured; the rest are kept.
Result<SweepOutcome> RunSweep(const MeasureContext& context, const History& history,
                              const SweepRequest& request);

/// Error after the sweep is shown: the archive refused the record, or it was interrupted.
Status SweepOutcomeStatus(const SweepOutcome& outcome);

}  // namespace culprit
