// The search on a near-deterministic metric (SearchOptions::near_deterministic, issue 28 §2):
// its noise floor follows the metric, and a verification reads the near-deterministic rule
// over its arms' runs. Known answers on scripted instruction counts: counts that repeat step
// in 2 pairs and verify in 4; counts that spread, a batch without its runs, and a timed metric
// with the same runs fall back to the sequential looks.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "bisect/search.h"
#include "probes/verdict.h"

namespace culprit {
namespace {

// Lua's table.sort by cachegrind (docs/bisect.md): about 648.75 million instructions before the
// change, 3.8% more from it on, and the commits between moving by up to 0.17%.
constexpr double kCount = 648.75e6;
const double kEffect = std::log(1.038);

// A scripted history of counts: commit c's runs are its level times (1 + spread · a fixed
// cycle of offsets), no randomness, so every batch is known in advance.
class CountWorld {
 public:
  CountWorld(int first_bad, double spread) : first_bad_(first_bad), spread_(spread) {}

  double Run(int commit) {
    const double level =
        (commit >= first_bad_ ? kEffect : 0) + 0.00085 * static_cast<double>(commit % 3);
    return kCount * std::exp(level) * (1 + spread_ * kOffsets[next_++ % kOffsets.size()]);
  }
  // `count` pairs of `commit` against `baseline`: their d and each arm's runs.
  std::vector<double> Pairs(int commit, int baseline, int count, ArmRuns& runs) {
    std::vector<double> d;
    for (int i = 0; i < count; ++i) {
      const double a = Run(baseline), b = Run(commit);
      runs.baseline.push_back(a);
      runs.commit.push_back(b);
      d.push_back(std::log(b) - std::log(a));
    }
    return d;
  }

 private:
  static constexpr std::array<double, 7> kOffsets = {0.3, -0.2, 0.1, -0.4, 0.2, 0.0, -0.1};
  int first_bad_;
  double spread_;
  size_t next_ = 0;
};

SearchOptions CountOptions(bool near_deterministic) {
  SearchOptions o;
  o.confirm_endpoints = false;  // the runner's confirmation feeds the endpoints' pairs
  o.band = 0.02;
  o.near_deterministic = near_deterministic;
  return o;
}

struct Driven {
  std::vector<Action> actions;
  int verify_pairs = 0;
};

// Runs the search to its end on `world`, the endpoints' 4 pairs first (a confirmation decided
// by the rule). `with_runs` false: every verification batch comes without its runs.
Driven Drive(BisectSearch& search, CountWorld& world, bool with_runs = true) {
  Driven driven;
  ArmRuns ends;
  search.AddObservation(search.n_commits(), world.Pairs(search.n_commits(), 0, 4, ends));
  for (int i = 0; i < 1000; ++i) {
    const Action a = search.Next();
    if (a.kind == Action::Kind::kDone) break;
    driven.actions.push_back(a);
    ArmRuns runs;
    const std::vector<double> d = world.Pairs(a.commit, a.baseline, a.pairs, runs);
    if (a.kind == Action::Kind::kVerify) {
      driven.verify_pairs += a.pairs;
      search.AddVerification(a.commit, a.baseline, d,
                             with_runs ? std::optional<ArmRuns>(runs) : std::nullopt);
    } else {
      search.AddObservation(a.commit, d);
    }
  }
  return driven;
}

TEST(NearDeterministicSearch, CountsThatRepeatStepInTwoPairsAndVerifyInFourByTheRule) {
  CountWorld world(29, 2e-6);  // runs within 0.0004%, as cachegrind's counts repeat
  BisectSearch search(48, CountOptions(true));
  const Driven driven = Drive(search, world);
  const SearchOutcome out = search.Result();
  ASSERT_EQ(out.kind, SearchOutcome::Kind::kCulprit) << out.reason;
  EXPECT_EQ(out.last, 29);
  EXPECT_TRUE(out.verified);
  for (const Action& a : driven.actions) {
    if (a.kind == Action::Kind::kMeasure) {
      EXPECT_EQ(a.pairs, 2) << "a step at commit " << a.commit;
    }
  }
  // ceil(log2 48) = 6 steps of one batch each.
  EXPECT_LE(search.builds_used(), 6 + 2);
  // The rule's 4 pairs, against the 12 the sequential looks planned with the 2% floor.
  EXPECT_EQ(driven.verify_pairs, 4);
  EXPECT_EQ(out.verification_pairs, 4);
  EXPECT_DOUBLE_EQ(out.interval_confidence, 1);  // the range of the runs' ratios
  EXPECT_NEAR(std::exp(out.log_ratio), 1.038, 0.001);
  EXPECT_NE(out.reason.find("near-deterministic rule"), std::string::npos) << out.reason;
  bool decided = false;
  const std::optional<NearDeterministicLook> rule = search.VerificationRule(29, 28, &decided);
  ASSERT_TRUE(rule.has_value());
  EXPECT_TRUE(decided);
  EXPECT_EQ(rule->state, NearDeterministicLook::State::kDecided);
  EXPECT_EQ(rule->verdict, Verdict::kEffect);
  // The fit's noise sits at the metric's floor, not at the 2% of timed metrics.
  EXPECT_LT(search.NoiseEstimate(), 0.002);
}

TEST(NearDeterministicSearch, ATimedMetricWithTheSameRunsKeepsItsFloorAndItsLooks) {
  // The same runs, but the metric is not near-deterministic: the 2% floor sizes its steps
  // (4 pairs at x1.038) and the sequential looks its verification; the runs are not read.
  CountWorld world(29, 2e-6);
  BisectSearch search(48, CountOptions(false));
  const Driven driven = Drive(search, world);
  const SearchOutcome out = search.Result();
  ASSERT_EQ(out.kind, SearchOutcome::Kind::kCulprit) << out.reason;
  EXPECT_EQ(out.last, 29);
  for (const Action& a : driven.actions) {
    if (a.kind == Action::Kind::kMeasure) {
      EXPECT_EQ(a.pairs, 4);
    }
  }
  EXPECT_GE(driven.verify_pairs, search.PlanFor(29, 28).looks.front());
  EXPECT_GE(driven.verify_pairs, 8);
  EXPECT_LT(out.interval_confidence, 1);
  EXPECT_FALSE(search.VerificationRule(29, 28).has_value());
  EXPECT_GE(search.NoiseEstimate(), 0.02);
}

TEST(NearDeterministicSearch, CountsThatSpreadFallBackToTheSequentialLooks) {
  // Runs spread by up to 0.7% (offsets ±0.4 of 1%): more than the rule's 0.1%.
  CountWorld world(29, 0.01);
  BisectSearch search(48, CountOptions(true));
  const Driven driven = Drive(search, world);
  const SearchOutcome out = search.Result();
  ASSERT_EQ(out.kind, SearchOutcome::Kind::kCulprit) << out.reason;
  EXPECT_EQ(out.last, 29);
  bool decided = true;
  const std::optional<NearDeterministicLook> rule = search.VerificationRule(29, 28, &decided);
  ASSERT_TRUE(rule.has_value());
  EXPECT_FALSE(decided);
  EXPECT_EQ(rule->state, NearDeterministicLook::State::kSpread);
  // Decided at a planned look of the sequential test, at its confidence.
  EXPECT_GE(driven.verify_pairs, search.PlanFor(29, 28).looks.front());
  EXPECT_GT(driven.verify_pairs, 4);
  EXPECT_LT(out.interval_confidence, 1);
  // Its noise is its own (one pair's d: two runs' offsets, about 0.3%), above the floor.
  EXPECT_GT(search.NoiseEstimate(), 2 * kNearDeterministicMinNoise);
}

TEST(NearDeterministicSearch, ABatchWithoutItsRunsLeavesTheVerificationToTheLooks) {
  // A run failed in the batch (the runner keeps no runs then): the rule states nothing.
  CountWorld world(29, 2e-6);
  BisectSearch search(48, CountOptions(true));
  const Driven driven = Drive(search, world, /*with_runs=*/false);
  const SearchOutcome out = search.Result();
  ASSERT_EQ(out.kind, SearchOutcome::Kind::kCulprit) << out.reason;
  EXPECT_FALSE(search.VerificationRule(29, 28).has_value());
  EXPECT_GE(driven.verify_pairs, search.PlanFor(29, 28).looks.front());
  EXPECT_LT(out.interval_confidence, 1);
}

TEST(NearDeterministicSearch, ACandidateWhoseRunsTieWithItsParentIsRefutedByTheRule) {
  // The search is led to 10 (its pairs say so), but 10's runs equal its parent's.
  BisectSearch search(16, CountOptions(true));
  search.AddObservation(16, std::vector<double>(4, kEffect));
  for (int c : {8, 12, 10}) {
    search.AddObservation(c, std::vector<double>(2, c >= 10 ? kEffect : 0.0));
  }
  search.AddObservation(9, std::vector<double>(2, 0.0));
  Action a = search.Next();
  ASSERT_EQ(a.kind, Action::Kind::kVerify);
  ASSERT_EQ(a.commit, 10);
  EXPECT_EQ(a.pairs, 4);  // the rule's first look
  const ArmRuns runs{std::vector<double>(4, kCount), std::vector<double>(4, kCount * 1.0002)};
  search.AddVerification(10, 9, std::vector<double>(4, std::log(1.0002)), runs);
  EXPECT_EQ(search.Refuted(), std::vector<int>{10});
  const std::optional<NearDeterministicLook> rule = search.VerificationRule(10, 9);
  ASSERT_TRUE(rule.has_value());
  EXPECT_EQ(rule->verdict, Verdict::kNull);
}

TEST(NearDeterministicSearch, TheFlagAndTheRunsSurviveASavedState) {
  CountWorld world(29, 2e-6);
  BisectSearch search(48, CountOptions(true));
  Drive(search, world);
  Result<BisectSearch> restored = BisectSearch::FromJson(search.ToJson());
  ASSERT_TRUE(restored.ok()) << restored.error().message();
  EXPECT_TRUE(restored->options().near_deterministic);
  EXPECT_EQ(restored->ToJson(), search.ToJson());
  EXPECT_EQ(restored->Result().verification_pairs, 4);
  ASSERT_TRUE(restored->VerificationRule(29, 28).has_value());

  // A state saved before the field existed is a timed metric's; runs of one arm alone are
  // refused as damaged.
  nlohmann::json old = nlohmann::json::parse(search.ToJson());
  old["options"].erase("near_deterministic");
  Result<BisectSearch> timed = BisectSearch::FromJson(old.dump(1));
  ASSERT_TRUE(timed.ok()) << timed.error().message();
  EXPECT_FALSE(timed->options().near_deterministic);
  for (nlohmann::json& o : old["observations"]) o.erase("commit_runs");
  EXPECT_FALSE(BisectSearch::FromJson(old.dump(1)).ok());
}

}  // namespace
}  // namespace culprit
