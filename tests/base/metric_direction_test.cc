#include "base/metric_direction.h"

#include <gtest/gtest.h>

namespace culprit {
namespace {

TEST(MetricDirection, NamesRoundTripAndNothingElseParses) {
  for (MetricDirection d : {MetricDirection::kLowerIsBetter, MetricDirection::kHigherIsBetter}) {
    EXPECT_EQ(ParseMetricDirection(MetricDirectionName(d)), d);
  }
  EXPECT_EQ(ParseMetricDirection("Higher"), std::nullopt);
  EXPECT_EQ(ParseMetricDirection(""), std::nullopt);
}

TEST(MetricDirection, RatesAndThroughputNamesAreBetterHigherTimesSayNothing) {
  for (const char* unit : {"MB/s", "ops/s", "rows/sec", "GiB/s", "qps", "QPS", "tps", "iops", "ops",
                           "Hz", "requests per second"}) {
    EXPECT_EQ(DirectionImpliedByUnit(unit), MetricDirection::kHigherIsBetter) << unit;
  }
  for (const char* unit : {"ms", "s", "us", "ns", "", "bytes", "KiB", "instructions", "misses"}) {
    EXPECT_EQ(DirectionImpliedByUnit(unit), std::nullopt) << unit;
  }
}

TEST(MetricDirection, ARatioIsReadTheMetricsWayUp) {
  // The case: a 14.4% drop in MB/s was once called "a 14.4% win".
  EXPECT_EQ(DescribeRatio(0.856, MetricDirection::kHigherIsBetter, "MB/s", "v1.5", "v1.4"),
            "v1.5 is 14.4% worse than v1.4");
  EXPECT_EQ(DescribeRatio(1.2, MetricDirection::kLowerIsBetter, "ms", "B", "A"),
            "B is 20.0% slower than A");
  EXPECT_EQ(DescribeRatio(0.8, MetricDirection::kLowerIsBetter, "ms", "B", "A"),
            "B is 20.0% faster than A");
  EXPECT_EQ(DescribeRatio(1.1, MetricDirection::kHigherIsBetter, "qps", "B", "A"),
            "B is 10.0% better than A");
  EXPECT_EQ(DescribeRatio(1.3, MetricDirection::kLowerIsBetter, "bytes", "B", "A"),
            "B is 30.0% worse than A");
  EXPECT_EQ(DescribeRatio(1.0, MetricDirection::kLowerIsBetter, "ms", "B", "A"),
            "B is the same as A");
  EXPECT_TRUE(IsWorse(0.9, MetricDirection::kHigherIsBetter));
  EXPECT_FALSE(IsWorse(0.9, MetricDirection::kLowerIsBetter));
  EXPECT_FALSE(IsWorse(1.0, MetricDirection::kHigherIsBetter));
}

}  // namespace
}  // namespace culprit
