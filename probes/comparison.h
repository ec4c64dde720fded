#pragma once

// A comparison is a sitting plus its archive record: probe, compare, a bisect
// step and judge are all comparisons of two arms and share this code, so they
// measure, decide and archive identically.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/metric_direction.h"
#include "base/result.h"
#include "probes/host.h"
#include "probes/query_sample_source.h"
#include "probes/sitting.h"
#include "probes/slow_run_bursts.h"
#include "records/record.h"
#include "records/record_store.h"

namespace culprit {

/// One side of a comparison, as it is recorded.
struct ComparisonArm {
  std::string name;   ///< "A"/"B", or "default"/"PARALLEL=1" for probes.
  std::string label;  ///< Shown in output columns.
  ProcessArm process;
  std::string revision, commit, tree;
  std::map<std::string, std::string> env;  ///< The overrides this arm applies (not the whole env).
  std::vector<std::string> unset;
  std::string condition;
};

/// What to compare and how to record it.
struct ComparisonPlan {
  RecordKind kind = RecordKind::kCompare;
  std::string query;
  std::string unit = "ms";
  /// Which way the metric is better, and the note when that was inferred (QueryConfig's).
  MetricDirection better = MetricDirection::kLowerIsBetter;
  std::string better_note;
  std::string hypothesis;
  ComparisonArm a, b;
  SittingOptions options;
  std::string config_digest;
  std::vector<std::string> links;
  std::map<std::string, std::string> details;
  std::vector<std::string> notes;
};

/// A finished comparison: the sitting, its record, and where it was archived.
struct ComparisonOutcome {
  SittingResult sitting;
  /// Slow runs that came in bursts in both arms (FindSlowRunBursts); its note is in the
  /// sitting's and the record's notes. nullopt: none found.
  std::optional<SlowRunBursts> bursts;
  Record record;
  std::filesystem::path record_path;  ///< In the archive, or the fallback file (archive_error).
  /// The archive refused the record at the end (disk full, directory gone):
  /// it was written to record_path outside the archive instead, if even that
  /// worked (else record_path is empty and the record exists only in memory).
  std::optional<Error> archive_error;
};

/// Builds the record of a sitting (pure: no I/O).
Record MakeComparisonRecord(const ComparisonPlan& plan, const SittingResult& sitting,
                            const HostIdentity& host);

/// Looks for slow runs that came in bursts in both arms of `outcome`'s sitting
/// (FindSlowRunBursts, with plan's band and direction): sets outcome.bursts and adds its note
/// to the sitting's notes, before the record is made. Every paired sitting that makes a
/// comparison record calls it once.
void NoteSlowRunBursts(const ComparisonPlan& plan, ComparisonOutcome& outcome);

/// Runs the sitting with `source` (arm 0 = plan.a, 1 = plan.b) and archives it,
/// whatever happened: a broken arm, a NULL, an interrupted sitting are all
/// records. An archive that is not writable is an error before anything is
/// measured; one that fails at the end does not lose the result: the outcome
/// carries archive_error and the record is in a fallback file. Use
/// OutcomeStatus to turn a broken, interrupted or unarchived sitting into an
/// error after showing the result.
Result<ComparisonOutcome> RunComparison(const ComparisonPlan& plan, SampleSource& source,
                                        const HostProbe* host, RecordStore& store,
                                        SittingProgress* progress);

/// Error when the sitting failed (its arms kept failing) or was interrupted,
/// naming the record that holds what was measured, or when the record could
/// not be archived (naming the fallback file).
Status OutcomeStatus(const ComparisonOutcome& outcome);

}  // namespace culprit
