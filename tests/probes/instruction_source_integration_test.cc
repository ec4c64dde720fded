// QuerySampleSource (probes/query_sample_source.h) on `metric = "instructions"`: with
// counters as the source each sample is a real run counted by the (here fake) counter
// opened on it; a counter that does not open is a failed sample saying why, never a wall
// time; with cachegrind as the source no counter is opened.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/cachegrind.h"
#include "engine/instruction_counter.h"
#include "probes/query_sample_source.h"

namespace culprit {
namespace {

class ScriptedCounter : public InstructionCounter {
 public:
  explicit ScriptedCounter(uint64_t value) : value_(value) {}
  Result<CounterReading> Read() override {
    return CounterReading{value_, 1000, 1000, kCounterReadingBytes};
  }

 private:
  uint64_t value_;
};

/// Counts 1000, 2000, ... on the counters it opens, or fails to open them.
class FakeCounters : public InstructionCounterFactory {
 public:
  Status Probe() override { return {}; }
  Result<std::unique_ptr<InstructionCounter>> OpenOnChild(int) override {
    ++opened;
    if (!open_error.empty()) return Error(open_error);
    return std::unique_ptr<InstructionCounter>(std::make_unique<ScriptedCounter>(1000 * opened));
  }
  int opened = 0;
  std::string open_error;
};

ProcessArm Arm(std::vector<std::string> argv) {
  ProcessArm arm;
  arm.process.argv = std::move(argv);
  arm.process.timeout = std::chrono::minutes(1);  // Only against a wedged test.
  arm.metric.kind = MetricRule::Kind::kInstructions;
  return arm;
}

TEST(InstructionSamples, CountersCountEachRunOfEachArm) {
  FakeCounters counters;
  QuerySampleSource source({Arm({"/bin/true"}), Arm({"/bin/sh", "-c", "exit 0"})},
                           MetricSource::kPerfEvent, &counters);
  SampleOutcome a = source.Run(0);
  SampleOutcome b = source.Run(1);
  ASSERT_TRUE(a.ok) << a.failure;
  ASSERT_TRUE(b.ok) << b.failure;
  EXPECT_EQ(a.value, 1000);
  EXPECT_EQ(b.value, 2000);
  EXPECT_EQ(counters.opened, 2);
}

TEST(InstructionSamples, ACounterThatDoesNotOpenIsAFailedSampleNeverAWallTime) {
  FakeCounters counters;
  counters.open_error = "perf_event_open on pid 7: EACCES: Permission denied";
  QuerySampleSource source({Arm({"/bin/true"})}, MetricSource::kPerfEvent, &counters);
  SampleOutcome outcome = source.Run(0);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.value, 0);
  EXPECT_NE(outcome.failure.find("EACCES: Permission denied"), std::string::npos)
      << outcome.failure;
}

TEST(InstructionSamples, WithCachegrindAsTheSourceNoCounterIsOpened) {
  if (!FindValgrind(MetricRule::Kind::kInstructions)) {
    GTEST_SKIP() << "valgrind is not installed (apt install valgrind): not tested";
  }
  FakeCounters counters;
  QuerySampleSource source({Arm({"/bin/true"})}, MetricSource::kCachegrind, &counters);
  SampleOutcome outcome = source.Run(0);
  EXPECT_TRUE(outcome.ok) << outcome.failure;
  EXPECT_GT(outcome.value, 0);
  EXPECT_EQ(counters.opened, 0);
}

}  // namespace
}  // namespace culprit
