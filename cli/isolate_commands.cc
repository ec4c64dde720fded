// isolate and harness check: residency isolation through the engine's harness.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "cli/engine_opening.h"
#include "cli/terminal_progress.h"
#include "engine/build_cache.h"
#include "probes/engine_builds.h"
#include "probes/host.h"
#include "probes/isolate_command.h"

namespace culprit {
namespace {

Result<int> CommandIsolate(const GlobalOptions& global, IsolateCommandOptions& options) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  options.request.revision = options.revision;
  std::unique_ptr<EngineOpening> engine = EngineOpening::ForMeasuring(*config, options.rebuild);
  TerminalProgress progress(
      "isolate " + (options.request.plan.empty() ? options.request.query : options.request.plan));
  MeasureContext context{*config, engine->builds(), engine->host(), &progress};
  Result<IsolateOutcome> outcome = RunIsolate(context, options.request);
  progress.Finish();
  if (!outcome) return outcome.error();
  if (options.json) {
    fmt::print("{}\n", RecordToJson(outcome->record));
  } else {
    fmt::print("{}", FormatIsolateSummary(*outcome));
  }
  std::fflush(stdout);
  Status status = IsolateStatus(*outcome);
  if (!status) return status.error();
  return outcome->record.verdict == Verdict::kEffect ? kExitEffectFound : 0;
}

Result<int> CommandHarnessCheck(const GlobalOptions& global, IsolateCommandOptions& options) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  options.check.revision = options.check_revision;
  if (options.check_timeout_s) {
    if (!(*options.check_timeout_s > 0)) return Error::Usage("--timeout must be positive");
    options.check.timeout =
        std::chrono::milliseconds(static_cast<long>(*options.check_timeout_s * 1000));
  }
  // No host probe: a check of the harness's replies measures nothing.
  std::unique_ptr<EngineOpening> engine = EngineOpening::ForMeasuring(*config, false);
  MeasureContext context{*config, engine->builds(), nullptr, nullptr};
  Result<HarnessCheckReport> report = RunHarnessCheck(context, options.check);
  if (!report) return report.error();
  fmt::print("{}", FormatHarnessCheck(*report));
  return report->failures == 0 ? 0 : 1;
}

}  // namespace

void AddIsolateCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                        IsolateCommandOptions& o) {
  CLI::App* isolate = app.add_subcommand(
      "isolate", "residency isolation: every condition of a plan in one engine process");
  isolate->add_option("--rev", o.revision, "measure the cached build of this revision");
  isolate->add_option("--plan", o.request.plan, "the [residency] plan (default: the only one)");
  isolate->add_option("--query,-q", o.request.query,
                      "query sent in `run QUERY N` (default: the plan's)");
  isolate->add_option("--runs", o.request.runs_per_visit,
                      "N of `run QUERY N` per visit (default 3)");
  isolate->add_option("--band", o.request.flags.band, "reproducibility band b")
      ->check(CLI::Range(0.0001, 0.9999));
  isolate->add_option("--min-pairs", o.request.flags.min_pairs, "rounds at the first look");
  isolate->add_option("--max-pairs", o.request.flags.max_pairs, "rounds at the last look");
  isolate->add_option("--warmup", o.request.flags.warmup, "warm-up visits per condition");
  isolate->add_option("--seed", o.request.flags.seed, "seed of the round design");
  isolate->add_option("--simulate", o.request.simulate,
                      "after the sitting, each condition's ll_misses, d1_misses or instructions "
                      "per run, simulated by cachegrind in fresh harness processes (secondary)");
  isolate->add_option("--simulate-samples", o.request.simulate_samples,
                      "samples per condition for --simulate (default 3)");
  isolate->add_flag("--rebuild", o.rebuild, "rebuild even if cached");
  isolate->add_flag("--json", o.json, "print the record as JSON on stdout");
  isolate->footer(
      "Exit status: 0 NULL or INCONCLUSIVE, 3 the suspect is EFFECT, 1 error "
      "(the engine broke: partial record), 2 usage, 130 interrupted.");
  isolate->callback(
      [&action, &global, &o] { action = [&global, &o] { return CommandIsolate(global, o); }; });

  CLI::App* harness = app.add_subcommand("harness", "the engine's in-process harness");
  harness->require_subcommand(1);
  CLI::App* check = harness->add_subcommand(
      "check", "drive the harness through every verb and error case; say what it does wrong");
  check->add_option("--rev", o.check_revision, "check the cached build of this revision");
  check->add_option("--query,-q", o.check.query, "a query the harness runs");
  check->add_option("--timeout", o.check_timeout_s, "seconds per request (default [harness])");
  check->footer("Exit status: 0 every check passed, 1 some failed.");
  check->callback([&action, &global, &o] {
    action = [&global, &o] { return CommandHarnessCheck(global, o); };
  });
}

}  // namespace culprit
