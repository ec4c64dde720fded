// `--metric NAME` from the command line: one command measures by a resource figure, and the
// record and summary carry the figures of every run.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "records/record_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

const std::string kFixture = FixturePath("fixture_work");

std::vector<Record> RecordsIn(const fs::path& dir) { return RecordStore(dir).List().records; }

TEST(MetricCli, RunByPeakRssRecordsKiBAndEveryFigureOfEveryRun) {
  TempDir dir;
  ProcessResult r = RunCulprit(
      {"run", "-n", "3", "--metric", "max_rss", "--", kFixture, "--touch-mb", "256"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, " KiB  (n=3")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "resources (medians): wall ")) << DescribeRun(r);
  std::vector<Record> records = RecordsIn(dir.path() / "benchmarks/results-v1");
  ASSERT_EQ(records.size(), 1u) << DescribeRun(r);
  EXPECT_EQ(records[0].unit, "KiB");
  for (const Sample& s : records[0].samples) {
    ASSERT_TRUE(s.ok) << s.failure;
    EXPECT_GE(s.value, 256 * 1024);
    EXPECT_EQ(s.value, static_cast<double>(s.max_rss_kb));
    EXPECT_TRUE(s.minor_faults.has_value());
    EXPECT_TRUE(s.involuntary_switches.has_value());
  }
}

TEST(MetricCli, AMisspeltMetricIsAUsageErrorBeforeAnythingRuns) {
  TempDir dir;
  ProcessResult r = RunCulprit({"run", "--metric", "maxrss", "--", kFixture}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "--metric maxrss is not a metric, did you mean 'max_rss'?"))
      << DescribeRun(r);
  EXPECT_TRUE(RecordsIn(dir.path() / "benchmarks/results-v1").empty());
}

TEST(MetricCli, AProbeByCpuShowsTheOtherFiguresAsSecondary) {
  TempDir dir;
  // CULPRIT_FIXTURE_SLOW=1 does 2.5x the work: the CPU time moves, and decides.
  ProcessResult r = RunCulprit({"probe", "--metric", "cpu", "--override", "CULPRIT_FIXTURE_SLOW=1",
                                "--max-pairs", "40", "--", kFixture, "--scale", "0.5"},
                               dir.path());
  EXPECT_EQ(r.exit_code, 3) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text,
                       "secondary figures, B/A at 95% confidence (shown, never "
                       "deciding):"))
      << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "    wall ")) << DescribeRun(r);
  std::vector<Record> records = RecordsIn(dir.path() / "benchmarks/results-v1");
  ASSERT_EQ(records.size(), 1u) << DescribeRun(r);
  EXPECT_EQ(records[0].unit, "ms");
  EXPECT_EQ(records[0].verdict, Verdict::kEffect);
  EXPECT_FALSE(records[0].Detail("secondary.wall").empty());
  EXPECT_TRUE(records[0].Detail("secondary.cpu").empty());  // the primary
}

}  // namespace
}  // namespace culprit
