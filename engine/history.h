#pragma once

// The engine's history as the bisect reads it: revisions, commits, ranges and
// what a commit changed. GitRepo is the real one; the bisect simulator and the
// runner's tests script one, so the bisect's orchestration runs without git.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace culprit {

/// One commit, as culprit reports and records it.
struct CommitInfo {
  std::string id;                    ///< Full 40-hex commit id.
  std::string short_id;              ///< First 10 hex digits.
  std::string tree_id;               ///< Full id of the commit's root tree.
  std::vector<std::string> parents;  ///< Full ids, first parent first.
  std::string subject;               ///< First line of the message.
  std::string author;
  std::string author_email;
  int64_t time = 0;  ///< Author time, seconds since the Unix epoch.
};

class History {
 public:
  virtual ~History() = default;

  /// Resolves a revision to a full commit id; an unknown revision is an error
  /// that names it (with a hint).
  virtual Result<std::string> Resolve(std::string_view revision) const = 0;

  /// The commit a revision names.
  virtual Result<CommitInfo> Commit(std::string_view revision) const = 0;

  /// Commits reachable from `bad` and not from `good`, oldest first (every
  /// parent before its children); with `first_parent`, only the chain of first
  /// parents from `bad`.
  virtual Result<std::vector<CommitInfo>> Range(std::string_view good, std::string_view bad,
                                                bool first_parent) const = 0;

  /// Whether `ancestor` is reachable from `descendant` (true when they are the
  /// same commit).
  virtual Result<bool> IsAncestor(std::string_view ancestor, std::string_view descendant) const = 0;

  /// Paths the commit changes against its first parent, sorted, each once.
  virtual Result<std::vector<std::string>> ChangedFiles(std::string_view revision) const = 0;
};

}  // namespace culprit
