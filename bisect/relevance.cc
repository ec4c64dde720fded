#include "bisect/relevance.h"

namespace culprit {

bool MatchesCodePath(const std::string& path, const std::vector<std::string>& globs) {
  CodePath code_path;
  code_path.source = CodePath::Source::kGlobs;
  code_path.globs = globs;
  return code_path.Contains(path);
}

Relevance CheckRelevance(const std::vector<std::string>& changed_files,
                         const std::vector<std::string>& code_path_globs) {
  CodePath path;
  if (!code_path_globs.empty()) {
    path.source = CodePath::Source::kGlobs;
    path.globs = code_path_globs;
  } else {
    path.why_unknown = "the query has no code_path";
  }
  return CheckRelevance(changed_files, path);
}

Relevance CheckRelevance(const std::vector<std::string>& changed_files, const CodePath& path) {
  Relevance relevance;
  relevance.known = path.known();
  relevance.how_known = path.Describe();
  for (const std::string& file : changed_files) {
    (path.Contains(file) ? relevance.on_path : relevance.off_path).push_back(file);
  }
  return relevance;
}

}  // namespace culprit
