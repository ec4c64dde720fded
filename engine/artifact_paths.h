#pragma once

// Artifacts are the files a build keeps per commit ([engine] artifacts, paths
// relative to the checkout). Commands refer to one by its file name, as
// "{artifact:NAME}", so the names must be distinct. One rule for the
// configuration and the build cache.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit {

/// The name an artifact path is referenced by: its file name ("build/eventstore" -> "eventstore").
std::string ArtifactName(std::string_view artifact_path);

/// What is wrong with one entry of an artifact list.
struct ArtifactProblem {
  enum class Kind {
    kNotRelative,    ///< Absolute, climbs out with "..", or has no file name.
    kDuplicateName,  ///< Its file name is an earlier entry's.
  };
  size_t index = 0;  ///< Of the entry.
  Kind kind = Kind::kNotRelative;
  std::string name;  ///< Its ArtifactName.
};

/// The first entry of `artifacts` that cannot be an artifact, or nullopt when
/// every entry is a path relative to the checkout with its own file name.
std::optional<ArtifactProblem> FindArtifactProblem(const std::vector<std::string>& artifacts);

}  // namespace culprit
