#pragma once

// Is a commit on a query's code path? The commit's changed files against the
// query's code_path globs. No overlap means the commit touches nothing the
// query executes: a slowdown it causes needs another explanation (residency).

#include <string>
#include <vector>

#include "probes/code_path.h"

namespace culprit {

struct Relevance {
  std::vector<std::string> on_path;   ///< Changed files on the query's code path.
  std::vector<std::string> off_path;  ///< The others.
  bool known = false;                 ///< False when the code path is not known.
  std::string how_known;              ///< CodePath::Describe(): globs, coverage at X, command.
  bool relevant() const { return !on_path.empty(); }
};

/// `*` and `**` both match across '/', `?` one character, `[...]` a class
/// (fnmatch without FNM_PATHNAME): "src/scan/**" matches everything under src/scan/.
bool MatchesCodePath(const std::string& path, const std::vector<std::string>& globs);

Relevance CheckRelevance(const std::vector<std::string>& changed_files,
                         const std::vector<std::string>& code_path_globs);

/// The changed files against a code path however it was known
/// (probes/code_path.h): an unknown path puts every file off the path, with
/// `known` false, and says why in `how_known`.
Relevance CheckRelevance(const std::vector<std::string>& changed_files, const CodePath& path);

}  // namespace culprit
