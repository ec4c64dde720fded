#pragma once

// A comparison is a sitting plus its archive record: probe, compare, a bisect
// step and judge are all comparisons of two arms and share this code, so they
// measure, decide and archive identically.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "probes/host.h"
#include "probes/query_sample_source.h"
#include "probes/sitting.h"
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
  std::string kind;  ///< "probe", "compare", "bisect-step", ...
  std::string query;
  std::string unit = "ms";
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
  Record record;
  std::filesystem::path record_path;
};

/// Builds the record of a sitting (pure: no I/O).
Record MakeComparisonRecord(const ComparisonPlan& plan, const SittingResult& sitting,
                            const HostIdentityInfo& host);

/// Runs the sitting with `source` (arm 0 = plan.a, 1 = plan.b) and archives it,
/// whatever happened: a broken arm, a NULL, an interrupted sitting are all
/// records. Only a failure to write the record is an error here; use
/// OutcomeStatus to turn a broken or interrupted sitting into one.
Result<ComparisonOutcome> RunComparison(const ComparisonPlan& plan, SampleSource& source,
                                        const HostProbe* host, RecordStore& store,
                                        SittingProgress* progress);

/// Error when the sitting failed (its arms kept failing) or was interrupted,
/// naming the record that holds what was measured.
Status OutcomeStatus(const ComparisonOutcome& outcome);

/// Host identity in the record's terms.
HostIdentity ToRecordHostIdentity(const HostIdentityInfo& identity);

}  // namespace culprit
