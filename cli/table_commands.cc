// table: every query (rows) against every arm (columns) in one sitting.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>

#include "base/exit_codes.h"
#include "cli/command_options.h"
#include "cli/commands.h"
#include "cli/engine_opening.h"
#include "cli/terminal_progress.h"
#include "investigate/published_grid.h"
#include "probes/engine_builds.h"
#include "probes/host.h"
#include "probes/table_command.h"

namespace culprit {
namespace {

/// The words after `--`, one command per `--`-separated group.
Result<std::vector<std::vector<std::string>>> AdHocCommands(const std::vector<std::string>& words) {
  std::vector<std::vector<std::string>> commands(1);
  for (const std::string& word : words) {
    if (word == "--") {
      commands.emplace_back();
    } else {
      commands.back().push_back(word);
    }
  }
  for (const auto& command : commands) {
    if (command.empty()) {
      return Error::Usage("an empty command between `--`s")
          .WithHint("culprit table -- './ours q1' -- './theirs q1'");
    }
  }
  return commands;
}

/// The configuration: culprit.toml (or --config); with ad-hoc commands and no file, the
/// defaults in the current directory, as `culprit run -- CMD` takes them.
Result<Config> TableConfig(const GlobalOptions& global, bool adhoc) {
  std::error_code ec;
  if (!adhoc || global.config || std::filesystem::exists("culprit.toml", ec)) {
    return LoadGlobalConfig(global);
  }
  Result<Config> config = ParseConfig("", std::filesystem::current_path(ec) / "culprit.toml");
  if (config) config->records.invocation = global.invocation;
  return config;
}

std::string Render(const TableOutcome& outcome, const std::string& format) {
  if (format == "json") return RecordToJson(outcome.record);
  if (format == "csv") return TableFactsCsv(outcome.facts);
  std::string out =
      format == "markdown" ? TableFactsMarkdown(outcome.facts) : TableFactsText(outcome.facts);
  const std::string bullet = format == "markdown" ? "- " : "note: ";
  if (!outcome.record.notes.empty()) out += "\n";
  for (const std::string& note : outcome.record.notes) out += bullet + note + "\n";
  out += fmt::format("\nverdict {}: {}\n", VerdictName(*outcome.record.verdict),
                     outcome.record.verdict_detail);
  out += fmt::format("record {}\n", outcome.record_path.string());
  return out;
}

Result<int> CommandTable(const GlobalOptions& global, TableCommandOptions& options) {
  if (!global.adhoc_command.empty()) {
    Result<std::vector<std::vector<std::string>>> commands = AdHocCommands(global.adhoc_command);
    if (!commands) return commands.error();
    options.request.commands = std::move(*commands);
    if (!options.request.revisions.empty() || !options.request.arms.empty()) {
      return Error::Usage("--rev and --arm measure configured queries, not commands after `--`")
          .WithHint("culprit table -- CMD_A -- CMD_B, or culprit table --rev A --rev B");
    }
  }
  if (!options.check.empty()) {
    std::vector<std::filesystem::path> files(options.check.begin(), options.check.end());
    Result<PublishedGrid> grid = ReadPublishedGrid(files);
    if (!grid) return grid.error();
    options.request.check = std::move(*grid);
  }
  Result<Config> config = TableConfig(global, !options.request.commands.empty());
  if (!config) return config.error();
  if (options.order == "registry") {
    const RegistryConfig& registry = config->registry;
    if (registry.order.empty() || registry.command.empty()) {
      return Error::Usage(fmt::format("--order registry needs [registry] order and command in {}",
                                      config->file.string()))
          .WithHint(
              "[registry] order = [\"q1\", \"q2\"] and command = [\"{artifact:NAME}\", "
              "\"registry\", \"--only\", \"{query}\"]: the engine runs the order in one "
              "process and reports {query}");
    }
    options.request.registry = TableRequest::RegistryRun{registry.order, registry.command};
  }
  std::unique_ptr<EngineOpening> engine = EngineOpening::ForMeasuring(*config, options.rebuild);
  TerminalProgress progress("table");
  MeasureContext context{*config, engine->builds(), engine->host(), &progress};
  Result<TableOutcome> outcome = RunTable(context, options.request);
  progress.Finish();
  if (!outcome) return outcome.error();
  fmt::print("{}", Render(*outcome, options.format));
  std::fflush(stdout);
  if (options.request.check) {
    // The question of --check is "does the published table still hold?": a claim that does
    // not is the answer (3), before a cell that was not measured (said on stderr).
    Status status = TableOutcomeStatus(*outcome);
    if (!status && (outcome->archive_error || outcome->sitting.interrupted)) {
      return status.error();
    }
    if (TableCheckFails(*outcome)) {
      if (!status) fmt::print(stderr, "culprit: {}\n", status.error().message());
      return kExitEffectFound;
    }
    if (!status) return status.error();
    return 0;
  }
  Status status = TableOutcomeStatus(*outcome);
  if (!status) return status.error();
  return outcome->record.verdict == Verdict::kEffect ? kExitEffectFound : 0;
}

}  // namespace

void AddTableCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                      TableCommandOptions& o) {
  CLI::App* table = app.add_subcommand(
      "table", "a table in one sitting: queries (rows) × arms (columns), ratios to the first arm");
  table->add_option("--query,-q", o.request.queries,
                    "a row (default: every configured query); with commands, their {query}");
  table->add_option("--rev", o.request.revisions, "a column: a revision of the engine, built");
  table->add_option("--engine", o.request.engines,
                    "a column: another engine of [engines.NAME], run by its own commands");
  table->add_option("--arm", o.request.arms,
                    "a column: default, NAME:K=V[,K=V], K=V or an [overrides] set");
  table
      ->add_option("--order", o.order,
                   "alone (default): each query in a process of its own; registry: the "
                   "[registry] command, each query after those before it in [registry] order")
      ->check(CLI::IsMember({"alone", "registry"}));
  table->add_option("--name", o.request.names,
                    "what to call the columns, in order (once per column; default: the "
                    "revisions, sets or programs)");
  table->add_option("--format", o.format, "text (default), markdown, csv or json (the record)")
      ->check(CLI::IsMember({"text", "markdown", "csv", "json"}));
  table->add_option("--band", o.request.flags.band, "reproducibility band b")
      ->check(CLI::Range(0.0001, 0.9999));
  table->add_option("--min-pairs", o.request.flags.min_pairs,
                    "blocks of each row at its first look");
  table->add_option("--max-pairs", o.request.flags.max_pairs,
                    "blocks of each row at its last look");
  table->add_option("--warmup", o.request.flags.warmup, "warm-up runs per cell");
  table->add_option("--seed", o.request.flags.seed,
                    "seed of the block orders (recorded either way)");
  table->add_option("--metric", o.request.flags.metric,
                    "measure every cell by this metric: wall, cpu, max_rss, minor_faults, "
                    "major_faults, ctx_switches, instructions, ll_misses, d1_misses");
  table->add_option("--check", o.check,
                    "a published table to check (.csv, .md, or culprit publish .json, one "
                    "column per file); its columns map to the --rev/--arm/commands in order, "
                    "or are revisions");
  table->add_flag("--rebuild", o.rebuild, "rebuild even if cached");
  table->footer(
      "The first column is the baseline. culprit table [options] -- CMD_A -- CMD_B measures "
      "commands (no culprit.toml needed); {query} in them with -q gives rows.\n"
      "Exit status: 0 no EFFECT, 3 an EFFECT, 1 error (also: a cell not measured), 2 usage. "
      "With --check: 3 a published claim does not hold (tie or reversed), else as above but an "
      "EFFECT is 0.");
  table->callback([&] { action = [&] { return CommandTable(global, o); }; });
}

}  // namespace culprit
