#pragma once

// Read-only access to the engine's git repository, behind a narrow interface
// (libgit2 is used only in git_repo.cc). culprit never writes to the user's
// repository: not the working tree, not the index, not refs. Commits are
// written out only into directories culprit owns (Materialize).

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/history.h"

namespace culprit {

/// An open repository. Movable, not copyable, not thread-safe (one per thread).
class GitRepo : public History {
 public:
  /// Opens the repository containing `path` (searching upwards, like git).
  /// Errors name the path and say how to fix the configuration.
  static Result<GitRepo> Open(const std::filesystem::path& path);

  GitRepo(GitRepo&&) noexcept;
  GitRepo& operator=(GitRepo&&) noexcept;
  GitRepo(const GitRepo&) = delete;
  GitRepo& operator=(const GitRepo&) = delete;
  ~GitRepo();

  /// The working tree root (for a bare repository: the git directory).
  std::filesystem::path workdir() const;

  /// Resolves any revision git understands (full or short ids, branches, tags,
  /// `HEAD~3`, `A^2`, ...) to a full commit id. Tags are peeled to their
  /// commit. An unknown revision is an error "unknown revision 'X' in REPO"
  /// with a hint (and a did-you-mean among branch and tag names).
  Result<std::string> Resolve(std::string_view revision) const override;

  /// The commit a revision names.
  Result<CommitInfo> Commit(std::string_view revision) const override;

  /// Commits reachable from `bad` and not from `good`, oldest first: every
  /// parent before its children, otherwise by commit time, like
  /// `git rev-list --reverse --date-order good..bad` (with
  /// `--first-parent` when `first_parent`: only the chain of first parents
  /// from `bad`, which keeps merged side branches out of a bisect).
  Result<std::vector<CommitInfo>> Range(std::string_view good, std::string_view bad,
                                        bool first_parent) const override;

  /// Whether `ancestor` is reachable from `descendant` (true when they are the
  /// same commit, like `git merge-base --is-ancestor`).
  Result<bool> IsAncestor(std::string_view ancestor, std::string_view descendant) const override;

  /// Paths the commit changes against its first parent (against the empty
  /// tree for a root commit), sorted, each once. For a merge this is what the
  /// merge brought into the first-parent line.
  Result<std::vector<std::string>> ChangedFiles(std::string_view revision) const override;

  /// Paths that differ between the trees of `from` and `to` (any two commits, like
  /// `git diff --name-only from to`), sorted, each once.
  Result<std::vector<std::string>> ChangedFilesBetween(std::string_view from,
                                                       std::string_view to) const;

  /// Paths of the files in the commit's tree (not directories, not submodules), sorted.
  Result<std::vector<std::string>> Files(std::string_view revision) const;

  /// Makes `dir` hold exactly the commit's tree: files added, changed and
  /// removed, executable bits and symlinks as recorded. `dir` must be a
  /// directory culprit owns (never the user's working tree). A stamp file
  /// `.culprit-tree` in `dir` names the tree it holds, so switching commits
  /// only rewrites the files that differ: unchanged files keep their mtimes and
  /// an incremental build rebuilds only what changed. A checkout interrupted
  /// at any point (culprit killed) is finished correctly by the next call: the
  /// stamp says "switching" until every file is written. Untracked files (build
  /// outputs) are left alone unless a tracked path needs their place.
  /// Contents are written raw, without git attributes filters (no CRLF or LFS
  /// conversion). A tree with submodules is an error (not supported yet).
  Status Materialize(std::string_view revision, const std::filesystem::path& dir) const;

  /// Name of the stamp file Materialize keeps in the directories it writes.
  static constexpr const char* kTreeStampFile = ".culprit-tree";

 private:
  struct Impl;
  explicit GitRepo(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace culprit
