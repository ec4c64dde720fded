// bisect, judge and demo: the commands that build and search history.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <functional>

#include "base/exit_codes.h"
#include "bisect/bisect_runner.h"
#include "bisect/judge.h"
#include "bisect/multi_query_bisect.h"
#include "cli/command_options.h"
#include "cli/commands.h"
#include "cli/engine_opening.h"
#include "cli/stderr_build_progress.h"
#include "cli/stream_reporter.h"
#include "cli/terminal_progress.h"
#include "investigate/demo.h"
#include "probes/summary.h"

namespace culprit {
namespace {

// Step lines on stderr and, on a terminal, each sitting's live progress line (as `probe`
// shows), cleared before every step line and before the report.
class StderrBisectReporter : public BisectReporter {
 public:
  void Line(const std::string& text) override {
    progress_.Finish();
    fmt::print(stderr, "{}\n", text);
    std::fflush(stderr);
  }
  SittingProgress* StartSitting(const std::string& label) override {
    progress_.Restart(label);
    return &progress_;
  }
  void Finish() { progress_.Finish(); }

 private:
  TerminalProgress progress_{"bisect"};
};

Result<int> PrintBisectReport(const Result<BisectReport>& report) {
  if (!report) return report.error();
  fmt::print("{}", report->text);
  return report->found ? kExitOk : kExitBisectNothingFound;
}

// What a bisect of several queries prints: every query's report and the summary of the whole.
Result<int> PrintMultiBisectReport(const Result<MultiBisectReport>& report) {
  if (!report) return report.error();
  fmt::print("{}", report->text);
  return report->exit_code;
}

using BisectUse = std::function<Result<int>(const Config&, BisectRunner&, StderrBisectReporter&)>;

// Opens what a bisect needs and hands a runner to `use`.
Result<int> WithRunner(const GlobalOptions& global, const BisectUse& use) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  Result<std::unique_ptr<EngineOpening>> engine = EngineOpening::WithHistory(*config, false);
  if (!engine) return engine.error();
  EngineBuilds& builds = (*engine)->engine_builds();
  StderrBisectReporter reporter;
  QueryMeasurer measurer(*config);
  BisectRunner runner(*config, {builds.repo(), builds, measurer}, (*engine)->host(), reporter);
  return use(*config, runner, reporter);
}

Result<int> WithBisectRunner(const GlobalOptions& global,
                             const std::function<Result<BisectReport>(BisectRunner&)>& use) {
  return WithRunner(global,
                    [&](const Config&, BisectRunner& runner, StderrBisectReporter& reporter) {
                      Result<BisectReport> report = use(runner);
                      reporter.Finish();
                      return PrintBisectReport(report);
                    });
}

Result<int> WithMultiBisect(
    const GlobalOptions& global,
    const std::function<Result<MultiBisectReport>(MultiQueryBisect&)>& use) {
  return WithRunner(
      global, [&](const Config& config, BisectRunner& runner, StderrBisectReporter& reporter) {
        MultiQueryBisect multi(config, runner, reporter);
        Result<MultiBisectReport> report = use(multi);
        reporter.Finish();
        return PrintMultiBisectReport(report);
      });
}

Result<int> CommandBisectRun(const GlobalOptions& global, BisectCommandOptions& options) {
  options.request.first_parent = !options.all_parents;
  if (options.queries.size() > 1 || !options.from_table.empty()) {
    MultiBisectRequest request{options.request, options.queries, options.from_table};
    return WithMultiBisect(global, [&](MultiQueryBisect& multi) { return multi.Run(request); });
  }
  if (!options.queries.empty()) options.request.query = options.queries.front();
  return WithBisectRunner(global,
                          [&](BisectRunner& runner) { return runner.Run(options.request); });
}

Result<int> CommandBisectResume(const GlobalOptions& global) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  if (MultiBisectPending(*config)) {
    return WithMultiBisect(global, [](MultiQueryBisect& multi) { return multi.Resume(); });
  }
  return WithBisectRunner(global, [](BisectRunner& runner) { return runner.Resume(); });
}

Result<BisectState> LoadState(const GlobalOptions& global, const Config& config) {
  std::filesystem::path path = BisectStatePath(config);
  if (!std::filesystem::exists(path)) {
    return Error::Usage("no bisect here").WithHint("start one with `culprit bisect run`");
  }
  return LoadBisectState(path);
}

Result<int> CommandBisectShow(const GlobalOptions& global, bool log) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  Result<BisectState> state = LoadState(global, *config);
  if (!state) return state.error();
  fmt::print("{}", log ? FormatBisectLog(*state) : FormatBisectStatus(*state));
  return 0;
}

Result<int> CommandBisectReset(const GlobalOptions& global) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  std::filesystem::path path = BisectStatePath(*config);
  std::error_code ec;
  // A multi-query bisect's queue goes with it; its finished queries' records stay.
  const std::filesystem::path queue = BisectQueuePath(*config);
  if (std::filesystem::exists(queue, ec) && !std::filesystem::exists(path, ec)) {
    std::filesystem::remove(queue, ec);
    fmt::print("multi-query bisect queue removed; its records stay in the archive\n");
    return 0;
  }
  if (!std::filesystem::exists(path, ec)) {
    fmt::print("no bisect to reset\n");
    return 0;
  }
  // A running bisect would write its state back at its next step.
  Result<FileLock> lock = LockBisect(*config);
  if (!lock) return lock.error().WithContext("cannot reset");
  std::filesystem::remove(path, ec);
  if (ec) return Error(fmt::format("cannot remove {}: {}", path.string(), ec.message()));
  std::filesystem::remove(queue, ec);
  fmt::print("bisect state removed; its records stay in the archive\n");
  return 0;
}

Result<int> CommandJudge(const GlobalOptions& global, const JudgeRequest& request) {
  // Errors go to main, which turns them into 128 (abort) in judge mode: git
  // bisect run treats 1..127 (but 125) as "bad", and a failure that is not
  // about the checked-out commit must never read as that.
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  Result<std::unique_ptr<EngineOpening>> engine = EngineOpening::WithHistory(*config, false);
  if (!engine) return engine.error();
  TerminalProgress progress("judge " + request.candidate);
  MeasureContext context{*config, (*engine)->builds(), (*engine)->host(), &progress};
  QueryMeasurer measurer(*config);
  Result<JudgeResult> result = RunJudge(context, measurer, request);
  progress.Finish();
  if (!result) return result.error();
  if (result->outcome) fmt::print("{}", FormatComparisonSummary(*result->outcome));
  fmt::print("judge: {} (exit {})\n", result->reason, result->exit_code);
  return result->exit_code;
}

}  // namespace

void AddBisectCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                       BisectCommandOptions& bisect) {
  CLI::App* bisect_cmd =
      app.add_subcommand("bisect", "noise-aware bisect of a regression across builds");
  bisect_cmd->require_subcommand(1);
  CLI::App* run_cmd = bisect_cmd->add_subcommand("run", "start a bisect");
  run_cmd->add_option("--good", bisect.request.good, "a revision without the regression")
      ->required();
  run_cmd->add_option("--bad", bisect.request.bad, "a revision with it")->required();
  run_cmd->add_option("--query,-q", bisect.queries,
                      "query name; several (-q A -q B) bisect each in turn, every commit built "
                      "once for all of them");
  run_cmd->add_option("--from-table", bisect.from_table,
                      "a `table` record id: bisect every query with a cell that moved (EFFECT "
                      "against the baseline), with the -q ones");
  run_cmd->add_option("--band", bisect.request.flags.band, "reproducibility band");
  run_cmd->add_option("--max-pairs", bisect.request.flags.max_pairs,
                      "the most pairs of the confirmation and of each check (default [bisect] "
                      "confirm_max_pairs, 1280)");
  run_cmd->add_option("--seed", bisect.request.flags.seed,
                      "order every sitting and batch reproducibly (default: random)");
  run_cmd->add_option("--confirmed-by", bisect.request.confirmed_by,
                      "a record id: a `culprit compare` of --good against --bad that found the "
                      "move, used as the confirmation instead of measuring it again");
  run_cmd->add_flag("--prove-first", bisect.request.prove_first,
                    "seek the tie of the part before the change (its ends: the commits "
                    "inside are measured by the sweep the report prints) with the pairs "
                    "it is predicted to need, up to the check's budget (default: only when it "
                    "fits [bisect] check_max_pairs; also [bisect] prove_first)");
  run_cmd->add_flag("--all-parents", bisect.all_parents,
                    "refused, with the reason: the search runs on the first-parent chain and "
                    "descends into a merge it lands on (docs/bisect.md, \"Merges\")");
  run_cmd->footer(
      "Exit status: 0 a change named and verified, 4 none (not reproduced, not confirmed or "
      "not placed), 1 error, 2 usage, 130 interrupted. With several queries: 1 when a query's "
      "bisect failed, else 4 when one named nothing, else 0.");
  run_cmd->callback([&] { action = [&] { return CommandBisectRun(global, bisect); }; });
  bisect_cmd->add_subcommand("resume", "continue an interrupted bisect")->callback([&] {
    action = [&] { return CommandBisectResume(global); };
  });
  bisect_cmd->add_subcommand("status", "where the bisect stands")->callback([&] {
    action = [&] { return CommandBisectShow(global, false); };
  });
  bisect_cmd->add_subcommand("log", "every step: commit, pairs, ratio, interval, mass")
      ->callback([&] { action = [&] { return CommandBisectShow(global, true); }; });
  bisect_cmd->add_subcommand("reset", "discard the bisect state (records stay)")->callback([&] {
    action = [&] { return CommandBisectReset(global); };
  });
}

void AddJudgeCommand(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                     JudgeRequest& judge) {
  CLI::App* judge_cmd = app.add_subcommand(
      "judge", "measure the checked-out commit against a reference, for `git bisect run`");
  judge_cmd->add_option("--query,-q", judge.query, "query name");
  judge_cmd->add_option("--reference", judge.reference, "the known-good revision")->required();
  judge_cmd->add_option("--candidate", judge.candidate, "revision to judge (default HEAD)");
  judge_cmd->add_option("--band", judge.flags.band, "reproducibility band");
  judge_cmd->add_option("--max-pairs", judge.flags.max_pairs, "pair budget");
  judge_cmd->footer(
      "Exit status: 0 good (same or faster), 1 bad (slower beyond the band), 125 skip (build "
      "failed, run hung or crashed, INCONCLUSIVE), 128 abort (configuration or reference "
      "broken), 130 interrupted.");
  judge_cmd->callback([&] { action = [&] { return CommandJudge(global, judge); }; });
}

void AddDemoCommand(CLI::App& app, std::function<Result<int>()>& action,
                    DemoCommandOptions& options) {
  DemoOptions& demo = options.demo;
  CLI::App* demo_cmd =
      app.add_subcommand("demo", "run the whole investigation on the bundled demo engine");
  demo_cmd->add_option("--dir", demo.work_dir, "work directory (default ./culprit-demo)");
  demo_cmd->add_option("--events", demo.events, "events in the demo store");
  demo_cmd->add_option(
      "--examples", demo.examples_dir,
      "culprit's examples/ directory (default: <prefix>/share/culprit/examples "
      "beside an installed culprit, else the source tree of a build run in place)");
  std::string& demo_stop = options.stop_after;
  demo_cmd->add_option("--stop-after", demo_stop,
                       "stop once this is done: history (nothing built), table, confirm, probes, "
                       "bisect, relevance; `culprit demo` again continues");
  demo_cmd->callback([&] {
    action = [&]() -> Result<int> {
      if (!demo_stop.empty()) CULPRIT_TRY(ParseDemoStopAfter(demo_stop, demo));
      StreamReporter reporter;
      StderrBuildProgress build_progress;
      Result<DemoReport> report = RunDemo(demo, reporter, &build_progress);
      if (!report) return report.error();
      return 0;
    };
  });
}

}  // namespace culprit
