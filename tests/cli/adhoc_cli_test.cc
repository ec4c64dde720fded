// Ad-hoc use, like hyperfine: `culprit run -- CMD ARGS` and `culprit probe
// --override K=V -- CMD ARGS` measure a command with no culprit.toml, and
// [engine] is needed only by the commands that build.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "records/record_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

const std::string kFixture = FixturePath("fixture_work");

std::vector<Record> RecordsIn(const fs::path& dir) { return RecordStore(dir).List().records; }

TEST(AdHocCli, RunMeasuresACommandWithoutAConfiguration) {
  TempDir dir;
  ProcessResult r = RunCulprit({"run", "-n", "3", "--", kFixture, "--scale", "0.1"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "fixture_work")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "median")) << DescribeRun(r);
  // Said as what it is, with where its records go; not an engine's working tree.
  EXPECT_TRUE(Contains(r.stdout_text, "an ad-hoc command, run as given")) << DescribeRun(r);
  EXPECT_TRUE(
      Contains(r.stdout_text, "records go to " + (dir.path() / "benchmarks/results-v1").string()))
      << DescribeRun(r);
  EXPECT_FALSE(Contains(r.stdout_text, "working tree")) << DescribeRun(r);
  // Archived like any run, in the default records directory of the current one.
  std::vector<Record> records = RecordsIn(dir.path() / "benchmarks/results-v1");
  ASSERT_EQ(records.size(), 1u) << DescribeRun(r);
  EXPECT_EQ(records[0].kind, RecordKind::kRun);
  EXPECT_EQ(records[0].query, "fixture_work");
  int measured = 0;
  for (const Sample& sample : records[0].samples) measured += sample.warmup ? 0 : 1;
  EXPECT_EQ(measured, 3);
}

TEST(AdHocCli, ProbeFindsAnEffectOfAnOverrideOnACommand) {
  TempDir dir;
  // CULPRIT_FIXTURE_SLOW=1 makes the fixture do 2.5x the work.
  ProcessResult r = RunCulprit({"probe", "--override", "CULPRIT_FIXTURE_SLOW=1", "--max-pairs",
                                "60", "--", kFixture, "--scale", "0.5"},
                               dir.path());
  EXPECT_EQ(r.exit_code, 3) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "EFFECT")) << DescribeRun(r);
  std::vector<Record> records = RecordsIn(dir.path() / "benchmarks/results-v1");
  ASSERT_EQ(records.size(), 1u) << DescribeRun(r);
  EXPECT_EQ(records[0].kind, RecordKind::kProbe);
  EXPECT_EQ(records[0].verdict, Verdict::kEffect);
}

TEST(AdHocCli, TheRecordSaysWhatRanInheritedEnvironmentIncluded) {
  // `SLOW=1 culprit probe --unset SLOW`: the default arm ran with SLOW=1,
  // inherited, and the record must say so, with culprit's own command line.
  TempDir dir;
  ProcessSpec spec;
  spec.argv = {CulpritExe(),  "probe", "--unset", "CULPRIT_FIXTURE_SLOW",
               "--max-pairs", "60",    "--",      kFixture,
               "--scale",     "0.5"};
  spec.cwd = dir.path();
  spec.set_env = {{"CULPRIT_FIXTURE_SLOW", "1"}};
  spec.timeout = std::chrono::minutes(5);
  spec.output_limit = 1 << 22;
  ProcessResult r = RunProcess(spec);
  EXPECT_EQ(r.exit_code, 3) << DescribeRun(r);  // unsetting it makes B faster: an effect
  std::vector<Record> records = RecordsIn(dir.path() / "benchmarks/results-v1");
  ASSERT_EQ(records.size(), 1u) << DescribeRun(r);
  const Record& record = records[0];
  EXPECT_EQ(record.invocation, spec.argv);
  ASSERT_EQ(record.arms.size(), 2u);
  EXPECT_EQ(record.arms[0].effective_env,
            (std::map<std::string, std::string>{{"CULPRIT_FIXTURE_SLOW", "1"}}));
  EXPECT_TRUE(record.arms[1].effective_env.empty());
  EXPECT_EQ(record.arms[1].unset, (std::vector<std::string>{"CULPRIT_FIXTURE_SLOW"}));
}

TEST(AdHocCli, BracesInACommandAreTheUsersNotPlaceholders) {
  TempDir dir;
  ProcessResult r =
      RunCulprit({"run", "-n", "1", "--", "/bin/sh", "-c", "echo '{rev} {x}' > said"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << DescribeRun(r);
  EXPECT_EQ(ReadAll(dir.path() / "said"), "{rev} {x}\n");
}

TEST(AdHocCli, AConfigurationWhenPresentStillApplies) {
  TempDir dir;
  WriteTextFile(dir.path() / "culprit.toml", "[records]\ndir = \"archive\"\n");
  ProcessResult r = RunCulprit({"run", "-n", "2", "--", kFixture, "--scale", "0.1"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << DescribeRun(r);
  EXPECT_EQ(RecordsIn(dir.path() / "archive").size(), 1u) << DescribeRun(r);
  EXPECT_FALSE(fs::exists(dir.path() / "benchmarks")) << DescribeRun(r);
}

TEST(AdHocCli, AQueryAndACommandTogetherOrNothingAfterTheDashesAreUsageErrors) {
  TempDir dir;
  ProcessResult both = RunCulprit({"run", "-q", "q", "--", "true"}, dir.path());
  EXPECT_EQ(both.exit_code, 2) << DescribeRun(both);
  EXPECT_TRUE(Contains(both.stderr_text, "give one of them")) << DescribeRun(both);
  ProcessResult nothing = RunCulprit({"probe", "--override", "X=1", "--"}, dir.path());
  EXPECT_EQ(nothing.exit_code, 2) << DescribeRun(nothing);
  EXPECT_TRUE(Contains(nothing.stderr_text, "nothing after `--`")) << DescribeRun(nothing);
}

TEST(AdHocCli, WithoutAnEngineSectionOnlyBuildingIsRefused) {
  TempDir dir;
  WriteTextFile(dir.path() / "culprit.toml",
                "[queries.work]\ncommand = [\"" + kFixture + "\", \"--scale\", \"0.1\"]\n");
  ProcessResult run = RunCulprit({"run", "-n", "2", "work"}, dir.path());
  EXPECT_EQ(run.exit_code, 0) << DescribeRun(run);
  ProcessResult compare = RunCulprit({"compare", "HEAD~1", "HEAD", "-q", "work"}, dir.path());
  EXPECT_EQ(compare.exit_code, 2) << DescribeRun(compare);
  EXPECT_TRUE(Contains(compare.stderr_text, "has no [engine] section")) << DescribeRun(compare);
  ProcessResult build = RunCulprit({"build", "HEAD"}, dir.path());
  EXPECT_EQ(build.exit_code, 2) << DescribeRun(build);
  EXPECT_TRUE(Contains(build.stderr_text, "has no [engine] section")) << DescribeRun(build);
}

}  // namespace
}  // namespace culprit
