#include "tests/support/git_fixture.h"

#include <git2.h>

#include <fstream>
#include <stdexcept>

namespace culprit {
namespace fs = std::filesystem;
namespace {

void Check(int rc, const std::string& what) {
  if (rc >= 0) return;
  const git_error* error = git_error_last();
  throw std::runtime_error("git fixture: " + what + ": " +
                           (error != nullptr ? error->message : "unknown error"));
}

git_repository* Repo(void* repo) { return static_cast<git_repository*>(repo); }

git_oid ParseOid(const std::string& hex) {
  git_oid oid;
  Check(git_oid_fromstr(&oid, hex.c_str()), "parse " + hex);
  return oid;
}

std::string Hex(const git_oid& oid) {
  char buffer[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buffer, sizeof buffer, &oid);
  return buffer;
}

// Forces the working tree and index to HEAD's tree.
void CheckoutHead(git_repository* repo) {
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED;
  Check(git_checkout_head(repo, &options), "checkout HEAD");
}

}  // namespace

GitFixture::GitFixture(const fs::path& path) : path_(path) {
  git_libgit2_init();
  fs::create_directories(path_);
  git_repository_init_options options = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  options.initial_head = "main";
  git_repository* repo = nullptr;
  Check(git_repository_init_ext(&repo, path_.c_str(), &options), "init " + path_.string());
  repo_ = repo;
}

GitFixture::~GitFixture() {
  git_repository_free(Repo(repo_));
  git_libgit2_shutdown();
}

std::string GitFixture::Commit(const std::map<std::string, std::string>& files,
                               const std::vector<std::string>& removed,
                               const std::string& message) {
  return CommitWithParents(files, removed, message, "");
}

std::string GitFixture::Merge(const std::string& other,
                              const std::map<std::string, std::string>& files,
                              const std::string& message) {
  return CommitWithParents(files, {}, message, other);
}

std::string GitFixture::CommitWithParents(const std::map<std::string, std::string>& files,
                                          const std::vector<std::string>& removed,
                                          const std::string& message,
                                          const std::string& extra_parent) {
  git_repository* repo = Repo(repo_);
  git_index* index = nullptr;
  Check(git_repository_index(&index, repo), "open index");
  for (const std::string& name : removed) {
    fs::remove(path_ / name);
    Check(git_index_remove_bypath(index, name.c_str()), "remove " + name);
  }
  for (const auto& [name, content] : files) {
    fs::path file = path_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
    Check(git_index_add_bypath(index, name.c_str()), "add " + name);
  }
  Check(git_index_write(index), "write index");
  git_oid tree_id;
  Check(git_index_write_tree(&tree_id, index), "write tree");
  git_index_free(index);

  git_tree* tree = nullptr;
  Check(git_tree_lookup(&tree, repo, &tree_id), "lookup tree");
  std::vector<git_commit*> parents;
  git_oid head_id;
  if (git_reference_name_to_id(&head_id, repo, "HEAD") == 0) {
    git_commit* head = nullptr;
    Check(git_commit_lookup(&head, repo, &head_id), "lookup HEAD");
    parents.push_back(head);
  }
  if (!extra_parent.empty()) {
    git_oid other_id = ParseOid(extra_parent);
    git_commit* other = nullptr;
    Check(git_commit_lookup(&other, repo, &other_id), "lookup " + extra_parent);
    parents.push_back(other);
  }
  // A fixed clock, one minute per commit, keeps ids stable across runs.
  git_signature* signature = nullptr;
  Check(git_signature_new(&signature, "Test Author", "author@example.com",
                          1700000000 + 60 * commits_++, 0),
        "signature");
  git_oid commit_id;
  Check(git_commit_create(&commit_id, repo, "HEAD", signature, signature, nullptr, message.c_str(),
                          tree, parents.size(), const_cast<const git_commit**>(parents.data())),
        "commit");
  git_signature_free(signature);
  for (git_commit* parent : parents) git_commit_free(parent);
  git_tree_free(tree);
  return Hex(commit_id);
}

void GitFixture::Branch(const std::string& name, const std::string& commit) {
  git_repository* repo = Repo(repo_);
  git_oid oid = ParseOid(commit);
  git_commit* target = nullptr;
  Check(git_commit_lookup(&target, repo, &oid), "lookup " + commit);
  git_reference* ref = nullptr;
  Check(git_branch_create(&ref, repo, name.c_str(), target, 0), "branch " + name);
  git_reference_free(ref);
  git_commit_free(target);
  Switch(name);
}

void GitFixture::Switch(const std::string& name) {
  git_repository* repo = Repo(repo_);
  Check(git_repository_set_head(repo, ("refs/heads/" + name).c_str()), "switch to " + name);
  CheckoutHead(repo);
}

void GitFixture::Tag(const std::string& name, const std::string& commit) {
  git_repository* repo = Repo(repo_);
  git_oid oid = ParseOid(commit);
  git_object* target = nullptr;
  Check(git_object_lookup(&target, repo, &oid, GIT_OBJECT_COMMIT), "lookup " + commit);
  git_signature* signature = nullptr;
  Check(git_signature_new(&signature, "Test Author", "author@example.com", 1700000000, 0),
        "signature");
  git_oid tag_id;
  Check(git_tag_create(&tag_id, repo, name.c_str(), target, signature, ("tag " + name).c_str(), 0),
        "tag " + name);
  git_signature_free(signature);
  git_object_free(target);
}

void GitFixture::MakeExecutable(const std::string& file) {
  fs::permissions(path_ / file, fs::perms(0755), fs::perm_options::replace);
  git_index* index = nullptr;
  Check(git_repository_index(&index, Repo(repo_)), "open index");
  Check(git_index_add_bypath(index, file.c_str()), "add " + file);
  Check(git_index_write(index), "write index");
  git_index_free(index);
}

void GitFixture::Symlink(const std::string& path, const std::string& target) {
  fs::create_directories((path_ / path).parent_path());
  fs::create_symlink(target, path_ / path);
  git_index* index = nullptr;
  Check(git_repository_index(&index, Repo(repo_)), "open index");
  Check(git_index_add_bypath(index, path.c_str()), "add " + path);
  Check(git_index_write(index), "write index");
  git_index_free(index);
}

void GitFixture::AddGitlink(const std::string& path, const std::string& commit) {
  git_index* index = nullptr;
  Check(git_repository_index(&index, Repo(repo_)), "open index");
  git_index_entry entry{};
  entry.mode = GIT_FILEMODE_COMMIT;
  entry.id = ParseOid(commit);
  entry.path = path.c_str();
  Check(git_index_add(index, &entry), "add gitlink " + path);
  Check(git_index_write(index), "write index");
  git_index_free(index);
}

}  // namespace culprit
