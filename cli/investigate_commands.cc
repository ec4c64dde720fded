// investigate: the whole ladder (investigate/investigation.h).

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <memory>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "cli/engine_opening.h"
#include "cli/stream_reporter.h"
#include "investigate/investigation.h"

namespace culprit {
namespace {

Result<int> CommandInvestigate(const GlobalOptions& global, InvestigateCommandOptions& options) {
  std::optional<InvestigationStep> stop_after;
  if (!options.stop_after.empty()) {
    Result<InvestigationStep> step = ParseInvestigationStep(options.stop_after);
    if (!step) return step.error().WithContext("--stop-after");
    stop_after = *step;
  }
  if (options.resume && options.restart) {
    return Error::Usage("--resume and --restart contradict each other");
  }
  if (!options.resume && (options.request.good.empty() || options.request.bad.empty())) {
    return Error::Usage("investigate needs --good and --bad (or --resume)");
  }
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  Result<std::unique_ptr<EngineOpening>> engine = EngineOpening::WithHistory(*config, false);
  if (!engine) return engine.error();
  EngineBuilds& builds = (*engine)->engine_builds();
  HostProbe* host = (*engine)->host();
  StreamReporter reporter;
  if (options.restart) {
    CULPRIT_TRY(DiscardInvestigationState(*config));
  }
  options.request.stop_after = stop_after;
  options.request.explain = !options.no_explain;
  options.request.invocation = options.invocation;
  QueryMeasurer measurer(*config);
  const InvestigationEngine ladder = EngineInvestigation(builds, measurer);
  Result<InvestigationReport> report =
      options.resume ? ResumeInvestigation(*config, ladder, host, reporter, stop_after)
                     : RunInvestigation(*config, ladder, host, reporter, options.request);
  if (!report) return report.error();
  return 0;
}

}  // namespace

void AddInvestigateCommand(CLI::App& app, GlobalOptions& global,
                           std::function<Result<int>()>& action, InvestigateCommandOptions& o,
                           int argc, char** argv) {
  o.invocation.assign(argv, argv + argc);
  CLI::App* cmd = app.add_subcommand(
      "investigate",
      "the whole ladder: confirm, probe hypotheses, bisect, relevance, isolate, report");
  cmd->add_option("--good", o.request.good, "a revision without the move");
  cmd->add_option("--bad", o.request.bad, "a revision with it");
  cmd->add_option("--query,-q", o.request.query, "the query that moved");
  cmd->add_option("--probe-query", o.request.probe_query,
                  "where the [overrides] hypotheses are probed (default: --query)");
  cmd->add_option("--plan", o.request.plans,
                  "a [residency] plan to isolate (repeatable; default: the plans of --query)");
  cmd->add_option("--runs", o.request.runs_per_visit, "N of `run QUERY N` per isolation visit");
  cmd->add_option("--band", o.request.flags.band, "reproducibility band b")
      ->check(CLI::Range(0.0001, 0.9999));
  cmd->add_option("--min-pairs", o.request.flags.min_pairs, "pairs (rounds) at the first look");
  cmd->add_option("--max-pairs", o.request.flags.max_pairs, "pairs (rounds) at the last look");
  cmd->add_option("--warmup", o.request.flags.warmup, "warm-up runs per arm");
  cmd->add_option("--seed", o.request.flags.seed, "seed of pair orders and round designs");
  cmd->add_flag("--no-explain", o.no_explain,
                "after the bisect, do not run `culprit explain` at each verified change "
                "(valgrind; said in the output; kept by --resume)");
  cmd->add_option("--stop-after", o.stop_after,
                  "stop once this step is done: confirm, probes, bisect, relevance");
  cmd->add_flag("--resume", o.resume,
                "continue the unfinished investigation (finished steps are not measured again)");
  cmd->add_flag("--restart", o.restart,
                "discard an unfinished investigation's state and start this one (records stay)");
  cmd->footer(
      "State: .culprit/investigate.json beside culprit.toml. Exit status: 0 the ladder "
      "ended (whatever it found) or stopped as asked, 1 error, 2 usage, 130 interrupted "
      "(--resume continues).");
  cmd->callback(
      [&action, &global, &o] { action = [&global, &o] { return CommandInvestigate(global, o); }; });
}

}  // namespace culprit
