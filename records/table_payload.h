#pragma once

// What a `table` record holds besides its samples: the rows (queries), the
// columns (arms, the first the baseline), each cell's ratio to its row's
// baseline with its interval and verdict, and each arm's geometric mean, kept
// in the record's details_json. The same facts print as the terminal table,
// Markdown and CSV, for `culprit table` and for `culprit records`, so the two
// never disagree.

#include <optional>
#include <string>
#include <vector>

#include "records/record.h"

namespace culprit {

struct TableRowFacts {
  std::string query;
  std::string unit = "ms";
  int blocks = 0;  ///< Blocks the row ran (each: one run of every arm).
};

struct TableArmFacts {
  std::string name;   ///< Column heading.
  std::string setup;  ///< What it is: "revision v1.0", "PARALLEL=1", the command.
};

struct TableCellFacts {
  int row = 0, arm = 0;
  /// "baseline", "measured" or "not measured".
  std::string status = "measured";
  std::string verdict;  ///< EFFECT, NULL, INCONCLUSIVE; "" for a baseline or unmeasured cell.
  std::string explanation;
  std::string error;                       ///< Why it was not measured.
  std::optional<double> ratio, low, high;  ///< arm / baseline, when an interval exists.
  double confidence = 0;                   ///< Of that interval (after the table's spending).
  int pairs = 0;
  int decided_blocks = 0;  ///< The row's blocks when it was decided; 0: at no look before the end.
  int runs = 0, failed = 0;
  std::optional<double> median;  ///< This sitting's median, in the row's unit.
};

struct TableMeanFacts {
  int arm = 0;
  double ratio = 1, low = 1, high = 1;
  double confidence = 0.95;
  int cells = 0;
};

/// One published claim of `culprit table --check` (probes/table_check.h): the published
/// ratio of a cell to its row's baseline, and what the re-measured cell says of it.
struct TableClaimFacts {
  int row = 0, arm = 0;
  /// "holds", "tie", "reversed", "undecided", "not published" or "not checked".
  std::string label;
  std::optional<double> published, published_baseline;  ///< The two published values.
  std::optional<double> published_ratio;                ///< published / published_baseline.
  /// "one sitting", "two unrelated numbers divided" or "not stated".
  std::string sittings;
  std::string explanation;
};

struct TableFacts {
  std::vector<TableRowFacts> rows;
  std::vector<TableArmFacts> arms;
  std::vector<TableCellFacts> cells;  ///< Row-major, rows × arms.
  std::vector<TableMeanFacts> means;  ///< One per non-baseline arm with a measured cell.
  double band = 0.05;
  double confidence = 0.95;  ///< Family-wise over the cells.
  double cell_alpha = 0.05;  ///< What each cell spent (Bonferroni: 1 - confidence over cells).
  int cells_tested = 0;
  std::vector<int> looks;
  uint64_t seed = 0;
  /// `--check`: the published table's file(s) and its claims, one per published cell after
  /// the first column; empty for a table that checks nothing.
  std::string check_source;
  std::vector<TableClaimFacts> claims;

  /// The cell (row, arm), or null.
  const TableCellFacts* Cell(int row, int arm) const;
};

/// The facts as the JSON text of a record's details_json.
std::string TableFactsToJson(const TableFacts& facts);
/// The facts of a `table` record, read leniently (a missing or wrongly typed field takes its
/// default); nullopt when the record holds no table payload.
std::optional<TableFacts> ReadTableFacts(const Record& record);

/// The terminal table: a heading line that says what the numbers are, one line per query
/// with each arm's ratio to the baseline, interval and verdict, the geometric means, then
/// "this sitting's medians" in the rows' units, then the cells that were not measured, then
/// (with `--check`) the published claims, one line each with its label.
std::string TableFactsText(const TableFacts& facts);
/// The same as Markdown tables (cells escaped).
std::string TableFactsMarkdown(const TableFacts& facts);
/// One line per cell: query,arm,status,verdict,ratio,low,high,confidence,pairs,blocks,
/// median,unit,runs,failed,error (RFC 4180 quoting).
std::string TableFactsCsv(const TableFacts& facts);

}  // namespace culprit
