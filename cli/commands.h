#pragma once

// The commands behind the command table. Each takes typed options (filled by
// the files that register commands with CLI11: command_line.cc and the
// *_commands.cc of each family, the only files that know CLI11), calls the
// library, prints its result on stdout and returns the exit code, or an Error
// for main to print.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "investigate/config.h"
#include "probes/measure_commands.h"
#include "records/record_filter.h"

namespace CLI {
class App;
}

namespace culprit {

struct GlobalOptions {
  std::optional<std::string> config;  ///< --config
  /// The words after `--` of run and probe: an ad-hoc command measured
  /// instead of a configured query, with or without a culprit.toml (see
  /// LoadMeasureConfig). For table, several commands separated by `--`.
  std::vector<std::string> adhoc_command;
  /// The command line (argv), passed down in the configuration's [records] so that every
  /// record says what ran (RecordsConfig::invocation).
  std::vector<std::string> invocation;
};

struct InitOptions {
  std::string output = "culprit.toml";
  bool force = false;
};

struct RunCommandOptions {
  RunRequest request;
  std::optional<std::string> revision;
  bool json = false;
};

struct ProbeCommandOptions {
  ProbeRequest request;
  std::optional<std::string> revision;
  bool json = false;
};

struct CompareCommandOptions {
  CompareRequest request;
  bool rebuild = false;
  bool json = false;
};

struct BuildCommandOptions {
  std::vector<std::string> revisions;
  bool rebuild = false;
  bool list = false;
  std::optional<int> prune_days;
};

struct RecordsCommandOptions {
  std::optional<std::string> dir;
  RecordFilter filter;
  std::string id;
  bool json = false;
  std::string format = "markdown";
  std::optional<std::string> output;
  std::vector<std::string> merge_sources;  ///< `records merge DIR...`: other hosts' archives.
};

Result<int> CommandInit(const InitOptions& options);
Result<int> CommandHost(bool json);
Result<int> CommandRun(const GlobalOptions& global, RunCommandOptions& options);
Result<int> CommandProbe(const GlobalOptions& global, ProbeCommandOptions& options);
Result<int> CommandCompare(const GlobalOptions& global, CompareCommandOptions& options);
Result<int> CommandBuild(const GlobalOptions& global, const BuildCommandOptions& options);
Result<int> CommandRecordsList(const GlobalOptions& global, const RecordsCommandOptions& options);
Result<int> CommandRecordsShow(const GlobalOptions& global, const RecordsCommandOptions& options);
Result<int> CommandRecordsReport(const GlobalOptions& global, const RecordsCommandOptions& options);
Result<int> CommandRecordsExport(const GlobalOptions& global, const RecordsCommandOptions& options);
Result<int> CommandRecordsMerge(const GlobalOptions& global, const RecordsCommandOptions& options);

/// Loads the configuration named by --config, or ./culprit.toml, with the command line in
/// its [records] (RecordsConfig::invocation).
Result<Config> LoadGlobalConfig(const GlobalOptions& global);

/// The configuration of `run` or `probe`: LoadGlobalConfig when `command` is
/// empty. Otherwise `command` (the words after `--`) becomes a query of its
/// own, named after its program, measured by wall time, and `*query` is set
/// to that name (a query given as well is a usage error); a culprit.toml is
/// then optional: without one, [measure] and [records] take their defaults
/// in the current directory, and nothing can be built.
Result<Config> LoadMeasureConfig(const GlobalOptions& global,
                                 const std::vector<std::string>& command, std::string* query);

// The families' option structs (cli/command_options.h): declared here, so that a file that
// only runs a command does not compile them all.
struct AuditCommandsOptions;
struct BisectCommandOptions;
struct DemoCommandOptions;
struct ExplainCommandOptions;
struct InvestigateCommandOptions;
struct IsolateCommandOptions;
struct JudgeRequest;
struct SweepCommandOptions;
struct TableCommandOptions;

// Each Add...Command(s) registers its commands on `app` and parses into `options`, one
// struct per family (cli/command_options.h), which must outlive `app`'s parsing; the command
// chosen sets `action`.

/// Registers bisect run, resume, status, log and reset (bisect_commands.cc).
void AddBisectCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                       BisectCommandOptions& options);
/// Registers judge, for `git bisect run` (bisect_commands.cc).
void AddJudgeCommand(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                     JudgeRequest& options);
/// Registers demo (bisect_commands.cc).
void AddDemoCommand(CLI::App& app, std::function<Result<int>()>& action,
                    DemoCommandOptions& options);
/// Registers investigate (investigate_commands.cc). `argv` is kept for the investigation
/// record.
void AddInvestigateCommand(CLI::App& app, GlobalOptions& global,
                           std::function<Result<int>()>& action, InvestigateCommandOptions& options,
                           int argc, char** argv);
/// Registers isolate and harness check (isolate_commands.cc).
void AddIsolateCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                        IsolateCommandOptions& options);
/// Registers table (table_commands.cc).
void AddTableCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                      TableCommandOptions& options);
/// Registers sweep (sweep_commands.cc).
void AddSweepCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                      SweepCommandOptions& options);
/// Registers explain (explain_commands.cc).
void AddExplainCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                        ExplainCommandOptions& options);
/// Registers audit and publish (audit_commands.cc); argv is recorded in their records.
void AddAuditCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                      AuditCommandsOptions& options, int argc, char** argv);

}  // namespace culprit
