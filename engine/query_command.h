#pragma once

// A query's command as configured is a template: `{artifact:NAME}` is the path
// of artifact NAME in the arm's build, `{rev}` the revision the user gave,
// `{commit}` its full id and `{tree}` the build's source tree. Expanding it per
// arm is what lets one query definition measure any build.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace culprit {

/// What the placeholders of one arm resolve to.
struct ArmContext {
  std::map<std::string, std::filesystem::path> artifacts;  ///< Artifact name (file name) -> path.
  std::string rev;                    ///< As the user wrote it; "" for the working tree.
  std::string commit;                 ///< Full id; "" for the working tree.
  std::filesystem::path tree;         ///< Source tree of the build (the working tree if no rev).
};

/// Expands every placeholder in `word`. Unknown placeholders and artifacts the
/// arm does not have are usage errors naming them; `{{` and `}}` are literal braces.
Result<std::string> ExpandPlaceholders(std::string_view word, const ArmContext& context);

/// Expands each word of a command.
Result<std::vector<std::string>> ExpandCommand(const std::vector<std::string>& argv,
                                               const ArmContext& context);

/// The artifact names a command template refers to, in order of first use.
std::vector<std::string> ReferencedArtifacts(const std::vector<std::string>& argv);

}  // namespace culprit
