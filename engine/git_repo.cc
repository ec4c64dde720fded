#include "engine/git_repo.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <git2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/atomic_file.h"
#include "base/strings.h"
#include "engine/tree_path.h"

namespace culprit {
namespace fs = std::filesystem;
namespace {

/// The last line of the tree stamp while Materialize is writing files.
constexpr const char* kSwitchingLine = "switching";

void EnsureLibgit2Initialized() {
  static const int initialized = git_libgit2_init();
  (void)initialized;
}

template <typename T, void (*Free)(T*)>
struct GitFree {
  void operator()(T* object) const {
    if (object != nullptr) Free(object);
  }
};
using RepoPtr = std::unique_ptr<git_repository, GitFree<git_repository, git_repository_free>>;
using ObjectPtr = std::unique_ptr<git_object, GitFree<git_object, git_object_free>>;
using CommitPtr = std::unique_ptr<git_commit, GitFree<git_commit, git_commit_free>>;
using TreePtr = std::unique_ptr<git_tree, GitFree<git_tree, git_tree_free>>;
using BlobPtr = std::unique_ptr<git_blob, GitFree<git_blob, git_blob_free>>;
using DiffPtr = std::unique_ptr<git_diff, GitFree<git_diff, git_diff_free>>;
using WalkPtr = std::unique_ptr<git_revwalk, GitFree<git_revwalk, git_revwalk_free>>;

std::string LastGitError() {
  const git_error* error = git_error_last();
  return error != nullptr && error->message != nullptr ? error->message : "unknown libgit2 error";
}

std::string OidHex(const git_oid* oid) {
  char buffer[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buffer, sizeof buffer, oid);
  return buffer;
}

std::string StripTrailingSlash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

/// One file of a tree, as Materialize writes it.
struct TreeFile {
  git_oid oid;
  git_filemode_t mode;
};

struct TreeListing {
  std::map<std::string, TreeFile> files;
  std::vector<std::string> gitlinks;
  bool complete = true;  ///< False when unsafe entries were left out.
};

/// What git_tree_walk fills, entry by entry.
struct TreeWalk {
  /// Refuse the whole tree at its first unsafe entry (a tree to write); else
  /// leave unsafe entries and what is below them out of the listing (a tree
  /// written before, whose files are to be removed: those are never touched).
  bool strict = true;
  TreeListing listing;
  std::set<std::string> paths;  ///< Every entry's path: a second one is a duplicate name.
  std::string unsafe_path;      ///< The first unsafe entry, when strict.
  std::string_view unsafe_reason;
};

int CollectTreeEntry(const char* root, const git_tree_entry* entry, void* payload) {
  auto* walk = static_cast<TreeWalk*>(payload);
  std::string_view name = git_tree_entry_name(entry);
  std::string path = std::string(root) + std::string(name);
  std::optional<std::string_view> unsafe = UnsafeTreeEntryReason(name);
  static_assert(kMaxTreePathBytes == 4095, "the reason below says 4095");
  if (!unsafe && path.size() > kMaxTreePathBytes) unsafe = "a path longer than 4095 bytes";
  if (!unsafe && path == GitRepo::kTreeStampFile) unsafe = "the name of culprit's checkout stamp";
  // The symlink `a` and the directory `a` in one tree: written in turn, the
  // files of the directory would go where the link points.
  if (!unsafe && !walk->paths.insert(path).second) unsafe = "a second entry of that name";
  if (unsafe) {
    // In pre-order, a positive value skips the entry and, for a subtree,
    // everything below it.
    if (!walk->strict) {
      walk->listing.complete = false;
      return 1;
    }
    walk->unsafe_path = std::move(path);
    walk->unsafe_reason = *unsafe;
    return GIT_EUSER;
  }
  switch (git_tree_entry_type(entry)) {
    case GIT_OBJECT_BLOB:
      walk->listing.files[path] =
          TreeFile{*git_tree_entry_id(entry), git_tree_entry_filemode(entry)};
      break;
    case GIT_OBJECT_COMMIT:
      walk->listing.gitlinks.push_back(path);
      break;
    default:
      break;
  }
  return 0;
}

/// Whether every directory between `dir` and `relative` is a real directory,
/// not a symlink: only then is `dir / relative` inside `dir`.
bool ParentsAreDirectories(const fs::path& dir, const fs::path& relative) {
  fs::path current = dir;
  std::error_code ec;
  for (const fs::path& part : relative.parent_path()) {
    current /= part;
    if (!fs::is_directory(fs::symlink_status(current, ec))) return false;
  }
  return true;
}

/// The process's umask, which file modes are created under (as git does:
/// 0666 or 0777 less the umask). Read from /proc, which leaves it alone;
/// umask(2) can only read it by setting it.
mode_t ProcessUmask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("Umask:")) {
      try {
        return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8) & 0777);
      } catch (const std::exception&) {
        break;
      }
    }
  }
  mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

fs::perms CheckoutMode(bool executable) {
  return static_cast<fs::perms>((executable ? 0777 : 0666) & ~ProcessUmask());
}

Status MakeParentDirectories(const fs::path& dir, const fs::path& relative) {
  fs::path current = dir;
  for (const fs::path& part : relative.parent_path()) {
    current /= part;
    std::error_code ec;
    fs::file_status status = fs::symlink_status(current, ec);
    // A tracked path may need the place of an old file or symlink (a file that
    // became a directory between the two commits).
    if (fs::exists(status) && !fs::is_directory(status)) fs::remove(current, ec);
    if (!fs::exists(fs::symlink_status(current, ec))) {
      fs::create_directory(current, ec);
      if (ec) {
        return Error(fmt::format("cannot create directory {}: {}", current.string(), ec.message()));
      }
    }
  }
  return {};
}

/// Creates `path`, which must not exist (O_EXCL: never through a link someone
/// put there), with mode 0666 or 0777 less the umask, as git does.
Status WriteRegularFile(const fs::path& path, std::string_view content, bool executable) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  executable ? 0777 : 0666);
  if (fd < 0) return Error(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  while (!content.empty()) {
    ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      int error = written < 0 ? errno : EIO;
      ::close(fd);
      return Error(fmt::format("cannot write {}: {}", path.string(), std::strerror(error)));
    }
    content.remove_prefix(static_cast<size_t>(written));
  }
  if (::close(fd) != 0 && errno != EINTR) {
    return Error(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  }
  return {};
}

bool SameRegularContent(const fs::path& path, std::string_view content) {
  std::error_code ec;
  if (fs::file_size(path, ec) != content.size() || ec) return false;
  std::ifstream in(path, std::ios::binary);
  std::string existing(content.size(), '\0');
  in.read(existing.data(), static_cast<std::streamsize>(existing.size()));
  return in && existing == content;
}

void RemoveEmptyParents(const fs::path& dir, fs::path path) {
  std::error_code ec;
  for (path = path.parent_path(); path != dir && path.string().size() > dir.string().size();
       path = path.parent_path()) {
    if (!fs::is_directory(fs::symlink_status(path, ec)) || !fs::is_empty(path, ec)) return;
    fs::remove(path, ec);
  }
}

// The trees a checkout stamp lists, and whether it says that checkout finished.
struct StampedTrees {
  std::vector<std::string> trees;
  bool finished = false;
};

/// What the stamp at `stamp` lists: its tree ids, and finished when it is one
/// tree's id alone; nothing when it is absent or unreadable.
StampedTrees ReadTreeStamp(const fs::path& stamp) {
  StampedTrees stamped;
  std::error_code ec;
  if (!fs::exists(stamp, ec)) return stamped;
  Result<std::string> text = ReadFile(stamp);
  if (!text) return stamped;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() == GIT_OID_HEXSZ) stamped.trees.push_back(line);
  }
  stamped.finished = stamped.trees.size() == 1 && *text == stamped.trees[0] + "\n";
  return stamped;
}

/// Removes from `dir` each file of `old_files` that `target` lacks, and the
/// directories that leaves empty; never through a symlink in its parents.
void RemoveFilesNotIn(const fs::path& dir, const std::map<std::string, TreeFile>& old_files,
                      const std::map<std::string, TreeFile>& target) {
  std::error_code ec;
  for (const auto& [path, file] : old_files) {
    if (target.contains(path)) continue;
    fs::path full = dir / path;
    // Not through a symlink in its parents: the file is not where the tree
    // put it, and what is there is not ours to delete.
    if (!ParentsAreDirectories(dir, path)) continue;
    fs::file_status status = fs::symlink_status(full, ec);
    if (fs::exists(status) && !fs::is_directory(status)) {
      fs::remove(full, ec);
      RemoveEmptyParents(dir, full);
    }
  }
}

/// Whether `path` needs no writing: `dir` is known to hold exactly `old_files`
/// (clean), and path is there with the same blob and mode as `file`.
bool AlreadyCheckedOut(const fs::path& dir, bool clean,
                       const std::map<std::string, TreeFile>& old_files, const std::string& path,
                       const TreeFile& file) {
  if (!clean) return false;
  auto old = old_files.find(path);
  std::error_code ec;
  return old != old_files.end() && git_oid_equal(&old->second.oid, &file.oid) &&
         old->second.mode == file.mode && fs::exists(fs::symlink_status(dir / path, ec));
}

}  // namespace

struct GitRepo::Impl {
  RepoPtr repo;
  fs::path workdir;

  Error UnknownRevision(std::string_view revision) const {
    std::vector<std::string> names;
    git_strarray refs{};
    if (git_reference_list(&refs, repo.get()) == 0) {
      for (size_t i = 0; i < refs.count; ++i) {
        std::string_view name = refs.strings[i];
        for (std::string_view prefix : {"refs/heads/", "refs/tags/", "refs/remotes/"}) {
          if (name.starts_with(prefix)) {
            names.emplace_back(name.substr(prefix.size()));
            break;
          }
        }
      }
      git_strarray_dispose(&refs);
    }
    return Error::Usage(fmt::format("unknown revision '{}' in {}{}", revision, workdir.string(),
                                    DidYouMean(revision, names)))
        .WithHint(fmt::format(
            "a revision is a commit id (full or short), a branch, a tag or an expression like "
            "HEAD~3 or A^2; `git -C {} log --oneline` lists the commits",
            workdir.string()));
  }

  Result<git_oid> ResolveOid(std::string_view revision) const {
    if (revision.empty()) return Error::Usage("empty revision: name a commit, branch or tag");
    std::string spec(revision);
    git_object* raw = nullptr;
    int rc = git_revparse_single(&raw, repo.get(), spec.c_str());
    ObjectPtr object(raw);
    if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC) return UnknownRevision(revision);
    if (rc == GIT_EAMBIGUOUS) {
      return Error::Usage(
                 fmt::format("revision '{}' is ambiguous in {}", revision, workdir.string()))
          .WithHint("give more hex digits of the commit id");
    }
    if (rc != 0) {
      return Error(fmt::format("cannot resolve revision '{}' in {}: {}", revision, workdir.string(),
                               LastGitError()));
    }
    git_object* peeled_raw = nullptr;
    if (git_object_peel(&peeled_raw, object.get(), GIT_OBJECT_COMMIT) != 0) {
      return Error::Usage(fmt::format("revision '{}' names a {}, not a commit", revision,
                                      git_object_type2string(git_object_type(object.get()))));
    }
    ObjectPtr peeled(peeled_raw);
    return *git_object_id(peeled.get());
  }

  Result<CommitPtr> LookupCommit(const git_oid& oid) const {
    git_commit* raw = nullptr;
    if (git_commit_lookup(&raw, repo.get(), &oid) != 0) {
      return Error(fmt::format("cannot read commit {}: {}", OidHex(&oid), LastGitError()));
    }
    return CommitPtr(raw);
  }

  Result<TreePtr> LookupTree(const git_oid& oid) const {
    git_tree* raw = nullptr;
    if (git_tree_lookup(&raw, repo.get(), &oid) != 0) {
      return Error(fmt::format("cannot read tree {}: {}", OidHex(&oid), LastGitError()));
    }
    return TreePtr(raw);
  }

  /// The files of a tree. `strict`: an unsafe entry (tree_path.h, a
  /// duplicate name, a path too long) makes the whole tree an error naming
  /// `commit` and the entry; otherwise unsafe entries are left out.
  Result<TreeListing> ListTree(const git_oid& tree_id, bool strict,
                               std::string_view commit = {}) const {
    Result<TreePtr> tree = LookupTree(tree_id);
    // libgit2 refuses to parse some crafted trees itself (an empty name).
    if (!tree) {
      return commit.empty() ? tree.error()
                            : tree.error().WithContext(fmt::format("checking out {}", commit));
    }
    TreeWalk walk;
    walk.strict = strict;
    int rc = git_tree_walk(tree->get(), GIT_TREEWALK_PRE, CollectTreeEntry, &walk);
    if (rc == GIT_EUSER) {
      return Error(fmt::format("unsafe tree entry '{}' in commit {} ({}): not checked out",
                               PrintableTreePath(walk.unsafe_path), commit, walk.unsafe_reason))
          .WithHint(
              "git fsck and git checkout refuse this tree too: the commit was crafted or is "
              "damaged; choose a range without it");
    }
    if (rc != 0) {
      return Error(fmt::format("cannot list tree {}: {}", OidHex(&tree_id), LastGitError()));
    }
    return std::move(walk.listing);
  }

  Status WriteFile(const fs::path& dir, const std::string& relative, const TreeFile& file) const {
    git_blob* raw = nullptr;
    if (git_blob_lookup(&raw, repo.get(), &file.oid) != 0) {
      return Error(
          fmt::format("cannot read {} ({}): {}", relative, OidHex(&file.oid), LastGitError()));
    }
    BlobPtr blob(raw);
    std::string_view content(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                             static_cast<size_t>(git_blob_rawsize(blob.get())));
    fs::path path = dir / relative;
    // The parents first: a symlink or a file where a parent directory goes is
    // replaced by a directory, so that nothing below looks, removes or writes
    // through a link (a tree's symlink `a`, or a build step's, would otherwise
    // send the files of `a/` wherever it points).
    CULPRIT_TRY(MakeParentDirectories(dir, relative));
    std::error_code ec;
    fs::file_status status = fs::symlink_status(path, ec);
    if (file.mode == GIT_FILEMODE_LINK) {
      if (fs::is_symlink(status) && fs::read_symlink(path, ec).string() == content) return {};
    } else if (fs::is_regular_file(status) && SameRegularContent(path, content)) {
      // Same bytes: keep the file (and its mtime) and only fix the mode.
      bool executable = file.mode == GIT_FILEMODE_BLOB_EXECUTABLE;
      bool is_executable =
          (fs::status(path, ec).permissions() & fs::perms::owner_exec) != fs::perms::none;
      if (executable != is_executable) {
        fs::permissions(path, CheckoutMode(executable), fs::perm_options::replace, ec);
      }
      return {};
    }
    // A fresh inode rather than an in-place rewrite: the old file may be a
    // running executable or read-only. `path` is checked: a safe name, under
    // real directories inside `dir`; a directory there is an untracked one
    // (build outputs) that a tracked file needs the place of.
    if (fs::exists(status)) fs::remove_all(path, ec);
    if (file.mode == GIT_FILEMODE_LINK) {
      fs::create_symlink(std::string(content), path, ec);
      if (ec)
        return Error(fmt::format("cannot create symlink {}: {}", path.string(), ec.message()));
      return {};
    }
    return WriteRegularFile(path, content, file.mode == GIT_FILEMODE_BLOB_EXECUTABLE);
  }
};

GitRepo::GitRepo(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GitRepo::GitRepo(GitRepo&&) noexcept = default;
GitRepo& GitRepo::operator=(GitRepo&&) noexcept = default;
GitRepo::~GitRepo() = default;

Result<GitRepo> GitRepo::Open(const fs::path& path) {
  EnsureLibgit2Initialized();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return Error::Usage(fmt::format("the engine repository {} does not exist", path.string()))
        .WithHint("set [engine] repo in culprit.toml to the engine's git repository");
  }
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, path.c_str(), 0, nullptr) != 0) {
    return Error::Usage(
               fmt::format("no git repository at or above {}: {}", path.string(), LastGitError()))
        .WithHint("set [engine] repo in culprit.toml to the engine's git repository");
  }
  auto impl = std::make_unique<Impl>();
  impl->repo.reset(raw);
  const char* workdir = git_repository_workdir(raw);
  impl->workdir = StripTrailingSlash(workdir != nullptr ? workdir : git_repository_path(raw));
  return GitRepo(std::move(impl));
}

fs::path GitRepo::workdir() const { return impl_->workdir; }

Result<std::string> GitRepo::Resolve(std::string_view revision) const {
  Result<git_oid> oid = impl_->ResolveOid(revision);
  if (!oid) return oid.error();
  return OidHex(&*oid);
}

Result<CommitInfo> GitRepo::Commit(std::string_view revision) const {
  Result<git_oid> oid = impl_->ResolveOid(revision);
  if (!oid) return oid.error();
  Result<CommitPtr> commit = impl_->LookupCommit(*oid);
  if (!commit) return commit.error();
  git_commit* c = commit->get();
  CommitInfo info;
  info.id = OidHex(git_commit_id(c));
  info.short_id = ShortCommit(info.id);
  info.tree_id = OidHex(git_commit_tree_id(c));
  for (unsigned i = 0; i < git_commit_parentcount(c); ++i) {
    info.parents.push_back(OidHex(git_commit_parent_id(c, i)));
  }
  const char* summary = git_commit_summary(c);
  info.subject = summary != nullptr ? summary : "";
  const git_signature* author = git_commit_author(c);
  info.author = author->name != nullptr ? author->name : "";
  info.author_email = author->email != nullptr ? author->email : "";
  info.time = author->when.time;
  return info;
}

Result<std::vector<CommitInfo>> GitRepo::Range(std::string_view good, std::string_view bad,
                                               bool first_parent) const {
  Result<git_oid> good_oid = impl_->ResolveOid(good);
  if (!good_oid) return good_oid.error();
  Result<git_oid> bad_oid = impl_->ResolveOid(bad);
  if (!bad_oid) return bad_oid.error();
  git_revwalk* raw = nullptr;
  if (git_revwalk_new(&raw, impl_->repo.get()) != 0) {
    return Error(fmt::format("cannot walk the history: {}", LastGitError()));
  }
  WalkPtr walk(raw);
  // Walk newest first and reverse afterwards: that is what `rev-list --reverse`
  // does, and it keeps every parent before its children.
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  if (first_parent) git_revwalk_simplify_first_parent(walk.get());
  if (git_revwalk_push(walk.get(), &*bad_oid) != 0 || git_revwalk_hide(walk.get(), &*good_oid)) {
    return Error(fmt::format("cannot walk {}..{}: {}", good, bad, LastGitError()));
  }
  std::vector<std::string> ids;
  git_oid oid;
  int rc;
  while ((rc = git_revwalk_next(&oid, walk.get())) == 0) ids.push_back(OidHex(&oid));
  if (rc != GIT_ITEROVER) {
    return Error(fmt::format("cannot walk {}..{}: {}", good, bad, LastGitError()));
  }
  std::reverse(ids.begin(), ids.end());
  std::vector<CommitInfo> commits;
  commits.reserve(ids.size());
  for (const std::string& id : ids) {
    Result<CommitInfo> info = Commit(id);
    if (!info) return info.error();
    commits.push_back(std::move(*info));
  }
  return commits;
}

Result<bool> GitRepo::IsAncestor(std::string_view ancestor, std::string_view descendant) const {
  Result<git_oid> a = impl_->ResolveOid(ancestor);
  if (!a) return a.error();
  Result<git_oid> d = impl_->ResolveOid(descendant);
  if (!d) return d.error();
  if (git_oid_equal(&*a, &*d)) return true;
  int rc = git_graph_descendant_of(impl_->repo.get(), &*d, &*a);
  if (rc < 0) {
    return Error(fmt::format("cannot tell whether {} is an ancestor of {}: {}", ancestor,
                             descendant, LastGitError()));
  }
  return rc == 1;
}

namespace {

/// The paths, old and new, of every file that differs between two trees (`from` null: the
/// empty tree), sorted and unique; `what` begins the error ("cannot diff X").
Result<std::vector<std::string>> DiffPaths(git_repository* repo, git_tree* from, git_tree* to,
                                           const std::string& what) {
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  git_diff* raw = nullptr;
  if (git_diff_tree_to_tree(&raw, repo, from, to, &options) != 0) {
    return Error(fmt::format("{}: {}", what, LastGitError()));
  }
  DiffPtr diff(raw);
  std::set<std::string> paths;
  for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    if (delta->old_file.path != nullptr) paths.insert(delta->old_file.path);
    if (delta->new_file.path != nullptr) paths.insert(delta->new_file.path);
  }
  return std::vector<std::string>(paths.begin(), paths.end());
}

}  // namespace

Result<std::vector<std::string>> GitRepo::ChangedFiles(std::string_view revision) const {
  Result<git_oid> oid = impl_->ResolveOid(revision);
  if (!oid) return oid.error();
  Result<CommitPtr> commit = impl_->LookupCommit(*oid);
  if (!commit) return commit.error();
  Result<TreePtr> tree = impl_->LookupTree(*git_commit_tree_id(commit->get()));
  if (!tree) return tree.error();
  TreePtr parent_tree;  // null for a root commit: diff against the empty tree
  if (git_commit_parentcount(commit->get()) > 0) {
    Result<CommitPtr> parent_commit = impl_->LookupCommit(*git_commit_parent_id(commit->get(), 0));
    if (!parent_commit) return parent_commit.error();
    Result<TreePtr> parent = impl_->LookupTree(*git_commit_tree_id(parent_commit->get()));
    if (!parent) return parent.error();
    parent_tree = std::move(*parent);
  }
  return DiffPaths(impl_->repo.get(), parent_tree.get(), tree->get(),
                   fmt::format("cannot diff {}", revision));
}

Result<std::vector<std::string>> GitRepo::ChangedFilesBetween(std::string_view from,
                                                              std::string_view to) const {
  std::vector<TreePtr> trees;
  for (std::string_view revision : {from, to}) {
    Result<CommitInfo> commit = Commit(revision);
    if (!commit) return commit.error();
    git_oid tree_oid;
    git_oid_fromstr(&tree_oid, commit->tree_id.c_str());
    Result<TreePtr> tree = impl_->LookupTree(tree_oid);
    if (!tree) return tree.error();
    trees.push_back(std::move(*tree));
  }
  return DiffPaths(impl_->repo.get(), trees[0].get(), trees[1].get(),
                   fmt::format("cannot diff {} against {}", to, from));
}

Result<std::vector<std::string>> GitRepo::Files(std::string_view revision) const {
  Result<CommitInfo> commit = Commit(revision);
  if (!commit) return commit.error();
  git_oid tree_oid;
  git_oid_fromstr(&tree_oid, commit->tree_id.c_str());
  Result<TreeListing> listing = impl_->ListTree(tree_oid, /*strict=*/false, commit->short_id);
  if (!listing) return listing.error();
  std::vector<std::string> files;
  files.reserve(listing->files.size());
  for (const auto& [path, file] : listing->files) files.push_back(path);
  return files;
}

Status GitRepo::Materialize(std::string_view revision, const fs::path& dir) const {
  Result<CommitInfo> commit = Commit(revision);
  if (!commit) return commit.error();
  git_oid tree_oid;
  git_oid_fromstr(&tree_oid, commit->tree_id.c_str());
  // Every entry is checked before anything is written: an unsafe tree is
  // refused whole.
  Result<TreeListing> target = impl_->ListTree(tree_oid, /*strict=*/true, commit->short_id);
  if (!target) return target.error();
  if (!target->gitlinks.empty()) {
    return Error(fmt::format("commit {} has submodules ({}); culprit cannot check out "
                             "submodules yet",
                             commit->short_id, Join(target->gitlinks, ", ")))
        .WithHint("build from a repository without submodules, or vendor them into the tree");
  }

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error(fmt::format("cannot create {}: {}", dir.string(), ec.message()));

  // The stamp lists every tree whose files may be in `dir`. A finished
  // checkout's stamp is its tree's id alone; while one is under way the stamp
  // lists the trees before and the target, then kSwitchingLine, so that one a
  // kill interrupted is finished correctly by the next. The line matters for
  // a first checkout: its in-progress stamp names a single tree too, and
  // without the line a file cut short by the kill would be taken as whole.
  fs::path stamp = dir / kTreeStampFile;
  StampedTrees stamped_trees = ReadTreeStamp(stamp);
  const std::vector<std::string>& present_trees = stamped_trees.trees;
  // Files of the trees present before, to remove those the target lacks; and
  // whether `dir` is known to hold exactly one tree, whose unchanged files need
  // no reading.
  std::map<std::string, TreeFile> old_files;
  bool clean = stamped_trees.finished;
  for (const std::string& tree_id : present_trees) {
    git_oid oid;
    Result<TreeListing> listing = git_oid_fromstr(&oid, tree_id.c_str()) == 0
                                      ? impl_->ListTree(oid, /*strict=*/false)
                                      : Result<TreeListing>(Error("bad stamp"));
    if (!listing) {
      clean = false;
      continue;
    }
    // A tree an older culprit wrote with unsafe entries: what is on disk is
    // not known, so every file is compared.
    if (!listing->complete) clean = false;
    old_files.merge(listing->files);
  }

  std::vector<std::string> pending = present_trees;
  if (std::find(pending.begin(), pending.end(), commit->tree_id) == pending.end()) {
    pending.push_back(commit->tree_id);
  }
  Status stamped = WriteFileAtomically(stamp, Join(pending, "\n") + "\n" + kSwitchingLine + "\n");
  if (!stamped) return stamped.error().WithContext("checking out " + commit->short_id);

  RemoveFilesNotIn(dir, old_files, target->files);
  for (const auto& [path, file] : target->files) {
    if (AlreadyCheckedOut(dir, clean, old_files, path, file)) continue;
    Status written = impl_->WriteFile(dir, path, file);
    if (!written) return written.error().WithContext("checking out " + commit->short_id);
  }
  stamped = WriteFileAtomically(stamp, commit->tree_id + "\n");
  if (!stamped) return stamped.error().WithContext("checking out " + commit->short_id);
  return {};
}

}  // namespace culprit
