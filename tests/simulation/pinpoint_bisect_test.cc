#include "simulation/pinpoint_bisect.h"

#include <gtest/gtest.h>

#include <vector>

namespace culprit {
namespace {

std::vector<double> Sequence(int n, double start, double step) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(start + step * i);
  return v;
}

TEST(PinpointBisectTest, MannWhitneyByHand) {
  // 1..5 against 6..10: U = 0, sd = sqrt(25 * 11 / 12), z = (25 - 12.5 - 0.5) / sd = 2.5067.
  EXPECT_NEAR(MannWhitneyPValue(Sequence(5, 1, 1), Sequence(5, 6, 1)), 0.0121858, 1e-6);
  // compare.py's examples give the one-sided p; the two-sided is twice it.
  const std::vector<double> zeros(20, 0.0);
  std::vector<double> five_ones(15, 0.0);
  five_ones.insert(five_ones.end(), 5, 1.0);
  EXPECT_NEAR(MannWhitneyPValue(zeros, five_ones), 2 * 0.0097, 2e-4);
  std::vector<double> split = Sequence(10, 0, 1);
  const std::vector<double> upper = Sequence(10, 30, 1);
  split.insert(split.end(), upper.begin(), upper.end());
  EXPECT_NEAR(MannWhitneyPValue(Sequence(20, 10, 1), split), 2 * 0.4946, 2e-4);
  // Everything tied: no evidence either way.
  EXPECT_EQ(MannWhitneyPValue(zeros, zeros), 1.0);
}

TEST(PinpointBisectTest, KolmogorovSmirnovTextbookValues) {
  // The Kolmogorov distribution's critical values: 10%, 5% and 1% at 1.2238, 1.3581, 1.6276.
  EXPECT_NEAR(KolmogorovSurvival(1.2238), 0.10, 1e-4);
  EXPECT_NEAR(KolmogorovSurvival(1.3581), 0.05, 1e-4);
  EXPECT_NEAR(KolmogorovSurvival(1.6276), 0.01, 1e-4);
  EXPECT_EQ(KolmogorovSurvival(0), 1.0);
  // compare.py's examples: a shift in the tail KS barely sees, a split it sees at once.
  const std::vector<double> zeros(20, 0.0);
  std::vector<double> five_ones(15, 0.0);
  five_ones.insert(five_ones.end(), 5, 1.0);
  EXPECT_NEAR(KolmogorovSmirnovPValue(zeros, five_ones), 0.4973, 1e-4);
  std::vector<double> split = Sequence(10, 0, 1);
  const std::vector<double> upper = Sequence(10, 30, 1);
  split.insert(split.end(), upper.begin(), upper.end());
  EXPECT_NEAR(KolmogorovSmirnovPValue(Sequence(20, 10, 1), split), 0.0082, 1e-4);
  // Separated samples of 5: D = 1, λ = (√2.5 + 0.12 + 0.11/√2.5) = 1.7707.
  EXPECT_NEAR(KolmogorovSmirnovPValue(Sequence(5, 1, 1), Sequence(5, 6, 1)), 0.0037814, 1e-6);
}

TEST(PinpointBisectTest, InterquartileRangeAsPinpointInterpolates) {
  // 1..8: the 75th percentile at index 5.5 (6.5), the 25th at 1.5 (2.5).
  EXPECT_DOUBLE_EQ(PinpointIqr(Sequence(8, 1, 1)), 4.0);
  EXPECT_DOUBLE_EQ(PinpointIqr(std::vector<double>{3.0}), 0.0);
}

TEST(PinpointBisectTest, SimulatedHighThresholdsMatchThePublishedTable) {
  PinpointThresholds thresholds;
  // Two values a side: the p-value takes two values, the larger 0.6985 (the table's .6986).
  EXPECT_NEAR(thresholds.High(1.0, 2), 0.6985, 1e-3);
  // thresholds.py's row 1.0 IQR at 10 and 20 values: .5708 and .0859; row 0.5 at 40: .5223.
  EXPECT_NEAR(thresholds.High(1.0, 10), 0.5708, 0.06);
  EXPECT_NEAR(thresholds.High(1.05, 20), 0.0859, 0.03);
  EXPECT_NEAR(thresholds.High(0.5, 40), 0.5223, 0.06);
  // Below the table's first row, its first row; the larger the magnitude, the lower.
  EXPECT_EQ(thresholds.High(0.1, 40), thresholds.High(0.3, 40));
  EXPECT_LT(thresholds.High(2.0, 10), thresholds.High(1.0, 10));
}

TEST(PinpointBisectTest, CompareDecidesOnScriptedSamples) {
  PinpointThresholds thresholds;
  const std::vector<double> a = Sequence(10, 1.0, 0.01);
  // Twice as slow: p = 1.8e-4 <= 0.05.
  std::vector<double> twice;
  for (double v : a) twice.push_back(2 * v);
  EXPECT_EQ(PinpointCompareValues(a, twice, 0.1, 0.05, 0.10, true, thresholds),
            PinpointVerdict::kDifferent);
  // The same values, 160 a side: p = 1, SAME.
  const std::vector<double> many = Sequence(160, 1.0, 0.001);
  EXPECT_EQ(PinpointCompareValues(many, many, 0.01, 0.05, 0.10, true, thresholds),
            PinpointVerdict::kSame);
  // 1..10 against 2.5..11.5: p = 0.307. Seeking a move of 1 (0.2 IQR) at 10 values, the high
  // threshold is ~0.97: UNKNOWN, more attempts. Seeking 40 (8 IQR), a move that size would
  // have shown: SAME.
  const std::vector<double> x = Sequence(10, 1, 1), y = Sequence(10, 2.5, 1);
  EXPECT_EQ(PinpointCompareValues(x, y, 1.0, 0.05, 0.10, true, thresholds),
            PinpointVerdict::kUnknown);
  EXPECT_EQ(PinpointCompareValues(x, y, 40.0, 0.05, 0.10, true, thresholds),
            PinpointVerdict::kSame);
  // Faster is an improvement: SAME whatever the p-value.
  EXPECT_EQ(PinpointCompareValues(twice, a, 0.1, 0.05, 0.10, true, thresholds),
            PinpointVerdict::kSame);
  EXPECT_EQ(PinpointDecide(0.05, 0.05, 0.10), PinpointVerdict::kDifferent);
  EXPECT_EQ(PinpointDecide(0.10, 0.05, 0.10), PinpointVerdict::kUnknown);
  EXPECT_EQ(PinpointDecide(0.11, 0.05, 0.10), PinpointVerdict::kSame);
}

WorldOptions Noiseless() {
  WorldOptions world;
  world.sigma = 0;
  world.drift_step = 0;
  world.outlier_rate = 0;
  return world;
}

TEST(PinpointBisectTest, NoiselessWorldNamesTheExactCommitAtTenAttemptsEach) {
  PinpointThresholds thresholds;
  PinpointOptions options;
  options.magnitude = 0.18;
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    SimWorld world(Noiseless(), seed);
    const TrialResult r = RunPinpointTrial(world, thresholds, options, seed);
    EXPECT_EQ(r.score, TrialResult::Score::kExact) << "seed " << seed;
    EXPECT_GE(r.builds, 6);
    EXPECT_LE(r.builds, 7);
    // Every pair decided at its first 10 attempts: 10 runs a change, endpoints included.
    EXPECT_EQ(r.runs, 10 * (2 + r.builds));
  }
}

TEST(PinpointBisectTest, NoiselessWorldOfTwoChangesNamesBoth) {
  PinpointThresholds thresholds;
  WorldOptions world = Noiseless();
  world.changes = {{0.07}, {0.15}};
  PinpointOptions options;
  options.magnitude = 1.07 * 1.15 - 1;
  for (uint64_t seed : {1, 2, 3}) {
    SimWorld w(world, seed);
    const TrialResult r = RunPinpointTrial(w, thresholds, options, seed);
    EXPECT_EQ(r.score, TrialResult::Score::kExact) << "seed " << seed;
  }
}

}  // namespace
}  // namespace culprit
