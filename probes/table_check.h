#pragma once

// `culprit table --check`: a published table's claims against the same table
// measured again in one sitting. A published table is values per column per
// query (PublishedGrid; investigate/published_grid.h reads the files). Its
// claims are the table's comparisons as `culprit table` makes them: every
// column against the first (the published baseline), one query at a time, so
// claim (row, column) is the cell (row, column) of the re-measured table.
// Each claim is labelled from that cell's verdict (pure functions here): holds,
// tie, reversed, undecided; a claim with a missing published value is "not
// published", one whose cell could not be measured "not checked". Whether the
// published ratio's two numbers came from one sitting is said beside the label.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "probes/table.h"

namespace culprit {

/// One published value of the table: a cell of the published file.
struct PublishedCell {
  std::optional<double> value;  ///< > 0; nullopt: the file has no value there.
  std::string unit;             ///< As written after the value ("ms"); "" when none.
  /// The sitting the value was measured in, as the source names it (a record id, a
  /// `VALUE@SITTING` label); "" when the source does not say.
  std::string sitting;
  /// The host the value was measured on (its machine id, else its hostname), as a culprit
  /// record names it; "" when the source does not say.
  std::string host;
  std::string source;  ///< Where it was read: "FILE:LINE:COLUMN", "FILE rows[2]".
};

/// A published table: rows are queries, columns what was compared (engines, revisions).
struct PublishedGrid {
  std::string name;                               ///< The file(s) it was read from.
  std::vector<std::string> columns;               ///< Headings; the first is the baseline.
  std::vector<std::string> rows;                  ///< Queries, in the file's order.
  std::vector<std::vector<PublishedCell>> cells;  ///< [row][column].

  /// The row of `query`, or -1.
  int Row(const std::string& query) const;
};

enum class ClaimLabel {
  kHolds,         ///< Re-measured beyond the band in the published direction.
  kTie,           ///< Re-measured inside the band: a published win (or loss) to relabel a tie.
  kReversed,      ///< Re-measured beyond the band the other way.
  kUndecided,     ///< The re-measured cell is INCONCLUSIVE: its explanation says what it takes.
  kNotPublished,  ///< The published table has no value for the cell or its baseline.
  kNotChecked,    ///< The cell could not be measured (its error says why).
};
/// "holds", "tie", "reversed", "undecided", "not published", "not checked".
std::string_view ClaimLabelName(ClaimLabel label);
void PrintTo(ClaimLabel label, std::ostream* out);

/// Whether a published ratio's two numbers came from one sitting.
enum class ClaimSittings {
  kUnknown,    ///< At least one of the two values does not say.
  kSame,       ///< Both name the same sitting.
  kDifferent,  ///< Two sittings: two unrelated numbers divided.
  kCrossHost,  ///< Two hosts (so two sittings as well): a cross-host ratio.
};
/// "not stated", "one sitting", "two unrelated numbers divided", "cross-host: two hosts'
/// numbers divided".
std::string_view ClaimSittingsName(ClaimSittings sittings);

struct Claim {
  int row = 0, arm = 0;
  ClaimLabel label = ClaimLabel::kNotPublished;
  std::optional<double> published_ratio;  ///< value / baseline's value, when both exist.
  ClaimSittings sittings = ClaimSittings::kUnknown;
  std::string explanation;  ///< One sentence: why this label.
};

/// The sittings of a published ratio from its two values' hosts and sitting names: two
/// named hosts that differ are cross-host, whatever the sittings say.
ClaimSittings SittingsOf(const PublishedCell& baseline, const PublishedCell& cell);

/// One claim: `cell` / `baseline` as published against `measured`, the re-measured cell of
/// the same row and column (status, verdict, shift). The direction compared is the ratio's
/// (above or below 1), whatever the metric: the same direction as published and an EFFECT
/// holds, the other direction reverses, a NULL is a tie, an INCONCLUSIVE is undecided (with
/// the cell's explanation, which says what would settle it). A published ratio of exactly 1
/// claims equality: a NULL holds it, an EFFECT either way reverses it.
Claim LabelClaim(const PublishedCell& baseline, const PublishedCell& cell,
                 const TableCell& measured);

/// Every claim of the table: for each measured row (`rows`, the table's queries, each in
/// `published`) and each column after the first, LabelClaim against `cells[row][arm]`.
/// Rows of `published` that are not in `rows` are not claimed.
std::vector<Claim> CheckClaims(const PublishedGrid& published, const std::vector<std::string>& rows,
                               const std::vector<std::vector<TableCell>>& cells);

/// True when a claim does not hold: one labelled tie or reversed (exit status 3).
bool AnyClaimFails(const std::vector<Claim>& claims);

}  // namespace culprit
