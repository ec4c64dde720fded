#pragma once

// The measuring commands as library calls: `culprit run`, `culprit probe` and
// `culprit compare`. Each takes the loaded configuration and a typed request
// (the command line fills it; nothing here knows the command-line library),
// measures in one sitting, archives a record and returns the outcome.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/metric_source.h"
#include "probes/build_provider.h"
#include "probes/comparison.h"
#include "probes/host.h"
#include "probes/measure_options.h"
#include "probes/probe_sections.h"

namespace culprit {

/// Command-line adjustments of [measure], checked by the same rule as the file
/// (BrokenMeasureRule).
struct MeasureFlags {
  std::optional<double> band;
  std::optional<int> min_pairs, max_pairs, warmup;
  std::optional<uint64_t> seed;
  /// `--metric NAME`: measure by this named metric (engine/metric.h's kNamedMetrics: wall,
  /// cpu, max_rss, ...) instead of the query's own, for this command only.
  std::optional<std::string> metric;
};

class Measurer;

/// What every measuring command needs besides its request.
struct MeasureContext {
  const ProbeSections& config;
  BuildProvider& builds;
  const HostProbe* host = nullptr;  ///< Null: no host state (tests).
  SittingProgress* progress = nullptr;
  /// Where RunCompare's samples come from: null, the query's processes (QueryMeasurer);
  /// else this one, e.g. the investigation's, so that its step 1 runs on a scripted world as
  /// the bisect does. The other commands run the query's processes their own way.
  Measurer* measurer = nullptr;
};

/// The query named `name`, or the only query when `name` is empty; usage error
/// listing the queries (with did-you-mean) otherwise.
Result<const QueryConfig*> SelectQuery(const EngineSections& config, const std::string& name);

/// `query` as the flags measure it: with --metric, its metric rule is the named one and its
/// unit that metric's (a resource figure's fixed unit; "ms" for wall), lower is better, and a
/// query whose metric the engine prints gets the figure of its process instead. Without
/// --metric, `query` as it is. Usage error for a name that is not a metric (did-you-mean).
Result<QueryConfig> WithMetricFlag(const QueryConfig& query, const MeasureFlags& flags);

/// SelectQuery, then WithMetricFlag: the query a measuring command measures.
Result<QueryConfig> SelectMeasuredQuery(const EngineSections& config, const std::string& name,
                                        const MeasureFlags& flags);

/// [measure] with the query's warm-up and the flags applied, checked with
/// BrokenMeasureRule; a broken rule is worded by the flag that broke it.
Result<SittingOptions> MakeSittingOptions(const MeasureConfig& measure, const QueryConfig& query,
                                          const MeasureFlags& flags);

/// The process and metric of `query` for one arm's build, with `set`/`unset`
/// applied on top of the query's own env.
Result<ProcessArm> MakeQueryArm(const EngineSections& config, const QueryConfig& query,
                                const ResolvedBuild& build,
                                const std::map<std::string, std::string>& set,
                                const std::vector<std::string>& unset);

/// Whether `kind` can be counted on this host, said before any run: a metric that valgrind's
/// cachegrind counts needs valgrind, found on `search_path` (a PATH value; nullopt:
/// culprit's own). ll_misses and d1_misses always do; instructions only when `instructions`
/// (MakeQueryArm passes HostInstructionSource()) chose cachegrind, and then the hint says
/// why counters are not used (their errno, or CULPRIT_INSTRUCTIONS=cachegrind). Ok for every
/// other metric, and for instructions counted by a hardware counter.
Status RequireMetricSource(MetricRule::Kind kind, const InstructionSourceChoice& instructions,
                           std::optional<std::string_view> search_path = std::nullopt);

/// One arm of a comparison plan: `process` measured on `build`, whose
/// revision, commit and tree the record will carry.
ComparisonArm MakeComparisonArm(std::string name, std::string label, ProcessArm process,
                                const ResolvedBuild& build);

struct ProbeRequest {
  std::string query;
  std::optional<std::string> revision;
  std::vector<std::string> overrides;  ///< K=V or named sets.
  std::vector<std::string> unsets;
  std::string hypothesis;  ///< Added to (or instead of) the named sets'.
  MeasureFlags flags;
};

/// Same build, default environment (arm A) vs overridden (arm B), one sitting.
Result<ComparisonOutcome> RunProbe(const MeasureContext& context, const ProbeRequest& request);

struct CompareRequest {
  std::string revision_a, revision_b;
  std::string query;
  MeasureFlags flags;
  /// `--name A --name B`: what the arms are called in the record and every report, instead
  /// of the revisions as given; empty, or exactly two.
  std::vector<std::string> names;
  RecordKind kind = RecordKind::kCompare;  ///< Other commands reuse compare.
  std::vector<std::string> links;
};

/// Two builds interleaved in one sitting: ratio of B over A, the samples drawn from
/// `context.measurer` (the query's processes when null).
Result<ComparisonOutcome> RunCompare(const MeasureContext& context, const CompareRequest& request);

struct RunRequest {
  std::string query;
  std::optional<std::string> revision;
  int samples = 0;  ///< 0: [measure] min_pairs.
  MeasureFlags flags;
};

struct RunOutcome {
  SittingResult sitting;
  Record record;
  std::filesystem::path record_path;
};

/// One arm: warm-up, samples, median and spread, calibration, record.
Result<RunOutcome> RunQuery(const MeasureContext& context, const RunRequest& request);

/// "series.count  worktree  median 84.4 ms  (n=10, min 83.0, max 88.1, MAD 0.9) ..." lines.
std::string FormatRunSummary(const RunOutcome& outcome);

}  // namespace culprit
