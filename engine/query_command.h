#pragma once

// A query's command as configured is a template: `{artifact:NAME}` is the path
// of artifact NAME in the arm's build, `{rev}` the revision the user gave (or
// its commit id, see ExpandPlaceholders), `{commit}` its full id and `{tree}`
// the build's source tree. Expanding it per arm is what lets one query
// definition measure any build. Values are inserted as they are, unquoted.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace culprit {

/// What the placeholders of one arm resolve to.
struct ArmContext {
  std::map<std::string, std::filesystem::path> artifacts;  ///< Artifact name (file name) -> path.
  std::string rev;             ///< As given; "" for the working tree. Not trusted.
  std::string commit;          ///< Full id; "" for the working tree.
  std::filesystem::path tree;  ///< Source tree of the build (the working tree if no rev).
};

/// Whether `revision` is plain: only [A-Za-z0-9._/-], not empty, not starting
/// with '-'. Such a name is safe to pass into a command, even into a shell's.
bool IsPlainRevision(std::string_view revision);

/// Expands every placeholder in `word`. Unknown placeholders and artifacts the
/// arm does not have are usage errors naming them; `{{` and `}}` are literal braces.
/// `{rev}` is the revision as given only when it is plain (IsPlainRevision);
/// any other is replaced by its commit id, since a revision is text from the
/// command line or a published table that git resolves leniently
/// (`HEAD@{now;touch x}` names HEAD) and a command may be a shell's.
Result<std::string> ExpandPlaceholders(std::string_view word, const ArmContext& context);

/// `word` with each `{name}` placeholder replaced by `value`, ready for ExpandPlaceholders:
/// the value's braces are doubled, so that it goes in as written, and the word's own `{{` and
/// `}}` stay the escapes they are (so "{{query}}" is not a placeholder to fill). Other
/// placeholders are left for ExpandPlaceholders. For the placeholders a caller fills itself
/// before a command becomes a query's ({query} of [registry] and [engines.NAME] commands).
std::string FillPlaceholder(std::string_view word, std::string_view name, std::string_view value);

/// Expands each word of a command.
Result<std::vector<std::string>> ExpandCommand(const std::vector<std::string>& argv,
                                               const ArmContext& context);

/// What makes a command template word unable to expand for any build.
struct TemplateProblem {
  enum class Kind {
    kUnclosedBrace,       ///< A '{' with no '}' after it.
    kUnknownPlaceholder,  ///< {name} that is none of rev, commit, tree, artifact:NAME.
    kUnknownArtifact,     ///< {artifact:name} whose name is not in the artifacts given.
  };
  Kind kind;
  std::string name;  ///< The placeholder's name or artifact name; "" for kUnclosedBrace.
};

/// The placeholders a template may use besides {artifact:NAME}.
inline constexpr std::string_view kPlaceholderNames[] = {"rev", "commit", "tree"};

/// The first problem of `word` as a template, given the artifact names (file
/// names) a build has and the placeholders its user fills besides the usual
/// ones (e.g. "query" in [registry] command); nullopt when it expands for every
/// build. So that a configuration is refused at load time, not when the query
/// first runs.
std::optional<TemplateProblem> FindTemplateProblem(std::string_view word,
                                                   const std::vector<std::string>& artifacts,
                                                   const std::vector<std::string>& extra = {});

}  // namespace culprit
