#include "investigate/demo.h"

#include <fmt/format.h>

#include "base/atomic_file.h"
#include "base/strings.h"
#include "bisect/bisect_runner.h"
#include "bisect/relevance.h"
#include "engine/process.h"
#include "investigate/config.h"
#include "probes/summary.h"

namespace culprit {
namespace {

class LineBisectReporter : public BisectReporter {
 public:
  explicit LineBisectReporter(DemoReporter& reporter) : reporter_(reporter) {}
  void Line(const std::string& text) override { reporter_.Line("  " + text); }

 private:
  DemoReporter& reporter_;
};

// Progress of a long sitting as plain lines, one per look, so the demo shows
// what it is doing even when its output goes to a file.
class LookProgress : public SittingProgress {
 public:
  explicit LookProgress(DemoReporter& reporter) : reporter_(reporter) {}
  void OnProgress(int done, int target, std::optional<double> ratio) override {
    // The target moves on exactly when a look was taken.
    if (target != target_ && ratio) {
      reporter_.Line(fmt::format("  look at {} pairs: ratio {:.3f}", done, *ratio));
    }
    target_ = target;
  }
  void OnPhase(const std::string& phase) override { reporter_.Line("  " + phase); }

 private:
  DemoReporter& reporter_;
  int target_ = 0;
};

std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

Status CreateHistory(const std::filesystem::path& examples, const std::filesystem::path& repo,
                     DemoReporter& reporter) {
  if (std::filesystem::exists(repo / ".git")) {
    reporter.Line(fmt::format("using the demo history already in {}", repo.string()));
    return {};
  }
  if (std::filesystem::exists(repo)) {
    return Error(fmt::format("{} exists but is not the demo's git repository", repo.string()))
        .WithHint("remove it, or give another --dir");
  }
  reporter.Line(fmt::format("creating the demo engine's history in {}", repo.string()));
  ProcessSpec spec;
  spec.argv = {(examples / "eventstore" / "make-history").string(), repo.string()};
  spec.timeout = std::chrono::minutes(5);
  ProcessResult result = RunProcess(spec);
  if (!result.ok()) {
    return Error(fmt::format("make-history {}: {}\n{}", result.Describe(spec),
                             repo.string(), TailLines(result.stderr_text, 10)));
  }
  return {};
}

}  // namespace

Result<DemoReport> RunDemo(const DemoOptions& options, DemoReporter& reporter) {
  DemoReport report;
  std::filesystem::path examples =
      options.examples_dir.empty() ? std::filesystem::path(CULPRIT_SOURCE_DIR) / "examples"
                                   : options.examples_dir;
  std::filesystem::path template_path = examples / "eventstore" / "culprit.toml.in";
  if (!std::filesystem::exists(template_path)) {
    return Error::Usage(fmt::format("the demo engine is not in {}", examples.string()))
        .WithHint("give culprit's examples/ directory with --examples");
  }
  std::error_code ec;
  std::filesystem::path work = std::filesystem::absolute(options.work_dir);
  std::filesystem::create_directories(work, ec);
  if (ec) return Error(fmt::format("cannot create {}: {}", work.string(), ec.message()));
  std::filesystem::path repo = work / "eventstore";

  reporter.Line("== culprit demo: why did series.count get slower between v1.0 and v1.3? ==");
  CULPRIT_TRY(CreateHistory(examples, repo, reporter));

  Result<std::string> config_text = ReadFile(template_path);
  if (!config_text) return config_text.error();
  std::string text = ReplaceAll(*config_text, "@DEMO_REPO@", repo.string());
  if (options.events > 0) {
    text = ReplaceAll(text, "\"1000000\"", fmt::format("\"{}\"", options.events));
  }
  // The demo keeps its builds beside it, so it never mixes with a user's cache.
  text += "\n[cache]\ndir = \"cache\"\n";
  report.config_path = work / "culprit.toml";
  CULPRIT_TRY(WriteFileAtomically(report.config_path, text));
  Result<Config> config = LoadConfig(report.config_path);
  if (!config) return config.error().WithContext("the demo's configuration");
  reporter.Line(fmt::format("configuration: {}", report.config_path.string()));
  // Each demo is a fresh investigation; earlier records stay in the archive.
  std::filesystem::remove(BisectStatePath(*config), ec);

  StderrBuildProgress build_progress;
  Result<std::unique_ptr<EngineBuilds>> builds =
      EngineBuilds::Open(*config, false, &build_progress);
  if (!builds) return builds.error();
  std::unique_ptr<HostProbe> host = MakeRealHostProbe();

  // 1. The plausible hypothesis, tested by override rather than believed.
  reporter.Line("");
  reporter.Line(fmt::format(
      "step 1: the recalibrated parallelism gate is the plausible suspect; force it at {} "
      "(culprit probe --override parallel_gate --rev {} --query {})",
      options.bad, options.bad, options.probe_query));
  LookProgress look_progress(reporter);
  MeasureContext context{*config, **builds, host.get(), &look_progress};
  ProbeRequest probe;
  probe.query = options.probe_query;
  probe.revision = options.bad;
  probe.overrides = {"parallel_gate"};
  Result<ComparisonOutcome> probed = RunProbe(context, probe);
  if (!probed) return probed.error().WithContext("probing the gate");
  CULPRIT_TRY(OutcomeStatus(*probed));
  report.probe_verdict = probed->record.verdict;
  reporter.Result(FormatComparisonSummary(*probed));
  if (report.probe_verdict == "NULL") {
    reporter.Result(
        "=> NULL: forcing the gate changes nothing measurable. Evidence against the gate "
        "hypothesis, archived.\n\n");
  } else {
    reporter.Result(fmt::format("=> {}: the gate hypothesis is not cleared on this host.\n\n",
                                report.probe_verdict));
  }

  // 2. Bisect, measuring the query the way the registry does.
  reporter.Line(fmt::format(
      "step 2: bisect {}..{} on {} (culprit bisect run --good {} --bad {} --query {})",
      options.good, options.bad, options.query, options.good, options.bad, options.query));
  LineBisectReporter bisect_reporter(reporter);
  BisectRunner runner(*config, **builds, host.get(), bisect_reporter);
  BisectRequest request;
  request.good = options.good;
  request.bad = options.bad;
  request.query = options.query;
  Result<BisectReport> bisected = runner.Run(request);
  if (!bisected) return bisected.error().WithContext("bisecting");
  reporter.Result(bisected->text);
  if (!bisected->found) {
    reporter.Result("=> the bisect named no culprit on this host; see the record above.\n");
    return report;
  }
  const SearchOutcome& outcome = bisected->outcome;
  report.culprit_commit = bisected->state.commits[outcome.last];
  if (Result<CommitInfo> info = (*builds)->repo().Commit(report.culprit_commit)) {
    report.culprit_subject = info->subject;
  }
  if (Result<std::vector<std::string>> changed =
          (*builds)->repo().ChangedFiles(report.culprit_commit)) {
    report.changed_files = *changed;
  }

  // 3. Is the culprit on the query's code path?
  const QueryConfig& query = config->queries.at(options.query);
  Relevance relevance = CheckRelevance(report.changed_files, query.code_path);
  report.culprit_on_code_path = relevance.relevant();
  std::string verdict;
  if (!relevance.known) {
    verdict = "the query has no code_path: relevance unknown";
  } else if (relevance.relevant()) {
    verdict = "it changes the query's code path: " + Join(relevance.on_path, ", ");
  } else {
    verdict = fmt::format(
        "it touches nothing on {}'s code path ({}): a commit that cannot slow a scan, unless "
        "something it keeps alive does. Next: residency isolation (the `[residency]` plan in "
        "{}) measures the query with the index held and released in one process.",
        options.query, Join(query.code_path, ", "), report.config_path.string());
  }
  reporter.Result(fmt::format("\n=> culprit {} \"{}\"\n   {}\n", ShortCommit(report.culprit_commit),
                              report.culprit_subject, verdict));
  return report;
}

}  // namespace culprit
