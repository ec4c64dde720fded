#pragma once

// Real temporary git repositories for tests, created through libgit2 with a
// fixed author and clock, so that commit ids are the same on every run.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace culprit {

/// A git repository with a working tree at `path`; every operation aborts the
/// test (throws) on failure. Commits go on the branch HEAD points to, and the
/// working tree and index follow them, like a user committing by hand.
class GitFixture {
 public:
  /// Initializes a repository at `path` (branch "main").
  explicit GitFixture(const std::filesystem::path& path);
  ~GitFixture();
  GitFixture(const GitFixture&) = delete;
  GitFixture& operator=(const GitFixture&) = delete;

  const std::filesystem::path& path() const { return path_; }

  /// Writes `files` (path -> content) into the working tree, removes
  /// `removed`, stages everything and commits on HEAD. Returns the commit id.
  std::string Commit(const std::map<std::string, std::string>& files,
                     const std::vector<std::string>& removed, const std::string& message);

  /// Like Commit, but the commit has a second parent `other` (a merge); the
  /// tree is HEAD's plus `files` (the caller writes the merge result).
  std::string Merge(const std::string& other, const std::map<std::string, std::string>& files,
                    const std::string& message);

  /// Creates branch `name` at `commit` and makes it HEAD (working tree and
  /// index follow).
  void Branch(const std::string& name, const std::string& commit);
  /// Makes the existing branch `name` HEAD (working tree and index follow).
  void Switch(const std::string& name);

  /// An annotated tag `name` on `commit`.
  void Tag(const std::string& name, const std::string& commit);

  /// Sets the executable bit of a file in the working tree and stages it.
  void MakeExecutable(const std::string& file);

  /// Creates a symlink `path` -> `target` in the working tree and stages it.
  void Symlink(const std::string& path, const std::string& target);

  /// Stages a submodule entry (gitlink) at `path` pointing to `commit`.
  void AddGitlink(const std::string& path, const std::string& commit);

 private:
  std::string CommitWithParents(const std::map<std::string, std::string>& files,
                                const std::vector<std::string>& removed, const std::string& message,
                                const std::string& extra_parent);

  std::filesystem::path path_;
  void* repo_ = nullptr;  // git_repository*, kept opaque to keep git2.h out of tests
  int commits_ = 0;
};

}  // namespace culprit
