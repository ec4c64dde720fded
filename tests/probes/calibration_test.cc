#include "probes/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace culprit {
namespace {

TEST(CalibrationWork, SameWorkEveryTime) {
  // The checksum depends on every step of the loop, so an equal checksum means
  // the same work was done; kCalibrationChecksum pins it across culprit
  // versions (change the loop => bump kCalibrationVersion and the constant).
  EXPECT_EQ(CalibrationWork(), kCalibrationChecksum);
  EXPECT_EQ(CalibrationWork(), kCalibrationChecksum);
}

TEST(CalibrationWork, RunTimesEveryPassAndReportsTheMedian) {
  const CalibrationRun run = RunCalibration(3);
  ASSERT_EQ(run.loop_ms.size(), 3u);
  EXPECT_EQ(run.checksum, kCalibrationChecksum);
  std::vector<double> sorted = run.loop_ms;
  std::sort(sorted.begin(), sorted.end());
  for (double ms : run.loop_ms) {
    EXPECT_TRUE(std::isfinite(ms));
    EXPECT_GT(ms, 0);
  }
  EXPECT_EQ(run.median_ms, sorted[1]);
}

TEST(CalibrationWork, LoopReturnsPositiveFiniteMedianEvenForZeroRepetitions) {
  const double ms = RunCalibrationLoop(0);  // Clamped to one pass.
  EXPECT_TRUE(std::isfinite(ms));
  EXPECT_GT(ms, 0);
  EXPECT_EQ(RunCalibration(-4).loop_ms.size(), 1u);
}

TEST(DescribeParallelism, SaysNothingMoreWhenTheThreadsRunSideBySide) {
  ParallelismCheck check;
  check.threads = 2;
  check.single_ms = 30;
  check.parallel_ms = 31;
  check.effective = 2 * 30.0 / 31;
  EXPECT_FALSE(ParallelismIsShort(check));
  EXPECT_EQ(DescribeParallelism(check).find("will not"), std::string::npos);
  check.parallel_ms = 60;
  check.effective = 1.0;
  EXPECT_TRUE(ParallelismIsShort(check));
}

TEST(CheckCalibration, ExactlyTenPercentIsNotADrift) {
  // end/start - 1 rounds above 0.1 for many of these (110/100 - 1 = 0.10000000000000009).
  for (double start : {100.0, 31.7, 28.9, 7.3, 1234.5}) {
    const CalibrationCheck slower = CheckCalibration(start, start * 1.1);
    EXPECT_FALSE(slower.drifted) << start;
    EXPECT_NEAR(slower.change, 0.10, 1e-12);
    const CalibrationCheck faster = CheckCalibration(start, start * 0.9);
    EXPECT_FALSE(faster.drifted) << start;
    EXPECT_NEAR(faster.change, -0.10, 1e-12);
  }
}

TEST(CheckCalibration, AboveAndBelowTheThreshold) {
  const CalibrationCheck above = CheckCalibration(100, 110.1);
  EXPECT_TRUE(above.valid);
  EXPECT_TRUE(above.drifted);
  EXPECT_NEAR(above.change, 0.101, 1e-12);
  EXPECT_NE(above.message.find("drifted"), std::string::npos) << above.message;
  EXPECT_NE(above.message.find("slowed down"), std::string::npos) << above.message;
  EXPECT_NE(above.message.find("+10.1%"), std::string::npos) << above.message;

  const CalibrationCheck below = CheckCalibration(100, 109.9);
  EXPECT_FALSE(below.drifted);
  EXPECT_NE(below.message.find("steady"), std::string::npos) << below.message;

  const CalibrationCheck unchanged = CheckCalibration(30, 30);
  EXPECT_FALSE(unchanged.drifted);
  EXPECT_EQ(unchanged.change, 0);
}

TEST(CheckCalibration, NegativeChangeMeansTheHostSpedUp) {
  const CalibrationCheck check = CheckCalibration(100, 85);
  EXPECT_TRUE(check.drifted);
  EXPECT_NEAR(check.change, -0.15, 1e-12);
  EXPECT_NE(check.message.find("sped up"), std::string::npos) << check.message;
  EXPECT_NE(check.message.find("-15.0%"), std::string::npos) << check.message;
  EXPECT_FALSE(CheckCalibration(100, 90.1).drifted);
}

TEST(CheckCalibration, CustomThreshold) {
  EXPECT_TRUE(CheckCalibration(100, 106, 0.05).drifted);
  EXPECT_FALSE(CheckCalibration(100, 105, 0.05).drifted);
  EXPECT_FALSE(CheckCalibration(100, 119, 0.20).drifted);
}

TEST(CheckCalibration, InvalidTimesAreReportedNotCompared) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (auto [start, end] : std::vector<std::pair<double, double>>{
           {0, 30}, {30, 0}, {-30, 30}, {30, -1}, {nan, 30}, {30, inf}}) {
    const CalibrationCheck check = CheckCalibration(start, end);
    EXPECT_FALSE(check.valid) << start << " " << end;
    EXPECT_FALSE(check.drifted);
    EXPECT_TRUE(std::isnan(check.change));
    EXPECT_NE(check.message.find("could not be compared"), std::string::npos) << check.message;
  }
}

}  // namespace
}  // namespace culprit
