// explain: where a change moved a query's instructions, function by function.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <memory>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "cli/engine_opening.h"
#include "investigate/explain.h"
#include "probes/engine_builds.h"
#include "probes/host.h"

namespace culprit {
namespace {

Result<int> CommandExplain(const GlobalOptions& global, const ExplainCommandOptions& options) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  Result<std::unique_ptr<EngineOpening>> engine =
      EngineOpening::WithHistory(*config, options.rebuild);
  if (!engine) return engine.error();
  ExplainContext context{*config, (*engine)->engine_builds(), (*engine)->host(),
                         &(*engine)->build_progress(), [](std::string_view step) {
                           fmt::print(stderr, "explain: {}\n", step);
                           std::fflush(stderr);
                         }};
  Result<ExplainOutcome> outcome = RunExplain(context, options.request);
  if (!outcome) return outcome.error();
  if (options.format == "json") {
    fmt::print("{}", RecordToJson(outcome->record));
  } else if (options.format == "markdown") {
    fmt::print("{}record `{}`\n", ExplainFactsMarkdown(outcome->facts, options.top),
               outcome->record_path.string());
  } else {
    fmt::print("{}", ExplainOutcomeText(*outcome, options.top));
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace

void AddExplainCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                        ExplainCommandOptions& o) {
  CLI::App* explain = app.add_subcommand(
      "explain", "where a change moved a query's instructions, function by function (valgrind)");
  explain->add_option("change", o.request.change, "the commit C to explain")->required();
  explain->add_option("--parent", o.request.parent,
                      "the revision to explain C against (default: C's first parent)");
  explain->add_option("--query,-q", o.request.query, "the query (default: the only one)");
  explain->add_option("--top", o.top, "functions shown (default 10; 0: every one that moved)");
  explain->add_flag("--cache-sim", o.request.cache_sim,
                    "simulate the caches too: D1 and LL misses per function (slower)");
  explain->add_option("--format", o.format, "text (default), markdown or json (the record)")
      ->check(CLI::IsMember({"text", "markdown", "json"}));
  explain->add_flag("--rebuild", o.rebuild, "rebuild even if cached");
  explain->footer(
      "Runs Q once at C and once at its parent under valgrind's cachegrind (ASLR off), diffs "
      "the instructions per function and marks each function touched by the change, on Q's "
      "path but untouched, or neither. The record keeps every function. Exit status: 0 "
      "explained, 1 error, 2 usage.");
  explain->callback([&] { action = [&] { return CommandExplain(global, o); }; });
}

}  // namespace culprit
