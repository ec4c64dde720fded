#include "engine/artifact_paths.h"

#include <algorithm>
#include <filesystem>

namespace culprit {
namespace fs = std::filesystem;

std::string ArtifactName(std::string_view artifact_path) {
  return fs::path(artifact_path).lexically_normal().filename().string();
}

std::optional<ArtifactProblem> FindArtifactProblem(const std::vector<std::string>& artifacts) {
  std::vector<std::string> names;
  for (size_t i = 0; i < artifacts.size(); ++i) {
    fs::path p(artifacts[i]);
    std::string name = ArtifactName(artifacts[i]);
    bool escapes = std::any_of(p.begin(), p.end(), [](const fs::path& c) { return c == ".."; });
    if (p.is_absolute() || escapes || name.empty()) {
      return ArtifactProblem{i, ArtifactProblem::Kind::kNotRelative, name};
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      return ArtifactProblem{i, ArtifactProblem::Kind::kDuplicateName, name};
    }
    names.push_back(name);
  }
  return std::nullopt;
}

}  // namespace culprit
