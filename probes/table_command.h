#pragma once

// `culprit table` as a library call: the table's rows (queries) and columns
// (revisions, override sets, or ad-hoc commands) made into one table sitting
// (probes/table.h), its record archived, and the facts every output format
// prints (records/table_payload.h).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "probes/measure_commands.h"
#include "probes/table.h"
#include "probes/table_check.h"
#include "records/record.h"
#include "records/table_payload.h"

namespace culprit {

struct TableRequest {
  /// `-q`: the rows, in this order; empty: every configured query (in name order). With
  /// ad-hoc commands, the values of their {query} placeholder.
  std::vector<std::string> queries;
  /// `--rev`: revisions of the engine, built through the build provider; empty: the working
  /// tree as it stands.
  std::vector<std::string> revisions;
  /// `--arm`: override sets, `default`, `NAME:K=V[,K=V]`, or a K=V / [overrides] set name
  /// alone. With several revisions as well, the columns are every revision × every set.
  std::vector<std::string> arms;
  /// `--engine`: other engines ([engines.NAME]), one column each after the revisions and
  /// override sets; each cell runs the engine's command for the row's query.
  std::vector<std::string> engines;
  /// `--order registry`: every cell of the engine's columns runs the [registry] command for
  /// its row's query (`{query}` filled in), so the query runs after those before it in
  /// `order`, in one process, as the published table ran it. Rows default to the order.
  struct RegistryRun {
    std::vector<std::string> order;    ///< [registry] order.
    std::vector<std::string> command;  ///< [registry] command, with {query}.
  };
  std::optional<RegistryRun> registry;
  /// Ad-hoc commands (`culprit table -- CMD -- CMD`), one column each, no engine: a command of
  /// one word with a blank in it is run by /bin/sh -c, else the words are its argv.
  std::vector<std::vector<std::string>> commands;
  /// `--name`: what the columns are called, in order, instead of the revisions, sets or
  /// program names; empty, or one per column.
  std::vector<std::string> names;
  /// `--check`: a published table whose claims the sitting checks (probes/table_check.h).
  /// Its queries are the rows unless -q chooses some of them; its columns map to the
  /// table's columns in order: the --rev, --arm or commands given, one per published
  /// column, or, with none given, each heading taken as a revision (--rev HEADING). The
  /// headings name the columns unless --name does.
  std::optional<PublishedGrid> check;
  MeasureFlags flags;
  /// False: RunTable leaves its record unarchived (record_path empty), for a caller that makes
  /// the sitting a record of its own kind (a sweep, bisect/sweep_runner.h) and archives that.
  bool archive = true;
};

struct TableOutcome {
  TableSittingResult sitting;
  TableFacts facts;
  Record record;
  std::filesystem::path record_path;
  std::optional<Error> archive_error;  ///< As ComparisonOutcome's.
};

/// One column of override sets: `default`, `NAME:K=V[,K=V...]` or what `--override` takes
/// (K=V or an [overrides] set name). Usage errors name the spec.
struct TableArmSet {
  std::string name;
  OverrideSet overrides;
};
Result<TableArmSet> ParseTableArm(const std::string& spec,
                                  const std::map<std::string, NamedOverride>& named);

/// Measures the table in one sitting and archives its `table` record, whatever happened
/// (a cell that was not measured, Ctrl-C). Usage errors before anything runs: fewer than two
/// columns, an unknown query, a {query} placeholder without -q (or -q without one).
Result<TableOutcome> RunTable(const MeasureContext& context, const TableRequest& request);

/// Error after the table is shown: the archive refused the record, the sitting was
/// interrupted, or a cell was not measured (naming the record).
Status TableOutcomeStatus(const TableOutcome& outcome);

/// With `--check`: a published claim that does not hold (tie or reversed), so the command
/// exits 3 (base/exit_codes.h).
bool TableCheckFails(const TableOutcome& outcome);

}  // namespace culprit
