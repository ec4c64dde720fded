#include "probes/slow_run_bursts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "records/record.h"

namespace culprit {
namespace {

// A paired sitting's measured runs in the order they ran, arms alternating A, B, A, B, ...:
// run i (0-based) takes 7 ms times a small fixed jitter, times `slow_factor(i, arm)`.
std::vector<Sample> Runs(int n, const std::function<double(int, int)>& slow_factor) {
  std::vector<Sample> samples;
  for (int i = 0; i < n; ++i) {
    Sample s;
    s.sequence = i;
    s.arm = i % 2;
    s.pair = i / 2;
    s.value = 7.0 * (1 + 0.01 * ((i * 7) % 5)) * slow_factor(i, s.arm);
    samples.push_back(s);
  }
  return samples;
}

// What the demo's bisect check showed on a 2-core VM (docs/statistics.md): every other run
// 1.8 times slower, in both arms, for a stretch of the sitting, then none.
double DemoBurst(int i, int /*arm*/) { return i >= 8 && i < 100 && i % 3 != 0 ? 1.8 : 1.0; }

TEST(SlowRunBursts, SlowRunsBunchedInTimeInBothArmsAreBursts) {
  std::optional<SlowRunBursts> b =
      FindSlowRunBursts(Runs(320, DemoBurst), 0.05, MetricDirection::kLowerIsBetter);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->Runs(), 320);
  EXPECT_EQ(b->SlowRuns(), 61);  // i in [8, 100) with i % 3 != 0
  EXPECT_EQ(b->slow[0] + b->slow[1], 61);
  EXPECT_GT(b->slow[0], 25);
  EXPECT_GT(b->slow[1], 25);
  EXPECT_NEAR(b->factor, 1.8, 0.05);
  EXPECT_LE(b->time_p, kBurstTimeP);
  EXPECT_GT(b->arm_p, kBurstArmsDifferP);
  // 80% of 61 is 49 slow runs; the tightest stretch holding them lies inside runs 9..100.
  EXPECT_EQ(b->in_window, 49);
  EXPECT_GE(b->window_first, 9);
  EXPECT_LE(b->window_last, 100);
  const std::string text = DescribeSlowRunBursts(*b);
  EXPECT_NE(text.find("61 of 320 runs"), std::string::npos) << text;
  EXPECT_NE(text.find("rerun on a quiet host"), std::string::npos) << text;
}

TEST(SlowRunBursts, SlowRunsSpreadEvenlyOverTheSittingAreNotBursts) {
  // As many slow runs, every fifth run from first to last: an engine's own bimodality, not
  // something that came and went.
  auto spread = [](int i, int) { return i % 5 == 0 ? 1.8 : 1.0; };
  EXPECT_FALSE(FindSlowRunBursts(Runs(320, spread), 0.05, MetricDirection::kLowerIsBetter));
}

TEST(SlowRunBursts, ABurstInOneArmOnlyIsNotCalledTheHost) {
  // B alone slow for a stretch: an intermittent slowdown of B that came in a burst is B's,
  // as far as these runs can tell.
  auto b_only = [](int i, int arm) { return arm == 1 && i >= 8 && i < 100 ? 1.8 : 1.0; };
  EXPECT_FALSE(FindSlowRunBursts(Runs(320, b_only), 0.05, MetricDirection::kLowerIsBetter));
}

TEST(SlowRunBursts, TooFewRunsOrTooFewSlowRunsSayNothing) {
  EXPECT_FALSE(FindSlowRunBursts(Runs(kBurstBlockRuns * kMinBurstBlocks - 2, DemoBurst), 0.05,
                                 MetricDirection::kLowerIsBetter));
  auto five = [](int i, int) { return i >= 10 && i < 15 ? 1.8 : 1.0; };
  EXPECT_FALSE(FindSlowRunBursts(Runs(320, five), 0.05, MetricDirection::kLowerIsBetter));
}

TEST(SlowRunBursts, ForAMetricBetterHigherTheSlowRunsAreTheLowOnes) {
  auto low = [](int i, int arm) { return 1 / DemoBurst(i, arm); };
  EXPECT_TRUE(FindSlowRunBursts(Runs(320, low), 0.05, MetricDirection::kHigherIsBetter));
  EXPECT_FALSE(FindSlowRunBursts(Runs(320, low), 0.05, MetricDirection::kLowerIsBetter));
}

TEST(SlowRunBursts, RunsAreReadInTheOrderTheyRanAndOnlyMeasuredOnesCount) {
  std::vector<Sample> samples = Runs(320, DemoBurst);
  const std::optional<SlowRunBursts> in_order =
      FindSlowRunBursts(samples, 0.05, MetricDirection::kLowerIsBetter);
  ASSERT_TRUE(in_order);
  // A record may list its samples in another order; `sequence` is the order they ran in.
  std::reverse(samples.begin(), samples.end());
  // Warm-ups, failed and censored runs are no measured runs, however slow.
  for (int k = 0; k < 3; ++k) {
    Sample extra;
    extra.sequence = 1000 + k;
    extra.arm = k % 2;
    extra.value = 50;
    extra.warmup = k == 0;
    extra.ok = k != 1;
    extra.censored = k == 2;
    samples.push_back(extra);
  }
  const std::optional<SlowRunBursts> shuffled =
      FindSlowRunBursts(samples, 0.05, MetricDirection::kLowerIsBetter);
  ASSERT_TRUE(shuffled);
  EXPECT_EQ(shuffled->Runs(), 320);
  EXPECT_EQ(shuffled->SlowRuns(), in_order->SlowRuns());
  EXPECT_EQ(shuffled->window_first, in_order->window_first);
  EXPECT_EQ(shuffled->time_p, in_order->time_p);  // the permutations use a fixed seed
}

}  // namespace
}  // namespace culprit
