// A resource figure as a query's metric (engine/metric.h): the number, or why there is none.

#include <gtest/gtest.h>

#include "engine/metric.h"

namespace culprit {
namespace {

ProcessResult Finished() {
  ProcessResult r;
  r.outcome = ProcessOutcome::kExited;
  r.exit_code = 0;
  r.reaped = true;
  r.wall_ms = 30;
  r.user_ms = 20.5;
  r.system_ms = 1.5;
  r.max_rss_kb = 204800;
  r.minor_faults = 51234;
  r.major_faults = 3;
  r.voluntary_switches = 12;
  r.involuntary_switches = 40;
  return r;
}

Result<double> Extract(MetricRule::Kind kind, const ProcessResult& result) {
  MetricRule rule;
  rule.kind = kind;
  return ExtractMetric(rule, result);
}

TEST(ResourceMetric, EachNamesOneFigureOfTheRun) {
  const ProcessResult r = Finished();
  EXPECT_DOUBLE_EQ(*Extract(MetricRule::Kind::kCpu, r), 22.0);
  EXPECT_DOUBLE_EQ(*Extract(MetricRule::Kind::kMaxRss, r), 204800);
  EXPECT_DOUBLE_EQ(*Extract(MetricRule::Kind::kMinorFaults, r), 51234);
  EXPECT_DOUBLE_EQ(*Extract(MetricRule::Kind::kMajorFaults, r), 3);
  EXPECT_DOUBLE_EQ(*Extract(MetricRule::Kind::kCtxSwitches, r), 52);
}

TEST(ResourceMetric, AFigureOfZeroIsAFailedSampleThatSaysWhy) {
  ProcessResult r = Finished();
  r.max_rss_kb = 0;
  r.major_faults = 0;
  Result<double> rss = Extract(MetricRule::Kind::kMaxRss, r);
  ASSERT_FALSE(rss);
  EXPECT_EQ(rss.error().message(),
            "the run's peak RSS is unknown: it stayed below culprit's own, which Linux reports "
            "instead for a child started from culprit");
  Result<double> major = Extract(MetricRule::Kind::kMajorFaults, r);
  ASSERT_FALSE(major);
  EXPECT_EQ(major.error().message(),
            "the run had no major page faults (none waited for the disk); a ratio needs a "
            "count above 0");
  // A run that failed has no metric, whichever.
  r = Finished();
  r.exit_code = 3;
  EXPECT_FALSE(Extract(MetricRule::Kind::kCpu, r));
}

TEST(ResourceMetric, NamesUnitsAndDescriptions) {
  EXPECT_EQ(ParseNamedMetric("max_rss"), MetricRule::Kind::kMaxRss);
  EXPECT_EQ(ParseNamedMetric("wall"), MetricRule::Kind::kWall);
  EXPECT_FALSE(ParseNamedMetric("MAX_RSS").has_value());
  EXPECT_EQ(NamedMetricName(MetricRule::Kind::kCtxSwitches), "ctx_switches");
  EXPECT_EQ(NamedMetricName(MetricRule::Kind::kRegex), "");
  EXPECT_EQ(FixedMetricUnit(MetricRule::Kind::kCpu), "ms");
  EXPECT_EQ(FixedMetricUnit(MetricRule::Kind::kMaxRss), "KiB");
  EXPECT_FALSE(FixedMetricUnit(MetricRule::Kind::kWall).has_value());
  MetricRule rule;
  rule.kind = MetricRule::Kind::kMinorFaults;
  EXPECT_EQ(DescribeMetricRule(rule), "minor page faults");
  EXPECT_EQ(CheckMetricRule(rule), MetricRuleProblem::kNone);
}

}  // namespace
}  // namespace culprit
