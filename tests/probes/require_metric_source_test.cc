// RequireMetricSource (probes/measure_commands.h), the check MakeQueryArm makes before any
// run: instructions need valgrind only where the chooser (engine/metric_source.h, here with
// a fake counter factory) picked cachegrind; ll_misses and d1_misses always need it. "No
// valgrind" is a PATH without it.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "engine/instruction_counter.h"
#include "engine/metric_source.h"
#include "probes/measure_commands.h"

namespace culprit {
namespace {

constexpr std::string_view kNoValgrind = "/nonexistent-culprit-dir";

/// A counter that opens, or not, as told; never opened on a child here.
class ProbedCounters : public InstructionCounterFactory {
 public:
  explicit ProbedCounters(Status probe) : probe_(std::move(probe)) {}
  Status Probe() override { return probe_; }
  Result<std::unique_ptr<InstructionCounter>> OpenOnChild(int) override {
    return Error("not opened in this test");
  }

 private:
  Status probe_;
};

InstructionSourceChoice Chosen(Status probe, std::optional<std::string_view> setting) {
  ProbedCounters counters(std::move(probe));
  return ChooseInstructionSource(setting, counters);
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(RequireMetricSource, InstructionsWithACounterNeedNoValgrind) {
  InstructionSourceChoice choice = Chosen(Status(), std::nullopt);
  ASSERT_EQ(choice.source, MetricSource::kPerfEvent);
  EXPECT_TRUE(RequireMetricSource(MetricRule::Kind::kInstructions, choice, kNoValgrind));
}

TEST(RequireMetricSource, InstructionsWithoutACounterOrValgrindAreRefusedSayingBoth) {
  InstructionSourceChoice choice =
      Chosen(Status(Error("ENOENT: No such file or directory")), std::nullopt);
  ASSERT_EQ(choice.source, MetricSource::kCachegrind);
  Status refused = RequireMetricSource(MetricRule::Kind::kInstructions, choice, kNoValgrind);
  ASSERT_FALSE(refused);
  const std::string& message = refused.error().message();
  const std::string& hint = refused.error().hint();
  EXPECT_TRUE(Has(message, "\"instructions\"")) << message;
  EXPECT_TRUE(Has(message, "valgrind")) << message;
  EXPECT_TRUE(Has(hint, "apt install valgrind")) << hint;
  EXPECT_TRUE(Has(hint, "no hardware instruction counter opens here (ENOENT: No such file"))
      << hint;
}

TEST(RequireMetricSource, ForcedToCachegrindWithoutValgrindSaysTheSetting) {
  InstructionSourceChoice choice = Chosen(Status(), "cachegrind");
  ASSERT_EQ(choice.source, MetricSource::kCachegrind);
  Status refused = RequireMetricSource(MetricRule::Kind::kInstructions, choice, kNoValgrind);
  ASSERT_FALSE(refused);
  EXPECT_TRUE(Has(refused.error().hint(), "unset CULPRIT_INSTRUCTIONS")) << refused.error().hint();
}

TEST(RequireMetricSource, SimulatedMissesNeedValgrindEvenWithACounter) {
  InstructionSourceChoice choice = Chosen(Status(), std::nullopt);
  for (MetricRule::Kind kind : {MetricRule::Kind::kLlMisses, MetricRule::Kind::kD1Misses}) {
    Status refused = RequireMetricSource(kind, choice, kNoValgrind);
    ASSERT_FALSE(refused);
    EXPECT_TRUE(Has(refused.error().message(), "valgrind")) << refused.error().message();
    EXPECT_TRUE(Has(refused.error().hint(), "on every host")) << refused.error().hint();
  }
}

TEST(RequireMetricSource, OtherMetricsNeedNothing) {
  InstructionSourceChoice choice = Chosen(Status(Error("EACCES: Permission denied")), std::nullopt);
  EXPECT_TRUE(RequireMetricSource(MetricRule::Kind::kWall, choice, kNoValgrind));
  EXPECT_TRUE(RequireMetricSource(MetricRule::Kind::kCpu, choice, kNoValgrind));
}

}  // namespace
}  // namespace culprit
