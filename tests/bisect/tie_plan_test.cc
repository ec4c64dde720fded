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

TEST(TiePlan, PooledNoiseReadsTheSpreadOfTheTiesTrimmedMean) {
  // One group of 40 pairs: ±0.1 nineteen times each, and two wild pairs, +2 and −2. k =
  // ⌊2.5% · 40⌋ = 1 is set aside at each end: the winsorized pairs are all ±0.1 (SS 0.4 over
  // 39 dof), over 1 − 2/40; the plain deviation keeps the wild pairs.
  std::vector<double> d;
  for (int i = 0; i < 19; ++i) {
    d.push_back(0.1);
    d.push_back(-0.1);
  }
  d.push_back(2.0);
  d.push_back(-2.0);
  std::optional<PairNoise> noise = PooledPairNoise(std::vector<Observation>{Obs(4, 0, d)});
  ASSERT_TRUE(noise);
  EXPECT_EQ(noise->pairs, 40);
  EXPECT_EQ(noise->dof, 39);
  EXPECT_NEAR(noise->plain_sd, std::sqrt((38 * 0.01 + 8) / 39), 1e-12);  // 0.4635
  EXPECT_NEAR(noise->sd, std::sqrt(0.4 / 39) / (1 - 2.0 / 40), 1e-12);   // 0.1066
  // Fewer than 40 pairs set none aside: the plain deviation.
  EXPECT_NEAR(TrimmedPairScale(std::vector<double>{0.1, -0.1, 2.0, -2.0}, 3, kTrimShare),
              std::sqrt(8.02 / 3), 1e-12);
  // Deviations pooled over groups are winsorized together: two groups of 20 centred on their
  // own means give the same as the one group above.
  std::vector<double> g1, g2;  // 0.5 ± 0.1 ten times each; ±0.1 nine times each, +2, −2
  for (int i = 0; i < 10; ++i) {
    g1.push_back(0.5 + 0.1);
    g1.push_back(0.5 - 0.1);
    if (i < 9) {
      g2.push_back(0.1);
      g2.push_back(-0.1);
    }
  }
  g2.push_back(2.0);
  g2.push_back(-2.0);
  std::optional<PairNoise> pooled =
      PooledPairNoise(std::vector<Observation>{Obs(4, 0, g1), Obs(5, 0, g2)});
  ASSERT_TRUE(pooled);
  EXPECT_EQ(pooled->dof, 38);
  EXPECT_NEAR(pooled->sd, std::sqrt(0.4 / 38) / (1 - 2.0 / 40), 1e-12);
}

TEST(TiePlan, NullsLastShareIsTheChecksOwn) {
  // The checks look 10 (12), 14, 20, 28, 40, 56, 80, 114, 160: the last look gets
  // α − α·ln(1 + (e − 1)·114/160) = 0.010028 of α = 0.05; by doubling (80 of 160) 0.018994.
  EXPECT_NEAR(NullLastAlpha(0.95, 10, 160), 0.0100284, 1e-6);
  EXPECT_NEAR(NullLastAlpha(0.95, 10, 160, 2.0), 0.0189940, 1e-6);
}

TEST(TiePlan, PairsNeededKnownAnswers) {
  // NULL's last look of the checks' √2 Pocock schedule (…, 114, 160) gets 0.010028 of α =
  // 0.05; z = 2.5751 + 0.6745 at 50% power; n = π/3 · (3.2496 · σ / ln 1.05)².
  EXPECT_EQ(TiePairsNeeded(0.37, 0.05, 0.95, 0.5, 10, 160), 636);   // 635.85
  EXPECT_EQ(TiePairsNeeded(0.37, 0.05, 0.95, 0.9, 10, 160), 1073);  // 1072.34
  EXPECT_EQ(TiePairsNeeded(0.20, 0.05, 0.95, 0.5, 10, 160), 186);   // 185.79
  // A 10%-noise host's pairs once their wild ones are set aside (≈ 0.15): within 160.
  EXPECT_EQ(TiePairsNeeded(0.15, 0.05, 0.95, 0.5, 10, 160), 105);  // 104.50
  // A quiet host: the pairs a NULL needs to have seen a slow tail at that look's sighting α
  // (half of it, kTailSightingShare) decide: 0.85^33 = 0.0047 <= 0.0050.
  EXPECT_EQ(TiePairsNeeded(0.04, 0.05, 0.95, 0.5, 10, 160),
            PairsToSightTail(TailSightingAlpha(0.0100284)));
  EXPECT_EQ(TiePairsNeeded(0.04, 0.05, 0.95, 0.5, 10, 160), 33);
  EXPECT_EQ(TiePairsNeeded(0.0, 0.05, 0.95, 0.5, 10, 160), 33);
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

PairNoise Noise(double sd, int pairs) { return PairNoise{sd, pairs, pairs - 10, sd}; }

TEST(TiePlan, ANoisyHostsTieIsNotSoughtWithinTheChecksBudget) {
  const TiePlan plan = PlanTie(Noise(0.37, 800), 0.05, 0.95, 10, 160, 1280, false);
  EXPECT_FALSE(plan.seek);
  EXPECT_EQ(plan.pairs_needed, 633);  // read at the looks to 640 that hold it
  EXPECT_EQ(plan.pairs_to_prove, 1070);
  EXPECT_DOUBLE_EQ(plan.noise, 0.37);
}

TEST(TiePlan, AQuietHostsTieIsSoughtAsBefore) {
  const TiePlan plan = PlanTie(Noise(0.04, 800), 0.05, 0.95, 10, 160, 1280, false);
  EXPECT_TRUE(plan.seek);
  EXPECT_EQ(plan.budget, 160);
  EXPECT_EQ(plan.pairs_needed, 33);
  EXPECT_EQ(plan.null_from_pairs, 0);  // without --prove-first, from the first trimmed look
}

TEST(TiePlan, ProveFirstSeeksWithABudgetThatHoldsThePrediction) {
  TiePlan plan = PlanTie(Noise(0.37, 800), 0.05, 0.95, 10, 160, 1280, true);
  EXPECT_TRUE(plan.seek);
  EXPECT_EQ(plan.budget, 1280);  // 1070 needed: 160, 320, 640 do not hold it
  EXPECT_FALSE(plan.short_of_proof);
  // NULL spends from where the tie is shown half the time (≈ 633: from the look of 452).
  EXPECT_EQ(plan.null_from_pairs, 633);
  plan = PlanTie(Noise(0.20, 800), 0.05, 0.95, 10, 160, 1280, true);
  EXPECT_EQ(plan.budget, 320);  // 312 needed at 90%
  EXPECT_EQ(plan.null_from_pairs, plan.pairs_needed);
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
  // --prove-first with nothing to predict from: the check's whole budget, NULL spending from
  // its first trimmed look.
  plan = PlanTie(Noise(0.30, 40), 0.05, 0.95, 10, 160, 1280, true);
  EXPECT_TRUE(plan.seek);
  EXPECT_EQ(plan.budget, 1280);
  EXPECT_EQ(plan.null_from_pairs, 0);
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
