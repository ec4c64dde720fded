// The near-deterministic verdict rule (probes/verdict.h, LookNearDeterministic) on scripted
// runs, and a sitting that uses it (SittingOptions::near_deterministic): identical repeats
// give a point, a tiny spread still decides, overlapping ranges and an outlier run leave the
// decision to the usual rules.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "probes/sitting.h"
#include "probes/statistics.h"
#include "probes/verdict.h"

namespace culprit {
namespace {

using State = NearDeterministicLook::State;

TEST(NearDeterministic, IdenticalRepeatsGiveAPointAndAnEffectBeyondTheBand) {
  const std::vector<double> a = {1000, 1000, 1000};
  const std::vector<double> b = {2000, 2000, 2000};
  NearDeterministicLook look = LookNearDeterministic(a, b, 0.05);
  EXPECT_EQ(look.state, State::kDecided);
  EXPECT_EQ(look.verdict, Verdict::kEffect);
  EXPECT_DOUBLE_EQ(look.range.low, std::log(2.0));
  EXPECT_DOUBLE_EQ(look.range.high, std::log(2.0));
  EXPECT_DOUBLE_EQ(look.range.estimate, std::log(2.0));
  EXPECT_EQ(look.spread[0], 0);
  EXPECT_EQ(look.spread[1], 0);
  EXPECT_EQ(look.range.n, 3u);
  EXPECT_NE(look.explanation.find("beyond the ±5% band"), std::string::npos) << look.explanation;
}

TEST(NearDeterministic, IdenticalArmsAreANullWithAPointAtOne) {
  const std::vector<double> same = {573259, 573259, 573259, 573259};
  NearDeterministicLook look = LookNearDeterministic(same, same, 0.05);
  EXPECT_EQ(look.state, State::kDecided);
  EXPECT_EQ(look.verdict, Verdict::kNull);
  EXPECT_EQ(look.range.low, 0);
  EXPECT_EQ(look.range.high, 0);
}

TEST(NearDeterministic, TheRanksOfIdenticalRepeatsGiveAPointIntervalToo) {
  // The usual statistics handle a spread of zero honestly: every pair's log-ratio is ln 2,
  // so the Hodges–Lehmann estimate and both ends of its interval are ln 2.
  const std::vector<double> d(12, std::log(2.0));
  Result<ShiftEstimate> shift = SignedRankEstimate(d, 0.95);
  ASSERT_TRUE(shift) << shift.error().message();
  EXPECT_DOUBLE_EQ(shift->estimate, std::log(2.0));
  EXPECT_DOUBLE_EQ(shift->low, std::log(2.0));
  EXPECT_DOUBLE_EQ(shift->high, std::log(2.0));
  Result<ShiftEstimate> mean = MeanShiftEstimate(d, 0.95);
  ASSERT_TRUE(mean) << mean.error().message();
  EXPECT_DOUBLE_EQ(mean->low, std::log(2.0));
  EXPECT_DOUBLE_EQ(mean->high, std::log(2.0));
}

TEST(NearDeterministic, ATinySpreadStillDecides) {
  // 0.02% within each arm, ratio 1.10: every pairing of runs is beyond a 5% band.
  const std::vector<double> a = {1'000'000, 1'000'100, 1'000'200};
  const std::vector<double> b = {1'100'000, 1'100'150, 1'100'050};
  NearDeterministicLook look = LookNearDeterministic(a, b, 0.05);
  EXPECT_EQ(look.state, State::kDecided);
  EXPECT_EQ(look.verdict, Verdict::kEffect);
  EXPECT_NEAR(look.spread[0], 0.0002, 1e-9);
  EXPECT_LT(look.range.low, look.range.high);
  EXPECT_NEAR(std::exp(look.range.low), 1'100'000.0 / 1'000'200.0, 1e-12);
  EXPECT_NEAR(std::exp(look.range.high), 1'100'150.0 / 1'000'000.0, 1e-12);
}

TEST(NearDeterministic, ARangeInsideTheBandIsANull) {
  const std::vector<double> a = {1'000'000, 1'000'500, 1'000'300};
  const std::vector<double> b = {1'010'000, 1'010'200, 1'010'100};  // +1%
  NearDeterministicLook look = LookNearDeterministic(a, b, 0.05);
  EXPECT_EQ(look.state, State::kDecided);
  EXPECT_EQ(look.verdict, Verdict::kNull);
}

TEST(NearDeterministic, ARangeThatReachesTheBandsEdgeIsLeftToTheUsualRules) {
  // B is 5% above A, give or take the runs' 0.05%: the range straddles 1.05.
  const std::vector<double> a = {1'000'000, 1'000'500, 1'000'000};
  const std::vector<double> b = {1'050'000, 1'050'600, 1'050'300};
  NearDeterministicLook look = LookNearDeterministic(a, b, 0.05);
  EXPECT_EQ(look.state, State::kUndecided);
  EXPECT_EQ(look.verdict, Verdict::kInconclusive);
  EXPECT_NE(look.explanation.find("edge"), std::string::npos) << look.explanation;
}

TEST(NearDeterministic, OverlappingNoisyArmsAreNotNearDeterministic) {
  // Wall-time-like runs, 3% apart: far more spread than the rule's 0.1%.
  const std::vector<double> a = {100.0, 103.0, 97.5, 101.0};
  const std::vector<double> b = {101.0, 99.0, 104.0, 98.0};
  NearDeterministicLook look = LookNearDeterministic(a, b, 0.05);
  EXPECT_EQ(look.state, State::kSpread);
  EXPECT_NE(look.explanation.find("the usual rules decide"), std::string::npos) << look.explanation;
}

TEST(NearDeterministic, OneOutlierRunTurnsTheRuleOff) {
  // Three identical runs and one 0.5% above them in A: no longer within 0.1%, so even an
  // obvious x2 is left to the ranks.
  const std::vector<double> a = {1000, 1000, 1000, 1005};
  const std::vector<double> b = {2000, 2000, 2000, 2000};
  NearDeterministicLook look = LookNearDeterministic(a, b, 0.05);
  EXPECT_EQ(look.state, State::kSpread);
  EXPECT_NEAR(look.spread[0], 0.005, 1e-12);
  EXPECT_EQ(look.spread[1], 0);
}

TEST(NearDeterministic, FewerRunsThanTheRepeatsDecideNothing) {
  const std::vector<double> a = {1000, 1000};
  const std::vector<double> b = {2000, 2000, 2000};
  EXPECT_EQ(LookNearDeterministic(a, b, 0.05).state, State::kTooFew);
  EXPECT_EQ(LookNearDeterministic(b, a, 0.05).state, State::kTooFew);
  EXPECT_EQ(LookNearDeterministic(a, b, 0.05, /*repeats=*/2).state, State::kDecided);
}

// Runs whose value is exactly `value[arm]` times (1 + jitter[call % size]).
class FixedSource : public SampleSource {
 public:
  FixedSource(double a, double b, std::vector<double> jitter = {0})
      : value_{a, b}, jitter_(std::move(jitter)) {}
  SampleOutcome Run(int arm) override {
    SampleOutcome outcome;
    outcome.ok = true;
    outcome.value = value_[arm] * (1 + jitter_[calls_++ % jitter_.size()]);
    return outcome;
  }
  int calls() const { return calls_; }

 private:
  double value_[2];
  std::vector<double> jitter_;
  int calls_ = 0;
};

SittingOptions DeterministicOptions() {
  SittingOptions options;
  options.warmup = 1;
  options.min_pairs = 10;
  options.max_pairs = 160;
  options.seed = 7;
  options.near_deterministic = true;
  return options;
}

TEST(NearDeterministicSitting, ADoublingIsAnEffectAfterTwoBlocks) {
  FixedSource source(5'000'000, 10'000'000);
  SittingResult r = RunPairedSitting(source, nullptr, DeterministicOptions(), nullptr);
  ASSERT_TRUE(r.verdict);
  EXPECT_EQ(r.verdict->verdict, Verdict::kEffect);
  EXPECT_EQ(r.pairs_kept, 4);  // Two blocks: the first with 3 runs of each arm.
  EXPECT_EQ(source.calls(), 2 + 8);
  ASSERT_TRUE(r.shift);
  EXPECT_DOUBLE_EQ(std::exp(r.shift->estimate), 2.0);
  EXPECT_DOUBLE_EQ(r.shift->low, r.shift->high);
  ASSERT_TRUE(r.near_deterministic);
  EXPECT_EQ(r.near_deterministic->state, State::kDecided);
  EXPECT_NE(r.verdict->explanation.find("near-deterministic"), std::string::npos);
}

TEST(NearDeterministicSitting, EqualArmsAreANullAfterTwoBlocks) {
  FixedSource source(5'000'000, 5'000'000, {0, 0.0001, 0.0002});
  SittingResult r = RunPairedSitting(source, nullptr, DeterministicOptions(), nullptr);
  ASSERT_TRUE(r.verdict);
  EXPECT_EQ(r.verdict->verdict, Verdict::kNull);
  EXPECT_EQ(r.pairs_kept, 4);
}

TEST(NearDeterministicSitting, WithoutTheOptionTheUsualLooksDecide) {
  FixedSource source(5'000'000, 10'000'000);
  SittingOptions options = DeterministicOptions();
  options.near_deterministic = false;
  SittingResult r = RunPairedSitting(source, nullptr, options, nullptr);
  ASSERT_TRUE(r.verdict);
  EXPECT_EQ(r.verdict->verdict, Verdict::kEffect);
  EXPECT_GE(r.pairs_kept, options.min_pairs);
  EXPECT_FALSE(r.near_deterministic);
}

TEST(NearDeterministicSitting, ASpreadArmFallsBackToTheUsualLooksAndSaysSo) {
  // 2% jitter: never near-deterministic; the ranks decide the x2 at the first look.
  FixedSource source(5'000'000, 10'000'000, {0, 0.02, -0.01, 0.015, -0.02});
  SittingOptions options = DeterministicOptions();
  SittingResult r = RunPairedSitting(source, nullptr, options, nullptr);
  ASSERT_TRUE(r.verdict);
  EXPECT_EQ(r.verdict->verdict, Verdict::kEffect);
  EXPECT_GE(r.pairs_kept, options.min_pairs);
  ASSERT_TRUE(r.near_deterministic);
  EXPECT_EQ(r.near_deterministic->state, State::kSpread);
  bool noted = false;
  for (const std::string& note : r.notes) {
    noted = noted || note.find("near-deterministic rule did not decide") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace culprit
