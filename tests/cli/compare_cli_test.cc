// Integration tests of `culprit build`, `culprit compare` and `culprit run`
// through the real executable, on a temporary git repository holding a tiny C
// program with four commits: a base, a commit that makes its loop 2.5x longer,
// a commit that does not compile, and its fix. The program times its own loop
// and prints `median_ms=...`, so the metric is not dominated by exec overhead.

#include <git2.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "engine/git_repo.h"
#include "engine/process.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The engine: a loop of ITERATIONS steps of a multiply-xorshift recurrence
// (which the compiler cannot fold), timed 7 times in the process; the median
// is printed. ~2.5 ms per repetition at the base count.
std::string Program(const std::string& iterations, const std::string& extra = "") {
  return R"(#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERATIONS )" +
         iterations +
         R"(L
#define REPS 7

static double NowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int Less(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(void) {
  double ms[REPS];
  volatile unsigned long sink = 0;
  for (int r = 0; r < REPS; ++r) {
    double start = NowMs();
    unsigned long x = sink + r + 1;
    for (long i = 0; i < ITERATIONS; ++i) {
      x = x * 6364136223846793005UL + 1442695040888963407UL;
      x ^= x >> 29;
    }
    sink = x;
    ms[r] = NowMs() - start;
  }
  qsort(ms, REPS, sizeof ms[0], Less);
  printf("median_ms=%.4f\n", ms[REPS / 2]);
  return 0;
}
)" + extra;
}

// A temporary directory holding the engine's repository (engine/), its
// culprit.toml, the build cache (cache/) and the records (records/).
class CompareCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = std::make_unique<GitFixture>(dir_.path() / "engine");
    base_ =
        repo_->Commit({{"main.c", Program("2000000")}, {"README", "a tiny engine\n"}}, {}, "base");
    slow_ = repo_->Commit({{"main.c", Program("5000000")}}, {}, "loop 2.5x longer");
    broken_ = repo_->Commit({{"main.c", Program("5000000", "int broken(void) { return nope; }\n")}},
                            {}, "does not compile");
    fix_ = repo_->Commit({{"main.c", Program("5000000")}}, {}, "fix the build");
    WriteTextFile(dir_.path() / "culprit.toml", R"([engine]
repo = "engine"
build = [["cc", "-O1", "-o", "prog", "main.c"]]
artifacts = ["prog"]
build_timeout = "60s"

[queries.loop]
command = ["{artifact:prog}"]
metric = { regex = 'median_ms=([0-9.]+)' }
unit = "ms"
timeout = "20s"

[measure]
min_pairs = 10
max_pairs = 40
warmup = 1

[records]
dir = "records"

[cache]
dir = "cache"
)");
  }

  // Runs `culprit ARGS... --config DIR/culprit.toml` from the temporary directory.
  ProcessResult Culprit(const std::vector<std::string>& args) {
    ProcessSpec spec;
    spec.argv = {CulpritExe()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.push_back("--config");
    spec.argv.push_back((dir_.path() / "culprit.toml").string());
    spec.cwd = dir_.path();
    spec.timeout = std::chrono::minutes(2);
    return RunProcess(spec);
  }

  static std::string Show(const ProcessResult& r) {
    return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.stdout_text + "\nstderr:\n" +
           r.stderr_text;
  }

  // The build.log of `commit`'s cache entry (the only entry of that commit).
  fs::path BuildLog(const std::string& commit) {
    for (const auto& entry : fs::recursive_directory_iterator(dir_.path() / "cache")) {
      if (entry.path().filename() == "build.log" &&
          entry.path().parent_path().filename().string().rfind(commit, 0) == 0) {
        return entry.path();
      }
    }
    ADD_FAILURE() << "no build.log for " << commit;
    return {};
  }

  std::string TreeOf(const std::string& commit) {
    Result<GitRepo> repo = GitRepo::Open(repo_->path());
    EXPECT_TRUE(repo.ok());
    Result<CommitInfo> info = repo->Commit(commit);
    EXPECT_TRUE(info.ok());
    return info->tree_id;
  }

  TempDir dir_;
  std::unique_ptr<GitFixture> repo_;
  std::string base_, slow_, broken_, fix_;
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(CompareCliTest, BuildsOnceThenServesFromTheCache) {
  ProcessResult first = Culprit({"build", base_, slow_});
  ASSERT_EQ(first.exit_code, 0) << Show(first);
  std::vector<std::string> lines = Lines(first.stdout_text);
  ASSERT_EQ(lines.size(), 2u) << Show(first);
  EXPECT_TRUE(Contains(lines[0], base_.substr(0, 10)) && Contains(lines[0], "built")) << lines[0];
  EXPECT_TRUE(Contains(lines[1], slow_.substr(0, 10)) && Contains(lines[1], "built")) << lines[1];
  EXPECT_TRUE(Contains(first.stderr_text, "building")) << Show(first);

  const fs::path base_log = BuildLog(base_), slow_log = BuildLog(slow_);
  const fs::file_time_type base_time = fs::last_write_time(base_log);
  const fs::file_time_type slow_time = fs::last_write_time(slow_log);

  ProcessResult second = Culprit({"build", base_, slow_});
  ASSERT_EQ(second.exit_code, 0) << Show(second);
  lines = Lines(second.stdout_text);
  ASSERT_EQ(lines.size(), 2u) << Show(second);
  EXPECT_TRUE(Contains(lines[0], base_.substr(0, 10)) && Contains(lines[0], "cached")) << lines[0];
  EXPECT_TRUE(Contains(lines[1], slow_.substr(0, 10)) && Contains(lines[1], "cached")) << lines[1];
  // No build step ran: no progress line, and the logs were not rewritten.
  EXPECT_FALSE(Contains(second.stderr_text, "building")) << Show(second);
  EXPECT_EQ(fs::last_write_time(base_log), base_time);
  EXPECT_EQ(fs::last_write_time(slow_log), slow_time);

  ProcessResult list = Culprit({"build", "--list"});
  ASSERT_EQ(list.exit_code, 0) << Show(list);
  EXPECT_TRUE(Contains(list.stdout_text, base_.substr(0, 10))) << list.stdout_text;
  EXPECT_TRUE(Contains(list.stdout_text, slow_.substr(0, 10))) << list.stdout_text;
  EXPECT_TRUE(Contains(list.stdout_text, "2 builds")) << list.stdout_text;
  EXPECT_TRUE(Contains(list.stdout_text, " M ")) << list.stdout_text;  // sizes
  EXPECT_FALSE(Contains(list.stdout_text, fix_.substr(0, 10))) << list.stdout_text;
}

TEST_F(CompareCliTest, UnbuildableCommitIsRememberedWithTheCompilerError) {
  ProcessResult first = Culprit({"build", broken_});
  EXPECT_NE(first.exit_code, 0) << Show(first);
  EXPECT_TRUE(first.ok() == false && first.outcome == ProcessOutcome::kExited);
  EXPECT_TRUE(Contains(first.stderr_text, broken_.substr(0, 10))) << Show(first);
  // The compiler's own words, from the tail of the build log.
  EXPECT_TRUE(Contains(first.stderr_text, "nope")) << Show(first);
  EXPECT_TRUE(Contains(first.stderr_text, "error")) << Show(first);
  EXPECT_TRUE(Contains(first.stderr_text, "building")) << Show(first);
  const fs::path log = BuildLog(broken_);
  const fs::file_time_type log_time = fs::last_write_time(log);

  ProcessResult again = Culprit({"build", broken_});
  EXPECT_EQ(again.exit_code, first.exit_code) << Show(again);
  EXPECT_FALSE(Contains(again.stderr_text, "building")) << Show(again);
  EXPECT_EQ(fs::last_write_time(log), log_time);
  // Same message, saying it is remembered: the first run's stderr is the
  // progress lines, then this one's without "(remembered from the attempt at T)".
  std::string message = again.stderr_text;
  const size_t remembered = message.find(" (remembered from the attempt at ");
  ASSERT_NE(remembered, std::string::npos) << Show(again);
  message.erase(remembered, message.find(')', remembered) + 1 - remembered);
  EXPECT_TRUE(Contains(message, "nope")) << Show(again);
  EXPECT_TRUE(Contains(first.stderr_text, message)) << "first:\n"
                                                    << first.stderr_text << "\nagain:\n"
                                                    << again.stderr_text;

  // The list shows it as unbuildable, and its fix builds.
  ProcessResult fixed = Culprit({"build", fix_});
  EXPECT_EQ(fixed.exit_code, 0) << Show(fixed);
  ProcessResult list = Culprit({"build", "--list"});
  ASSERT_EQ(list.exit_code, 0) << Show(list);
  bool listed_unbuildable = false;
  for (const std::string& line : Lines(list.stdout_text)) {
    if (Contains(line, broken_.substr(0, 10))) listed_unbuildable = Contains(line, "unbuildable");
  }
  EXPECT_TRUE(listed_unbuildable) << list.stdout_text;
  EXPECT_TRUE(Contains(list.stdout_text, "--rebuild")) << list.stdout_text;
}

TEST_F(CompareCliTest, CompareFindsTheSlowdownAndRecordsBothBuilds) {
  ProcessResult r = Culprit({"compare", base_, slow_, "--json"});
  ASSERT_EQ(r.exit_code, 3) << Show(r);  // EFFECT
  Json record = Json::parse(r.stdout_text);
  EXPECT_EQ(record["verdict"], "EFFECT");
  ASSERT_TRUE(record["estimate"].is_object()) << r.stdout_text;
  EXPECT_GT(record["estimate"]["ratio"].get<double>(), 1.5) << record["estimate"];
  // Beyond the band, as an EFFECT must be; not more: on a loaded 2-core host 10 pairs of a
  // 2.5x slowdown have given [1.27, 3.30].
  EXPECT_GT(record["estimate"]["low"].get<double>(), 1.05) << record["estimate"];
  ASSERT_EQ(record["arms"].size(), 2u);
  EXPECT_EQ(record["arms"][0]["commit"], base_);
  EXPECT_EQ(record["arms"][0]["tree"], TreeOf(base_));
  EXPECT_EQ(record["arms"][1]["commit"], slow_);
  EXPECT_EQ(record["arms"][1]["tree"], TreeOf(slow_));
  EXPECT_NE(record["arms"][0]["tree"], record["arms"][1]["tree"]);
  // Archived too.
  EXPECT_TRUE(fs::exists(dir_.path() / "records"));
}

TEST_F(CompareCliTest, TheArchivedRecordCarriesTheExactCommandLine) {
  // The invocation is passed down from main through the configuration's [records], not read
  // from a process-wide global: the compare's archived record says exactly what ran.
  const std::vector<std::string> args = {"compare", base_, base_.substr(0, 12), "--max-pairs",
                                         "10"};
  ProcessResult r = Culprit(args);
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  std::vector<std::string> expected = {CulpritExe()};
  expected.insert(expected.end(), args.begin(), args.end());
  expected.push_back("--config");
  expected.push_back((dir_.path() / "culprit.toml").string());
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir_.path() / "records")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  ASSERT_EQ(files.size(), 1u) << Show(r);
  std::ifstream in(files[0]);
  Json record = Json::parse(in);
  EXPECT_EQ(record["invocation"].get<std::vector<std::string>>(), expected) << record.dump();
}

TEST_F(CompareCliTest, ArmsCanBeNamedAndTheListSaysWhatEachRowCompared) {
  ProcessResult one = Culprit({"compare", base_, slow_, "--name", "before"});
  EXPECT_EQ(one.exit_code, 2) << Show(one);
  EXPECT_TRUE(Contains(one.stderr_text, "name both arms or neither")) << Show(one);
  ProcessResult r = Culprit({"compare", base_, slow_, "--name", "before", "--name", "after"});
  ASSERT_EQ(r.exit_code, 3) << Show(r);
  EXPECT_TRUE(Contains(r.stdout_text, "before ")) << Show(r);
  EXPECT_TRUE(Contains(r.stdout_text, "after is ")) << Show(r);  // "after is 150.0% slower than"
  ProcessResult list = Culprit({"records", "list"});
  ASSERT_EQ(list.exit_code, 0) << Show(list);
  EXPECT_TRUE(std::regex_search(list.stdout_text,
                                std::regex("before [0-9.]+ ms → after [0-9.]+ ms +EFFECT")))
      << Show(list);
}

TEST_F(CompareCliTest, SameCommitIsNeverAnEffect) {
  // Two names for one commit.
  ProcessResult r = Culprit({"compare", base_, base_.substr(0, 12)});
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  // The summary's first line ends with the verdict: NULL or INCONCLUSIVE.
  const std::string verdict_line = r.stdout_text.substr(0, r.stdout_text.find('\n'));
  EXPECT_TRUE(Contains(verdict_line, "NULL (band") || Contains(verdict_line, "INCONCLUSIVE (band"))
      << Show(r);
  EXPECT_TRUE(Contains(r.stdout_text, "both revisions are the same commit")) << Show(r);
}

TEST_F(CompareCliTest, UnknownRevisionIsAUsageError) {
  ProcessResult r = Culprit({"compare", base_, "nosuchrev"});
  EXPECT_EQ(r.exit_code, 2) << Show(r);
  EXPECT_TRUE(Contains(r.stderr_text, "'nosuchrev'")) << Show(r);
  EXPECT_FALSE(fs::exists(dir_.path() / "records")) << "nothing was measured";
}

TEST_F(CompareCliTest, RunMeasuresTheGivenRevision) {
  ProcessResult r = Culprit({"run", "loop", "--rev", slow_, "--json"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  Json record = Json::parse(r.stdout_text);
  EXPECT_EQ(record["kind"], "run");
  ASSERT_EQ(record["arms"].size(), 1u);
  EXPECT_EQ(record["arms"][0]["commit"], slow_);
  EXPECT_EQ(record["arms"][0]["tree"], TreeOf(slow_));
  EXPECT_GT(record["arms"][0]["ok_samples"].get<int>(), 0);
}

// Every file under `root` (including .git), with its content: what "byte for
// byte unchanged" means for the user's repository.
std::map<std::string, std::string> Snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    files[fs::relative(entry.path(), root).string()] =
        std::to_string(static_cast<int>(entry.status().permissions())) + ":" + content.str();
  }
  return files;
}

// Stages `file` of the working tree, as `git add FILE` would.
void Stage(const fs::path& repo_path, const std::string& file) {
  git_libgit2_init();
  git_repository* repo = nullptr;
  ASSERT_EQ(git_repository_open(&repo, repo_path.c_str()), 0);
  git_index* index = nullptr;
  ASSERT_EQ(git_repository_index(&index, repo), 0);
  EXPECT_EQ(git_index_add_bypath(index, file.c_str()), 0);
  EXPECT_EQ(git_index_write(index), 0);
  git_index_free(index);
  git_repository_free(repo);
  git_libgit2_shutdown();
}

TEST_F(CompareCliTest, LeavesTheWorkingTreeAndIndexUntouched) {
  // The user is mid-edit: a staged change, an unstaged one, an untracked file.
  WriteTextFile(repo_->path() / "README", "a tiny engine, staged edit\n");
  Stage(repo_->path(), "README");
  WriteTextFile(repo_->path() / "main.c", Program("1000", "/* unstaged edit */\n"));
  WriteTextFile(repo_->path() / "notes.txt", "untracked\n");
  const std::map<std::string, std::string> before = Snapshot(repo_->path());
  ASSERT_TRUE(before.count(".git/index"));

  EXPECT_NE(Culprit({"build", base_, slow_, broken_, fix_}).exit_code, 0);
  ProcessResult compare = Culprit({"compare", base_, fix_, "--max-pairs", "10"});
  EXPECT_TRUE(compare.exit_code == 0 || compare.exit_code == 3) << Show(compare);
  ProcessResult run = Culprit({"run", "loop", "--rev", slow_, "--samples", "3"});
  EXPECT_EQ(run.exit_code, 0) << Show(run);

  const std::map<std::string, std::string> after = Snapshot(repo_->path());
  EXPECT_EQ(before.size(), after.size());
  for (const auto& [file, content] : before) {
    auto it = after.find(file);
    ASSERT_NE(it, after.end()) << file << " disappeared";
    EXPECT_TRUE(it->second == content) << file << " changed";
  }
  // And nothing was built in the working tree.
  EXPECT_FALSE(fs::exists(repo_->path() / "prog"));
}

}  // namespace
}  // namespace culprit
