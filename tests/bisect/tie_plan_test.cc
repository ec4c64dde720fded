// Known answers of the tie's prediction (bisect/tie_plan.h) and of what a check that does
// not seek a tie can conclude (bisect/bisect_budget.h's CheckSittingBudget through a scripted
// sitting).

#include "bisect/tie_plan.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <random>
#include <vector>

#include "bisect/bisect_budget.h"
#include "probes/sitting.h"
#include "probes/verdict.h"

namespace culprit {
namespace {

Observation Obs(int commit, int baseline, std::vector<double> d, bool verification = false) {
  Observation o;
  o.commit = commit;
  o.baseline = baseline;
  o.verification = verification;
  o.d = std::move(d);
  return o;
}

TEST(TiePlan, PooledNoiseCentresEachGroupOnItsOwnMean) {
  // Two commits against the good end, at different means; the second measured in two
  // batches (one group); and a verification of the same commit, a group of its own. Each
  // group's deviations from its mean are ±0.1 or ±0.2, so the pooled variance is known.
  const std::vector<Observation> obs = {
      Obs(5, 0, {0.1, -0.1, 0.1, -0.1}),  // mean 0, SS 0.04, 3 dof
      Obs(9, 0, {0.4, 0.2}),
      Obs(9, 0, {0.4, 0.2}),                            // mean 0.3, SS 0.04, 3 dof
      Obs(9, 8, {0.5, 0.1, 0.5, 0.1, 0.5, 0.1}, true),  // mean 0.3, SS 0.24, 5 dof
      Obs(3, 0, {7.0}),                                 // one pair: no dof
  };
  std::optional<PairNoise> noise = PooledPairNoise(obs);
  ASSERT_TRUE(noise);
  EXPECT_EQ(noise->pairs, 15);
  EXPECT_EQ(noise->dof, 11);
  EXPECT_NEAR(noise->sd, std::sqrt(0.32 / 11), 1e-12);
}

TEST(TiePlan, TooFewPairsPredictNothing) {
  EXPECT_FALSE(PooledPairNoise(std::vector<Observation>{}));
  EXPECT_FALSE(PooledPairNoise(std::vector<Observation>{Obs(5, 0, {0.1, -0.1, 0.2, 0.0, 0.3})}));
}

TEST(TiePlan, PairsNeededKnownAnswers) {
  // NULL's last look of a doubling Pocock schedule (10 or 12, 20, ..., 160) gets
  // α − α·ln(1 + (e − 1)/2) = 0.018994 of α = 0.05; z = 2.3457 + 0.6745 at 50% power;
  // n = π/3 · (3.0202 · σ / ln 1.05)².
  EXPECT_EQ(TiePairsNeeded(0.37, 0.05, 0.95, 0.5, 10, 160), 550);  // 549.31
  EXPECT_EQ(TiePairsNeeded(0.37, 0.05, 0.95, 0.9, 10, 160), 960);  // 959.01
  EXPECT_EQ(TiePairsNeeded(0.20, 0.05, 0.95, 0.5, 10, 160), 161);  // 160.50
  // A quiet host: the pairs a NULL needs to have seen a slow tail at that α decide.
  EXPECT_EQ(TiePairsNeeded(0.04, 0.05, 0.95, 0.5, 10, 160), PairsToSightTail(0.018994));
  EXPECT_EQ(TiePairsNeeded(0.04, 0.05, 0.95, 0.5, 10, 160), 25);
  EXPECT_EQ(TiePairsNeeded(0.0, 0.05, 0.95, 0.5, 10, 160), 25);
}

TEST(TiePlan, PairsNeededGrowWithTheNoiseAndAreHugeOnAVeryNoisyHost) {
  int last = 0;
  for (double sd = 0.005; sd < 3; sd *= 1.1) {
    const int n = TiePairsNeeded(sd, 0.05, 0.95, 0.5, 10, 160);
    EXPECT_GE(n, last) << sd;
    last = n;
  }
  EXPECT_GT(TiePairsNeeded(2.0, 0.05, 0.95, 0.5, 10, 160), 10000);
  EXPECT_EQ(TiePairsNeeded(1e6, 0.05, 0.95, 0.5, 10, 160), INT_MAX);
  // A wider band needs fewer; more power needs more.
  EXPECT_LT(TiePairsNeeded(0.37, 0.10, 0.95, 0.5, 10, 160),
            TiePairsNeeded(0.37, 0.05, 0.95, 0.5, 10, 160));
  EXPECT_GT(TiePairsNeeded(0.37, 0.05, 0.95, 0.9, 10, 160),
            TiePairsNeeded(0.37, 0.05, 0.95, 0.5, 10, 160));
}

PairNoise Noise(double sd, int pairs) { return PairNoise{sd, pairs, pairs - 10}; }

TEST(TiePlan, ANoisyHostsTieIsNotSoughtWithinTheChecksBudget) {
  const TiePlan plan = PlanTie(Noise(0.37, 800), 0.05, 0.95, 10, 160, 1280, false);
  EXPECT_FALSE(plan.seek);
  EXPECT_EQ(plan.pairs_needed, 550);
  EXPECT_EQ(plan.pairs_to_prove, 960);
  EXPECT_DOUBLE_EQ(plan.noise, 0.37);
}

TEST(TiePlan, AQuietHostsTieIsSoughtAsBefore) {
  const TiePlan plan = PlanTie(Noise(0.04, 800), 0.05, 0.95, 10, 160, 1280, false);
  EXPECT_TRUE(plan.seek);
  EXPECT_EQ(plan.budget, 160);
  EXPECT_EQ(plan.pairs_needed, 25);
}

TEST(TiePlan, ProveFirstSeeksWithABudgetThatHoldsThePrediction) {
  TiePlan plan = PlanTie(Noise(0.37, 800), 0.05, 0.95, 10, 160, 1280, true);
  EXPECT_TRUE(plan.seek);
  EXPECT_EQ(plan.budget, 1280);  // 960 needed: 160, 320, 640 do not hold it
  EXPECT_FALSE(plan.short_of_proof);
  plan = PlanTie(Noise(0.20, 800), 0.05, 0.95, 10, 160, 1280, true);
  EXPECT_EQ(plan.budget, 320);  // 280 needed at 90%
  // Even the cap is short: sought with it, and said.
  plan = PlanTie(Noise(0.60, 800), 0.05, 0.95, 10, 160, 1280, true);
  EXPECT_TRUE(plan.seek);
  EXPECT_EQ(plan.budget, 1280);
  EXPECT_TRUE(plan.short_of_proof);
  EXPECT_GT(plan.pairs_to_prove, 1280);
}

TEST(TiePlan, NoiseFromFewerPairsThanTheTieWouldTakeIsNotTrusted) {
  // A quiet host's few dozen pairs, one of them an outlier: sought as before any prediction.
  TiePlan plan = PlanTie(Noise(0.30, 40), 0.05, 0.95, 10, 160, 1280, false);
  EXPECT_TRUE(plan.seek);
  EXPECT_EQ(plan.budget, 160);
  EXPECT_EQ(plan.pairs_needed, 0);
  plan = PlanTie(std::nullopt, 0.05, 0.95, 10, 160, 1280, false);
  EXPECT_TRUE(plan.seek);
  EXPECT_EQ(plan.budget, 160);
  // --prove-first with nothing to predict from: the check's whole budget.
  plan = PlanTie(Noise(0.30, 40), 0.05, 0.95, 10, 160, 1280, true);
  EXPECT_TRUE(plan.seek);
  EXPECT_EQ(plan.budget, 1280);
}

// Runs of two arms that tie: 1% log-normal noise around 100 ms.
class TieSource : public SampleSource {
 public:
  SampleOutcome Run(int) override {
    SampleOutcome s;
    s.ok = true;
    s.value = 100 * std::exp(0.01 * normal_(rng_));
    return s;
  }

 private:
  std::mt19937_64 rng_{7};
  std::normal_distribution<double> normal_;
};

SittingOptions DefaultCheck() {
  SittingOptions measure;  // [measure]'s defaults: 10..160 pairs, band 5%, 95%
  measure.seed = 11;
  measure.warmup = 0;
  return SittingBudget(measure, BisectConfig{}, BisectStepKind::kCheck, false, INT_MAX);
}

TEST(CheckSittingBudget, ACheckThatDoesNotSeekATieNeverStatesOneAndStopsOnceNoMoveIsInReach) {
  const SittingOptions check = DefaultCheck();
  ASSERT_EQ(check.max_pairs, 1280);
  ASSERT_EQ(TieBudget(check), 160);
  TiePlan skip;
  skip.seek = false;
  const SittingOptions options = CheckSittingBudget(check, skip);
  EXPECT_EQ(options.max_pairs, 1280);  // the hunt for a move keeps its budget
  TieSource source;
  SittingResult r = RunPairedSitting(source, nullptr, options, nullptr);
  ASSERT_TRUE(r.verdict);
  EXPECT_EQ(r.verdict->verdict, Verdict::kInconclusive) << r.verdict->explanation;
  EXPECT_TRUE(r.stopped_futile);
  EXPECT_LE(r.pairs_kept, 40);
  // Every look a NULL could be stated at holds fewer pairs than a NULL needs there.
  EXPECT_EQ(options.null_max_pairs, 20);

  // The same runs with the tie sought: a NULL.
  TiePlan seek;
  seek.budget = 160;
  TieSource again;
  SittingResult t = RunPairedSitting(again, nullptr, CheckSittingBudget(check, seek), nullptr);
  ASSERT_TRUE(t.verdict);
  EXPECT_EQ(t.verdict->verdict, Verdict::kNull) << t.verdict->explanation;
}

TEST(CheckSittingBudget, ProveFirstRaisesTheTiesLooksNeverPastTheCheck) {
  const SittingOptions check = DefaultCheck();
  TiePlan plan;
  plan.budget = 640;
  EXPECT_EQ(CheckSittingBudget(check, plan).null_max_pairs, 640);
  plan.budget = 5000;
  EXPECT_EQ(CheckSittingBudget(check, plan).null_max_pairs, 1280);
}

}  // namespace
}  // namespace culprit
