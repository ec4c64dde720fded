#pragma once

// What each command family parses its command line into: one struct per family, written by
// the CLI::App its Add...Commands function registers (cli/commands.h) and read by the command
// when it runs. CommandFamilies holds them all; RunCommandLine owns it for as long as the
// App parses, so no registration has to allocate and keep its options alive itself.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "bisect/bisect_runner.h"
#include "bisect/judge.h"
#include "bisect/sweep_runner.h"
#include "investigate/audit.h"
#include "investigate/demo.h"
#include "investigate/explain.h"
#include "investigate/investigation_state.h"
#include "probes/isolate_command.h"
#include "probes/table_command.h"

namespace culprit {

struct BisectCommandOptions {
  BisectRequest request;
  bool all_parents = false;
  /// -q, once or more; several (or --from-table) bisect every one (bisect/multi_query_bisect.h).
  std::vector<std::string> queries;
  std::string from_table;
};

struct DemoCommandOptions {
  DemoOptions demo;
  std::string stop_after;  ///< --stop-after, parsed when the command runs.
};

struct IsolateCommandOptions {
  IsolateRequest request;
  std::optional<std::string> revision;
  bool rebuild = false;
  bool json = false;
  HarnessCheckRequest check;
  std::optional<std::string> check_revision;
  std::optional<double> check_timeout_s;
};

struct InvestigateCommandOptions {
  InvestigateRequest request;
  std::string stop_after;
  bool resume = false;
  bool restart = false;
  bool no_explain = false;
  std::vector<std::string> invocation;
};

struct AuditCommandOptions {
  AuditRequest request;
  std::optional<std::string> table;
  bool rebuild = false;
  bool json = false;
};

struct PublishCommandOptions {
  PublishRequest request;
  std::string output;
  bool rebuild = false;
};

struct AuditCommandsOptions {
  AuditCommandOptions audit;
  PublishCommandOptions publish;
};

struct TableCommandOptions {
  TableRequest request;
  std::string format = "text";
  bool rebuild = false;
  std::vector<std::string> check;  ///< --check: the published table's file(s).
  std::string order = "alone";     ///< --order: each query alone, or the registry's.
};

struct SweepCommandOptions {
  std::string range;
  SweepRequest request;
  std::optional<int> every, points;
  std::string format = "text";
  bool rebuild = false;
  bool bisect = false;
};

struct ExplainCommandOptions {
  ExplainRequest request;
  size_t top = 10;
  std::string format = "text";
  bool rebuild = false;
};

/// Every family's options, one member each.
struct CommandFamilies {
  BisectCommandOptions bisect;
  JudgeRequest judge;
  DemoCommandOptions demo;
  InvestigateCommandOptions investigate;
  IsolateCommandOptions isolate;
  AuditCommandsOptions audit;
  TableCommandOptions table;
  SweepCommandOptions sweep;
  ExplainCommandOptions explain;
};

}  // namespace culprit
