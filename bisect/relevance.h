#pragma once

// Is a commit on a query's code path? The commit's changed files against the
// query's code_path globs. No overlap means the commit touches nothing the
// query executes: a slowdown it causes needs another explanation (residency).

#include <string>
#include <vector>

namespace culprit {

struct Relevance {
  std::vector<std::string> on_path;   ///< Changed files matching a code_path glob.
  std::vector<std::string> off_path;  ///< The others.
  bool known = false;                 ///< False when the query has no code_path globs.
  bool relevant() const { return !on_path.empty(); }
};

/// `*` and `**` both match across '/', `?` one character, `[...]` a class
/// (fnmatch without FNM_PATHNAME): "src/scan/**" matches everything under src/scan/.
bool MatchesCodePath(const std::string& path, const std::vector<std::string>& globs);

Relevance CheckRelevance(const std::vector<std::string>& changed_files,
                         const std::vector<std::string>& code_path_globs);

}  // namespace culprit
