// End to end: `culprit judge`, the `git bisect run` script, on a real
// temporary history of a tiny C program built with cc. Its exit code is what
// git bisect acts on: 0 good, 1 bad, 125 skip, 128 abort. A commit that does
// not build, hangs or crashes must be skipped (125), never called bad (1).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/process.h"
#include "records/record_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

// Iterations of the timed loop: about 2.7 ms on the development host; the slow
// commit does 2.5x the work.
constexpr long kFastWork = 2000000;
constexpr long kSlowWork = 5000000;

// main.c of an engine that reports a figure of its own (a cost it counts, not
// a time), printed where the loop engine prints its time. Every run reports
// 2.5 within ±0.5% (from its process id), so two builds of it tie whatever the
// host is doing: a tie between two real timed processes is not something a
// loaded 2-core host grants, and judge's handling of a tie must not depend on it.
std::string ReportedFigureSource(const std::string& tag) {
  return fmt::format(R"(// {tag}
#include <stdio.h>
#include <unistd.h>
int main(void) {{
  printf("min_ms=%.4f\n", 2.5 * (1 + ((int)(getpid() % 11) - 5) * 0.001));
  return 0;
}}
)",
                     fmt::arg("tag", tag));
}

// A history of one commit per case on top of the reference; HEAD is the last
// (the crash), so one case runs judge without --candidate.
class JudgeCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    GitFixture git(dir_.path() / "repo");
    reference_ =
        git.Commit({{"main.c", LoopEngineSource("reference", kFastWork)}}, {}, "reference");
    same_ = git.Commit({{"main.c", LoopEngineSource("comment only", kFastWork)}}, {},
                       "reword a comment");
    slow_ = git.Commit({{"main.c", LoopEngineSource("slow", kSlowWork)}}, {}, "2.5x the work");
    broken_ = git.Commit(
        {{"main.c", LoopEngineSource("broken", kFastWork, LoopEngineVariant::kSyntaxError)}}, {},
        "does not compile");
    hang_ = git.Commit({{"main.c", LoopEngineSource("hang", kFastWork, LoopEngineVariant::kHang)}},
                       {}, "hangs");
    crash_ =
        git.Commit({{"main.c", LoopEngineSource("crash", kFastWork, LoopEngineVariant::kCrash)}},
                   {}, "crashes");
    config_ = WriteLoopEngineConfig(dir_.path(), "2s", 0.2);
  }

  ProcessResult Judge(const std::vector<std::string>& args, const fs::path& config = fs::path()) {
    ProcessSpec spec;
    spec.argv = {CulpritExe(), "--config",    (config.empty() ? config_ : config).string(),
                 "judge",      "--reference", reference_};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.timeout = std::chrono::minutes(3);
    spec.output_limit = 1 << 22;
    return RunProcess(spec);
  }

  TempDir dir_;
  fs::path config_;
  std::string reference_, same_, slow_, broken_, hang_, crash_;
};

TEST_F(JudgeCommand, SameAsTheReferenceIsGood) {
  // A NULL needs the whole interval inside the band. Two commits that differ
  // in a comment and report the same figure (ReportedFigureSource) give one
  // on any host; real builds, real runs and the real sitting decide it.
  const fs::path tie = dir_.path() / "tie";
  GitFixture git(tie / "repo");
  const std::string reference =
      git.Commit({{"main.c", ReportedFigureSource("reference")}}, {}, "reference");
  const std::string same =
      git.Commit({{"main.c", ReportedFigureSource("comment only")}}, {}, "reword a comment");
  ProcessSpec spec;
  spec.argv = {CulpritExe(),  "--config",    WriteLoopEngineConfig(tie, "2s", 0.2).string(),
               "judge",       "--reference", reference,
               "--candidate", same};
  spec.timeout = std::chrono::minutes(3);
  spec.output_limit = 1 << 22;
  ProcessResult r = RunProcess(spec);
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << DescribeRun(r);
  EXPECT_EQ(r.exit_code, 0) << DescribeRun(r);
  EXPECT_NE(r.stdout_text.find("judge: good: same as the reference"), std::string::npos)
      << DescribeRun(r);
  // The sitting is archived like any comparison.
  std::vector<Record> records = RecordStore(tie / "records").List().records;
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].verdict, Verdict::kNull);
}

TEST_F(JudgeCommand, SlowerBeyondTheBandIsBad) {
  ProcessResult r = Judge({"--candidate", slow_});
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << DescribeRun(r);
  EXPECT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_NE(r.stdout_text.find("judge: bad"), std::string::npos) << DescribeRun(r);
}

TEST_F(JudgeCommand, FasterThanTheReferenceIsGood) {
  // The other way round: the slow commit as the reference makes the fast one
  // faster, which git bisect must also call good (0), never bad.
  ProcessSpec spec;
  spec.argv = {CulpritExe(),  "--config", config_.string(), "judge",
               "--reference", slow_,      "--candidate",    same_};
  spec.timeout = std::chrono::minutes(3);
  ProcessResult r = RunProcess(spec);
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << DescribeRun(r);
  EXPECT_EQ(r.exit_code, 0) << DescribeRun(r);
  EXPECT_NE(r.stdout_text.find("judge: good: faster"), std::string::npos) << DescribeRun(r);
}

TEST_F(JudgeCommand, UnbuildableCommitIsSkipped) {
  ProcessResult r = Judge({"--candidate", broken_});
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << DescribeRun(r);
  EXPECT_EQ(r.exit_code, 125) << DescribeRun(r);
  EXPECT_NE(r.stdout_text.find("does not build"), std::string::npos) << DescribeRun(r);
  EXPECT_NE(r.stdout_text.find("`cc -O1 -o prog main.c` exited with status"), std::string::npos)
      << DescribeRun(r);
}

TEST_F(JudgeCommand, ACandidateThatDoesNotExistAbortsTheBisect) {
  // A typo, not a commit that fails to build: skipping it would let git
  // bisect skip its way through the whole range.
  ProcessResult r = Judge({"--candidate", "nosuch"});
  EXPECT_EQ(r.exit_code, 128) << DescribeRun(r);
  EXPECT_NE(r.stderr_text.find("unknown revision 'nosuch'"), std::string::npos) << DescribeRun(r);
  EXPECT_EQ(r.stdout_text.find("skip"), std::string::npos) << DescribeRun(r);
}

TEST_F(JudgeCommand, HangIsSkippedNotBad) {
  ProcessResult r = Judge({"--candidate", hang_});
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << DescribeRun(r);
  EXPECT_EQ(r.exit_code, 125) << DescribeRun(r);
  EXPECT_NE(r.stdout_text.find("timed out"), std::string::npos) << DescribeRun(r);
}

TEST_F(JudgeCommand, CrashAtHeadIsSkippedNotBad) {
  ProcessResult r = Judge({});  // --candidate defaults to HEAD, the crashing commit
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << DescribeRun(r);
  EXPECT_EQ(r.exit_code, 125) << DescribeRun(r);
  EXPECT_NE(r.stdout_text.find("SIGSEGV"), std::string::npos) << DescribeRun(r);
}

TEST_F(JudgeCommand, BrokenConfigurationAbortsTheBisect) {
  fs::path broken = dir_.path() / "broken.toml";
  WriteTextFile(broken, "[engine]\nrepo = '" + (dir_.path() / "repo").string() +
                            "'\nbiuld = [[\"cc\", \"main.c\"]]\n");
  ProcessResult r = Judge({"--candidate", same_}, broken);
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << DescribeRun(r);
  EXPECT_EQ(r.exit_code, 128) << DescribeRun(r);
  EXPECT_NE(r.stderr_text.find("biuld"), std::string::npos) << DescribeRun(r);

  ProcessResult missing = Judge({"--candidate", same_}, dir_.path() / "no-such.toml");
  EXPECT_EQ(missing.exit_code, 128) << DescribeRun(missing);
}

TEST_F(JudgeCommand, UnbuildableReferenceAbortsTheBisect) {
  ProcessSpec spec;
  spec.argv = {CulpritExe(),  "--config", config_.string(), "judge",
               "--reference", broken_,    "--candidate",    same_};
  spec.timeout = std::chrono::minutes(3);
  ProcessResult r = RunProcess(spec);
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << DescribeRun(r);
  EXPECT_EQ(r.exit_code, 128) << DescribeRun(r);
}

TEST_F(JudgeCommand, CrashingReferenceAbortsTheBisect) {
  // Against a reference that cannot run, every commit would be skipped (125):
  // that is not a fact about the checked-out commit, so it aborts (128).
  ProcessSpec spec;
  spec.argv = {CulpritExe(),  "--config", config_.string(), "judge",
               "--reference", crash_,     "--candidate",    same_};
  spec.timeout = std::chrono::minutes(3);
  ProcessResult r = RunProcess(spec);
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << DescribeRun(r);
  EXPECT_EQ(r.exit_code, 128) << DescribeRun(r);
  EXPECT_NE(r.stderr_text.find("the reference's runs fail"), std::string::npos) << DescribeRun(r);
}

}  // namespace
}  // namespace culprit
