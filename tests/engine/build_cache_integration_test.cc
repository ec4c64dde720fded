#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "engine/build_cache.h"
#include "engine/file_lock.h"
#include "engine/process.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

std::string Program(const std::string& version, int loops, bool compiles = true) {
  return "#include <stdio.h>\n"
         "int main(void) {\n"
         "  volatile unsigned long sum = 0;\n"
         "  for (unsigned long i = 0; i < " +
         std::to_string(loops) +
         "UL; ++i) sum += i;\n"
         "  printf(\"version=" +
         version + "\\n\")" + (compiles ? ";" : "") +
         "\n"
         "  return 0;\n"
         "}\n";
}

// Every file under `root` (including .git), with its content and mode: what
// "byte-for-byte unchanged" means for the user's repository.
std::map<std::string, std::string> Snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    files[fs::relative(entry.path(), root).string()] =
        std::to_string(static_cast<int>(entry.status().permissions())) + ":" +
        ReadAll(entry.path());
  }
  return files;
}

std::string RunProgram(const fs::path& program) {
  ProcessSpec spec;
  spec.argv = {program.string()};
  ProcessResult result = RunProcess(spec);
  EXPECT_TRUE(result.ok()) << result.Describe(spec);
  return result.stdout_text;
}

class RecordingProgress : public BuildProgress {
 public:
  void OnStart(const CommitInfo& commit) override { events.push_back("start " + commit.id); }
  void OnStep(const CommitInfo& commit, int step, int steps, const std::string& command,
              std::chrono::milliseconds) override {
    events.push_back("step " + std::to_string(step) + "/" + std::to_string(steps) + " " + command);
  }
  void OnDone(const CommitInfo& commit, bool ok, std::chrono::milliseconds) override {
    events.push_back(ok ? "done ok" : "done failed");
  }
  void OnWaiting(const fs::path& dir) override {
    events.push_back("waiting");
    if (on_waiting) on_waiting();
  }
  void OnNote(const std::string& note) override { notes.push_back(note); }
  void OnOutput(const CommitInfo& commit, int step, int steps, std::string_view last_line,
                std::chrono::milliseconds) override {
    // Apart from the events: how often it comes depends on the host's speed.
    output.push_back(std::to_string(step) + "/" + std::to_string(steps) + " " +
                     std::string(last_line.substr(0, 200)));
    longest_line = std::max(longest_line, last_line.size());
  }
  size_t longest_line = 0;
  std::vector<std::string> events;
  std::vector<std::string> output;
  std::vector<std::string> notes;
  std::function<void()> on_waiting;
};

// An engine with: base; a 2x slower commit; a commit that does not compile; a fix.
class BuildCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fixture_ = std::make_unique<GitFixture>(dir_.path() / "engine");
    base_ =
        fixture_->Commit({{"main.c", Program("base", 1000)}, {"README", "engine\n"}}, {}, "Base");
    slow_ = fixture_->Commit({{"main.c", Program("slow", 2000)}}, {}, "Twice the work");
    broken_ = fixture_->Commit({{"main.c", Program("broken", 2000, false)}}, {}, "Break it");
    fix_ = fixture_->Commit({{"main.c", Program("fix", 1000)}}, {}, "Fix it");
    auto repo = GitRepo::Open(fixture_->path());
    ASSERT_TRUE(repo) << repo.error().message();
    repo_ = std::make_unique<GitRepo>(std::move(*repo));
  }

  BuildSettings Settings() const {
    BuildSettings settings;
    settings.repo = fixture_->path();
    settings.steps = {{"cc", "-O1", "-o", "prog", "main.c"}};
    settings.artifacts = {"prog"};
    settings.timeout = std::chrono::seconds(60);
    settings.cache_dir = dir_.path() / "cache";
    return settings;
  }

  /// Settings whose slow commit's step hangs (after writing its pid to `pid_file`); the
  /// other commits build.
  BuildSettings HangingSlowSettings(const fs::path& pid_file) const {
    BuildSettings settings = Settings();
    settings.steps = {{"sh", "-c",
                       "if grep -q version=slow main.c; then echo $$ > '" + pid_file.string() +
                           "'; exec sleep 60; fi; exec cc -O1 -o prog main.c"}};
    return settings;
  }

  /// Whether a culprit's build under dir_ has written its step's process group down.
  bool StepGroupRecorded() const {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir_.path(), ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() == "step-group" && fs::file_size(it->path(), ec) > 0) return true;
    }
    return false;
  }

  /// A culprit (a forked child) builds the slow commit, and is killed with SIGKILL while its
  /// step hangs: `kill -9` of culprit alone. Returns the step's pid, still running; 0 (with
  /// a failure added) when it never started or died with culprit.
  pid_t LeaveAHungStep(const BuildSettings& settings, const fs::path& pid_file) {
    pid_t culprit = ::fork();
    if (culprit < 0) {
      ADD_FAILURE() << "fork failed";
      return 0;
    }
    if (culprit == 0) {
      BuildCache cache(*repo_, settings);
      (void)cache.Ensure(slow_);
      ::_exit(0);
    }
    // Wait for the step to run (bounded by the step's own 60 s).
    for (int i = 0; i < 6000 && ReadAll(pid_file).empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // The step can write its pid before culprit, which started it, has written the step's
    // group down; on a loaded host (`ctest -j2`) a kill in between left no record, and the
    // next build found the step by its marker instead. Killed after the record, as a
    // `kill -9` during a long step almost always is. (The marker case has its own test,
    // which removes the record.)
    for (int i = 0; i < 1000 && !StepGroupRecorded(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const std::string pid_text = ReadAll(pid_file);
    ::kill(culprit, SIGKILL);
    ::waitpid(culprit, nullptr, 0);
    if (pid_text.empty()) {
      ADD_FAILURE() << "the step never started";
      return 0;
    }
    const pid_t step = std::stoi(pid_text);
    if (::kill(step, 0) != 0) {
      ADD_FAILURE() << "the step died with culprit: nothing to test";
      return 0;
    }
    return step;
  }

  /// The next culprit builds the base commit, correctly; returns what it said through its
  /// BuildProgress's notes, one per line. The engine layer itself prints nothing.
  std::string BuildBaseAfterTheKill(const BuildSettings& settings) {
    BuildCache cache(*repo_, settings);
    RecordingProgress progress;
    ::testing::internal::CaptureStderr();
    auto build = cache.Ensure(base_, false, &progress);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    EXPECT_TRUE(build) << build.error().message();
    if (build) {
      EXPECT_EQ(RunProgram(build->artifacts.at("prog")), "version=base\n");
    }
    std::string notes;
    for (const std::string& note : progress.notes) notes += note + "\n";
    return notes;
  }

  /// Gone, or a zombie waiting for a parent that reaps: either way it runs no code.
  static void ExpectStopped(pid_t step) {
    std::string stat = ReadAll("/proc/" + std::to_string(step) + "/stat");
    size_t close = stat.rfind(')');
    EXPECT_TRUE(stat.empty() || (close != std::string::npos && stat.substr(close + 2, 1) == "Z"))
        << stat;
  }

  TempDir dir_;
  std::unique_ptr<GitFixture> fixture_;
  std::unique_ptr<GitRepo> repo_;
  std::string base_, slow_, broken_, fix_;
};

TEST_F(BuildCacheTest, BuildsThenReusesWithoutRunningAStep) {
  RecordingProgress progress;
  {
    BuildCache cache(*repo_, Settings());
    EXPECT_EQ(cache.KnownBuildable(base_), std::nullopt);
    auto build = cache.Ensure(base_, false, &progress);
    ASSERT_TRUE(build) << build.error().message();
    EXPECT_FALSE(build->reused);
    EXPECT_EQ(build->commit, base_);
    EXPECT_EQ(build->tree, repo_->Commit(base_)->tree_id);
    EXPECT_EQ(cache.build_steps_run(), 1);
    ASSERT_EQ(build->artifacts.count("prog"), 1u);
    EXPECT_EQ(RunProgram(build->artifacts.at("prog")), "version=base\n");
    EXPECT_EQ(cache.KnownBuildable(base_), std::optional<bool>(true));
    EXPECT_EQ(cache.KnownBuildable(base_.substr(0, 8)), std::optional<bool>(true));
  }
  EXPECT_EQ(progress.events, (std::vector<std::string>{
                                 "start " + base_, "step 1/1 cc -O1 -o prog main.c", "done ok"}));

  BuildCache again(*repo_, Settings());
  auto log_before =
      ReadAll(again.engine_dir() / "builds" / (base_ + "-" + again.config_key()) / "build.log");
  auto log_time = fs::last_write_time(again.engine_dir() / "builds" /
                                      (base_ + "-" + again.config_key()) / "build.log");
  auto reused = again.Ensure("HEAD~3");
  ASSERT_TRUE(reused) << reused.error().message();
  EXPECT_TRUE(reused->reused);
  EXPECT_EQ(again.build_steps_run(), 0);
  EXPECT_EQ(RunProgram(reused->artifacts.at("prog")), "version=base\n");
  auto log_path = reused->dir / "build.log";
  EXPECT_EQ(ReadAll(log_path), log_before);
  EXPECT_EQ(fs::last_write_time(log_path), log_time);
}

TEST_F(BuildCacheTest, EachCommitGetsItsOwnBuild) {
  BuildCache cache(*repo_, Settings());
  auto base = cache.Ensure(base_);
  auto slow = cache.Ensure(slow_);
  auto fix = cache.Ensure("HEAD");
  ASSERT_TRUE(base && slow && fix);
  EXPECT_EQ(cache.build_steps_run(), 3);
  EXPECT_EQ(RunProgram(base->artifacts.at("prog")), "version=base\n");
  EXPECT_EQ(RunProgram(slow->artifacts.at("prog")), "version=slow\n");
  EXPECT_EQ(RunProgram(fix->artifacts.at("prog")), "version=fix\n");
}

TEST_F(BuildCacheTest, UnbuildableCommitIsRememberedWithItsLog) {
  RecordingProgress progress;
  BuildCache cache(*repo_, Settings());
  auto failed = cache.Ensure(broken_, false, &progress);
  ASSERT_FALSE(failed);
  const std::string& message = failed.error().message();
  EXPECT_NE(message.find("commit " + broken_.substr(0, 10) + " (Break it) does not build"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("step 1/1 `cc -O1 -o prog main.c` exited with status"), std::string::npos)
      << message;
  EXPECT_NE(message.find("last lines of the build log"), std::string::npos) << message;
  EXPECT_NE(message.find("error"), std::string::npos) << message;  // the compiler's words
  EXPECT_NE(failed.error().hint().find("--rebuild"), std::string::npos);
  EXPECT_EQ(progress.events.back(), "done failed");
  EXPECT_EQ(cache.KnownBuildable(broken_), std::optional<bool>(false));
  EXPECT_NE(cache.KnownBuildable(broken_), std::optional<bool>(true));
  auto failure = cache.Failure(broken_);
  ASSERT_TRUE(failure.has_value());
  EXPECT_TRUE(fs::exists(failure->log));
  EXPECT_NE(failure->log_tail.find("error"), std::string::npos);

  BuildCache later(*repo_, Settings());
  auto remembered = later.Ensure(broken_);
  ASSERT_FALSE(remembered);
  EXPECT_EQ(later.build_steps_run(), 0);
  EXPECT_NE(remembered.error().message().find("remembered from the attempt at"), std::string::npos);
  EXPECT_NE(remembered.error().message().find("error"), std::string::npos);

  auto retried = later.Ensure(broken_, /*rebuild=*/true);
  ASSERT_FALSE(retried);
  EXPECT_EQ(later.build_steps_run(), 1);

  // The next commit builds in the same scratch checkout.
  auto fixed = later.Ensure(fix_);
  ASSERT_TRUE(fixed) << fixed.error().message();
  EXPECT_EQ(RunProgram(fixed->artifacts.at("prog")), "version=fix\n");
}

TEST_F(BuildCacheTest, AnEntryWithAFieldOfTheWrongTypeIsTreatedAsAbsent) {
  BuildCache cache(*repo_, Settings());
  ASSERT_FALSE(cache.Ensure(broken_, false, nullptr));
  auto failure = cache.Failure(broken_);
  ASSERT_TRUE(failure.has_value());
  // Damaged by hand (or by a future culprit): a null status, a string for seconds.
  WriteTextFile(failure->log.parent_path() / "entry.json",
                R"({"schema": "culprit.build/v1", "status": null, "seconds": "x"})");
  BuildCache later(*repo_, Settings());
  EXPECT_EQ(later.KnownBuildable(broken_), std::nullopt);
  EXPECT_FALSE(later.Failure(broken_).has_value());
  EXPECT_NE(later.KnownBuildable(broken_), std::optional<bool>(true));
  // Absent means "build it": the attempt runs again and is remembered anew.
  ASSERT_FALSE(later.Ensure(broken_));
  EXPECT_EQ(later.build_steps_run(), 1);
  EXPECT_EQ(later.KnownBuildable(broken_), std::optional<bool>(false));
}

TEST_F(BuildCacheTest, ChangingTheStepsInvalidatesOldBuilds) {
  BuildCache cache(*repo_, Settings());
  ASSERT_TRUE(cache.Ensure(base_));
  BuildSettings changed = Settings();
  changed.steps = {{"cc", "-O2", "-o", "prog", "main.c"}};
  BuildCache other(*repo_, changed);
  EXPECT_NE(other.config_key(), cache.config_key());
  EXPECT_NE(other.KnownBuildable(base_), std::optional<bool>(true));
  auto build = other.Ensure(base_);
  ASSERT_TRUE(build) << build.error().message();
  EXPECT_FALSE(build->reused);
  EXPECT_EQ(other.build_steps_run(), 1);

  // ["a b"] and ["a", "b"] are different steps.
  BuildSettings split = Settings();
  split.steps = {{"cc -O1", "-o", "prog", "main.c"}};
  BuildSettings joined = Settings();
  joined.steps = {{"cc", "-O1 -o", "prog", "main.c"}};
  EXPECT_NE(BuildCache(*repo_, split).config_key(), BuildCache(*repo_, joined).config_key());
  // The timeout and the mode are not part of the key.
  BuildSettings clean = Settings();
  clean.clean = true;
  clean.timeout = std::chrono::seconds(5);
  EXPECT_EQ(BuildCache(*repo_, clean).config_key(), cache.config_key());

  auto list = other.List();
  ASSERT_TRUE(list) << list.error().message();
  ASSERT_EQ(list->size(), 2u);
  int current = 0;
  for (const CachedBuildInfo& info : *list) {
    EXPECT_EQ(info.commit, base_);
    EXPECT_TRUE(info.buildable);
    EXPECT_GT(info.bytes, 1000u);  // holds the compiled program
    EXPECT_EQ(info.built_at.size(), 20u);
    current += info.current;
  }
  EXPECT_EQ(current, 1);

  auto pruned = other.Prune(std::chrono::hours(24), /*stale_too=*/true);
  ASSERT_TRUE(pruned) << pruned.error().message();
  EXPECT_EQ(*pruned, 1);
  EXPECT_EQ(other.KnownBuildable(base_), std::optional<bool>(true));
  EXPECT_NE(cache.KnownBuildable(base_), std::optional<bool>(true));
  build->in_use.reset();  // No longer measured: it may go.
  auto all = other.Prune(std::chrono::hours(0));
  ASSERT_TRUE(all);
  EXPECT_EQ(*all, 1);
  EXPECT_TRUE(other.List()->empty());
}

// A build in use (held by a sitting, here by this test as a second culprit
// would hold it) is neither pruned nor rebuilt under it; once released, both
// go ahead. In-process and deterministic: flock locks of two open files
// conflict within one process as across two.
TEST_F(BuildCacheTest, ABuildInUseIsNeitherPrunedNorRebuilt) {
  BuildCache measuring(*repo_, Settings());
  auto held = measuring.Ensure(base_);
  ASSERT_TRUE(held) << held.error().message();
  ASSERT_TRUE(held->in_use);
  ASSERT_TRUE(measuring.Ensure(slow_));  // Built, and released at once.

  BuildCache other(*repo_, Settings());
  std::vector<std::string> in_use;
  auto pruned = other.Prune(std::chrono::hours(0), true, &in_use);
  ASSERT_TRUE(pruned) << pruned.error().message();
  EXPECT_EQ(*pruned, 1);  // The slow build, which nobody holds.
  EXPECT_EQ(in_use, std::vector<std::string>{base_});
  EXPECT_EQ(RunProgram(held->artifacts.at("prog")), "version=base\n");

  auto rebuilt = other.Ensure(base_, /*rebuild=*/true);
  ASSERT_FALSE(rebuilt);
  EXPECT_NE(rebuilt.error().message().find("a running measurement uses its build"),
            std::string::npos)
      << rebuilt.error().message();
  EXPECT_EQ(other.build_steps_run(), 0);
  // Reusing it is fine: readers share it.
  auto reused = other.Ensure(base_);
  ASSERT_TRUE(reused) << reused.error().message();
  EXPECT_TRUE(reused->reused);

  held->in_use.reset();
  reused->in_use.reset();
  auto again = other.Ensure(base_, /*rebuild=*/true);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_FALSE(again->reused);
  again->in_use.reset();
  in_use.clear();
  auto all = other.Prune(std::chrono::hours(0), true, &in_use);
  ASSERT_TRUE(all);
  EXPECT_EQ(*all, 1);
  EXPECT_TRUE(in_use.empty());
}

TEST_F(BuildCacheTest, IncrementalModeRewritesOnlyChangedFiles) {
  BuildCache cache(*repo_, Settings());
  ASSERT_TRUE(cache.Ensure(base_));
  fs::path src = cache.engine_dir() / "scratch" / "src";
  auto readme_time = fs::last_write_time(src / "README");
  auto prog_before = ReadAll(src / "prog");
  ASSERT_TRUE(cache.Ensure(slow_));
  EXPECT_EQ(fs::last_write_time(src / "README"), readme_time);
  EXPECT_EQ(ReadAll(src / "main.c"), Program("slow", 2000));
  EXPECT_NE(ReadAll(src / "prog"), prog_before);  // the build output lives on in the scratch
}

TEST_F(BuildCacheTest, CleanModeUsesAFreshCheckoutAndRemovesIt) {
  BuildSettings settings = Settings();
  settings.clean = true;
  BuildCache cache(*repo_, settings);
  auto build = cache.Ensure(slow_);
  ASSERT_TRUE(build) << build.error().message();
  EXPECT_EQ(RunProgram(build->artifacts.at("prog")), "version=slow\n");
  EXPECT_FALSE(fs::exists(cache.engine_dir() / "scratch" / "src"));
  for (const auto& entry : fs::directory_iterator(cache.engine_dir() / "scratch")) {
    EXPECT_EQ(entry.path().filename(), "lock");
  }
}

TEST_F(BuildCacheTest, UsersWorkingTreeAndIndexAreUntouched) {
  WriteTextFile(fixture_->path() / "uncommitted.txt", "work in progress\n");
  WriteTextFile(fixture_->path() / "main.c", "/* edited but not committed */\n");
  auto before = Snapshot(fixture_->path());
  ASSERT_TRUE(before.count(".git/index"));
  {
    BuildCache cache(*repo_, Settings());
    ASSERT_TRUE(cache.Ensure(base_));
    ASSERT_TRUE(cache.Ensure(slow_));
    ASSERT_FALSE(cache.Ensure(broken_));
    BuildSettings clean = Settings();
    clean.clean = true;
    clean.steps.push_back({"cc", "-O2", "-o", "prog", "main.c"});
    ASSERT_TRUE(BuildCache(*repo_, clean).Ensure(fix_));
  }
  EXPECT_EQ(Snapshot(fixture_->path()), before);
}

TEST_F(BuildCacheTest, MissingArtifactIsAFailure) {
  BuildSettings settings = Settings();
  settings.artifacts = {"prog", "build/missing"};
  BuildCache cache(*repo_, settings);
  auto build = cache.Ensure(base_);
  ASSERT_FALSE(build);
  EXPECT_NE(build.error().message().find("did not produce artifact 'build/missing'"),
            std::string::npos)
      << build.error().message();
  EXPECT_EQ(cache.KnownBuildable(base_), std::optional<bool>(false));
}

// zstd's Makefile builds programs/zstd and leaves `zstd -> programs/zstd` at the
// top; a copied link dangled in the entry and the build was reported "vanished".
TEST_F(BuildCacheTest, AnArtifactThatIsASymlinkIsCachedAsTheFileItNames) {
  BuildSettings settings = Settings();
  settings.steps = {
      {"sh", "-c", "mkdir -p out && cc -O1 -o out/prog main.c && ln -sf out/prog prog"}};
  BuildCache cache(*repo_, settings);
  auto build = cache.Ensure(base_);
  ASSERT_TRUE(build) << build.error().message();
  const fs::path cached = build->artifacts.at("prog");
  EXPECT_FALSE(fs::is_symlink(cached));
  EXPECT_TRUE(fs::is_regular_file(cached));
  EXPECT_EQ(RunProgram(cached), "version=base\n");
}

TEST_F(BuildCacheTest, AnArtifactLinkedOutsideTheCheckoutIsRefused) {
  const fs::path outside = dir_.path() / "outside-prog";
  WriteTextFile(outside, "not built here\n");
  BuildSettings settings = Settings();
  settings.steps = {{"ln", "-sf", outside.string(), "prog"}};
  BuildCache cache(*repo_, settings);
  auto build = cache.Ensure(base_);
  ASSERT_FALSE(build);
  EXPECT_NE(build.error().message().find("outside the build's checkout"), std::string::npos)
      << build.error().message();
  EXPECT_EQ(cache.KnownBuildable(base_), std::optional<bool>(false));
}

TEST_F(BuildCacheTest, AStepThatCannotStartIsNotHeldAgainstTheCommit) {
  BuildSettings settings = Settings();
  settings.steps = {{"culprit-no-such-compiler", "main.c"}};
  BuildCache cache(*repo_, settings);
  auto build = cache.Ensure(base_);
  ASSERT_FALSE(build);
  EXPECT_NE(build.error().message().find("culprit-no-such-compiler"), std::string::npos);
  EXPECT_EQ(cache.KnownBuildable(base_), std::nullopt);
}

TEST_F(BuildCacheTest, AStepThatRanOutOfDiskSpaceIsNotHeldAgainstTheCommit) {
  BuildSettings settings = Settings();
  // What GNU ld prints when the disk fills under it.
  settings.steps = {{"sh", "-c",
                     "echo '/usr/bin/ld: final link failed: No space left on device' >&2; "
                     "exit 1"}};
  BuildCache cache(*repo_, settings);
  auto build = cache.Ensure(base_);
  ASSERT_FALSE(build);
  const std::string message = build.error().message();
  EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
  EXPECT_NE(build.error().hint().find("not remembered"), std::string::npos) << message;
  EXPECT_EQ(cache.KnownBuildable(base_), std::nullopt);
  EXPECT_FALSE(cache.Failure(base_));

  // The same step failing for any other reason is the commit's failure.
  settings.steps = {{"sh", "-c", "echo 'main.c:1: error: expected ;' >&2; exit 1"}};
  BuildCache other(*repo_, settings);
  EXPECT_FALSE(other.Ensure(base_));
  EXPECT_EQ(other.KnownBuildable(base_), std::optional<bool>(false));
}

TEST_F(BuildCacheTest, ATimedOutStepMakesTheCommitUnbuildable) {
  BuildSettings settings = Settings();
  settings.steps = {{"sleep", "30"}};
  settings.timeout = std::chrono::milliseconds(200);
  BuildCache cache(*repo_, settings);
  auto build = cache.Ensure(base_);
  ASSERT_FALSE(build);
  EXPECT_NE(build.error().message().find("timed out"), std::string::npos)
      << build.error().message();
  EXPECT_EQ(cache.KnownBuildable(base_), std::optional<bool>(false));
}

TEST_F(BuildCacheTest, ATimedOutBuildIsTriedAgainOnceTheTimeoutIsLonger) {
  using namespace std::chrono_literals;
  BuildSettings settings = Settings();
  // Builds, but only given more than the first timeout.
  settings.steps = {{"sh", "-c", "sleep 2 && cc -O1 -o prog main.c"}};
  settings.timeout = 200ms;
  {
    BuildCache cache(*repo_, settings);
    auto build = cache.Ensure(base_);
    ASSERT_FALSE(build);
    EXPECT_NE(build.error().message().find("timed out after 0.2 s"), std::string::npos)
        << build.error().message();
    EXPECT_NE(build.error().hint().find("build_timeout is longer than 0.2 s"), std::string::npos)
        << build.error().hint();
    EXPECT_NE(build.error().hint().find("--rebuild"), std::string::npos);
    EXPECT_EQ(cache.KnownBuildable(base_), std::optional<bool>(false));
    auto failure = cache.Failure(base_);
    ASSERT_TRUE(failure.has_value());
    EXPECT_TRUE(failure->timed_out);
    EXPECT_EQ(failure->timeout, 200ms);
  }
  // The same timeout or a shorter one: remembered, nothing runs, and the
  // message says how to have it tried again.
  for (std::chrono::milliseconds timeout : {200ms, 100ms}) {
    settings.timeout = timeout;
    BuildCache cache(*repo_, settings);
    EXPECT_EQ(cache.KnownBuildable(base_), std::optional<bool>(false));
    auto again = cache.Ensure(base_);
    ASSERT_FALSE(again);
    EXPECT_EQ(cache.build_steps_run(), 0);
    const std::string& message = again.error().message();
    EXPECT_NE(message.find("remembered from the attempt at"), std::string::npos) << message;
    EXPECT_NE(message.find("build_timeout is longer than 0.2 s"), std::string::npos) << message;
    EXPECT_NE(message.find("`culprit build --rebuild`"), std::string::npos) << message;
  }
  // No timeout at all would try again too.
  settings.timeout = 0ms;
  EXPECT_EQ(BuildCache(*repo_, settings).KnownBuildable(base_), std::nullopt);
  // A longer one: tried again, and this time it builds.
  settings.timeout = 60s;
  BuildCache longer(*repo_, settings);
  EXPECT_EQ(longer.KnownBuildable(base_), std::nullopt);
  EXPECT_FALSE(longer.Failure(base_).has_value());
  auto built = longer.Ensure(base_);
  ASSERT_TRUE(built) << built.error().message();
  EXPECT_FALSE(built->reused);
  EXPECT_EQ(longer.build_steps_run(), 1);
  EXPECT_EQ(RunProgram(built->artifacts.at("prog")), "version=base\n");
  EXPECT_EQ(longer.KnownBuildable(base_), std::optional<bool>(true));
}

TEST_F(BuildCacheTest, AFailedBuildStaysRememberedWhateverTheTimeout) {
  ASSERT_FALSE(BuildCache(*repo_, Settings()).Ensure(broken_));
  for (std::chrono::milliseconds timeout :
       {std::chrono::milliseconds(0), std::chrono::milliseconds(std::chrono::hours(1))}) {
    BuildSettings settings = Settings();
    settings.timeout = timeout;
    BuildCache later(*repo_, settings);
    EXPECT_EQ(later.KnownBuildable(broken_), std::optional<bool>(false));
    auto failure = later.Failure(broken_);
    ASSERT_TRUE(failure.has_value());
    EXPECT_FALSE(failure->timed_out);
    auto again = later.Ensure(broken_);
    ASSERT_FALSE(again);
    EXPECT_EQ(later.build_steps_run(), 0);
    EXPECT_NE(again.error().message().find("`culprit build --rebuild` tries again"),
              std::string::npos)
        << again.error().message();
  }
}

TEST_F(BuildCacheTest, ALatin1CommitSubjectIsRememberedNotThrownOn) {
  // Real histories have subjects in Latin-1, which is not UTF-8 (0xE9: é).
  std::string good = fixture_->Commit({{"main.c", Program("cafe", 1000)}}, {}, "Caf\xe9 cr\xe8me");
  std::string bad =
      fixture_->Commit({{"main.c", Program("cafe", 1000, false)}}, {}, "Na\xefve break");
  {
    BuildCache cache(*repo_, Settings());
    auto built = cache.Ensure(good);
    ASSERT_TRUE(built) << built.error().message();
    auto failed = cache.Ensure(bad);
    ASSERT_FALSE(failed);
    EXPECT_NE(failed.error().message().find("does not build"), std::string::npos)
        << failed.error().message();
  }
  BuildCache later(*repo_, Settings());
  EXPECT_EQ(later.KnownBuildable(good), std::optional<bool>(true));
  EXPECT_EQ(later.KnownBuildable(bad), std::optional<bool>(false));
  auto reused = later.Ensure(good);
  ASSERT_TRUE(reused) << reused.error().message();
  EXPECT_TRUE(reused->reused);
  EXPECT_EQ(RunProgram(reused->artifacts.at("prog")), "version=cafe\n");
  // The entry is valid JSON, the subject's bad bytes replaced by U+FFFD.
  std::string entry = ReadAll(reused->dir / "entry.json");
  EXPECT_NE(entry.find("Caf\xef\xbf\xbd cr\xef\xbf\xbdme"), std::string::npos) << entry;
  EXPECT_EQ(later.build_steps_run(), 0);
}

TEST_F(BuildCacheTest, DuplicateArtifactNamesAreAUsageError) {
  BuildSettings settings = Settings();
  settings.artifacts = {"a/prog", "b/prog"};
  auto build = BuildCache(*repo_, settings).Ensure(base_);
  ASSERT_FALSE(build);
  EXPECT_EQ(build.error().ExitCode(), 2);
}

TEST_F(BuildCacheTest, UnknownRevisionIsNamed) {
  BuildCache cache(*repo_, Settings());
  auto build = cache.Ensure("v9.9");
  ASSERT_FALSE(build);
  EXPECT_NE(build.error().message().find("unknown revision 'v9.9'"), std::string::npos);
  EXPECT_EQ(cache.build_steps_run(), 0);
}

TEST_F(BuildCacheTest, WaitsForAnotherBuilderHoldingTheLock) {
  BuildCache cache(*repo_, Settings());
  auto held = FileLock::Acquire(cache.engine_dir() / "scratch" / "lock");
  ASSERT_TRUE(held);
  RecordingProgress progress;
  std::promise<void> waiting;
  progress.on_waiting = [&] { waiting.set_value(); };
  auto result =
      std::async(std::launch::async, [&] { return cache.Ensure(base_, false, &progress); });
  waiting.get_future().wait();  // the builder saw the lock taken and is waiting
  EXPECT_EQ(cache.build_steps_run(), 0);
  *held = FileLock::Acquire(dir_.path() / "other.lock").value();  // releases the scratch lock
  auto build = result.get();
  ASSERT_TRUE(build) << build.error().message();
  EXPECT_EQ(progress.events.front(), "waiting");
  EXPECT_EQ(cache.build_steps_run(), 1);
}

TEST_F(BuildCacheTest, AStepLeftRunningByAKilledCulpritIsStoppedBeforeTheNextBuild) {
  // `kill -9` of culprit alone leaves its build step running (a process group
  // of its own) in the scratch checkout. The next build must not share the
  // checkout with it: a compiler writing there while another commit is
  // checked out corrupts that build, which is then remembered as broken.
  fs::path pid_file = dir_.path() / "leftover.pid";
  BuildSettings settings = HangingSlowSettings(pid_file);
  pid_t step = LeaveAHungStep(settings, pid_file);
  ASSERT_GT(step, 0);

  std::string err = BuildBaseAfterTheKill(settings);
  EXPECT_NE(err.find("left running by an earlier culprit (process group " + std::to_string(step)),
            std::string::npos)
      << err;
  ExpectStopped(step);
}

TEST_F(BuildCacheTest, AStepACulpritDiedBeforeRecordingIsStoppedByItsMarker) {
  // Killed in the instant between starting a step and writing its group down, culprit
  // leaves a step nobody recorded; in the fault suite the next build then linked beside
  // it and remembered the commit as broken. The step's environment marks it.
  fs::path pid_file = dir_.path() / "leftover.pid";
  BuildSettings settings = HangingSlowSettings(pid_file);
  pid_t step = LeaveAHungStep(settings, pid_file);
  ASSERT_GT(step, 0);
  // As if culprit had died before RecordStepGroup: no record of the step.
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_.path(), ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == "step-group") fs::remove(it->path(), ec);
  }

  std::string err = BuildBaseAfterTheKill(settings);
  EXPECT_NE(err.find("unrecorded (process group " + std::to_string(step)), std::string::npos)
      << err;
  ExpectStopped(step);
}

TEST_F(BuildCacheTest, ARunningStepReportsItsLastLineOfOutput) {
  BuildSettings settings = Settings();
  settings.steps = {
      {"sh", "-c", "echo configuring; echo 'compiling main.c' >&2; exec cc -O1 -o prog main.c"}};
  BuildCache cache(*repo_, settings);
  RecordingProgress progress;
  auto build = cache.Ensure(base_, false, &progress);
  ASSERT_TRUE(build) << build.error().message();
  // Both streams count; the last complete line is what a heartbeat shows.
  ASSERT_FALSE(progress.output.empty());
  EXPECT_EQ(progress.output.back(), "1/1 compiling main.c");
}

// A step that prints megabytes without a newline: the heartbeat keeps a
// bounded tail of it, not the whole output (which it also used to rescan on
// every piece, quadratic in the line's length).
TEST_F(BuildCacheTest, AHeartbeatHoldsABoundedTailOfALongLine) {
  BuildSettings settings = Settings();
  settings.steps = {{"sh", "-c",
                     "head -c 4000000 /dev/zero | tr '\\0' x; echo; sleep 1; echo done; "
                     "exec cc -O1 -o prog main.c"}};
  BuildCache cache(*repo_, settings);
  RecordingProgress progress;
  auto build = cache.Ensure(base_, false, &progress);
  ASSERT_TRUE(build) << build.error().message();
  ASSERT_FALSE(progress.output.empty());
  EXPECT_EQ(progress.output.back(), "1/1 done");
  // (The pause lets the long line arrive as a last line of its own, on most
  // hosts; the bound holds either way.)
  EXPECT_LE(progress.longest_line, LastOutputLine::kKeep);
}

// The build log is close-on-exec: a step cannot see (write into, truncate)
// the log of its own build. The step lists its descriptors into the log.
TEST_F(BuildCacheTest, ABuildStepDoesNotInheritTheBuildLog) {
  BuildSettings settings = Settings();
  settings.steps = {{"sh", "-c", "ls -l /proc/self/fd; exec cc -O1 -o prog main.c"}};
  BuildCache cache(*repo_, settings);
  auto build = cache.Ensure(base_);
  ASSERT_TRUE(build) << build.error().message();
  const std::string log = ReadAll(build->dir / "build.log");
  ASSERT_NE(log.find("0 -> /dev/null"), std::string::npos) << log;  // The listing is there.
  EXPECT_EQ(log.find("build.log"), std::string::npos) << log;
}

TEST_F(BuildCacheTest, SourceTreeIsAPristineCheckoutOfTheBuild) {
  BuildCache cache(*repo_, Settings());
  auto build = cache.Ensure(slow_);
  ASSERT_TRUE(build);
  auto source = cache.SourceTree(*build);
  ASSERT_TRUE(source) << source.error().message();
  EXPECT_EQ(build->source_dir, *source);
  EXPECT_EQ(ReadAll(*source / "main.c"), Program("slow", 2000));
  EXPECT_FALSE(fs::exists(*source / "prog"));
}

}  // namespace
}  // namespace culprit
