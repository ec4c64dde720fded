// Censored timeouts: the value a timed-out run stands in with must not shape the ratio a
// sitting reports. Only its side matters (slower than every completed run), so two sittings
// that differ in nothing but the timeout's bound report the same ratio and interval.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "probes/sitting.h"

namespace culprit {
namespace {

// B is `ratio` times A with log-normal noise; B's runs time out in `timeout_rate` of them,
// censored at `bound` ms. The draws do not depend on the bound.
class TimingOutSource : public SampleSource {
 public:
  TimingOutSource(double ratio, double timeout_rate, double bound, uint64_t seed)
      : ratio_(ratio), timeout_rate_(timeout_rate), bound_(bound), rng_(seed) {}

  SampleOutcome Run(int arm) override {
    std::normal_distribution<double> noise(0, 0.05);
    std::uniform_real_distribution<double> uniform(0, 1);
    const double value = 100.0 * (arm == 1 ? ratio_ : 1.0) * std::exp(noise(rng_));
    const bool hang = uniform(rng_) < timeout_rate_ && arm == 1 && ++calls_ > 2;
    SampleOutcome outcome;
    if (hang) {
      outcome.timed_out = true;
      outcome.censor_value = bound_;
      outcome.failure = "timed out";
      return outcome;
    }
    outcome.ok = true;
    outcome.value = value;
    return outcome;
  }

 private:
  double ratio_, timeout_rate_, bound_;
  std::mt19937_64 rng_;
  int calls_ = 0;
};

SittingOptions Options() {
  SittingOptions o;
  o.min_pairs = 10;
  o.max_pairs = 80;
  o.seed = 17;
  o.max_failed_samples = 1000;
  return o;
}

TEST(RunPairedSittingCensored, TheTimeoutsStandInValueDoesNotShapeTheReportedRatio) {
  // A bound just above the slowest completed run and one ten times the typical run.
  for (uint64_t seed : {1, 2, 3, 4}) {
    SCOPED_TRACE(seed);
    TimingOutSource near(1.0, 0.2, 108, seed), far(1.0, 0.2, 1000, seed);
    SittingResult a = RunPairedSitting(near, nullptr, Options(), nullptr);
    SittingResult b = RunPairedSitting(far, nullptr, Options(), nullptr);
    ASSERT_TRUE(a.shift && b.shift);
    ASSERT_GT(a.pairs_censored, 0);
    ASSERT_EQ(a.pairs_censored, b.pairs_censored);
    ASSERT_EQ(a.pairs_kept, b.pairs_kept);
    EXPECT_DOUBLE_EQ(a.shift->estimate, b.shift->estimate);
    EXPECT_DOUBLE_EQ(a.shift->low, b.shift->low);
    ASSERT_TRUE(a.verdict && b.verdict);
    EXPECT_EQ(a.verdict->verdict, b.verdict->verdict);
    // Beside it, the mean ratio and the tails are of the completed pairs only.
    ASSERT_TRUE(a.tails && b.tails && a.tails->mean && b.tails->mean);
    EXPECT_DOUBLE_EQ(a.tails->mean->estimate, b.tails->mean->estimate);
  }
}

}  // namespace
}  // namespace culprit
