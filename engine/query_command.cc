#include "engine/query_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "base/strings.h"

namespace culprit {
namespace {

constexpr std::string_view kArtifactPrefix = "artifact:";

// Calls `on_placeholder(name)` for each {name}; returns the text with each
// replaced by what the callback returns, or the callback's error.
template <typename F>
Result<std::string> Substitute(std::string_view word, F&& on_placeholder) {
  std::string out;
  for (size_t i = 0; i < word.size(); ++i) {
    char c = word[i];
    if ((c == '{' || c == '}') && i + 1 < word.size() && word[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    size_t close = word.find('}', i);
    if (close == std::string_view::npos) {
      return Error::Usage(
          fmt::format("unclosed '{{' in '{}' (write '{{{{' for a literal brace)", word));
    }
    Result<std::string> value = on_placeholder(word.substr(i + 1, close - i - 1));
    if (!value) return value.error();
    out += *value;
    i = close;
  }
  return out;
}

/// What `{rev}` becomes: the revision if plain, else its commit id.
Result<std::string> RevisionText(const ArmContext& context, std::string_view word) {
  if (context.rev.empty()) return std::string("worktree");
  if (IsPlainRevision(context.rev)) return context.rev;
  if (!context.commit.empty()) return context.commit;
  // The revision itself is left out of the message: it is untrusted text.
  return Error::Usage(fmt::format(
      "'{{rev}}' in '{}': the revision is not a plain name ([A-Za-z0-9._/-]) and has no commit "
      "id to stand for it",
      word));
}

}  // namespace

bool IsPlainRevision(std::string_view revision) {
  if (revision.empty() || revision.front() == '-') return false;
  return std::all_of(revision.begin(), revision.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '/' || c == '-';
  });
}

std::string FillPlaceholder(std::string_view word, std::string_view name, std::string_view value) {
  const std::string placeholder = fmt::format("{{{}}}", name);
  std::string out;
  for (size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    if ((c == '{' || c == '}') && i + 1 < word.size() && word[i + 1] == c) {
      out.append(2, c);  // An escape stays one for ExpandPlaceholders.
      ++i;
    } else if (word.substr(i).starts_with(placeholder)) {
      for (char v : value) {
        out += v;
        if (v == '{' || v == '}') out += v;
      }
      i += placeholder.size() - 1;
    } else {
      out += c;
    }
  }
  return out;
}

Result<std::string> ExpandPlaceholders(std::string_view word, const ArmContext& context) {
  return Substitute(word, [&](std::string_view name) -> Result<std::string> {
    if (name.starts_with(kArtifactPrefix)) {
      std::string artifact(name.substr(kArtifactPrefix.size()));
      auto it = context.artifacts.find(artifact);
      if (it == context.artifacts.end()) {
        std::vector<std::string> known;
        for (const auto& [key, path] : context.artifacts) known.push_back(key);
        return Error::Usage(fmt::format("unknown artifact '{}' in '{}'{}", artifact, word,
                                        DidYouMean(artifact, known)))
            .WithHint("artifacts are the file names of the paths in [engine] artifacts");
      }
      return it->second.string();
    }
    if (name == "rev") return RevisionText(context, word);
    if (name == "commit") {
      if (context.commit.empty()) {
        return Error::Usage(fmt::format("'{{commit}}' in '{}' needs a revision (--rev)", word));
      }
      return context.commit;
    }
    if (name == "tree") return context.tree.string();
    std::vector<std::string> known(std::begin(kPlaceholderNames), std::end(kPlaceholderNames));
    known.push_back("artifact:NAME");
    return Error::Usage(
        fmt::format("unknown placeholder '{{{}}}' in '{}'{}", name, word, DidYouMean(name, known)));
  });
}

Result<std::vector<std::string>> ExpandCommand(const std::vector<std::string>& argv,
                                               const ArmContext& context) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (const std::string& word : argv) {
    Result<std::string> expanded = ExpandPlaceholders(word, context);
    if (!expanded) return expanded.error();
    out.push_back(std::move(*expanded));
  }
  return out;
}

std::optional<TemplateProblem> FindTemplateProblem(std::string_view word,
                                                   const std::vector<std::string>& artifacts,
                                                   const std::vector<std::string>& extra) {
  std::optional<TemplateProblem> problem;
  Result<std::string> walked = Substitute(word, [&](std::string_view name) -> Result<std::string> {
    if (name.starts_with(kArtifactPrefix)) {
      std::string artifact(name.substr(kArtifactPrefix.size()));
      if (std::find(artifacts.begin(), artifacts.end(), artifact) != artifacts.end()) {
        return std::string();
      }
      problem = TemplateProblem{TemplateProblem::Kind::kUnknownArtifact, artifact};
    } else if (std::find(std::begin(kPlaceholderNames), std::end(kPlaceholderNames), name) !=
                   std::end(kPlaceholderNames) ||
               std::find(extra.begin(), extra.end(), name) != extra.end()) {
      return std::string();
    } else {
      problem = TemplateProblem{TemplateProblem::Kind::kUnknownPlaceholder, std::string(name)};
    }
    return Error("stop at the first problem");
  });
  if (!walked && !problem) problem = TemplateProblem{TemplateProblem::Kind::kUnclosedBrace, ""};
  return problem;
}

}  // namespace culprit
