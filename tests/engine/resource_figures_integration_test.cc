// The resource figures of real processes (engine/process.h): what the kernel counts of a
// run moves with what the run does. Effects of 2x and more, no durations asserted.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/metric.h"
#include "engine/process.h"
#include "probes/query_sample_source.h"
#include "probes/sitting.h"
#include "tests/support/build_paths.h"

namespace culprit {
namespace {

const std::string kWork = FixturePath("fixture_work");

ProcessResult RunOk(std::vector<std::string> argv) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  ProcessResult result = RunProcess(spec);
  EXPECT_TRUE(result.ok()) << result.Describe(spec);
  return result;
}

double Figure(MetricRule::Kind kind, const ProcessResult& result) {
  MetricRule rule;
  rule.kind = kind;
  Result<double> value = ExtractMetric(rule, result);
  EXPECT_TRUE(value.ok()) << value.error().message();
  return value.ok() ? *value : 0;
}

TEST(ResourceFigures, AProcessThatSpinsMovesCpu) {
  // 10x the default work against 1/100 of it: the CPU time is the work's.
  ProcessResult spin = RunOk({kWork, "--scale", "10"});
  ProcessResult idle = RunOk({kWork, "--scale", "0.01"});
  EXPECT_GE(Figure(MetricRule::Kind::kCpu, spin), 2 * (idle.user_ms + idle.system_ms))
      << "spin " << spin.user_ms << " + " << spin.system_ms << " ms, idle " << idle.user_ms << " + "
      << idle.system_ms << " ms";
}

TEST(ResourceFigures, AProcessThatAllocatesMovesMaxRss) {
  // 256 MiB is far above this test binary's own peak, so the child's figure is its own
  // (engine/process.h); the small run's is unknown (0) or its own, and well below.
  ProcessResult big = RunOk({kWork, "--touch-mb", "256"});
  ProcessResult small = RunOk({kWork, "--touch-mb", "1"});
  const double big_kb = Figure(MetricRule::Kind::kMaxRss, big);
  EXPECT_GE(big_kb, 256 * 1024);
  EXPECT_TRUE(small.max_rss_kb == 0 || big_kb >= 2 * small.max_rss_kb)
      << big_kb << " KiB against " << small.max_rss_kb << " KiB";
}

TEST(ResourceFigures, AProcessThatTouchesFreshPagesMovesMinorFaults) {
  // 25,600 fresh 4 KiB pages (100 MiB) without huge pages: one fault each.
  ProcessResult many = RunOk({kWork, "--fault-pages", "25600"});
  ProcessResult few = RunOk({kWork, "--fault-pages", "0"});
  const double many_faults = Figure(MetricRule::Kind::kMinorFaults, many);
  EXPECT_GE(many_faults, 2.0 * few.minor_faults);
  EXPECT_GE(many_faults - few.minor_faults, 12800)
      << many_faults << " against " << few.minor_faults;
  EXPECT_TRUE(many.reaped);
}

TEST(ResourceFigures, EveryRunHasItsCountsAndANeverStartedOneHasNone) {
  ProcessResult ran = RunOk({kWork, "--scale", "0.01"});
  EXPECT_TRUE(ran.reaped);
  EXPECT_GT(ran.minor_faults, 0);  // exec maps pages: never none

  ProcessSpec missing;
  missing.argv = {"/nonexistent/culprit-test-program"};
  ProcessResult never = RunProcess(missing);
  EXPECT_FALSE(never.reaped);
}

TEST(ResourceFigures, EverySampleOfAProcessCarriesThemAndAMetricCanBeOne) {
  ProcessArm arm;
  arm.process.argv = {kWork, "--fault-pages", "2560"};
  arm.metric.kind = MetricRule::Kind::kMinorFaults;
  QuerySampleSource source({arm});
  SampleOutcome outcome = source.Run(0);
  ASSERT_TRUE(outcome.ok) << outcome.failure;
  ASSERT_TRUE(outcome.minor_faults.has_value());
  EXPECT_EQ(outcome.value, static_cast<double>(*outcome.minor_faults));
  EXPECT_GE(outcome.value, 2560);
  EXPECT_TRUE(outcome.major_faults.has_value());
  EXPECT_TRUE(outcome.voluntary_switches.has_value());
  EXPECT_TRUE(outcome.involuntary_switches.has_value());
  Sample sample = SampleFrom(outcome, 0, 0, 0, false);
  EXPECT_EQ(sample.minor_faults, outcome.minor_faults);
  EXPECT_EQ(sample.involuntary_switches, outcome.involuntary_switches);

  // A run that never started has no figures: unknown, not 0.
  ProcessArm missing;
  missing.process.argv = {"/nonexistent/culprit-test-program"};
  QuerySampleSource broken({missing});
  SampleOutcome failed = broken.Run(0);
  EXPECT_FALSE(failed.ok);
  EXPECT_FALSE(failed.minor_faults.has_value());
}

}  // namespace
}  // namespace culprit
