#include "probes/isolate_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/median.h"
#include "base/strings.h"
#include "engine/cachegrind.h"
#include "probes/comparison.h"
#include "probes/isolation_simulated.h"
#include "probes/summary.h"
#include "records/record_store.h"

namespace culprit {
namespace {

/// The simulated figures, one line per condition: the median count per run, the samples'
/// range, and the ratio to the baseline's median.
std::string FormatSimulated(const IsolateOutcome& outcome) {
  const SimulatedIsolation& s = *outcome.result.simulated;
  std::string out = fmt::format(
      "{} per run of {}, simulated (cachegrind{}, --fair-sched=yes): per sample, a fresh "
      "harness process "
      "[set-up, {} settling, {} runs] minus one [set-up, {} settling], divided by {}; "
      "secondary, never a verdict\n",
      NamedMetricName(s.kind), outcome.plan.query,
      s.valgrind_version.empty() ? "" : ", " + s.valgrind_version, s.settle_runs, s.runs,
      s.settle_runs, s.runs);
  out += fmt::format("  {:<24} {:>14} {:>26}  {}\n", "condition", "median", "samples (min..max)",
                     "vs baseline");
  std::optional<double> base;
  for (size_t c = 0; c < s.values.size(); ++c) {
    const std::vector<double>& v = s.values[c];
    std::string median = "-", range = "-", vs = c == 0 ? "baseline" : "-";
    if (!v.empty()) {
      const double m = Median(v);
      if (c == 0 && m > 0) base = m;
      median = fmt::format("{:.0f}", m);
      range = fmt::format("{} ({:.0f}..{:.0f})", v.size(), *std::min_element(v.begin(), v.end()),
                          *std::max_element(v.begin(), v.end()));
      if (c > 0 && base && m > 0) vs = fmt::format("x{:.3f}", m / *base);
    }
    out += fmt::format("  {:<24} {:>14} {:>26}  {}\n", outcome.plan.conditions[c].name, median,
                       range, vs);
  }
  if (!s.failure.empty()) out += "  stopped: " + s.failure + "\n";
  return out;
}

std::vector<std::string> PlanNames(const ProbeSections& config) {
  std::vector<std::string> names;
  for (const auto& [name, plan] : config.residency) names.push_back("'" + name + "'");
  return names;
}

}  // namespace

Result<std::optional<SimulatedIsolationOptions>> MakeSimulationOptions(
    const IsolateRequest& request, std::optional<std::string_view> search_path) {
  if (request.simulate.empty()) return std::optional<SimulatedIsolationOptions>();
  std::optional<MetricRule::Kind> kind = ParseNamedMetric(request.simulate);
  if (!kind || !IsCachegrindMetric(*kind)) {
    return Error::Usage(
               fmt::format("--simulate {}: not a metric cachegrind counts", request.simulate))
        .WithHint("--simulate ll_misses, d1_misses or instructions");
  }
  if (request.simulate_samples < 1 || request.simulate_samples > 100) {
    return Error::Usage(
        fmt::format("--simulate-samples {} is not in 1..100", request.simulate_samples));
  }
  Result<std::filesystem::path> valgrind = FindValgrind(*kind, "valgrind", search_path);
  if (!valgrind) {
    return valgrind.error().WithContext(
        fmt::format("--simulate {} needs valgrind", request.simulate));
  }
  SimulatedIsolationOptions options;
  options.kind = *kind;
  options.samples = request.simulate_samples;
  options.runs = request.runs_per_visit;
  options.valgrind = *valgrind;
  Result<std::string> version = ValgrindVersion(*valgrind);
  if (version) options.valgrind_version = *version;
  return std::optional<SimulatedIsolationOptions>(options);
}

Result<const ResidencyPlan*> SelectPlan(const ProbeSections& config, const std::string& name,
                                        const std::string& query) {
  if (config.residency.empty()) {
    return Error::Usage(fmt::format("{} defines no residency plan", config.file.string()))
        .WithHint(
            "add a [residency.\"NAME\"] table with a query and conditions (see "
            "docs/usage.md) and a [harness] command");
  }
  const std::string plans = "plans: " + Join(PlanNames(config), ", ");
  if (!name.empty()) {
    auto it = config.residency.find(name);
    if (it == config.residency.end()) {
      std::vector<std::string> keys;
      for (const auto& [key, plan] : config.residency) keys.push_back(key);
      return Error::Usage(fmt::format("no residency plan '{}' in {}{}", name, config.file.string(),
                                      DidYouMean(name, keys)))
          .WithHint(plans);
    }
    return &it->second;
  }
  if (config.residency.size() == 1) return &config.residency.begin()->second;
  const ResidencyPlan* found = nullptr;
  int matches = 0;
  for (const auto& [key, plan] : config.residency) {
    if (!query.empty() && plan.query == query) {
      found = &plan;
      ++matches;
    }
  }
  if (matches == 1) return found;
  return Error::Usage("several residency plans are configured; choose one with --plan")
      .WithHint(plans);
}

Result<ProcessSpec> MakeHarnessSpec(const ProbeSections& config, const ResolvedBuild& build) {
  if (config.harness.command.empty()) {
    return Error::Usage(fmt::format("{} has no [harness] command", config.file.string()))
        .WithHint(
            "add [harness] command = [...], the argv that starts the engine speaking the "
            "harness protocol (docs/harness.md)");
  }
  Result<std::vector<std::string>> argv = ExpandCommand(config.harness.command, build.context);
  if (!argv) return argv.error().WithContext("[harness] command");
  ProcessSpec spec;
  spec.argv = std::move(*argv);
  spec.cwd = config.base_dir;
  return spec;
}

namespace {

// The sitting's options for a plan: [measure]'s (with the command's flags) and the plan's own
// budget, unless --max-pairs gave one for this run.
Result<IsolationOptions> MakeIsolationOptions(const ResidencyPlan& plan,
                                              const SittingOptions& sitting,
                                              const IsolateRequest& request) {
  IsolationOptions options;
  options.warmup = sitting.warmup;
  options.runs_per_visit = request.runs_per_visit;
  options.min_rounds = sitting.min_pairs;
  options.max_rounds = sitting.max_pairs;
  if (plan.max_rounds > 0 && !request.flags.max_pairs) {
    if (plan.max_rounds < sitting.min_pairs) {
      return Error::Usage(
                 fmt::format("residency plan '{}' has max_rounds = {}, below the {} rounds of "
                             "the first look ([measure] min_pairs or --min-pairs)",
                             plan.name, plan.max_rounds, sitting.min_pairs))
          .WithHint("raise max_rounds, or lower min_pairs");
    }
    options.max_rounds = plan.max_rounds;
  }
  options.band = sitting.band;
  options.confidence = sitting.confidence;
  options.calibrate_between_looks = sitting.calibrate_between_looks;
  options.seed = sitting.seed;
  return options;
}

}  // namespace

Result<IsolateOutcome> RunIsolate(const MeasureContext& context, const IsolateRequest& request) {
  const ProbeSections& config = context.config;
  Result<const ResidencyPlan*> plan = SelectPlan(config, request.plan, request.query);
  if (!plan) return plan.error();
  auto query_config = config.queries.find((*plan)->query);
  if (query_config == config.queries.end()) {
    return Error::Usage(fmt::format("residency plan '{}' names query '{}', which is not configured",
                                    (*plan)->name, (*plan)->query));
  }
  CULPRIT_TRY(CheckInProcessMetric(query_config->second.metric.kind, query_config->first));
  Result<SittingOptions> sitting =
      MakeSittingOptions(config.measure, query_config->second, request.flags);
  if (!sitting) return sitting.error();
  if (request.runs_per_visit < 1 || request.runs_per_visit > 1000) {
    return Error::Usage(fmt::format("--runs {} is not in 1..1000 (runs of the query per visit)",
                                    request.runs_per_visit));
  }

  IsolateOutcome outcome;
  outcome.plan.name = (*plan)->name;
  outcome.plan.query = request.query.empty() ? (*plan)->query : request.query;
  outcome.plan.conditions = (*plan)->conditions;
  Result<IsolationOptions> isolation_options = MakeIsolationOptions(**plan, *sitting, request);
  if (!isolation_options) return isolation_options.error();
  outcome.options = *isolation_options;
  const IsolationOptions& options = outcome.options;
  Result<std::optional<SimulatedIsolationOptions>> simulation = MakeSimulationOptions(request);
  if (!simulation) return simulation.error();
  if (*simulation) (*simulation)->settle_runs = options.settle_runs;

  Result<ResolvedBuild> build = context.builds.Resolve(request.revision);
  if (!build) return build.error();
  Result<ProcessSpec> spec = MakeHarnessSpec(config, *build);
  if (!spec) return spec.error();
  Result<std::unique_ptr<HarnessClient>> harness =
      HarnessClient::Start(*spec, config.harness.timeout);
  if (!harness) return harness.error();

  outcome.result =
      RunIsolationSitting(**harness, outcome.plan, context.host, options, context.progress);
  harness->reset();  // the engine process is gone before the record is written
  if (*simulation && !outcome.result.failure && !outcome.result.interrupted) {
    // A process under valgrind runs tens of times slower than the engine; a hung one still
    // ends (its whole script within kValgrindTimeoutFactor [harness] timeouts).
    ProcessSpec simulated = *spec;
    simulated.timeout = kValgrindTimeoutFactor * config.harness.timeout;
    outcome.result.simulated =
        RunSimulatedIsolation(simulated, outcome.plan, **simulation, context.progress);
    if (outcome.result.simulated->failure == "interrupted") {
      // Ctrl-C exits 130 here too; the sitting's verdicts were complete and stand.
      outcome.result.interrupted = true;
      outcome.result.notes.push_back(
          "interrupted during --simulate, after the sitting had finished: its verdicts stand");
    }
  }

  IsolationProvenance provenance;
  provenance.revision = build->revision;
  provenance.commit = build->commit;
  provenance.tree = build->tree;
  provenance.command = spec->argv;
  provenance.config_digest = config.digest;
  if (build->tree.empty()) {
    provenance.notes.push_back(
        "measured the engine's working tree as it stands (it may hold uncommitted changes); "
        "give --rev to measure a committed build");
  }
  HostIdentity identity;
  if (context.host) identity = context.host->Identity();
  outcome.record = MakeIsolationRecord(outcome.plan, options, outcome.result, provenance, identity);
  RecordStore store(config.records);
  Result<std::filesystem::path> path = store.Write(outcome.record);
  if (!path) return path.error().WithContext("archiving the result");
  outcome.record_path = *path;
  return outcome;
}

Status IsolateStatus(const IsolateOutcome& outcome) {
  if (outcome.result.failure) {
    return outcome.result.failure->WithContext(
        fmt::format("the engine broke, so there is no verdict (partial record {})",
                    outcome.record_path.string()));
  }
  if (outcome.result.interrupted) {
    return Error::Interrupted(
        fmt::format("interrupted; what was measured is in {}", outcome.record_path.string()));
  }
  return {};
}

std::string FormatIsolateSummary(const IsolateOutcome& outcome) {
  const IsolationResult& r = outcome.result;
  const Record& record = outcome.record;
  std::string out = fmt::format(
      "isolate {}  plan '{}'  {} rounds (at most {}) x {} conditions, {} runs per visit, band "
      "±{:g}%\n",
      outcome.plan.query, outcome.plan.name, r.rounds_done, outcome.options.max_rounds,
      r.conditions.size(), outcome.options.runs_per_visit, outcome.options.band * 100);
  out += fmt::format("  {:<24} {:<28} {:>10} {:>10}  {:<26} {}\n", "condition", "held", "size",
                     "median ms", "vs baseline", "verdict");
  for (size_t c = 0; c < r.conditions.size(); ++c) {
    const ConditionOutcome& o = r.conditions[c];
    std::string held = o.condition.hold.empty() ? "-" : Join(o.condition.hold, ",");
    if (!o.condition.release.empty()) held += " (released)";
    uint64_t bytes = 0;
    bool sized = !o.condition.hold.empty();
    for (const std::string& h : o.condition.hold) {
      auto it = o.bytes.find(h);
      if (it == o.bytes.end()) {
        sized = false;
      } else {
        bytes += it->second;
      }
    }
    std::string vs = "baseline";
    std::string verdict;
    if (c > 0) {
      vs = o.shift ? FormatRatioInterval(std::exp(o.shift->estimate), std::exp(o.shift->low),
                                         std::exp(o.shift->high))
                   : "-";
      verdict = o.verdict ? std::string(VerdictName(o.verdict->verdict)) : "-";
      if (static_cast<int>(c) == r.suspect) verdict += "  (suspect)";
    }
    std::string median = c < record.arms.size() && record.arms[c].median > 0
                             ? fmt::format("{:.4g}", record.arms[c].median)
                             : "-";
    out += fmt::format("  {:<24} {:<28} {:>10} {:>10}  {:<26} {}\n", o.condition.name, held,
                       sized ? FormatBytes(bytes) : "", median, vs, verdict);
  }
  out += fmt::format("alpha {:.4g} per condition (Bonferroni over {} comparisons)\n",
                     r.condition_alpha, r.conditions.empty() ? 0 : r.conditions.size() - 1);
  out += "reversibility: " + std::string(ReversibilityName(r.reversibility.verdict)) + " (" +
         r.reversibility.sentence + ")\n";
  out += "conclusion: " + r.conclusion + "\n";
  if (r.simulated) out += FormatSimulated(outcome);
  out += FormatHostDrift(record.start, record.end) + "\n";
  for (const std::string& note : record.notes) out += "note: " + note + "\n";
  out += "record " + outcome.record_path.string() + "\n";
  return out;
}

Result<HarnessCheckReport> RunHarnessCheck(const MeasureContext& context,
                                           const HarnessCheckRequest& request) {
  const ProbeSections& config = context.config;
  HarnessCheckOptions options;
  options.query = request.query;
  for (const auto& [name, plan] : config.residency) {
    if (options.query.empty()) options.query = plan.query;
    for (const ResidencyCondition& c : plan.conditions) {
      for (const std::string& s : c.hold) {
        if (std::find(options.structures.begin(), options.structures.end(), s) ==
            options.structures.end()) {
          options.structures.push_back(s);
        }
      }
    }
  }
  if (options.query.empty()) {
    Result<const QueryConfig*> query = SelectQuery(config, "");
    if (!query) return query.error().WithHint("give the query the harness runs with -q");
    options.query = (*query)->name;
  }
  Result<ResolvedBuild> build = context.builds.Resolve(request.revision);
  if (!build) return build.error();
  Result<ProcessSpec> spec = MakeHarnessSpec(config, *build);
  if (!spec) return spec.error();
  options.spec = *spec;
  options.timeout = request.timeout.value_or(config.harness.timeout);
  return CheckHarness(options);
}

}  // namespace culprit
