#include "bisect/relevance.h"

#include <fnmatch.h>

namespace culprit {

bool MatchesCodePath(const std::string& path, const std::vector<std::string>& globs) {
  for (const std::string& glob : globs) {
    if (fnmatch(glob.c_str(), path.c_str(), 0) == 0) return true;
  }
  return false;
}

Relevance CheckRelevance(const std::vector<std::string>& changed_files,
                         const std::vector<std::string>& code_path_globs) {
  Relevance relevance;
  relevance.known = !code_path_globs.empty();
  for (const std::string& file : changed_files) {
    (MatchesCodePath(file, code_path_globs) ? relevance.on_path : relevance.off_path)
        .push_back(file);
  }
  return relevance;
}

}  // namespace culprit
