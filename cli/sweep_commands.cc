// sweep: commits across a range measured against its start in one sitting, and where each
// query's series moved, with the bisect of each part that holds a change.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <memory>

#include "base/exit_codes.h"
#include "bisect/bisect_runner.h"
#include "bisect/sweep_runner.h"
#include "cli/command_options.h"
#include "cli/commands.h"
#include "cli/engine_opening.h"
#include "cli/terminal_progress.h"
#include "probes/engine_builds.h"
#include "probes/host.h"
#include "probes/measurer.h"

namespace culprit {
namespace {

/// The bisects' step lines on stderr, as `culprit bisect run` prints them.
class SweepBisectReporter : public BisectReporter {
 public:
  void Line(const std::string& text) override {
    fmt::print(stderr, "{}\n", text);
    std::fflush(stderr);
  }
};

std::string Render(const SweepOutcome& outcome, const std::string& format, bool bisect) {
  if (format == "json") return RecordToJson(outcome.record);
  const bool markdown = format == "markdown";
  std::string out = markdown ? SweepFactsMarkdown(outcome.facts) : SweepFactsText(outcome.facts);
  const std::string bullet = markdown ? "- " : "note: ";
  if (!outcome.record.notes.empty()) out += "\n";
  for (const std::string& note : outcome.record.notes) out += bullet + note + "\n";
  bool commands = false;
  for (const SweepQueryFacts& q : outcome.facts.queries) {
    for (const SweepPartFacts& p : q.parts) commands = commands || p.kind == "change";
  }
  if (commands && !bisect) {
    out +=
        "\neach change's command bisects its sub-range; `culprit sweep ... --bisect` runs them\n";
  }
  out += fmt::format("\nverdict {}: {}\n", VerdictName(*outcome.record.verdict),
                     outcome.record.verdict_detail);
  out += fmt::format("record {}\n", outcome.record_path.string());
  return out;
}

/// `--bisect`: each located change's bisect, one after the other, with the sweep's builds.
Result<int> RunBisects(const Config& config, EngineBuilds& builds, const HostProbe* host,
                       const SweepOutcome& outcome, const MeasureFlags& flags) {
  int exit = kExitOk;
  for (const SweepQueryFacts& q : outcome.facts.queries) {
    for (const SweepPartFacts& p : q.parts) {
      if (p.kind != "change") continue;
      BisectRequest request;
      request.good = q.points[p.from].commit;
      request.bad = q.points[p.to].commit;
      request.query = q.query;
      request.flags.band = flags.band;  // The sweep's blocks are not the bisect's pairs.
      request.flags.seed = flags.seed;
      fmt::print("\n$ {}\n", p.command);
      std::fflush(stdout);
      SweepBisectReporter reporter;
      QueryMeasurer measurer(config);
      BisectRunner runner(config, {builds.repo(), builds, measurer}, host, reporter);
      Result<BisectReport> report = runner.Run(request);
      if (!report) {
        fmt::print(stderr, "culprit: {}\n", report.error().message());
        exit = kExitFailure;
        continue;
      }
      fmt::print("{}", report->text);
      std::fflush(stdout);
    }
  }
  return exit;
}

Result<int> CommandSweep(const GlobalOptions& global, SweepCommandOptions& options) {
  Result<std::pair<std::string, std::string>> range = ParseSweepRange(options.range);
  if (!range) return range.error();
  options.request.good = range->first;
  options.request.bad = range->second;
  options.request.every = options.every;
  options.request.points = options.points;
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  Result<std::unique_ptr<EngineOpening>> engine =
      EngineOpening::WithHistory(*config, options.rebuild);
  if (!engine) return engine.error();
  EngineBuilds& builds = (*engine)->engine_builds();
  TerminalProgress progress("sweep");
  MeasureContext context{*config, builds, (*engine)->host(), &progress};
  Result<SweepOutcome> outcome = RunSweep(context, builds.repo(), options.request);
  progress.Finish();
  if (!outcome) return outcome.error();
  fmt::print("{}", Render(*outcome, options.format, options.bisect));
  std::fflush(stdout);
  Status status = SweepOutcomeStatus(*outcome);
  if (!status) return status.error();
  if (options.bisect) {
    Result<int> bisects =
        RunBisects(*config, builds, (*engine)->host(), *outcome, options.request.flags);
    if (!bisects) return bisects.error();
    if (*bisects != kExitOk) return *bisects;
  }
  return outcome->record.verdict == Verdict::kEffect ? kExitEffectFound : kExitOk;
}

}  // namespace

void AddSweepCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                      SweepCommandOptions& o) {
  CLI::App* sweep = app.add_subcommand(
      "sweep", "commits across GOOD..BAD against its start in one sitting: where each query moved");
  sweep->add_option("range", o.range, "GOOD..BAD: the range, first parent as bisect lists it")
      ->required();
  sweep->add_option("--query,-q", o.request.queries, "a query (default: every configured query)");
  sweep->add_option("--every", o.every, "measure every K-th commit (and both ends)");
  sweep->add_option("--points", o.points, "measure N evenly spaced commits, both ends included")
      ->excludes("--every");
  sweep->add_flag("--bisect", o.bisect, "run the bisect of every located change after the sweep");
  sweep->add_option("--format", o.format, "text (default), markdown or json (the record)")
      ->check(CLI::IsMember({"text", "markdown", "json"}));
  sweep->add_option("--band", o.request.flags.band, "reproducibility band b")
      ->check(CLI::Range(0.0001, 0.9999));
  sweep->add_option("--min-pairs", o.request.flags.min_pairs,
                    "blocks of each query at its first look");
  sweep->add_option("--max-pairs", o.request.flags.max_pairs,
                    "blocks of each query at its last look");
  sweep->add_option("--warmup", o.request.flags.warmup, "warm-up runs per commit and query");
  sweep->add_option("--seed", o.request.flags.seed,
                    "seed of the block orders (recorded either way)");
  sweep->add_flag("--rebuild", o.rebuild, "rebuild even if cached");
  sweep->footer(
      "Default: 10 evenly spaced points. Exit status: 0 no change located, 3 a change located, "
      "1 error, 2 usage.");
  sweep->callback([&] { action = [&] { return CommandSweep(global, o); }; });
}

}  // namespace culprit
