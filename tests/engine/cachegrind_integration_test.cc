// Instructions and simulated cache misses of real processes under the real valgrind
// (engine/cachegrind.h): repeated runs agree, the count follows the work, a process tree
// counts its children, and valgrind failing or missing is said, never replaced by a wall
// time. Skipped, with a message, only where valgrind is not installed.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/cachegrind.h"
#include "probes/query_sample_source.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

using Kind = MetricRule::Kind;

const std::string kWork = FixturePath("fixture_work");

#define SKIP_WITHOUT_VALGRIND()                                                       \
  do {                                                                                \
    if (!FindValgrind(Kind::kInstructions)) {                                         \
      GTEST_SKIP() << "valgrind is not installed (apt install valgrind): not tested"; \
    }                                                                                 \
  } while (0)

ProcessSpec Spec(std::vector<std::string> argv) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.timeout = std::chrono::minutes(2);  // Only against a wedged test.
  spec.placement.aslr = false;
  return spec;
}

double Count(Kind kind, std::vector<std::string> argv) {
  CachegrindRun run = RunUnderCachegrind(Spec(std::move(argv)), kind);
  EXPECT_TRUE(run.value) << run.failure;
  return run.value.value_or(0);
}

TEST(CachegrindRuns, InstructionCountsOfRepeatedRunsAgreeWithAslrOff) {
  SKIP_WITHOUT_VALGRIND();
  std::vector<double> counts;
  for (int i = 0; i < 5; ++i)
    counts.push_back(Count(Kind::kInstructions, {kWork, "--scale", "0.05"}));
  const auto [low, high] = std::minmax_element(counts.begin(), counts.end());
  ASSERT_GT(*low, 0);
  EXPECT_LE(*high / *low - 1, 0.001) << "from " << *low << " to " << *high;
}

TEST(CachegrindRuns, TheCountFollowsTheWork) {
  SKIP_WITHOUT_VALGRIND();
  const double once = Count(Kind::kInstructions, {kWork, "--scale", "0.1"});
  const double twice = Count(Kind::kInstructions, {kWork, "--scale", "0.2"});
  ASSERT_GT(once, 0);
  EXPECT_GT(twice / once, 1.8);
  EXPECT_LT(twice / once, 2.05);
}

TEST(CachegrindRuns, AProcessTreeCountsTheChildren) {
  SKIP_WITHOUT_VALGRIND();
  // The shell forks the first child and execs the second: both are counted (the shell's own
  // few instructions before its exec are not).
  const double one = Count(Kind::kInstructions, {kWork, "--scale", "0.1"});
  const std::string twice = kWork + " --scale 0.1 >/dev/null; " + kWork + " --scale 0.1";
  const double tree = Count(Kind::kInstructions, {"sh", "-c", twice});
  ASSERT_GT(one, 0);
  EXPECT_GT(tree / one, 1.8) << "one " << one << ", tree " << tree;
  EXPECT_LT(tree / one, 2.3) << "one " << one << ", tree " << tree;
}

TEST(CachegrindRuns, SimulatedMissesGrowWithTheDataTouched) {
  SKIP_WITHOUT_VALGRIND();
  // 16 MiB and 64 MiB through an 8 MiB last level: the misses follow the bytes.
  const double small = Count(Kind::kLlMisses, {kWork, "--touch-mb", "16"});
  const double large = Count(Kind::kLlMisses, {kWork, "--touch-mb", "64"});
  ASSERT_GT(small, 0);
  EXPECT_GT(large / small, 2) << "16 MiB " << small << ", 64 MiB " << large;
  const double d1 = Count(Kind::kD1Misses, {kWork, "--touch-mb", "16"});
  EXPECT_GE(d1, small);  // Every last-level miss missed the first level first.
}

TEST(CachegrindRuns, ACommandValgrindCannotStartIsAFailedRunWithItsReason) {
  SKIP_WITHOUT_VALGRIND();
  CachegrindRun run =
      RunUnderCachegrind(Spec({"/nonexistent-culprit/engine"}), Kind::kInstructions);
  EXPECT_FALSE(run.value);
  EXPECT_FALSE(run.process.ok());
  EXPECT_NE(run.failure.find("under valgrind"), std::string::npos) << run.failure;
  EXPECT_NE(run.failure.find("/nonexistent-culprit/engine"), std::string::npos) << run.failure;
}

TEST(CachegrindRuns, AFailingEngineIsAFailedRunWithItsStatus) {
  SKIP_WITHOUT_VALGRIND();
  CachegrindRun run = RunUnderCachegrind(Spec({kWork, "--fail"}), Kind::kInstructions);
  EXPECT_FALSE(run.value);
  EXPECT_NE(run.failure.find("exited with status 3"), std::string::npos) << run.failure;
  EXPECT_NE(run.failure.find("failing as asked"), std::string::npos) << run.failure;
  EXPECT_EQ(run.failure.find("Parent PID"), std::string::npos) << run.failure;  // No banner.
}

TEST(CachegrindRuns, AValgrindThatWritesNoOutFileIsAFailedRunNeverAWallTime) {
  TempDir dir;
  const std::filesystem::path fake = dir.path() / "valgrind";
  WriteTextFile(fake, "#!/bin/sh\necho 'pretending' >&2\nexit 0\n");
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  CachegrindRun run =
      RunUnderCachegrind(Spec({kWork, "--scale", "0.01"}), Kind::kInstructions, fake);
  EXPECT_TRUE(run.process.ok());
  EXPECT_FALSE(run.value);
  EXPECT_NE(run.failure.find("wrote no out file"), std::string::npos) << run.failure;
}

TEST(CachegrindRuns, TheSampleSourceCountsUnderValgrindAndFailsWithItsReason) {
  SKIP_WITHOUT_VALGRIND();
  MetricRule instructions;
  instructions.kind = Kind::kInstructions;
  QuerySampleSource source({ProcessArm{Spec({kWork, "--scale", "0.05"}), instructions},
                            ProcessArm{Spec({kWork, "--crash"}), instructions}});
  SampleOutcome good = source.Run(0);
  ASSERT_TRUE(good.ok) << good.failure;
  EXPECT_GT(good.value, 1e6);  // Instructions, not milliseconds.
  SampleOutcome bad = source.Run(1);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.value, 0);
  EXPECT_NE(bad.failure.find("under valgrind"), std::string::npos) << bad.failure;
}

TEST(CachegrindCli, MissingValgrindIsAnErrorBeforeAnyRun) {
  TempDir dir;
  // A PATH without valgrind: the ad-hoc command is absolute, so nothing else needs one.
  ProcessResult result =
      RunCulprit({"run", "--metric", "instructions", "--", kWork, "--scale", "0.01"}, dir.path(),
                 {{"PATH", (dir.path() / "no-such-bin").string()}});
  EXPECT_FALSE(result.ok()) << DescribeRun(result);
  EXPECT_TRUE(Contains(result.stderr_text, "valgrind")) << DescribeRun(result);
  EXPECT_TRUE(Contains(result.stderr_text, "apt install valgrind")) << DescribeRun(result);
  EXPECT_FALSE(Contains(result.stdout_text, "median")) << DescribeRun(result);
}

TEST(CachegrindCli, ARunByInstructionsPrintsTheCountInItsUnit) {
  SKIP_WITHOUT_VALGRIND();
  TempDir dir;
  ProcessResult result = RunCulprit({"run", "--metric", "instructions", "--samples", "3",
                                     "--warmup", "0", "--", kWork, "--scale", "0.02"},
                                    dir.path());
  ASSERT_TRUE(result.ok()) << DescribeRun(result);
  EXPECT_TRUE(Contains(result.stdout_text, "instructions")) << DescribeRun(result);
}

}  // namespace
}  // namespace culprit
