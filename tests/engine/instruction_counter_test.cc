// engine/instruction_counter.h and engine/metric_source.h on scripted readings and a fake
// counter factory: a reading is a count only when whole and never multiplexed, and the
// source of instructions is the counter when one opens, else cachegrind with why.

#include "engine/instruction_counter.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/metric_source.h"

namespace culprit {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

CounterReading Whole(uint64_t value, uint64_t enabled, uint64_t running) {
  CounterReading reading;
  reading.value = value;
  reading.time_enabled = enabled;
  reading.time_running = running;
  reading.bytes = kCounterReadingBytes;
  return reading;
}

TEST(InstructionsOfReading, AWholeUnmultiplexedReadingIsItsCount) {
  Result<double> count = InstructionsOfReading(Whole(1234567, 5000, 5000));
  ASSERT_TRUE(count) << count.error().message();
  EXPECT_EQ(*count, 1234567.0);
}

TEST(InstructionsOfReading, AMultiplexedCounterIsAFailureNotAScaledGuess) {
  Result<double> count = InstructionsOfReading(Whole(1000, 5000, 2500));
  ASSERT_FALSE(count);
  EXPECT_TRUE(Has(count.error().message(), "multiplexed")) << count.error().message();
  EXPECT_TRUE(Has(count.error().message(), "ran 2500 ns of the 5000 ns"))
      << count.error().message();
}

TEST(InstructionsOfReading, AShortReadIsAFailure) {
  CounterReading reading = Whole(1000, 5000, 5000);
  reading.bytes = 8;
  Result<double> count = InstructionsOfReading(reading);
  ASSERT_FALSE(count);
  EXPECT_TRUE(Has(count.error().message(), "read short: 8 bytes of 24")) << count.error().message();
}

TEST(InstructionsOfReading, ANeverEnabledOrEmptyCounterIsAFailure) {
  Result<double> never = InstructionsOfReading(Whole(0, 0, 0));
  ASSERT_FALSE(never);
  EXPECT_TRUE(Has(never.error().message(), "never enabled")) << never.error().message();
  Result<double> zero = InstructionsOfReading(Whole(0, 5000, 5000));
  ASSERT_FALSE(zero);
  EXPECT_TRUE(Has(zero.error().message(), "0 instructions")) << zero.error().message();
}

/// Probes as told, and counts how often it was asked.
class ProbeOnlyCounters : public InstructionCounterFactory {
 public:
  explicit ProbeOnlyCounters(Status probe) : probe_(std::move(probe)) {}
  Status Probe() override {
    ++probes;
    return probe_;
  }
  Result<std::unique_ptr<InstructionCounter>> OpenOnChild(int) override {
    return Error("not opened in this test");
  }
  int probes = 0;

 private:
  Status probe_;
};

TEST(ChooseInstructionSource, ACounterThatOpensIsTheSource) {
  ProbeOnlyCounters counters{Status()};
  InstructionSourceChoice choice = ChooseInstructionSource(std::nullopt, counters);
  EXPECT_EQ(choice.source, MetricSource::kPerfEvent);
  EXPECT_EQ(choice.warning, "");
  EXPECT_EQ(counters.probes, 1);
  EXPECT_EQ(ChooseInstructionSource("auto", counters).source, MetricSource::kPerfEvent);
}

TEST(ChooseInstructionSource, NoCounterFallsBackToCachegrindWithAWarningNamingTheErrno) {
  ProbeOnlyCounters counters{Error("ENOENT: No such file or directory")};
  InstructionSourceChoice choice = ChooseInstructionSource(std::nullopt, counters);
  EXPECT_EQ(choice.source, MetricSource::kCachegrind);
  EXPECT_FALSE(choice.forced);
  EXPECT_EQ(choice.why, "ENOENT: No such file or directory");
  EXPECT_TRUE(Has(choice.warning, "instructions come from valgrind's cachegrind"))
      << choice.warning;
  EXPECT_TRUE(Has(choice.warning, "(ENOENT: No such file or directory)")) << choice.warning;
  EXPECT_EQ(choice.warning.find('\n'), std::string::npos) << "one line: " << choice.warning;
}

TEST(ChooseInstructionSource, ForcedCachegrindTriesNoCounterAndWarnsOfNothing) {
  ProbeOnlyCounters counters{Status()};
  InstructionSourceChoice choice = ChooseInstructionSource("cachegrind", counters);
  EXPECT_EQ(choice.source, MetricSource::kCachegrind);
  EXPECT_TRUE(choice.forced);
  EXPECT_EQ(choice.why, "CULPRIT_INSTRUCTIONS=cachegrind");
  EXPECT_EQ(choice.warning, "");
  EXPECT_EQ(counters.probes, 0);
}

TEST(ChooseInstructionSource, AnUnknownSettingIsIgnoredAndSaid) {
  ProbeOnlyCounters counters{Status()};
  InstructionSourceChoice choice = ChooseInstructionSource("perf", counters);
  EXPECT_EQ(choice.source, MetricSource::kPerfEvent);
  EXPECT_TRUE(Has(choice.warning, "CULPRIT_INSTRUCTIONS='perf' is neither")) << choice.warning;
}

TEST(MetricSourceName, SimulatedMissesAreAlwaysCachegrindAndRunFiguresHaveNone) {
  EXPECT_EQ(MetricSourceName(MetricSource::kPerfEvent), "perf_event");
  EXPECT_EQ(MetricSourceName(MetricSource::kCachegrind), "cachegrind");
  EXPECT_EQ(MetricSourceName(MetricRule::Kind::kLlMisses), "cachegrind");
  EXPECT_EQ(MetricSourceName(MetricRule::Kind::kD1Misses), "cachegrind");
  EXPECT_EQ(MetricSourceName(MetricRule::Kind::kWall), "");
  EXPECT_EQ(MetricSourceName(MetricRule::Kind::kCpu), "");
  // The host's: whichever it is, it is one of the two.
  const std::string host = MetricSourceName(MetricRule::Kind::kInstructions);
  EXPECT_TRUE(host == "perf_event" || host == "cachegrind") << host;
}

}  // namespace
}  // namespace culprit
