#include "probes/sequential.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "probes/statistics.h"
#include "probes/verdict.h"

namespace culprit {
namespace {

TEST(LookSchedule, DoublesUpToTheBudget) {
  EXPECT_EQ(LookSchedule(10, 160), (std::vector<int>{10, 20, 40, 80, 160}));
  EXPECT_EQ(LookSchedule(10, 320), (std::vector<int>{10, 20, 40, 80, 160, 320}));
  // 80 would sit within 1.5x of 100: dropped so the last look keeps its alpha.
  EXPECT_EQ(LookSchedule(10, 100), (std::vector<int>{10, 20, 40, 100}));
  EXPECT_EQ(LookSchedule(10, 120), (std::vector<int>{10, 20, 40, 80, 120}));
  EXPECT_EQ(LookSchedule(10, 15), (std::vector<int>{10, 15}));
  EXPECT_EQ(LookSchedule(10, 10), (std::vector<int>{10}));
  EXPECT_EQ(LookSchedule(20, 10), (std::vector<int>{10}));
  EXPECT_EQ(LookSchedule(6, 50), (std::vector<int>{6, 12, 24, 50}));
  std::vector<int> big = LookSchedule(1, 2000000000);
  EXPECT_EQ(big.back(), 2000000000);
  EXPECT_TRUE(std::is_sorted(big.begin(), big.end()));
}

TEST(SpendAlpha, ObrienFlemingKnownValues) {
  // 2 Φ(-1.959964 / √t), computed independently: t = 1/2 gives 0.0055746, t = 1/4 8.8575e-5.
  EXPECT_NEAR(ObrienFlemingSpent(0.05, 0.5), 0.005574596680784421, 1e-12);
  EXPECT_NEAR(ObrienFlemingSpent(0.05, 0.25), 8.857543832140409e-05, 1e-15);
  EXPECT_NEAR(ObrienFlemingSpent(0.05, 0.0625) / 4.5106361887262825e-15, 1, 1e-6);
  EXPECT_EQ(ObrienFlemingSpent(0.05, 0), 0);
  EXPECT_EQ(ObrienFlemingSpent(0.05, 1), 0.05);
}

TEST(SpendAlpha, PocockKnownValues) {
  // 0.05 ln(1 + 1.718282 t): t = 1/16 gives 0.0051004, t = 1/2 0.0310057.
  EXPECT_NEAR(PocockSpent(0.05, 0.0625), 0.05 * std::log(1 + (std::exp(1.0) - 1) / 16), 1e-15);
  EXPECT_NEAR(PocockSpent(0.05, 0.0625), 0.0051004, 1e-7);
  EXPECT_NEAR(PocockSpent(0.05, 0.5), 0.0310057, 1e-7);
  EXPECT_EQ(PocockSpent(0.05, 1), 0.05);
  EXPECT_EQ(PocockSpent(0.05, 0), 0);
  // Unlike O'Brien–Fleming, its first look on 10 pairs of 10..160 can stop.
  std::vector<int> looks = LookSchedule(10, 160);
  std::vector<double> pocock = SpendAlpha(0.05, looks, Spending::kPocock);
  std::vector<double> obf = SpendAlpha(0.05, looks);
  EXPECT_LE(MinPairsForSignedRank(1 - pocock[0]), 10u);
  EXPECT_GT(MinPairsForSignedRank(1 - obf[0]), 10u);
  EXPECT_GT(MinPairsForSignedRank(1 - obf[1]), 20u);
  EXPECT_LE(MinPairsForSignedRank(1 - obf[2]), 40u);
}

// The bisect's confirmation: Pocock's function of √t spends more of α where its moves stop
// (80 to 226 of 1280 pairs at 18%/24%) and less at the last looks, and still sums to α.
TEST(SpendAlpha, PocockOnRootTimeKnownValuesAndWhereItsAlphaGoes) {
  // 0.05 ln(1 + 1.718282 √t): t = 1/8 (160 of 1280) gives 0.0237341, t = 1/2 0.0397628.
  EXPECT_NEAR(PocockSpentOnRootTime(0.05, 0.125),
              0.05 * std::log1p((std::exp(1.0) - 1) * std::sqrt(0.125)), 1e-15);
  EXPECT_NEAR(PocockSpentOnRootTime(0.05, 0.125), 0.0237341, 1e-7);
  EXPECT_NEAR(PocockSpentOnRootTime(0.05, 0.5), 0.0397628, 1e-7);
  EXPECT_EQ(PocockSpentOnRootTime(0.05, 0), 0);
  EXPECT_EQ(PocockSpentOnRootTime(0.05, 1), 0.05);
  const std::vector<int> looks = {12,  14,  20,  28,  40,  56,  80,  114,
                                  160, 226, 320, 452, 640, 906, 1280};
  const std::vector<double> root = SpendAlpha(0.05, looks, Spending::kPocockOnRootTime);
  const std::vector<double> pocock = SpendAlpha(0.05, looks, Spending::kPocock);
  EXPECT_NEAR(std::accumulate(root.begin(), root.end(), 0.0), 0.05, 1e-15);
  // By 160 pairs: 0.0237 of α on √t against 0.0097 on t.
  EXPECT_NEAR(std::accumulate(root.begin(), root.begin() + 9, 0.0), 0.02373, 1e-5);
  EXPECT_NEAR(std::accumulate(pocock.begin(), pocock.begin() + 9, 0.0), 0.00973, 1e-5);
  for (size_t k : {6u, 7u, 8u}) EXPECT_GT(root[k], pocock[k]) << looks[k];  // 80, 114, 160
  // The last two looks (906, 1280): 0.0102 against 0.0190; each still a tenth of α or so.
  EXPECT_NEAR(root[13] + root[14], 0.0102, 1e-4);
  EXPECT_NEAR(pocock[13] + pocock[14], 0.0190, 1e-4);
  EXPECT_GT(root[14], 0.004);
  // Read together, every look up to 226 pairs has a wider α (a lower boundary) on √t, so a
  // move that stops there on t stops there or sooner on √t; from 320 on, the other way.
  const std::vector<double> root_joint = GroupSequentialAlphas(looks, root);
  const std::vector<double> pocock_joint = GroupSequentialAlphas(looks, pocock);
  for (size_t k = 0; k < looks.size(); ++k) {
    if (looks[k] <= 226) {
      EXPECT_GT(root_joint[k], pocock_joint[k]) << looks[k];
    }
  }
  EXPECT_LT(root_joint.back(), pocock_joint.back());
}

TEST(GroupSequentialAlphas, PocockSpendingOverFiveEqualLooksGivesLanDeMetsBoundaries) {
  // Lan & DeMets' Pocock-type spending at two-sided 0.05 over 5 equally spaced looks: the
  // published boundaries 2.438, 2.427, 2.410, 2.397, 2.386 (also by 4·10⁵ simulated paths).
  const std::vector<int> looks = {1, 2, 3, 4, 5};
  const std::vector<double> nominal =
      GroupSequentialAlphas(looks, SpendAlpha(0.05, looks, Spending::kPocock));
  const std::vector<double> z = {2.438, 2.427, 2.410, 2.397, 2.386};
  ASSERT_EQ(nominal.size(), z.size());
  for (size_t k = 0; k < z.size(); ++k) {
    EXPECT_NEAR(-NormalQuantile(nominal[k] / 2), z[k], 0.0015) << "look " << k;
  }
}

TEST(GroupSequentialAlphas, AFirstLookKeepsItsIncrementAndLaterLooksGetMore) {
  const std::vector<int> looks = {10, 14, 20, 28, 40, 56, 80, 114, 160};
  const std::vector<double> increments = SpendAlpha(0.05, looks, Spending::kPocock);
  const std::vector<double> nominal = GroupSequentialAlphas(looks, increments);
  EXPECT_DOUBLE_EQ(nominal[0], increments[0]);
  for (size_t k = 1; k < looks.size(); ++k) EXPECT_GT(nominal[k], increments[k]) << "look " << k;
  // A single look is its own increment; a look that may not stop stays at 0 and passes its
  // paths on whole.
  EXPECT_DOUBLE_EQ(GroupSequentialAlphas(std::vector<int>{160}, std::vector<double>{0.05})[0],
                   0.05);
  const std::vector<double> held =
      GroupSequentialAlphas(std::vector<int>{20, 40}, std::vector<double>{0, 0.05});
  EXPECT_EQ(held[0], 0);
  EXPECT_NEAR(held[1], 0.05, 1e-6);
}

TEST(GroupSequentialAlphas, SimulatedPathsCrossAtTheSpentRate) {
  // Gaussian random walks, one step a pair, looked at on the confirmation's schedule: the share
  // that ever crosses a boundary is α (0.05) within its sampling error, where Bonferroni's
  // increments keep about 0.030. Seeded, so the figure is the same on every host.
  const std::vector<int> looks = {10, 14, 20, 28, 40, 56, 80, 114, 160, 226, 320};
  const std::vector<double> increments = SpendAlpha(0.05, looks, Spending::kPocock);
  const std::vector<double> nominal = GroupSequentialAlphas(looks, increments);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> step(0, 1);
  int crossed_exact = 0, crossed_bonferroni = 0;
  const int paths = 20000;
  for (int p = 0; p < paths; ++p) {
    double sum = 0;
    int n = 0;
    bool exact = false, bonferroni = false;
    for (size_t k = 0; k < looks.size(); ++k) {
      for (; n < looks[k]; ++n) sum += step(rng);
      const double z = std::abs(sum) / std::sqrt(looks[k]);
      exact = exact || z > -NormalQuantile(nominal[k] / 2);
      bonferroni = bonferroni || z > -NormalQuantile(increments[k] / 2);
    }
    crossed_exact += exact;
    crossed_bonferroni += bonferroni;
  }
  // 0.05 ± 3 standard errors (0.0015 each at 20,000 paths).
  EXPECT_NEAR(crossed_exact / static_cast<double>(paths), 0.05, 0.0046);
  EXPECT_LT(crossed_bonferroni / static_cast<double>(paths), 0.04);
}

TEST(SpendAlpha, SumsToAlphaAndGrowsAcrossLooks) {
  for (auto [alpha, spending] :
       std::vector<std::pair<double, Spending>>{{0.01, Spending::kObrienFleming},
                                                {0.05, Spending::kObrienFleming},
                                                {0.1, Spending::kObrienFleming},
                                                {0.05, Spending::kPocock},
                                                {0.01, Spending::kPocock}}) {
    for (auto [lo, hi] : std::vector<std::pair<int, int>>{{10, 160}, {10, 100}, {8, 1000}}) {
      std::vector<int> looks = LookSchedule(lo, hi);
      std::vector<double> spent = SpendAlpha(alpha, looks, spending);
      ASSERT_EQ(spent.size(), looks.size());
      double sum = std::accumulate(spent.begin(), spent.end(), 0.0);
      EXPECT_LE(sum, alpha * (1 + 1e-12));
      EXPECT_NEAR(sum, alpha, 1e-15);
      for (size_t k = 0; k < spent.size(); ++k) {
        EXPECT_GT(spent[k], 0) << k;
        // O'Brien–Fleming keeps its alpha for later looks; Pocock's concave spending gives
        // the first look of a doubling schedule more than the second.
        if (k > 0 && spending == Spending::kObrienFleming) {
          EXPECT_GT(spent[k], spent[k - 1]) << alpha << " look " << k;
        }
      }
    }
  }
  std::vector<int> looks = {10, 20, 40, 80, 160};
  std::vector<double> spent = SpendAlpha(0.05, looks);
  EXPECT_NEAR(spent[3], 0.005574596680784421 - 8.857543832140409e-05, 1e-12);
  EXPECT_NEAR(spent[4], 0.05 - 0.005574596680784421, 1e-12);
  // One look spends everything at once.
  std::vector<int> single = {50};
  EXPECT_EQ(SpendAlpha(0.05, single), std::vector<double>{0.05});
  EXPECT_TRUE(SpendAlpha(0.05, std::vector<int>{}).empty());
}

// Fraction of pure-noise sittings that end in a false EFFECT when each look k uses confidence
// 1 - alpha_k and stops at the first EFFECT. With band 0, EFFECT means "interval excludes 0",
// the plain two-sided test whose error rate the spending controls.
double FalseEffectRate(std::span<const int> looks, std::span<const double> alphas, int sittings,
                       uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.03);
  std::bernoulli_distribution outlier(0.1);
  int false_effects = 0;
  std::vector<double> d(looks.back());
  for (int s = 0; s < sittings; ++s) {
    // Symmetric, heavy-tailed noise: 10% of pairs disturbed five times as much.
    for (double& v : d) v = noise(rng) * (outlier(rng) ? 5 : 1);
    for (size_t k = 0; k < looks.size(); ++k) {
      std::span<const double> seen(d.data(), looks[k]);
      Result<ShiftEstimate> r = SignedRankEstimate(seen, 1 - alphas[k]);
      if (!r.ok()) continue;  // too few pairs for so small an alpha: this look cannot stop
      if (Decide(*r, 0).verdict == Verdict::kEffect) {
        ++false_effects;
        break;
      }
    }
  }
  return static_cast<double>(false_effects) / sittings;
}

TEST(SpendAlpha, MonteCarloFamilyWiseErrorStaysWithinAlpha) {
  const double kAlpha = 0.05;
  const int kSittings = 2000;
  std::vector<int> looks = LookSchedule(10, 160);
  std::vector<double> spent = SpendAlpha(kAlpha, looks);
  double rate = FalseEffectRate(looks, spent, kSittings, 2024);
  // Binomial standard error at 0.05 over 2000 sittings is 0.005: the margin is 3 SE.
  EXPECT_LE(rate, kAlpha + 0.015) << "spent alphas, false EFFECT rate " << rate;
  std::printf("false EFFECT rate over %d pure-noise sittings, looks 10..160: spent %.4f\n",
              kSittings, rate);

  // The check has teeth: naive 5% at every look inflates the rate well past alpha.
  std::vector<double> naive(looks.size(), kAlpha);
  double naive_rate = FalseEffectRate(looks, naive, kSittings, 2024);
  EXPECT_GT(naive_rate, kAlpha + 0.03) << "naive looks, false EFFECT rate " << naive_rate;
  EXPECT_GT(naive_rate, 1.5 * rate);
  double pocock_rate =
      FalseEffectRate(looks, SpendAlpha(kAlpha, looks, Spending::kPocock), kSittings, 2024);
  EXPECT_LE(pocock_rate, kAlpha + 0.015) << "Pocock spending, false EFFECT rate " << pocock_rate;
  std::printf("Pocock spending: %.4f\n", pocock_rate);
  std::printf("naive 5%% at every look: %.4f\n", naive_rate);
}

TEST(StoppableLooks, MovesAFirstLookNoIntervalCanReachUpByWholeBlocks) {
  // 95% Pocock over 10..640: 0.05 ln(1 + 1.718 · 10/640) = 0.00132 at 10 pairs, and a
  // signed-rank interval at 99.87% needs 11 pairs (2^-10 > 0.00066 >= 2^-11). At 12
  // pairs the look spends 0.00159, which 11 pairs already reach.
  const std::vector<int> looks = LookSchedule(10, 640);
  ASSERT_EQ(looks, (std::vector<int>{10, 20, 40, 80, 160, 320, 640}));
  EXPECT_EQ(MinPairsForSignedRank(1 - SpendAlpha(0.05, looks, Spending::kPocock)[0]), 11u);
  const std::vector<int> moved = StoppableLooks(looks, 0.05, Spending::kPocock, 2);
  EXPECT_EQ(moved, (std::vector<int>{12, 20, 40, 80, 160, 320, 640}));
  EXPECT_LE(MinPairsForSignedRank(1 - SpendAlpha(0.05, moved, Spending::kPocock)[0]), 12u);
}

TEST(StoppableLooks, LeavesLooksThatCanStopAlone) {
  // 10..160: the first look spends 0.0051, reachable with 9 pairs.
  EXPECT_EQ(StoppableLooks(LookSchedule(10, 160), 0.05, Spending::kPocock, 2),
            LookSchedule(10, 160));
}

TEST(StoppableLooks, MovesByTheStepGiven) {
  // An isolation sitting of five conditions: 0.05 / 4 per comparison, rounds in blocks of
  // five. At 10 of 160 rounds the look spends 0.00128 (needs 11); at 15 it spends 0.00187.
  EXPECT_EQ(StoppableLooks(LookSchedule(10, 160), 0.0125, Spending::kPocock, 5),
            (std::vector<int>{15, 20, 40, 80, 160}));
}

TEST(StoppableLooks, NeverReachesTheSecondLook) {
  // O'Brien–Fleming's first look at 10 of 160 spends 4.5e-15: no move short of 20 helps,
  // so the looks come back as given. A single look has nothing to move towards.
  EXPECT_EQ(StoppableLooks(LookSchedule(10, 160), 0.05, Spending::kObrienFleming, 2),
            LookSchedule(10, 160));
  EXPECT_EQ(StoppableLooks({5}, 0.05, Spending::kPocock, 1), (std::vector<int>{5}));
}

}  // namespace
}  // namespace culprit
