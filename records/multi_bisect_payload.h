#pragma once

// What a `multi-bisect` record holds: one `culprit bisect run -q A -q B ...` over several
// queries of one range, each query bisected as a bisect of its own (its own `bisect`
// record, linked), and what they found together: per query its verified changes, its
// unplaced parts or why nothing was found, and the changes whose commit coincides across
// queries as one change that moved several queries. Kept in the record's details_json
// under "multi_bisect", with a version; the same text prints for `culprit bisect run` and
// for `culprit records show`, so the two never disagree.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/record.h"

namespace culprit {

inline constexpr int kMultiBisectPayloadVersion = 1;

/// A verified change of one query: commit `commit` (and, for a range whose earlier commits
/// do not build, `first`..`commit`), its ratio across it (commit / parent) with the interval.
struct MultiBisectChangeFacts {
  std::string first, commit;  ///< Full ids; first == commit for one commit.
  double ratio = 1, low = 1, high = 1;
  int pairs = 0;
  bool operator==(const MultiBisectChangeFacts&) const = default;
};

/// A part of a query's range that holds a move nothing placed (bisect/range_split.h).
struct MultiBisectUnplacedFacts {
  std::string good, bad;  ///< Full ids of the part's ends.
  std::string check;      ///< Its check: "same", "opposite", "undecided".
  double ratio = 1, low = 1, high = 1;
  bool operator==(const MultiBisectUnplacedFacts&) const = default;
};

/// How one query's bisect ended.
enum class MultiBisectStatus {
  kFound,    ///< A change was named and verified (its bisect's exit 0).
  kNothing,  ///< Not reproduced, not confirmed or not placed (its bisect's exit 4).
  kFailed,   ///< Its bisect stopped on an error; the others ran.
  kNotRun,   ///< Not reached (the whole was interrupted before it).
};
/// "found", "nothing found", "failed", "not run"; the inverse, nullopt for anything else.
std::string_view MultiBisectStatusName(MultiBisectStatus status);
std::optional<MultiBisectStatus> ParseMultiBisectStatus(std::string_view name);

struct MultiBisectQueryFacts {
  std::string query;
  MultiBisectStatus status = MultiBisectStatus::kNotRun;
  /// The search's outcome as the bisect says it ("CULPRIT", "RANGE", "INCONCLUSIVE", "NOT
  /// REPRODUCIBLE"; "FAILED" with the error as the reason) and its reason.
  std::string outcome, reason;
  std::string result_record;  ///< The query's `bisect` record (the innermost, after merges).
  /// The whole range's move for this query (its confirmation), when it was measured.
  std::optional<double> ratio, low, high;
  std::vector<MultiBisectChangeFacts> changes;  ///< By commit order in the range.
  std::vector<MultiBisectUnplacedFacts> unplaced;
  bool operator==(const MultiBisectQueryFacts&) const = default;
};

/// One commit (or range) verified as a change by at least one query.
struct MultiBisectCommonChange {
  std::string first, commit;
  /// (query index, index into that query's changes), in query order.
  std::vector<std::pair<int, int>> moved;
  bool operator==(const MultiBisectCommonChange&) const = default;
};

struct MultiBisectFacts {
  int version = kMultiBisectPayloadVersion;
  std::string good, bad;   ///< As given.
  std::string from_table;  ///< The `table` record the queries were taken from, or "".
  std::vector<MultiBisectQueryFacts> queries;  ///< In the order they were bisected.
  /// Every verified change once, in the order first seen; one moved by several queries is
  /// one entry (bisect/multi_query_report.h CoincidingChanges).
  std::vector<MultiBisectCommonChange> changes;
  bool operator==(const MultiBisectFacts&) const = default;
};

/// One query's facts as a JSON object's text, and back (lenient: a missing or wrongly typed
/// field takes its default; nullopt when `text` is not an object).
std::string MultiBisectQueryToJson(const MultiBisectQueryFacts& facts);
std::optional<MultiBisectQueryFacts> MultiBisectQueryFromJson(std::string_view text);

/// The facts as the JSON text of a record's details_json ({"multi_bisect": {...}}).
std::string MultiBisectFactsToJson(const MultiBisectFacts& facts);
/// The facts of that text; nullopt when it holds none or another version.
std::optional<MultiBisectFacts> MultiBisectFactsFromJson(std::string_view text);
/// The facts of a `multi-bisect` record; nullopt when it holds none.
std::optional<MultiBisectFacts> ReadMultiBisectFacts(const Record& record);

/// The summary: the changes that moved several queries first (each query's ratio and
/// interval beside it), then per query what moved it, its unplaced parts, or why nothing was
/// found; commits shortened to 10 characters.
std::string MultiBisectFactsText(const MultiBisectFacts& facts);

}  // namespace culprit
