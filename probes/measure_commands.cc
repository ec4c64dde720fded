#include "probes/measure_commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/strings.h"
#include "engine/cachegrind.h"
#include "overrides/override_set.h"
#include "probes/measurer.h"
#include "probes/query_sample_source.h"
#include "probes/secondary_figures.h"
#include "probes/statistics.h"
#include "probes/summary.h"
#include "records/comparison_details.h"
#include "records/record_store.h"
#include "records/run_details.h"

namespace culprit {
namespace {

std::vector<std::string> BuildNotes(const ResolvedBuild& build, const QueryConfig& query,
                                    const ProbeSections& config) {
  std::vector<std::string> notes;
  if (query.adhoc) {
    // No engine and no working tree of one: what ran is the command, and where its records
    // went is worth saying once (there may be no culprit.toml to say it).
    notes.push_back(fmt::format(
        "an ad-hoc command, run as given from the current directory (no engine build); its "
        "records go to {}",
        config.records.dir.string()));
  } else if (build.tree.empty()) {
    notes.push_back(
        "measured the engine's working tree as it stands (it may hold uncommitted changes); "
        "give --rev to measure a committed build");
  }
  return notes;
}

// A query run on the working tree needs the artifacts built there: right after `culprit
// init` there are none, and every run would fail with "No such file or directory".
Status CheckWorktreeArtifacts(const QueryConfig& query, const ResolvedBuild& build) {
  if (query.adhoc || !build.tree.empty()) return {};
  for (const auto& [name, path] : build.context.artifacts) {
    bool used = false;
    for (const std::string& word : query.command) {
      used = used || word.find("{artifact:" + name + "}") != std::string::npos;
    }
    std::error_code ec;
    if (!used || std::filesystem::exists(path, ec)) continue;
    return Error::Usage(fmt::format("query '{}' runs {}, which the engine's working tree does "
                                    "not have: it is not built there",
                                    query.name, path.string()))
        .WithHint(
            "build it in the working tree with the [engine] build steps, or measure a committed "
            "build: --rev HEAD (culprit builds it in its cache)");
  }
  return {};
}

}  // namespace

Result<const QueryConfig*> SelectQuery(const EngineSections& config, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& [key, query] : config.queries) names.push_back(key);
  if (name.empty()) {
    if (config.queries.size() == 1) return &config.queries.begin()->second;
    if (config.queries.empty()) {
      return Error::Usage(fmt::format("{} defines no queries", config.file.string()))
          .WithHint("add a [queries.\"NAME\"] table with a command (see `culprit init`)");
    }
    return Error::Usage("several queries are configured; choose one with --query")
        .WithHint("queries: " + Join(names, ", "));
  }
  auto it = config.queries.find(name);
  if (it == config.queries.end()) {
    return Error::Usage(fmt::format("no query '{}' in {}{}", name, config.file.string(),
                                    DidYouMean(name, names)))
        .WithHint("queries: " + Join(names, ", "));
  }
  return &it->second;
}

Result<QueryConfig> WithMetricFlag(const QueryConfig& query, const MeasureFlags& flags) {
  if (!flags.metric) return query;
  std::optional<MetricRule::Kind> kind = ParseNamedMetric(*flags.metric);
  if (!kind) {
    const std::vector<std::string> names = NamedMetricNames();
    return Error::Usage(fmt::format("--metric {} is not a metric{}", *flags.metric,
                                    DidYouMean(*flags.metric, names)))
        .WithHint("metrics: " + Join(names, ", "));
  }
  QueryConfig measured = query;
  measured.metric = MetricRule{};
  measured.metric.kind = *kind;
  measured.unit = std::string(FixedMetricUnit(*kind).value_or("ms"));
  measured.better = MetricDirection::kLowerIsBetter;  // Time, memory, faults, switches.
  measured.better_note.clear();
  return measured;
}

Result<QueryConfig> SelectMeasuredQuery(const EngineSections& config, const std::string& name,
                                        const MeasureFlags& flags) {
  Result<const QueryConfig*> query = SelectQuery(config, name);
  if (!query) return query.error();
  return WithMetricFlag(**query, flags);
}

Result<SittingOptions> MakeSittingOptions(const MeasureConfig& measure, const QueryConfig& query,
                                          const MeasureFlags& flags) {
  MeasureConfig sitting = measure;
  sitting.band = flags.band.value_or(measure.band);
  sitting.min_pairs = flags.min_pairs.value_or(measure.min_pairs);
  sitting.max_pairs = flags.max_pairs.value_or(measure.max_pairs);
  sitting.warmup = flags.warmup.value_or(query.warmup.value_or(measure.warmup));
  if (std::optional<MeasureRule> broken = BrokenMeasureRule(sitting)) {
    switch (*broken) {
      case MeasureRule::kBand:
        return Error::Usage(
            fmt::format("--band {} is not in (0, 1); 0.05 means ±5%", sitting.band));
      case MeasureRule::kConfidence:
        // No flag sets it; the file's reader has checked it already.
        return Error::Usage(
            fmt::format("measure.confidence {} is not in (0, 1)", sitting.confidence));
      case MeasureRule::kMinPairs:
        return Error::Usage("--min-pairs must be at least 2");
      case MeasureRule::kMaxPairs:
        return Error::Usage(fmt::format("--max-pairs {} is above {}, the most one sitting takes",
                                        sitting.max_pairs, MeasureConfig::kMaxPairs));
      case MeasureRule::kPairOrder:
        return Error::Usage(fmt::format("--max-pairs {} is below min_pairs {}", sitting.max_pairs,
                                        sitting.min_pairs));
      case MeasureRule::kWarmup:
        return Error::Usage("--warmup must be 0 or more");
    }
  }
  SittingOptions options;
  options.band = sitting.band;
  options.confidence = sitting.confidence;
  options.min_pairs = sitting.min_pairs;
  options.max_pairs = sitting.max_pairs;
  options.warmup = sitting.warmup;
  options.calibrate_between_looks = sitting.calibrate_between_looks;
  options.seed = flags.seed.value_or(0);
  options.near_deterministic = IsNearDeterministicMetric(query.metric.kind);
  return options;
}

Status RequireMetricSource(MetricRule::Kind kind, const InstructionSourceChoice& instructions,
                           std::optional<std::string_view> search_path) {
  const bool instruction_count = kind == MetricRule::Kind::kInstructions;
  if (!IsCachegrindMetric(kind)) return {};
  if (instruction_count && instructions.source == MetricSource::kPerfEvent) return {};
  Result<std::filesystem::path> valgrind = FindValgrind(kind, "valgrind", search_path);
  if (valgrind) return {};
  const std::string install = "install it: apt install valgrind (scripts/install-deps does)";
  if (!instruction_count) {
    return valgrind.error().WithHint(
        install + "; simulated cache misses come from cachegrind on every host, counters or not");
  }
  if (instructions.forced) {
    return valgrind.error().WithHint(fmt::format(
        "{}, or unset {} ({} chose cachegrind) to count with a hardware counter where one "
        "opens",
        install, kInstructionsSourceVariable, instructions.why));
  }
  return valgrind.error().WithHint(
      fmt::format("{}; no hardware instruction counter opens here ({}) to count instructions "
                  "instead",
                  install, instructions.why));
}

ComparisonArm MakeComparisonArm(std::string name, std::string label, ProcessArm process,
                                const ResolvedBuild& build) {
  ComparisonArm arm;
  arm.name = std::move(name);
  arm.label = std::move(label);
  arm.process = std::move(process);
  arm.revision = build.revision;
  arm.commit = build.commit;
  arm.tree = build.tree;
  return arm;
}

Result<ProcessArm> MakeQueryArm(const EngineSections& config, const QueryConfig& query,
                                const ResolvedBuild& build,
                                const std::map<std::string, std::string>& set,
                                const std::vector<std::string>& unset) {
  ProcessArm arm;
  Result<std::vector<std::string>> argv = ExpandCommand(query.command, build.context);
  if (!argv) return argv.error().WithContext(fmt::format("query '{}'", query.name));
  arm.process.argv = std::move(*argv);
  if (query.cwd.empty()) {
    arm.process.cwd = config.base_dir;
  } else {
    Result<std::string> cwd = ExpandPlaceholders(query.cwd, build.context);
    if (!cwd) return cwd.error().WithContext(fmt::format("query '{}' cwd", query.name));
    arm.process.cwd = *cwd;
  }
  // The query's own env, then the overrides; what is unset is also removed
  // from the environment the child inherits.
  OverrideSet overrides;
  overrides.set = set;
  overrides.unset = unset;
  arm.process.set_env = ApplyOverrides(overrides, query.env);
  arm.process.unset_env = unset;
  arm.process.timeout = query.timeout;
  arm.process.placement = config.measured_runs;
  arm.metric = query.metric;
  // A metric counted under valgrind needs valgrind: said before any run, not by every run.
  // Instructions need it only where no hardware counter counts them.
  if (IsCachegrindMetric(arm.metric.kind)) {
    CULPRIT_TRY(RequireMetricSource(arm.metric.kind, HostInstructionSource()));
  }
  return arm;
}

Result<ComparisonOutcome> RunProbe(const MeasureContext& context, const ProbeRequest& request) {
  const ProbeSections& config = context.config;
  Result<QueryConfig> query = SelectMeasuredQuery(config, request.query, request.flags);
  if (!query) return query.error();
  Result<SittingOptions> options = MakeSittingOptions(config.measure, *query, request.flags);
  if (!options) return options.error();

  Result<OverrideSet> overrides =
      BuildOverrideSet(request.overrides, request.unsets, config.overrides);
  if (!overrides) return overrides.error();
  if (overrides->empty()) {
    return Error::Usage("a probe needs something to override")
        .WithHint("give --override K=V, --unset K, or the name of an [overrides] set");
  }

  Result<ResolvedBuild> build = context.builds.Resolve(request.revision);
  if (!build) return build.error();
  CULPRIT_TRY(CheckWorktreeArtifacts(*query, *build));
  Result<ProcessArm> arm_a = MakeQueryArm(config, *query, *build, {}, {});
  if (!arm_a) return arm_a.error();
  Result<ProcessArm> arm_b = MakeQueryArm(config, *query, *build, overrides->set, overrides->unset);
  if (!arm_b) return arm_b.error();

  ComparisonPlan plan;
  plan.kind = RecordKind::kProbe;
  plan.query = query->name;
  plan.unit = query->unit;
  plan.better = query->better;
  plan.better_note = query->better_note;
  plan.hypothesis = overrides->hypothesis;
  if (!request.hypothesis.empty()) {
    plan.hypothesis =
        plan.hypothesis.empty() ? request.hypothesis : plan.hypothesis + "; " + request.hypothesis;
  }
  plan.a = MakeComparisonArm("default", "default", *arm_a, *build);
  plan.b = MakeComparisonArm(overrides->Label(), overrides->Label(), *arm_b, *build);
  plan.b.env = overrides->set;
  plan.b.unset = overrides->unset;
  plan.options = *options;
  plan.config_digest = config.digest;
  plan.notes = BuildNotes(*build, *query, config);
  if (!overrides->names.empty()) {
    ComparisonDetails details;
    details.override_sets = overrides->names;
    details.WriteTo(&plan.details);
  }

  QuerySampleSource source({*arm_a, *arm_b});
  RecordStore store(config.records);
  return RunComparison(plan, source, context.host, store, context.progress);
}

Result<ComparisonOutcome> RunCompare(const MeasureContext& context, const CompareRequest& request) {
  const ProbeSections& config = context.config;
  if (!request.names.empty() && request.names.size() != 2) {
    return Error::Usage(fmt::format("--name was given {}: name both arms or neither",
                                    CountOf(request.names.size(), "time")))
        .WithHint("culprit compare v1.0 v1.3 --name before --name after");
  }
  Result<QueryConfig> query = SelectMeasuredQuery(config, request.query, request.flags);
  if (!query) return query.error();
  Result<SittingOptions> options = MakeSittingOptions(config.measure, *query, request.flags);
  if (!options) return options.error();

  Result<ResolvedBuild> build_a = context.builds.Resolve(request.revision_a);
  if (!build_a) return build_a.error();
  CULPRIT_TRY(CheckWorktreeArtifacts(*query, *build_a));
  Result<ResolvedBuild> build_b = context.builds.Resolve(request.revision_b);
  if (!build_b) return build_b.error();
  CULPRIT_TRY(CheckWorktreeArtifacts(*query, *build_b));
  QueryMeasurer processes(config);
  Measurer& measurer = context.measurer != nullptr ? *context.measurer : processes;
  Result<PairedRuns> runs = measurer.Pair(*query, *build_a, *build_b);
  if (!runs) return runs.error();

  ComparisonPlan plan;
  plan.kind = request.kind;
  plan.query = query->name;
  plan.unit = query->unit;
  plan.better = query->better;
  plan.better_note = query->better_note;
  plan.a = MakeComparisonArm("A", request.names.empty() ? request.revision_a : request.names[0],
                             runs->a, *build_a);
  plan.b = MakeComparisonArm("B", request.names.empty() ? request.revision_b : request.names[1],
                             runs->b, *build_b);
  plan.options = *options;
  plan.config_digest = config.digest;
  plan.links = request.links;
  if (build_a->commit == build_b->commit && !build_a->commit.empty()) {
    plan.notes.push_back("both revisions are the same commit: this sitting measures noise");
  }

  RecordStore store(config.records);
  return RunComparison(plan, *runs->source, context.host, store, context.progress);
}

Result<RunOutcome> RunQuery(const MeasureContext& context, const RunRequest& request) {
  const ProbeSections& config = context.config;
  Result<QueryConfig> query = SelectMeasuredQuery(config, request.query, request.flags);
  if (!query) return query.error();
  Result<SittingOptions> options = MakeSittingOptions(config.measure, *query, request.flags);
  if (!options) return options.error();
  const int samples = request.samples > 0 ? request.samples : options->min_pairs;

  Result<ResolvedBuild> build = context.builds.Resolve(request.revision);
  if (!build) return build.error();
  CULPRIT_TRY(CheckWorktreeArtifacts(*query, *build));
  Result<ProcessArm> arm = MakeQueryArm(config, *query, *build, {}, {});
  if (!arm) return arm.error();

  QuerySampleSource source({*arm});
  RunOutcome outcome;
  outcome.sitting =
      RunSingleArmSitting(source, context.host, options->warmup, samples, context.progress);

  ComparisonPlan plan;
  plan.kind = RecordKind::kRun;
  plan.query = query->name;
  plan.unit = query->unit;
  plan.better = query->better;
  plan.better_note = query->better_note;
  plan.a = MakeComparisonArm(build->revision, build->revision, *arm, *build);
  plan.options = *options;
  plan.config_digest = config.digest;
  plan.notes = BuildNotes(*build, *query, config);
  HostIdentity identity;
  if (context.host) identity = context.host->Identity();
  Record record = MakeComparisonRecord(plan, outcome.sitting, identity);
  record.arms.resize(1);  // one arm: MakeComparisonRecord always builds two
  record.band = 0;
  std::vector<double> values;
  for (const Sample& s : outcome.sitting.samples) {
    if (s.ok && !s.warmup) values.push_back(s.value);
  }
  if (!values.empty()) {
    RunDetails details;
    details.median = Median(values);
    details.min = *std::min_element(values.begin(), values.end());
    details.max = *std::max_element(values.begin(), values.end());
    details.mad = MedianAbsoluteDeviation(values);
    // What the kernel counted of the same runs, whatever the metric (a run has no pairs, so
    // no secondary ratios: their medians).
    details.resources = FormatResourceMedians(outcome.sitting.samples, 0);
    details.WriteTo(&record.details);
  }
  if (outcome.sitting.failure) {
    record.verdict = Verdict::kError;
    record.verdict_detail = outcome.sitting.failure->message();
  }
  RecordStore store(config.records);
  Result<std::filesystem::path> path = store.Write(record);
  if (!path) return path.error().WithContext("archiving the result");
  outcome.record = std::move(record);
  outcome.record_path = *path;
  return outcome;
}

std::string FormatRunSummary(const RunOutcome& outcome) {
  const Record& r = outcome.record;
  const Arm& arm = r.arms.at(0);
  const RunDetails details = RunDetails::FromRecord(r);
  std::string out;
  if (arm.ok_samples > 0) {
    out = fmt::format("{}  {}  median {} {}  (n={}, min {}, max {}, MAD {})\n", r.query, arm.label,
                      FormatRunFigure(details.median), r.unit, arm.ok_samples,
                      FormatRunFigure(details.min), FormatRunFigure(details.max),
                      FormatRunFigure(details.mad));
  } else {
    out = fmt::format("{}  {}  no successful samples\n", r.query, arm.label);
  }
  if (!details.resources.value_or("").empty()) {
    out += fmt::format("  resources (medians): {}\n", *details.resources);
  }
  if (arm.failed_samples > 0) out += fmt::format("  {} samples failed\n", arm.failed_samples);
  out += FormatHostDrift(r.start, r.end) + "\n";
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  out += "record " + outcome.record_path.string() + "\n";
  return out;
}

}  // namespace culprit
