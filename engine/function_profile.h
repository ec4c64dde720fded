#pragma once

// Where a run's instructions (and simulated cache misses) went, function by function: read
// from cachegrind's out files (engine/cachegrind.h writes one per process of the query's
// tree) and diffed between two runs, for `culprit explain` (investigate/explain.h). Pure:
// text in, numbers out.
//
// An out file names a source file (`fl=FILE`), then functions in it (`fn=NAME`), each
// followed by count lines `LINE C1 C2 ...`, one count per event of the `events:` line (a
// line with fewer counts has zeros for the rest). A function is keyed by its file and name,
// as cg_annotate keys it: code inlined from a header is counted under the header.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace culprit {

/// What one function cost in one run (or a process tree's runs, summed).
struct FunctionCost {
  std::string file;           ///< As cachegrind names it; "???" when the binary has no debug info.
  std::string function;       ///< As cachegrind names it ("???" when unknown).
  uint64_t instructions = 0;  ///< Ir.
  uint64_t d1_misses = 0;     ///< D1mr + D1mw; 0 without the cache simulation.
  uint64_t ll_misses = 0;     ///< DLmr + DLmw; 0 without the cache simulation.
  /// Instructions per source line (line 0: no line information).
  std::map<int, uint64_t> line_instructions;

  /// The smallest line with a count (0 when none is known).
  int FirstLine() const;
  /// The line with the most instructions (the smallest of equals; 0 when none is known).
  int HottestLine() const;
};

/// Every function of a run, by (file, function).
struct FunctionProfile {
  /// Whether the counts include simulated cache misses (the out files had D1mr and DLmr).
  bool cache_sim = false;
  std::map<std::pair<std::string, std::string>, FunctionCost> functions;

  uint64_t TotalInstructions() const;
};

/// The functions of one cachegrind out file. Errors name the line that is malformed: no
/// `events:` line, a count line before any `fn=`, a count that is not a number, more counts
/// than events.
Result<FunctionProfile> ParseFunctionProfile(std::string_view out_file);

/// Adds `from`'s counts into `into` (the out files of one process tree). The result has
/// cache misses only when both had them.
void MergeFunctionProfile(FunctionProfile& into, const FunctionProfile& from);

/// One function's counts at the parent and at the change.
struct FunctionDelta {
  std::string file, function;
  uint64_t parent_instructions = 0, change_instructions = 0;
  uint64_t parent_d1_misses = 0, change_d1_misses = 0;
  uint64_t parent_ll_misses = 0, change_ll_misses = 0;
  int first_line = 0;    ///< At the change, else at the parent (a function the change removed).
  int hottest_line = 0;  ///< As first_line.

  int64_t InstructionsDelta() const;
  /// change / parent - 1; nullopt when the parent did not run the function.
  std::optional<double> RelativeDelta() const;
};

/// Every function either run has, ranked by the absolute delta of its instructions (largest
/// first; equal deltas by file, then name, so the order is the same on every run).
std::vector<FunctionDelta> DiffFunctionProfiles(const FunctionProfile& parent,
                                                const FunctionProfile& change);

/// The path in a repository of a file a profile names: the longest of `repository_files`
/// that ends `profile_file` at a '/' (after `./` and `..` are resolved), since a build's
/// debug information names its sources where they were compiled (any checkout, any host).
/// "" when none does (a system library, "???").
std::string RepositoryPath(std::string_view profile_file,
                           const std::set<std::string>& repository_files);

}  // namespace culprit
