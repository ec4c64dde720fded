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

/// Loads the configuration named by --config, or ./culprit.toml.
Result<Config> LoadGlobalConfig(const GlobalOptions& global);

/// The configuration of `run` or `probe`: LoadGlobalConfig when `command` is
/// empty. Otherwise `command` (the words after `--`) becomes a query of its
/// own, named after its program, measured by wall time, and `*query` is set
/// to that name (a query given as well is a usage error); a culprit.toml is
/// then optional: without one, [measure] and [records] take their defaults
/// in the current directory, and nothing can be built.
Result<Config> LoadMeasureConfig(const GlobalOptions& global,
                                 const std::vector<std::string>& command, std::string* query);

/// Registers bisect, judge and demo (bisect_commands.cc). The returned object
/// owns their options: keep it alive while `app` parses.
std::shared_ptr<void> AddInvestigationCommands(CLI::App& app, GlobalOptions& global,
                                               std::function<Result<int>()>& action);

/// Registers investigate (investigate_commands.cc); as above. `argv` is kept
/// for the investigation record.
std::shared_ptr<void> AddInvestigateCommand(CLI::App& app, GlobalOptions& global,
                                            std::function<Result<int>()>& action, int argc,
                                            char** argv);

/// Registers isolate and harness check (isolate_commands.cc); as above.
std::shared_ptr<void> AddIsolateCommands(CLI::App& app, GlobalOptions& global,
                                         std::function<Result<int>()>& action);

/// Registers table (table_commands.cc); as above.
std::shared_ptr<void> AddTableCommands(CLI::App& app, GlobalOptions& global,
                                       std::function<Result<int>()>& action);

/// Registers sweep (sweep_commands.cc); as above.
std::shared_ptr<void> AddSweepCommands(CLI::App& app, GlobalOptions& global,
                                       std::function<Result<int>()>& action);

/// Registers explain (explain_commands.cc); as above.
std::shared_ptr<void> AddExplainCommands(CLI::App& app, GlobalOptions& global,
                                         std::function<Result<int>()>& action);

/// Registers audit (audit_commands.cc); as above. argv is recorded in the audit record.
std::shared_ptr<void> AddAuditCommands(CLI::App& app, GlobalOptions& global,
                                       std::function<Result<int>()>& action, int argc, char** argv);

}  // namespace culprit
