#include <git2.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/git_repo.h"
#include "engine/process.h"
#include "engine/tree_path.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

std::vector<std::string> Ids(const std::vector<CommitInfo>& commits) {
  std::vector<std::string> ids;
  for (const CommitInfo& c : commits) ids.push_back(c.id);
  return ids;
}

// History (oldest first):
//   c0 root: main.c, README, notes/old.txt, run.sh (executable)
//   c1 main.c changed
//   s1 on branch "side" from c1: feature.c added
//   c2 main.c broken, c3 main.c fixed and notes/old.txt removed (on main)
//   m  merge of side into main (parents c3, s1)
class GitRepoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fixture_ = std::make_unique<GitFixture>(dir_.path() / "engine");
    c0_ = fixture_->Commit({{"main.c", "int main() { return 0; }\n"},
                            {"README", "readme\n"},
                            {"notes/old.txt", "old\n"},
                            {"run.sh", "#!/bin/sh\necho run\n"}},
                           {}, "Initial commit\n\nWith a body.");
    fixture_->MakeExecutable("run.sh");
    c0_ = fixture_->Commit({}, {}, "Make run.sh executable");
    c1_ = fixture_->Commit({{"main.c", "int main() { return 1; }\n"}}, {}, "Return one");
    fixture_->Branch("side", c1_);
    s1_ = fixture_->Commit({{"feature.c", "int feature;\n"}}, {}, "Add feature");
    fixture_->Switch("main");
    c2_ = fixture_->Commit({{"main.c", "int main( {\n"}}, {}, "Break the build");
    c3_ = fixture_->Commit({{"main.c", "int main() { return 2; }\n"}}, {"notes/old.txt"},
                           "Fix the build");
    m_ = fixture_->Merge(s1_, {{"feature.c", "int feature;\n"}}, "Merge side");
    fixture_->Tag("v1.0", c1_);
    auto repo = GitRepo::Open(fixture_->path());
    ASSERT_TRUE(repo) << repo.error().message();
    repo_ = std::make_unique<GitRepo>(std::move(*repo));
  }

  TempDir dir_;
  std::unique_ptr<GitFixture> fixture_;
  std::unique_ptr<GitRepo> repo_;
  std::string c0_, c1_, s1_, c2_, c3_, m_;
};

TEST_F(GitRepoTest, OpensFromASubdirectoryAndReportsTheWorkdir) {
  auto repo = GitRepo::Open(fixture_->path() / "notes");
  ASSERT_TRUE(repo) << repo.error().message();
  EXPECT_EQ(fs::canonical(repo->workdir()), fs::canonical(fixture_->path()));
}

TEST_F(GitRepoTest, OpenFailsClearlyOutsideARepository) {
  auto missing = GitRepo::Open(dir_.path() / "nowhere");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("does not exist"), std::string::npos);
  fs::create_directories(dir_.path() / "plain");
  auto plain = GitRepo::Open(dir_.path() / "plain");
  ASSERT_FALSE(plain);
  EXPECT_NE(plain.error().message().find("no git repository"), std::string::npos);
  EXPECT_EQ(plain.error().ExitCode(), 2);
}

TEST_F(GitRepoTest, ResolvesIdsBranchesTagsAndExpressions) {
  EXPECT_EQ(*repo_->Resolve(c2_), c2_);
  EXPECT_EQ(*repo_->Resolve(c2_.substr(0, 7)), c2_);
  EXPECT_EQ(*repo_->Resolve("main"), m_);
  EXPECT_EQ(*repo_->Resolve("HEAD"), m_);
  EXPECT_EQ(*repo_->Resolve("side"), s1_);
  EXPECT_EQ(*repo_->Resolve("v1.0"), c1_);  // an annotated tag, peeled to its commit
  EXPECT_EQ(*repo_->Resolve("HEAD~2"), c2_);
  EXPECT_EQ(*repo_->Resolve("HEAD^2"), s1_);
  EXPECT_EQ(*repo_->Resolve(m_.substr(0, 10) + "^2~1"), c1_);
}

TEST_F(GitRepoTest, UnknownRevisionsAreNamedWithAHint) {
  auto unknown = repo_->Resolve("no-such-branch");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("unknown revision 'no-such-branch'"), std::string::npos)
      << unknown.error().message();
  EXPECT_NE(unknown.error().message().find(repo_->workdir().string()), std::string::npos);
  EXPECT_FALSE(unknown.error().hint().empty());
  EXPECT_EQ(unknown.error().ExitCode(), 2);

  auto typo = repo_->Resolve("sied");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message().find("did you mean 'side'"), std::string::npos)
      << typo.error().message();

  auto not_merge = repo_->Resolve(c1_ + "^2");  // c1 has one parent
  ASSERT_FALSE(not_merge);
  EXPECT_NE(not_merge.error().message().find("unknown revision"), std::string::npos);

  auto tree = repo_->Resolve("HEAD^{tree}");
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().message().find("names a tree, not a commit"), std::string::npos);

  EXPECT_FALSE(repo_->Resolve(""));
  EXPECT_FALSE(repo_->Commit("deadbeefdeadbeef"));
}

TEST_F(GitRepoTest, CommitInfo) {
  auto info = repo_->Commit("HEAD~3");
  ASSERT_TRUE(info) << info.error().message();
  EXPECT_EQ(info->id, c1_);
  EXPECT_EQ(info->short_id, c1_.substr(0, 10));
  EXPECT_EQ(info->subject, "Return one");
  EXPECT_EQ(info->author, "Test Author");
  EXPECT_EQ(info->author_email, "author@example.com");
  EXPECT_EQ(info->parents, std::vector<std::string>{c0_});
  EXPECT_EQ(info->tree_id.size(), 40u);
  EXPECT_GT(info->time, 1700000000);
  auto merge = repo_->Commit("main");
  ASSERT_TRUE(merge);
  EXPECT_EQ(merge->parents, (std::vector<std::string>{c3_, s1_}));
  EXPECT_EQ(repo_->Commit(c0_)->subject, "Make run.sh executable");
}

TEST_F(GitRepoTest, RangeIsOldestFirstWithParentsBeforeChildren) {
  auto range = repo_->Range(c0_, "main", /*first_parent=*/false);
  ASSERT_TRUE(range) << range.error().message();
  EXPECT_EQ(Ids(*range), (std::vector<std::string>{c1_, s1_, c2_, c3_, m_}));

  auto first_parent = repo_->Range(c0_, "main", /*first_parent=*/true);
  ASSERT_TRUE(first_parent);
  EXPECT_EQ(Ids(*first_parent), (std::vector<std::string>{c1_, c2_, c3_, m_}));

  // Excludes everything reachable from good, including across the merge.
  auto from_side = repo_->Range("side", "main", /*first_parent=*/false);
  ASSERT_TRUE(from_side);
  EXPECT_EQ(Ids(*from_side), (std::vector<std::string>{c2_, c3_, m_}));

  EXPECT_TRUE(repo_->Range("main", "main", false)->empty());
  auto bad = repo_->Range(c0_, "nope", false);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("'nope'"), std::string::npos);
}

TEST_F(GitRepoTest, IsAncestor) {
  EXPECT_TRUE(*repo_->IsAncestor(c0_, m_));
  EXPECT_TRUE(*repo_->IsAncestor(s1_, m_));
  EXPECT_TRUE(*repo_->IsAncestor(m_, m_));
  EXPECT_FALSE(*repo_->IsAncestor(s1_, c3_));
  EXPECT_FALSE(*repo_->IsAncestor(m_, c0_));
}

TEST_F(GitRepoTest, ChangedFiles) {
  auto root = repo_->ChangedFiles(c0_ + "~1");  // the root commit: everything it adds
  ASSERT_TRUE(root) << root.error().message();
  EXPECT_EQ(*root, (std::vector<std::string>{"README", "main.c", "notes/old.txt", "run.sh"}));
  EXPECT_EQ(*repo_->ChangedFiles(c0_), std::vector<std::string>{"run.sh"});  // mode change
  EXPECT_EQ(*repo_->ChangedFiles(c2_), std::vector<std::string>{"main.c"});
  EXPECT_EQ(*repo_->ChangedFiles(c3_), (std::vector<std::string>{"main.c", "notes/old.txt"}));
  // A merge: what it brings into the first-parent line.
  EXPECT_EQ(*repo_->ChangedFiles(m_), std::vector<std::string>{"feature.c"});
}

TEST_F(GitRepoTest, MaterializeWritesTheTreeExactly) {
  fs::path out = dir_.path() / "checkout";
  ASSERT_TRUE(repo_->Materialize(c0_, out));
  EXPECT_EQ(ReadAll(out / "main.c"), "int main() { return 0; }\n");
  EXPECT_EQ(ReadAll(out / "notes/old.txt"), "old\n");
  EXPECT_NE(fs::status(out / "run.sh").permissions() & fs::perms::owner_exec, fs::perms::none);
  EXPECT_EQ(fs::status(out / "README").permissions() & fs::perms::owner_exec, fs::perms::none);
  EXPECT_FALSE(fs::exists(out / ".git"));
  EXPECT_EQ(ReadAll(out / GitRepo::kTreeStampFile), repo_->Commit(c0_)->tree_id + "\n");
}

TEST_F(GitRepoTest, MaterializeSwitchesOnlyWhatChanged) {
  fs::path out = dir_.path() / "checkout";
  ASSERT_TRUE(repo_->Materialize(c1_, out));
  // A build output, which a switch must leave alone.
  WriteTextFile(out / "build/prog.o", "object");
  auto readme_mtime = fs::last_write_time(out / "README");
  auto main_mtime = fs::last_write_time(out / "main.c");
  fs::last_write_time(out / "main.c", main_mtime - std::chrono::hours(1));

  ASSERT_TRUE(repo_->Materialize(m_, out));
  EXPECT_EQ(ReadAll(out / "main.c"), "int main() { return 2; }\n");
  EXPECT_EQ(ReadAll(out / "feature.c"), "int feature;\n");
  EXPECT_FALSE(fs::exists(out / "notes/old.txt"));
  EXPECT_FALSE(fs::exists(out / "notes"));  // emptied directories go too
  EXPECT_EQ(ReadAll(out / "build/prog.o"), "object");
  EXPECT_EQ(fs::last_write_time(out / "README"), readme_mtime);
  EXPECT_GT(fs::last_write_time(out / "main.c"), main_mtime - std::chrono::hours(1));

  ASSERT_TRUE(repo_->Materialize(c1_, out));
  EXPECT_FALSE(fs::exists(out / "feature.c"));
  EXPECT_EQ(ReadAll(out / "notes/old.txt"), "old\n");
  EXPECT_EQ(ReadAll(out / "main.c"), "int main() { return 1; }\n");
  EXPECT_EQ(fs::last_write_time(out / "README"), readme_mtime);
  EXPECT_EQ(ReadAll(out / "build/prog.o"), "object");
}

TEST_F(GitRepoTest, MaterializeFinishesAnInterruptedSwitch) {
  fs::path out = dir_.path() / "checkout";
  ASSERT_TRUE(repo_->Materialize(s1_, out));
  // As if a switch from s1 to c0 stopped half way: the stamp names both trees.
  WriteTextFile(out / GitRepo::kTreeStampFile,
                repo_->Commit(s1_)->tree_id + "\n" + repo_->Commit(c0_)->tree_id + "\n");
  WriteTextFile(out / "main.c", "half written");
  ASSERT_TRUE(repo_->Materialize(c3_, out));
  EXPECT_FALSE(fs::exists(out / "feature.c"));
  EXPECT_FALSE(fs::exists(out / "notes/old.txt"));
  EXPECT_EQ(ReadAll(out / "main.c"), "int main() { return 2; }\n");
  EXPECT_EQ(ReadAll(out / GitRepo::kTreeStampFile), repo_->Commit(c3_)->tree_id + "\n");
}

// A first checkout killed half way (CI saw it: a kill while main.c was being
// written left it empty, and the next checkout took the directory as whole, so
// a good commit was remembered as unbuildable). Here the interruption is a real
// one: a blob missing from the object store stops the checkout after the files
// before it are written; the cut-short file is then made by hand.
TEST_F(GitRepoTest, MaterializeFinishesAnInterruptedFirstCheckout) {
  const std::string unique = "int last_file_of_the_tree = 1;\n";
  std::string with_last = fixture_->Commit({{"zz.c", unique}}, {}, "Add zz.c");
  git_oid blob;
  ASSERT_EQ(git_odb_hash(&blob, unique.data(), unique.size(), GIT_OBJECT_BLOB), 0);
  std::string hex = git_oid_tostr_s(&blob);
  fs::path object = fixture_->path() / ".git/objects" / hex.substr(0, 2) / hex.substr(2);
  fs::path hidden = dir_.path() / "hidden-object";
  ASSERT_TRUE(fs::exists(object));
  fs::rename(object, hidden);

  fs::path out = dir_.path() / "checkout";
  EXPECT_FALSE(repo_->Materialize(with_last, out));
  ASSERT_EQ(ReadAll(out / "main.c"), "int main() { return 2; }\n");  // written before zz.c
  WriteTextFile(out / "main.c", "");  // as a kill inside its write leaves it
  EXPECT_NE(ReadAll(out / GitRepo::kTreeStampFile), repo_->Commit(with_last)->tree_id + "\n");

  fs::rename(hidden, object);
  auto reopened = GitRepo::Open(fixture_->path());
  ASSERT_TRUE(reopened) << reopened.error().message();
  ASSERT_TRUE(reopened->Materialize(with_last, out));
  EXPECT_EQ(ReadAll(out / "main.c"), "int main() { return 2; }\n");
  EXPECT_EQ(ReadAll(out / "zz.c"), unique);
  EXPECT_EQ(ReadAll(out / GitRepo::kTreeStampFile), repo_->Commit(with_last)->tree_id + "\n");
}

TEST_F(GitRepoTest, MaterializeHandlesSymlinksAndFilesBecomingDirectories) {
  fixture_->Symlink("link.c", "main.c");
  std::string with_link = fixture_->Commit({{"lib", "a file\n"}}, {}, "Add a symlink and lib");
  std::string lib_dir =
      fixture_->Commit({{"lib/x.c", "int x;\n"}}, {"lib", "link.c"}, "lib becomes a directory");
  fs::path out = dir_.path() / "checkout";
  ASSERT_TRUE(repo_->Materialize(with_link, out));
  ASSERT_TRUE(fs::is_symlink(out / "link.c"));
  EXPECT_EQ(fs::read_symlink(out / "link.c"), "main.c");
  EXPECT_EQ(ReadAll(out / "link.c"), ReadAll(out / "main.c"));
  EXPECT_EQ(ReadAll(out / "lib"), "a file\n");

  ASSERT_TRUE(repo_->Materialize(lib_dir, out));
  EXPECT_FALSE(fs::exists(fs::symlink_status(out / "link.c")));
  EXPECT_EQ(ReadAll(out / "lib/x.c"), "int x;\n");

  ASSERT_TRUE(repo_->Materialize(with_link, out));
  EXPECT_EQ(ReadAll(out / "lib"), "a file\n");
  EXPECT_TRUE(fs::is_symlink(out / "link.c"));
}

TEST_F(GitRepoTest, SubmodulesAreRefusedClearly) {
  fixture_->AddGitlink("third_party/lib", c0_);
  std::string with_submodule = fixture_->Commit({}, {}, "Add a submodule");
  auto status = repo_->Materialize(with_submodule, dir_.path() / "checkout");
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message().find("submodules (third_party/lib)"), std::string::npos)
      << status.error().message();
  EXPECT_NE(status.error().message().find("not"), std::string::npos);
}

// Trees git fsck and git checkout refuse, built with git itself (a real git
// process: `hash-object --literally` writes any bytes as a tree, as a crafted
// history ships them). The checkout goes four levels below the temp dir, so
// that an entry climbing out with `..` lands in it, next to `victim/`, a
// directory of the user's that must survive every case.
class UnsafeTreeTest : public GitRepoTest {
 protected:
  struct Entry {
    std::string mode;  // "100644", "100755", "120000", "40000"
    std::string name;
    std::string id;
  };

  void SetUp() override {
    GitRepoTest::SetUp();
    out_ = dir_.path() / "cache" / "a" / "b" / "checkout";
    WriteTextFile(dir_.path() / "victim" / "keep.txt", "precious\n");
  }

  std::string Git(const std::vector<std::string>& args, std::optional<std::string> input = {}) {
    ProcessSpec spec;
    spec.argv = {"git", "-C", fixture_->path().string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.set_env = {{"GIT_AUTHOR_NAME", "Crafter"},
                    {"GIT_AUTHOR_EMAIL", "crafter@example.com"},
                    {"GIT_AUTHOR_DATE", "1700000000 +0000"},
                    {"GIT_COMMITTER_NAME", "Crafter"},
                    {"GIT_COMMITTER_EMAIL", "crafter@example.com"},
                    {"GIT_COMMITTER_DATE", "1700000000 +0000"},
                    {"GIT_CONFIG_NOSYSTEM", "1"}};
    spec.stdin_data = std::move(input);
    spec.timeout = std::chrono::minutes(1);
    ProcessResult result = RunProcess(spec);
    EXPECT_TRUE(result.ok()) << result.Describe(spec) << "\n" << result.stderr_text;
    std::string text = result.stdout_text;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }

  std::string Blob(const std::string& content) {
    return Git({"hash-object", "-w", "--stdin"}, content);
  }

  /// A tree object holding exactly `entries`, in this order, unchecked.
  std::string Tree(const std::vector<Entry>& entries) {
    std::string raw;
    for (const Entry& entry : entries) {
      raw += entry.mode + " " + entry.name;
      raw += '\0';
      for (size_t i = 0; i + 1 < entry.id.size(); i += 2) {
        raw += static_cast<char>(std::stoi(entry.id.substr(i, 2), nullptr, 16));
      }
    }
    return Git({"hash-object", "-t", "tree", "--literally", "-w", "--stdin"}, raw);
  }

  std::string CommitOf(const std::string& tree) {
    return Git({"commit-tree", tree, "-p", c1_, "-m", "Crafted tree"});
  }

  /// The commit of a tree with main.c and `entries`.
  std::string Crafted(std::vector<Entry> entries) {
    entries.insert(entries.begin(), {"100644", "main.c", Blob("int main() { return 7; }\n")});
    return CommitOf(Tree(entries));
  }

  /// Checks out `commit`, which must be refused naming `entry`, with nothing
  /// written into the checkout and nothing outside changed.
  void ExpectRefused(const std::string& commit, const std::string& entry) {
    SCOPED_TRACE(entry);
    Status status = repo_->Materialize(commit, out_);
    if (status) {
      ADD_FAILURE() << "checked out";
    } else {
      const std::string& message = status.error().message();
      EXPECT_NE(message.find("unsafe tree entry '" + entry + "'"), std::string::npos) << message;
      EXPECT_NE(message.find(commit.substr(0, 10)), std::string::npos) << message;
      EXPECT_NE(message.find("not checked out"), std::string::npos) << message;
      EXPECT_FALSE(fs::exists(out_ / "main.c")) << "the tree was written in part";
    }
    ExpectOutsideUntouched();
  }

  /// The temp dir holds only what the test put there: the repository, the
  /// victim and the directories down to the checkout.
  void ExpectOutsideUntouched() {
    EXPECT_EQ(ReadAll(dir_.path() / "victim" / "keep.txt"), "precious\n");
    std::vector<std::string> stray;
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir_.path())) {
      fs::path relative = fs::relative(entry.path(), dir_.path());
      std::string top = relative.begin()->string();
      if (top == "engine" || relative.string().starts_with("cache/a/b/checkout")) continue;
      if (relative == "victim" || relative == "victim/keep.txt" || relative == "cache" ||
          relative == "cache/a" || relative == "cache/a/b") {
        continue;
      }
      stray.push_back(relative.string());
    }
    EXPECT_TRUE(stray.empty()) << ::testing::PrintToString(stray);
  }

  fs::path out_;
};

TEST_F(UnsafeTreeTest, DotDotEntriesAreRefused) {
  std::string blob = Blob("escaped\n");
  ExpectRefused(Crafted({{"100644", "../../../escaped", blob}}), "../../../escaped");
  // A subtree named `..`, twice: "../../escaped" without a '/' in any name.
  std::string inner = Tree({{"100644", "escaped", blob}});
  std::string middle = Tree({{"40000", "..", inner}});
  ExpectRefused(Crafted({{"40000", "..", middle}}), "..");
  ExpectRefused(Crafted({{"40000", "src", Tree({{"40000", "..", middle}})}}), "src/..");
}

TEST_F(UnsafeTreeTest, DotEntriesAreRefused) {
  std::string inner = Tree({{"100644", "x.c", Blob("int x;\n")}});
  ExpectRefused(Crafted({{"40000", ".", inner}}), ".");
  ExpectRefused(Crafted({{"100644", ".", Blob("dot\n")}}), ".");
}

// A `.git` in the checkout makes it a repository whose config (core.fsmonitor,
// hooks) git runs commands from in any build step that calls git.
TEST_F(UnsafeTreeTest, DotGitInAnyCaseAndItsNtfsNamesAreRefused) {
  std::string config = Tree({{"100644", "config", Blob("[core]\n\tfsmonitor = touch pwned\n")}});
  for (std::string name : {".git", ".GIT", ".Git", "git~1", "GIT~1", ".git.", ".git ..",
                           ".git::$INDEX_ALLOCATION", "src\\.git"}) {
    ExpectRefused(Crafted({{"40000", name, config}}), PrintableTreePath(name));
  }
  // Deeper down too.
  ExpectRefused(Crafted({{"40000", "third_party", Tree({{"40000", ".git", config}})}}),
                "third_party/.git");
  // Names that only look alike are files like any other.
  std::string fine = Crafted({{"100644", ".gitignore", Blob("*.o\n")},
                              {"100644", ".github", Blob("ci\n")},
                              {"100644", "git~2", Blob("2\n")},
                              {"100644", ".git-blame-ignore-revs", Blob("\n")}});
  ASSERT_TRUE(repo_->Materialize(fine, out_));
  EXPECT_EQ(ReadAll(out_ / ".gitignore"), "*.o\n");
  EXPECT_EQ(ReadAll(out_ / "git~2"), "2\n");
}

TEST_F(UnsafeTreeTest, NamesWithASlashAreRefused) {
  std::string blob = Blob("x\n");
  ExpectRefused(Crafted({{"100644", "src/x.c", blob}}), "src/x.c");
  ExpectRefused(Crafted({{"100644", "a/../../../../escaped", blob}}), "a/../../../../escaped");
  // Absolute: `dir / name` would be the name alone.
  std::string absolute = (dir_.path() / "absolute-escape").string();
  ExpectRefused(Crafted({{"100644", absolute, blob}}), absolute);
}

// git lets hash-object write it; libgit2 refuses to parse the tree ("can't
// parse filename"), before culprit's own check sees it: the error names the
// commit all the same, and nothing is written.
TEST_F(UnsafeTreeTest, AnEmptyNameIsRefused) {
  std::string commit = Crafted({{"100644", "", Blob("no name\n")}});
  Status status = repo_->Materialize(commit, out_);
  ASSERT_FALSE(status) << "checked out";
  EXPECT_NE(status.error().message().find(commit.substr(0, 10)), std::string::npos)
      << status.error().message();
  EXPECT_FALSE(fs::exists(out_ / "main.c"));
  ExpectOutsideUntouched();
}

TEST_F(UnsafeTreeTest, DuplicateNamesAreRefused) {
  ExpectRefused(Crafted({{"100644", "x.c", Blob("first\n")}, {"100644", "x.c", Blob("second\n")}}),
                "x.c");
  std::string inner = Tree({{"100644", "y.c", Blob("int y;\n")}});
  ExpectRefused(Crafted({{"100644", "lib", Blob("a file\n")}, {"40000", "lib", inner}}), "lib");
}

// culprit's stamp names the trees whose files it may remove: a tree cannot
// write it.
TEST_F(UnsafeTreeTest, TheStampFileIsNotATreeEntry) {
  ExpectRefused(Crafted({{"100644", GitRepo::kTreeStampFile, Blob("0123\n")}}),
                GitRepo::kTreeStampFile);
  // Below the root it is a file like any other.
  std::string fine = Crafted(
      {{"40000", "sub", Tree({{"100644", GitRepo::kTreeStampFile, Blob("just a file\n")}})}});
  ASSERT_TRUE(repo_->Materialize(fine, out_));
  EXPECT_EQ(ReadAll(out_ / "sub" / GitRepo::kTreeStampFile), "just a file\n");
}

// No `..` anywhere: the symlink `a` is written, then the directory `a`'s
// files would go where it points, deleting what is there.
TEST_F(UnsafeTreeTest, ASymlinkAndADirectoryOfTheSameNameAreRefused) {
  std::string link = Blob((dir_.path() / "victim").string());
  std::string inner = Tree({{"100644", "keep.txt", Blob("overwritten\n")}});
  ExpectRefused(Crafted({{"120000", "a", link}, {"40000", "a", inner}}), "a");
}

// The reviewer's case: a blob named after a directory outside, which the
// checkout removed (remove_all) to put the file in its place.
TEST_F(UnsafeTreeTest, ABlobNamedLikeADirectoryOutsideRemovesNothing) {
  ExpectRefused(Crafted({{"100644", "../../../../victim", Blob("replaced\n")}}),
                "../../../../victim");
  EXPECT_TRUE(fs::is_directory(dir_.path() / "victim"));
}

TEST_F(UnsafeTreeTest, ATreeTooDeepForAPathIsRefused) {
  std::string name(250, 'd');
  std::string tree = Tree({{"100644", "leaf.c", Blob("int leaf;\n")}});
  for (int level = 0; level < 17; ++level) tree = Tree({{"40000", name, tree}});
  Status status = repo_->Materialize(Crafted({{"40000", "deep", tree}}), out_);
  ASSERT_FALSE(status) << "checked out";
  EXPECT_NE(status.error().message().find("unsafe tree entry 'deep/" + name), std::string::npos)
      << status.error().message();
  EXPECT_NE(status.error().message().find("longer than 4095 bytes"), std::string::npos);
  EXPECT_FALSE(fs::exists(out_ / "deep"));
}

// Switching from a checked-out commit to an unsafe one: refused before the
// files of the first are removed, so the checkout is still the first commit.
TEST_F(UnsafeTreeTest, ASwitchToAnUnsafeTreeLeavesThePreviousCheckout) {
  ASSERT_TRUE(repo_->Materialize(c3_, out_));
  std::string unsafe = CommitOf(Tree({{"100644", "README", Blob("changed\n")},
                                      {"100644", "../../../../victim", Blob("replaced\n")}}));
  Status status = repo_->Materialize(unsafe, out_);
  ASSERT_FALSE(status) << "checked out";
  EXPECT_NE(status.error().message().find("unsafe tree entry '../../../../victim'"),
            std::string::npos)
      << status.error().message();
  EXPECT_EQ(ReadAll(out_ / "main.c"), "int main() { return 2; }\n");
  EXPECT_EQ(ReadAll(out_ / "README"), "readme\n");
  EXPECT_EQ(ReadAll(out_ / GitRepo::kTreeStampFile), repo_->Commit(c3_)->tree_id + "\n");
  ExpectOutsideUntouched();
  ASSERT_TRUE(repo_->Materialize(c1_, out_));  // and the next switch works as ever
  EXPECT_EQ(ReadAll(out_ / "notes/old.txt"), "old\n");
}

// A checkout an older culprit wrote from an unsafe tree: its stamp names the
// tree, whose files a switch removes. The unsafe entries are not among them.
TEST_F(UnsafeTreeTest, ASwitchAwayFromAnUnsafeTreeRemovesNothingOutside) {
  ASSERT_TRUE(repo_->Materialize(c3_, out_));
  std::string unsafe_tree = Tree({{"100644", "main.c", Blob("int main() { return 2; }\n")},
                                  {"100644", "stale.c", Blob("stale\n")},
                                  {"100644", "../../../../victim/keep.txt", Blob("precious\n")}});
  WriteTextFile(out_ / "stale.c", "stale\n");
  WriteTextFile(out_ / GitRepo::kTreeStampFile, unsafe_tree + "\n");
  ASSERT_TRUE(repo_->Materialize(c3_, out_));
  EXPECT_FALSE(fs::exists(out_ / "stale.c"));  // its safe files do go
  EXPECT_EQ(ReadAll(out_ / "main.c"), "int main() { return 2; }\n");
  ExpectOutsideUntouched();
}

// A symlink where a tracked directory was (a build step's, say): neither the
// removal of the old tree's files nor the writing of the new one's goes
// through it.
TEST_F(UnsafeTreeTest, NothingIsRemovedOrWrittenThroughASymlinkInAParent) {
  fixture_->Switch("main");
  std::string with_a = fixture_->Commit({{"a/keep.txt", "mine\n"}}, {}, "Add a/keep.txt");
  std::string without_a = fixture_->Commit({}, {"a/keep.txt"}, "Remove a/keep.txt");
  ASSERT_TRUE(repo_->Materialize(with_a, out_));
  fs::remove_all(out_ / "a");
  fs::create_directory_symlink(dir_.path() / "victim", out_ / "a");
  ASSERT_TRUE(repo_->Materialize(without_a, out_));
  ExpectOutsideUntouched();

  // Back: a/keep.txt goes into a real directory `a`, not through the link.
  fs::remove(out_ / "a");
  fs::create_directory_symlink(dir_.path() / "victim", out_ / "a");
  ASSERT_TRUE(repo_->Materialize(with_a, out_));
  EXPECT_FALSE(fs::is_symlink(out_ / "a"));
  EXPECT_EQ(ReadAll(out_ / "a" / "keep.txt"), "mine\n");
  ExpectOutsideUntouched();
}

// Like git: files get 0666 or 0777 less the umask (item 13 of issue 26: they
// were 0644/0755 whatever the umask, so a umask of 077 left the cache
// readable by everyone).
TEST_F(GitRepoTest, MaterializeCreatesFilesUnderTheUmask) {
  mode_t saved = ::umask(027);
  fs::path out = dir_.path() / "checkout";
  Status first = repo_->Materialize(c0_ + "~1", out);  // run.sh not yet executable
  Status second = first ? repo_->Materialize(c0_, out) : first;
  fs::path fresh = dir_.path() / "fresh";
  Status third = repo_->Materialize(c0_, fresh);
  ::umask(saved);
  ASSERT_TRUE(first) << first.error().message();
  ASSERT_TRUE(second) << second.error().message();
  ASSERT_TRUE(third) << third.error().message();
  auto mode = [](const fs::path& path) { return fs::status(path).permissions() & fs::perms::all; };
  EXPECT_EQ(mode(fresh / "main.c"), fs::perms(0640));
  EXPECT_EQ(mode(fresh / "run.sh"), fs::perms(0750));
  EXPECT_EQ(mode(fresh / "notes"), fs::perms(0750));
  EXPECT_EQ(mode(out / "main.c"), fs::perms(0640));
  EXPECT_EQ(mode(out / "run.sh"), fs::perms(0750));  // made executable in place
}

}  // namespace
}  // namespace culprit
