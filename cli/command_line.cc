#include "cli/command_line.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "base/result.h"
#include "base/strings.h"
#include "bisect/judge.h"
#include "cli/command_options.h"
#include "cli/commands.h"

namespace culprit {
namespace {

void PrintError(const Error& error) {
  // A Ctrl-C the user pressed is not a failure of culprit's: said as what it is.
  const bool interrupted = error.kind() == ErrorKind::kInterrupted;
  fmt::print(stderr, "culprit: {}: {}\n", interrupted ? "stopped" : "error", error.message());
  if (!error.hint().empty()) fmt::print(stderr, "hint: {}\n", error.hint());
}

// Options shared by the measuring commands.
void AddMeasureFlags(CLI::App* command, MeasureFlags& flags, bool& json) {
  command->add_option("--band", flags.band, "reproducibility band b: ratios within ±b are ties")
      ->check(CLI::Range(0.0001, 0.9999));
  command->add_option("--min-pairs", flags.min_pairs, "pairs at the first look");
  command->add_option("--max-pairs", flags.max_pairs, "pairs at the last look (the budget)");
  command->add_option("--warmup", flags.warmup, "warm-up runs per arm");
  command->add_option("--seed", flags.seed, "seed of the pair order (recorded either way)");
  command->add_option("--metric", flags.metric,
                      "measure by this metric instead of the query's: wall, cpu, max_rss, "
                      "minor_faults, major_faults, ctx_switches, instructions, ll_misses, "
                      "d1_misses");
  command->add_flag("--json", json, "print the record as JSON on stdout");
}

std::vector<std::string> CommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

CLI::App* FindCommand(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

Error UnknownCommand(const std::string& word, const CLI::App& parent, const std::string& prefix) {
  std::vector<std::string> names = CommandNames(parent);
  std::string nearest = NearestWord(word, names);
  std::string suggestion =
      nearest.empty() ? "" : fmt::format("; did you mean '{}{}'?", prefix, nearest);
  std::string scope = prefix.empty() ? "" : " of '" + prefix.substr(0, prefix.size() - 1) + "'";
  return Error::Usage(fmt::format("unknown command '{}{}'{}", prefix, word, suggestion))
      .WithHint(fmt::format("the commands{} are: {} (`culprit help COMMAND` for one)", scope,
                            Join(names, ", ")));
}

// The command words as a user typed them: the first word that is not an
// option (skipping --config's value), and for a command that has commands of
// its own (records, bisect), the word after it. CLI11 would say only "A
// subcommand is required" for a typo; git says what it did not know and what
// was probably meant, and so does culprit.
struct CommandWords {
  std::string command, subcommand;
};

Result<CommandWords> ReadCommandWords(CLI::App& app, int argc, char** argv) {
  CommandWords words;
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "--config") {
      ++i;
      continue;
    }
    if (arg.starts_with("-")) continue;
    words.command = std::string(arg);
    break;
  }
  if (words.command.empty()) return words;
  CLI::App* command = FindCommand(app, words.command);
  if (command == nullptr) {
    if (words.command == "help" || words.command == "version") return words;
    return UnknownCommand(words.command, app, "");
  }
  if (CommandNames(*command).empty() || i + 1 >= argc) return words;
  std::string_view next = argv[i + 1];
  if (next.starts_with("-")) return words;
  words.subcommand = std::string(next);
  if (FindCommand(*command, words.subcommand) == nullptr) {
    return UnknownCommand(words.subcommand, *command, words.command + " ");
  }
  return words;
}

/// The options of the commands registered here; they must outlive parsing.
struct CoreOptions {
  InitOptions init;
  bool host_json = false;
  RunCommandOptions run;
  ProbeCommandOptions probe;
  CompareCommandOptions compare;
  BuildCommandOptions build;
  RecordsCommandOptions records;
};

using CommandAction = std::function<Result<int>()>;

/// init, host, run, probe, compare and build.
void AddMeasureCommands(CLI::App& app, GlobalOptions& global, CommandAction& action,
                        CoreOptions& o) {
  // culprit init
  CLI::App* init_cmd = app.add_subcommand("init", "write a starter culprit.toml here");
  init_cmd->add_option("--output", o.init.output, "where to write it (default ./culprit.toml)");
  init_cmd->add_flag("--force", o.init.force, "replace an existing file");
  init_cmd->callback([&] { action = [&] { return CommandInit(o.init); }; });

  // culprit host
  CLI::App* host_cmd = app.add_subcommand("host", "host state: calibration, load, frequency");
  host_cmd->add_flag("--json", o.host_json, "machine-readable");
  host_cmd->callback([&] { action = [&] { return CommandHost(o.host_json); }; });

  // culprit run
  CLI::App* run_cmd = app.add_subcommand("run", "measure one query (one arm)");
  run_cmd->add_option("QUERY", o.run.request.query, "query name (optional with one query)");
  run_cmd->add_option("--query,-q", o.run.request.query, "query name");
  run_cmd->add_option("--rev", o.run.revision, "measure the cached build of this revision");
  run_cmd->add_option("--samples,-n", o.run.request.samples, "samples (default: min_pairs)")
      ->check(CLI::Range(1, 100000));
  AddMeasureFlags(run_cmd, o.run.request.flags, o.run.json);
  run_cmd->footer(
      "culprit run [options] -- CMD ARGS measures a command by its wall time, with or "
      "without a culprit.toml.");
  run_cmd->callback([&] { action = [&] { return CommandRun(global, o.run); }; });

  // culprit probe
  CLI::App* probe_cmd =
      app.add_subcommand("probe", "same build, default environment vs overridden, in one sitting");
  probe_cmd
      ->add_option("--override,-o", o.probe.request.overrides,
                   "K=V to set in arm B, or the name of an [overrides] set")
      ->take_all();
  probe_cmd->add_option("--unset", o.probe.request.unsets, "variable to remove in arm B");
  probe_cmd->add_option("--query,-q", o.probe.request.query, "query name");
  probe_cmd->add_option("--rev", o.probe.revision, "measure the cached build of this revision");
  probe_cmd->add_option("--hypothesis", o.probe.request.hypothesis, "the sentence being tested");
  AddMeasureFlags(probe_cmd, o.probe.request.flags, o.probe.json);
  probe_cmd->footer(
      "culprit probe [options] -- CMD ARGS probes a command instead of a query, with or "
      "without a culprit.toml.\nExit status: 0 NULL or INCONCLUSIVE, 3 EFFECT, 1 error, 2 usage.");
  probe_cmd->callback([&] { action = [&] { return CommandProbe(global, o.probe); }; });

  // culprit compare
  CLI::App* compare_cmd =
      app.add_subcommand("compare", "two builds, interleaved in one sitting (ratio B/A)");
  compare_cmd->add_option("REV_A", o.compare.request.revision_a, "baseline revision")->required();
  compare_cmd->add_option("REV_B", o.compare.request.revision_b, "revision to compare")->required();
  compare_cmd->add_option("--query,-q", o.compare.request.query, "query name");
  compare_cmd->add_option("--name", o.compare.request.names,
                          "what to call the arms, A then B (give it twice; default: the "
                          "revisions as given)");
  compare_cmd->add_flag("--rebuild", o.compare.rebuild, "rebuild even if cached");
  AddMeasureFlags(compare_cmd, o.compare.request.flags, o.compare.json);
  compare_cmd->footer("Exit status: 0 NULL or INCONCLUSIVE, 3 EFFECT, 1 error, 2 usage.");
  compare_cmd->callback([&] { action = [&] { return CommandCompare(global, o.compare); }; });

  // culprit build
  CLI::App* build_cmd = app.add_subcommand("build", "build commits into the build cache");
  build_cmd->add_option("REV", o.build.revisions, "revisions to build");
  build_cmd->add_flag("--rebuild", o.build.rebuild, "build again even if cached or unbuildable");
  build_cmd->add_flag("--list", o.build.list, "list cached builds and their sizes");
  build_cmd->add_option("--prune-days", o.build.prune_days, "remove builds older than N days");
  build_cmd->callback([&] { action = [&] { return CommandBuild(global, o.build); }; });
}

/// records list, show, report, export and merge.
void AddRecordsCommands(CLI::App& app, GlobalOptions& global, CommandAction& action,
                        CoreOptions& o) {
  // culprit records ...
  CLI::App* records_cmd = app.add_subcommand("records", "the archive of results");
  records_cmd->require_subcommand(1);
  records_cmd->add_option("--dir", o.records.dir, "records directory (default: from the config)");
  CLI::App* list_cmd = records_cmd->add_subcommand("list", "list records");
  list_cmd->add_option("--kind", o.records.filter.kind, "probe, compare, run, bisect, ...");
  list_cmd->add_option("--verdict", o.records.filter.verdict, "EFFECT, NULL, INCONCLUSIVE, ERROR");
  list_cmd->add_option("--query", o.records.filter.query, "query name");
  list_cmd->add_option("--commit", o.records.filter.commit, "commit id prefix of any arm");
  list_cmd->add_option("--host", o.records.filter.host,
                       "host name of the records' host ('unknown': those that name none)");
  list_cmd->callback([&] { action = [&] { return CommandRecordsList(global, o.records); }; });
  CLI::App* show_cmd = records_cmd->add_subcommand("show", "show one record");
  show_cmd->add_option("ID", o.records.id, "record id or unique prefix")->required();
  show_cmd->add_flag("--json", o.records.json, "the record's JSON");
  show_cmd->callback([&] { action = [&] { return CommandRecordsShow(global, o.records); }; });
  CLI::App* report_cmd = records_cmd->add_subcommand("report", "render records as a report");
  report_cmd->add_option("ID", o.records.id, "one record (default: all matching the filters)");
  report_cmd->add_option("--format", o.records.format, "markdown or html")
      ->check(CLI::IsMember({"markdown", "html"}));
  report_cmd->add_option("--kind", o.records.filter.kind, "filter by kind");
  report_cmd->add_option("--query", o.records.filter.query, "filter by query");
  report_cmd->add_option("--output,-o", o.records.output, "write to a file instead of stdout");
  report_cmd->callback([&] { action = [&] { return CommandRecordsReport(global, o.records); }; });
  CLI::App* export_cmd = records_cmd->add_subcommand("export", "all records as one JSON array");
  export_cmd->add_option("--kind", o.records.filter.kind, "filter by kind");
  export_cmd->callback([&] { action = [&] { return CommandRecordsExport(global, o.records); }; });
  CLI::App* merge_cmd = records_cmd->add_subcommand(
      "merge", "copy other archives' records into this one (no duplicates, no overwrites)");
  merge_cmd->add_option("DIR", o.records.merge_sources, "records directories of other hosts")
      ->required();
  merge_cmd->callback([&] { action = [&] { return CommandRecordsMerge(global, o.records); }; });
}

/// `culprit`, `culprit version` and `culprit help [COMMAND [SUBCOMMAND]]`,
/// which CLI11 does not parse; nullopt for every other command.
std::optional<int> RunBuiltin(CLI::App& app, const CommandWords& words, int argc, char** argv) {
  if (words.command.empty()) {
    // `culprit --version` and `culprit --help` are asked for, not mistakes.
    for (int i = 1; i < argc; ++i) {
      const std::string_view arg = argv[i];
      if (arg == "--version") {
        fmt::print("culprit {}\n", CULPRIT_VERSION);
        return 0;
      }
      if (arg == "--help" || arg == "-h") {
        fmt::print("{}", app.help());
        return 0;
      }
    }
    // Like git: no command is a usage error that lists the commands.
    fmt::print(stderr, "{}", app.help());
    return kExitUsage;
  }
  if (words.command == "version") {
    fmt::print("culprit {}\n", CULPRIT_VERSION);
    return 0;
  }
  if (words.command != "help") return std::nullopt;
  // `culprit help [COMMAND [SUBCOMMAND]]` is `culprit [COMMAND...] --help`.
  CLI::App* topic = &app;
  std::string path;
  for (int i = 2; i < argc && i < 4; ++i) {
    CLI::App* sub = FindCommand(*topic, argv[i]);
    if (sub == nullptr) {
      PrintError(UnknownCommand(argv[i], *topic, path));
      return kExitUsage;
    }
    path += std::string(argv[i]) + " ";
    topic = sub;
  }
  fmt::print("{}", topic->help());
  return 0;
}

/// `culprit run|probe|table ... -- CMD ARGS`: takes the words after `--` into
/// global->adhoc_command and shortens argc to hide them from CLI11, which
/// would give the first to the QUERY positional. Errors: nothing after `--`.
Status TakeAdHocCommand(const CommandWords& words, int* argc, char** argv, GlobalOptions* global) {
  if (words.command != "run" && words.command != "probe" && words.command != "table") return {};
  for (int i = 1; i < *argc; ++i) {
    if (std::string_view(argv[i]) != "--") continue;
    global->adhoc_command.assign(argv + i + 1, argv + *argc);
    if (global->adhoc_command.empty()) {
      return Error::Usage("nothing after `--`: expected a command to measure");
    }
    *argc = i;
    break;
  }
  return {};
}

/// Parses the command line and runs the command's action; the exit code.
/// Every error is printed here, once. Under `git bisect run` (judge), exit
/// codes mean good/bad/skip, so a failure that is not about the commit must
/// abort the bisect (128), never read as "bad".
int ParseAndRun(CLI::App& app, int argc, char** argv, bool judge, const CommandAction& action) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    PrintError(Error::Usage(e.what()).WithHint("see `culprit --help` or `culprit COMMAND --help`"));
    return judge ? kJudgeAbort : kExitUsage;
  }
  if (!action) return 0;
  Result<int> exit_code = 0;
  try {
    exit_code = action();
  } catch (const std::exception& e) {
    // A bug or an exhausted machine (out of memory), not the user's input:
    // say so once, and never let judge's caller read it as "bad".
    PrintError(Error(fmt::format("unexpected failure: {}", e.what())));
    return judge ? kJudgeAbort : kExitFailure;
  }
  if (!exit_code) {
    PrintError(exit_code.error());
    if (judge && exit_code.error().kind() != ErrorKind::kInterrupted) return kJudgeAbort;
    return exit_code.error().ExitCode();
  }
  return *exit_code;
}

}  // namespace

int RunCommandLine(int argc, char** argv) {
  CLI::App app{
      "culprit: why did this benchmark number move?\n"
      "Measures an engine's queries in honest same-sitting comparisons, tests "
      "hypotheses with overrides, bisects regressions across builds, and archives "
      "every result.",
      "culprit"};
  app.require_subcommand(1);
  // --config may come before or after the command (`culprit run --config f q`).
  app.fallthrough();
  app.set_version_flag("--version", std::string("culprit ") + CULPRIT_VERSION);
  GlobalOptions global;
  global.invocation.assign(argv, argv + argc);
  app.add_option("--config", global.config, "culprit.toml to use (default: ./culprit.toml)");

  CommandAction action;
  CoreOptions core;
  AddMeasureCommands(app, global, action, core);
  AddRecordsCommands(app, global, action, core);
  // Each family's options live here, as long as `app` writes into them.
  CommandFamilies families;
  families.demo.demo.invocation = global.invocation;
  AddBisectCommands(app, global, action, families.bisect);
  AddJudgeCommand(app, global, action, families.judge);
  AddDemoCommand(app, action, families.demo);
  AddIsolateCommands(app, global, action, families.isolate);
  AddInvestigateCommand(app, global, action, families.investigate, argc, argv);
  AddAuditCommands(app, global, action, families.audit, argc, argv);
  AddTableCommands(app, global, action, families.table);
  AddSweepCommands(app, global, action, families.sweep);
  AddExplainCommands(app, global, action, families.explain);

  Result<CommandWords> words = ReadCommandWords(app, argc, argv);
  if (!words) {
    PrintError(words.error());
    return words.error().ExitCode();
  }
  if (std::optional<int> builtin = RunBuiltin(app, *words, argc, argv)) return *builtin;
  if (Status taken = TakeAdHocCommand(*words, &argc, argv, &global); !taken) {
    PrintError(taken.error());
    return taken.error().ExitCode();
  }
  // Judge mode comes from the command word itself (not from "judge" anywhere
  // on the line: a query may be called that).
  return ParseAndRun(app, argc, argv, words->command == "judge", action);
}

}  // namespace culprit
