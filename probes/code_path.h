#pragma once

// Which source files a query executes at a commit, and how that is known.
//
// A query's `code_path` is one of: globs the user wrote; "auto", measured by
// a coverage build (the engine's build steps with --coverage in CFLAGS,
// CXXFLAGS and LDFLAGS, in a build cache of its own) and one run of the query
// with GCOV_PREFIX set, the files with executed lines being the path; or
// { command = [...] }, a command that prints one source path per line. The
// relevance of a bisect's culprit is decided against it, so it must never be
// invented: when coverage cannot be had, the path is unknown, and says why.

#include <string>
#include <vector>

#include "base/result.h"
#include "engine/build_cache.h"
#include "engine/engine_config.h"

namespace culprit {

struct CodePath {
  enum class Source {
    kUnknown,   ///< No code_path, or it could not be measured: see `why_unknown`.
    kGlobs,     ///< The globs the user wrote.
    kCoverage,  ///< Measured by coverage at `commit`.
    kCommand,   ///< Printed by code_path's command at `commit`.
  };
  Source source = Source::kUnknown;
  std::vector<std::string> globs;  ///< kGlobs.
  std::vector<std::string> files;  ///< kCoverage, kCommand: relative to the repository, sorted.
  std::string commit;              ///< kCoverage, kCommand.
  std::string why_unknown;         ///< kUnknown.

  bool known() const { return source != Source::kUnknown; }
  /// Whether `path` (relative to the repository) is on the path.
  bool Contains(const std::string& path) const;
  /// "globs src/scan/**, src/store/**", "coverage at 1a2b3c4d5e (3 files)",
  /// "the code_path command at 1a2b3c4d5e (3 files)", "unknown: ...".
  std::string Describe() const;
};

/// The code path of `query` at `commit` (a full id). For "auto", builds the
/// commit for coverage (reusing an earlier coverage build and an earlier
/// measurement of the same commit: both are cached), runs the query once and
/// reads the coverage with gcov. Errors: only Ctrl-C and a commit that does
/// not exist; everything else that keeps the path from being known (no gcov,
/// a build that ignores the flags, a query that fails) is a kUnknown result
/// that says what happened.
Result<CodePath> FindCodePath(const EngineSections& config, const QueryConfig& query,
                              const std::string& commit, BuildProgress* progress);

/// The files with executed lines in gcov's JSON output (`gcov --json-format
/// --stdout`, one document per line), made relative to `checkout` (the
/// directory the build ran in); files outside it (system headers) are left
/// out. Sorted, without duplicates.
std::vector<std::string> ExecutedFiles(std::string_view gcov_json_lines,
                                       const std::string& checkout);

}  // namespace culprit
