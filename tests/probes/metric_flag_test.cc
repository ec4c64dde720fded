// `--metric NAME` (probes/measure_commands.h WithMetricFlag): one command measures a query
// by a named metric instead of its own.

#include <gtest/gtest.h>

#include "probes/measure_commands.h"

namespace culprit {
namespace {

QueryConfig ThroughputQuery() {
  QueryConfig query;
  query.name = "ingest";
  query.metric.kind = MetricRule::Kind::kRegex;
  query.metric.pattern = "rate=([0-9.]+)";
  query.unit = "MB/s";
  query.better = MetricDirection::kHigherIsBetter;
  query.better_note = "higher MB/s is taken as better, from the unit";
  return query;
}

TEST(MetricFlag, WithoutItTheQueryIsMeasuredAsConfigured) {
  Result<QueryConfig> measured = WithMetricFlag(ThroughputQuery(), MeasureFlags{});
  ASSERT_TRUE(measured) << measured.error().message();
  EXPECT_EQ(measured->metric.kind, MetricRule::Kind::kRegex);
  EXPECT_EQ(measured->unit, "MB/s");
}

TEST(MetricFlag, AQueryThatPrintsItsMetricGetsTheFigureOfItsProcess) {
  MeasureFlags flags;
  flags.metric = "cpu";
  Result<QueryConfig> measured = WithMetricFlag(ThroughputQuery(), flags);
  ASSERT_TRUE(measured) << measured.error().message();
  EXPECT_EQ(measured->metric.kind, MetricRule::Kind::kCpu);
  EXPECT_EQ(measured->metric.pattern, "");
  EXPECT_EQ(measured->unit, "ms");
  // CPU time is better lower, whatever the query's own metric was.
  EXPECT_EQ(measured->better, MetricDirection::kLowerIsBetter);
  EXPECT_EQ(measured->better_note, "");
  EXPECT_EQ(measured->command, ThroughputQuery().command);

  flags.metric = "max_rss";
  EXPECT_EQ(WithMetricFlag(ThroughputQuery(), flags)->unit, "KiB");
  flags.metric = "minor_faults";
  EXPECT_EQ(WithMetricFlag(ThroughputQuery(), flags)->unit, "faults");
  flags.metric = "ctx_switches";
  EXPECT_EQ(WithMetricFlag(ThroughputQuery(), flags)->unit, "switches");
  flags.metric = "wall";
  Result<QueryConfig> wall = WithMetricFlag(ThroughputQuery(), flags);
  EXPECT_EQ(wall->metric.kind, MetricRule::Kind::kWall);
  EXPECT_EQ(wall->unit, "ms");
  EXPECT_DOUBLE_EQ(wall->metric.wall_units_per_ms, 1.0);
}

TEST(MetricFlag, AMisspeltNameIsAUsageErrorThatListsTheMetrics) {
  MeasureFlags flags;
  flags.metric = "maxrss";
  Result<QueryConfig> measured = WithMetricFlag(ThroughputQuery(), flags);
  ASSERT_FALSE(measured);
  EXPECT_EQ(measured.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(measured.error().message(), "--metric maxrss is not a metric, did you mean 'max_rss'?");
  EXPECT_EQ(measured.error().hint(),
            "metrics: wall, cpu, max_rss, minor_faults, major_faults, ctx_switches, instructions, "
            "ll_misses, d1_misses");
}

}  // namespace
}  // namespace culprit
