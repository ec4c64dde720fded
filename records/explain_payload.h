#pragma once

// What an `explain` record holds besides its two samples (one run of the query under
// cachegrind at the parent and one at the change): the whole per-function diff of the two
// runs, ranked by the absolute delta of instructions, each function marked by where it
// stands against the change (in a file it touched, on the query's path but untouched, or
// neither), kept in the record's details_json under "explain" with a schema version. The same
// facts print for `culprit explain` and for `culprit records`, so the two never disagree.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/record.h"

namespace culprit {

/// The payload's version: a reader takes the versions it knows (1) and says so of others.
inline constexpr int kExplainPayloadVersion = 1;

/// Where a function stands against the change.
enum class FunctionPlace {
  kTouched,    ///< In a file the change touched (git diff parent..change).
  kOnPath,     ///< In a file on the query's code path that the change did not touch.
  kElsewhere,  ///< Neither: a library, the system, a file outside the repository, unknown.
};

struct ExplainFunctionFacts {
  std::string function;
  /// The repository's path when the profile's file is one of its files, else as cachegrind
  /// named it ("???" without debug information).
  std::string file;
  int first_line = 0, hottest_line = 0;  ///< 0: no line information.
  uint64_t parent_instructions = 0, change_instructions = 0;
  /// With the cache simulation only.
  std::optional<uint64_t> parent_d1_misses, change_d1_misses, parent_ll_misses, change_ll_misses;
  FunctionPlace place = FunctionPlace::kElsewhere;

  int64_t Delta() const;
  /// change / parent - 1; nullopt when the parent did not run it.
  std::optional<double> Relative() const;
};

struct ExplainFacts {
  int version = kExplainPayloadVersion;
  std::string query;
  std::string metric;          ///< The query's metric, as named ("instructions", "wall", ...).
  std::string parent, change;  ///< Full ids.
  std::string change_subject;
  bool cache_sim = false;
  std::string valgrind;                                       ///< `valgrind --version`.
  uint64_t parent_instructions = 0, change_instructions = 0;  ///< Of the whole process trees.
  double parent_seconds = 0, change_seconds = 0;  ///< Each run's wall time under valgrind.
  std::vector<std::string> changed_files;         ///< git diff parent..change, sorted.
  std::string code_path;  ///< How the query's path is known (CodePath::Describe or the profile).
  std::vector<ExplainFunctionFacts> functions;  ///< Every function either run has, ranked.

  /// The run-to-run floor: 0.1% of the parent's instructions, the bound within which a
  /// count repeats (docs/usage.md). A function whose count moved by no more is not said to
  /// have moved (threads that share work move a few thousand instructions between
  /// functions from run to run).
  uint64_t NoiseFloor() const;
};

/// The functions a report of an explain record lists (the record keeps every one).
inline constexpr size_t kExplainReportRows = 40;
/// The functions the HTML report draws as bars.
inline constexpr size_t kExplainPictureBars = 15;

/// "touched", "on-path", "elsewhere": the spelling in the payload.
std::string_view FunctionPlaceName(FunctionPlace place);

/// A function's delta as the tables print it: "+1,000,001 (+100.0%)", "(new)" when the
/// parent did not run it.
std::string ExplainDeltaText(const ExplainFunctionFacts& fn);

/// `{"explain": {...}}`: the facts as the record's details_json.
std::string ExplainFactsToJson(const ExplainFacts& facts);
/// The facts of an `explain` record, read leniently; nullopt when it holds none or a version
/// this culprit does not read.
std::optional<ExplainFacts> ReadExplainFacts(const Record& record);

/// The heading (the two commits, the totals, how they were counted), the `top` functions that
/// moved most beyond the floor (NoiseFloor; when none did, the `top` that moved less) as a
/// table with their place, and the share of the moved instructions in each place, with the
/// "impossible culprit" sentence when the top function moved beyond the floor and is on the
/// path but untouched. `top` 0: every function that moved.
std::string ExplainFactsText(const ExplainFacts& facts, size_t top);
/// The same as Markdown.
std::string ExplainFactsMarkdown(const ExplainFacts& facts, size_t top);

}  // namespace culprit
