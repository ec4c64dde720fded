// The noise floor of the search's model: quantised timings (every pair of a batch the same
// d) must not let one pair carry tens of nats.

#include "bisect/search_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace culprit {
namespace {

// The log-odds "the first bad commit is after `commit`" against "at or before it".
double LogOddsAfter(const ModelFit& fit, int commit) {
  double before = 0, after = 0;
  for (size_t j = 1; j < fit.posterior.size(); ++j) {
    (static_cast<int>(j) <= commit ? before : after) += fit.posterior[j];
  }
  return std::log(after) - std::log(before);
}

TEST(SearchModelFloor, OnePairOfQuantisedTimingsCarriesAFewNatsNotTens) {
  // The endpoints: 8 pairs, every one exactly ln 1.18 (timings quantised to whole steps).
  // The midpoint: one pair exactly 0, i.e. it looks good.
  const int n = 16;
  std::vector<Observation> obs;
  obs.push_back({n, 0, false, std::vector<double>(8, std::log(1.18))});
  const ModelFit before = FitSearchModel(n, obs);
  obs.push_back({8, 0, false, {0.0}});
  const ModelFit after = FitSearchModel(n, obs);
  EXPECT_GE(after.noise, 0.02);
  const double nats = LogOddsAfter(after, 8) - LogOddsAfter(before, 8);
  // 2.5 ln(1 + ln(1.18)^2 / (4 * 0.02^2)) = 7.24 nats at most; with the old floor (0.001) it
  // was 22.
  EXPECT_GT(nats, 1.0);
  EXPECT_LE(nats, 7.25);
}

TEST(SearchModelFloor, OnePairOfCountsThatRepeatDecidesAStepUnderTheMetricsFloor) {
  // The same shape with instruction counts (x1.038, every pair the same d): under the
  // near-deterministic floor (0.1%) one pair carries far more than a step needs (ln 19), as
  // a count that repeats to 0.0004% should; under the timed floor (2%) it carries at most
  // 2.5 ln(1 + ln(1.038)^2 / (4 * 0.02^2)) = 1.56 nats.
  const int n = 16;
  const double effect = std::log(1.038);
  std::vector<Observation> obs;
  obs.push_back({n, 0, false, std::vector<double>(4, effect)});
  const ModelFit before = FitSearchModel(n, obs, {}, kNearDeterministicMinNoise);
  const ModelFit timed_before = FitSearchModel(n, obs);
  obs.push_back({8, 0, false, {0.0}});
  const ModelFit after = FitSearchModel(n, obs, {}, kNearDeterministicMinNoise);
  const ModelFit timed_after = FitSearchModel(n, obs);
  EXPECT_DOUBLE_EQ(after.noise, kNearDeterministicMinNoise);
  EXPECT_DOUBLE_EQ(SearchNoiseFloor(true), kNearDeterministicMinNoise);
  EXPECT_DOUBLE_EQ(SearchNoiseFloor(false), kMinNoise);
  const double nats = LogOddsAfter(after, 8) - LogOddsAfter(before, 8);
  EXPECT_GT(nats, std::log(19.0));
  EXPECT_LE(nats, 14.7);  // 2.5 ln(1 + ln(1.038)^2 / (4 * 0.001^2)) = 14.64
  const double timed_nats = LogOddsAfter(timed_after, 8) - LogOddsAfter(timed_before, 8);
  EXPECT_LE(timed_nats, 1.57);
  EXPECT_LT(timed_nats, std::log(19.0));
}

TEST(SearchModelFloor, NoisyPairsAreUntouchedByTheFloor) {
  // Pairs with a spread well above the floor fit a noise of their own.
  const int n = 8;
  std::vector<double> d;
  for (int i = 0; i < 20; ++i) d.push_back(std::log(1.3) + (i % 2 ? 0.1 : -0.1));
  std::vector<Observation> obs = {{n, 0, false, d}};
  const ModelFit fit = FitSearchModel(n, obs);
  EXPECT_GT(fit.noise, 0.05);
}

}  // namespace
}  // namespace culprit
