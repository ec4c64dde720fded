#pragma once

// Runs far slower than their arm's typical run that came and went during a sitting, in both
// arms alike: the mark of something on the host (another process, the hypervisor's
// scheduler) rather than of either arm. A pair with one run in such a burst is a wild pair;
// enough of them widen the pairs' mean past the band, and a tie that must agree with the mean
// (an intermittent slowdown is not a tie) is then left INCONCLUSIVE by the host, not by the
// arms. This says so, with the evidence, so that "not settled" names its cause. It never
// changes a verdict: the slow runs stay in the statistics (dropping them would hide an
// intermittent slowdown that happened to come in bursts). Pure functions: no I/O.

#include <optional>
#include <span>
#include <string>

#include "base/metric_direction.h"
#include "records/record.h"

namespace culprit {

/// What FindSlowRunBursts found. Arm 0 is A, 1 is B.
struct SlowRunBursts {
  int slow[2] = {0, 0};  ///< Slow runs of each arm.
  int runs[2] = {0, 0};  ///< Measured runs of each arm (no warm-up, failed or censored run).
  /// The slow runs' median distance from their arm's median, as a factor in the slow
  /// direction (×1.8: a slow run took 1.8 times the typical run's time).
  double factor = 0;
  /// The shortest stretch of measured runs, 1-based and in the order they ran, that holds
  /// at least kBurstWindowShare of the slow runs, and how many it holds.
  int window_first = 0, window_last = 0, in_window = 0;
  /// The permutation test's p that the slow runs' rate is the same in every block of
  /// kBurstBlockRuns consecutive runs: small when they bunch in time.
  double time_p = 1;
  /// Fisher's exact test of the slow runs' rate in A against B.
  double arm_p = 1;

  int SlowRuns() const { return slow[0] + slow[1]; }
  int Runs() const { return runs[0] + runs[1]; }
};

/// Consecutive runs per block of the time test. 20 runs: ten pairs, a few seconds of a
/// typical sitting; a burst shorter than a block still raises its block's count.
inline constexpr int kBurstBlockRuns = 20;
/// At least this many blocks (so kBurstBlockRuns · 4 measured runs) before bunching is asked.
inline constexpr int kMinBurstBlocks = 4;
/// At least this many slow runs, and at least one in each arm.
inline constexpr int kMinSlowRuns = 6;
/// The time test's p at or below which the slow runs are said to come in bursts. Small,
/// because the note names the host as the cause; the test costs no share of a verdict's α
/// (it changes none).
inline constexpr double kBurstTimeP = 0.001;
/// Fisher's exact p at or below which the arms' slow rates are taken to differ: then the slow
/// runs may be an arm's own (an intermittent slowdown), and no burst is reported.
inline constexpr double kBurstArmsDifferP = 0.05;
/// Share of the slow runs the reported window holds.
inline constexpr double kBurstWindowShare = 0.8;
/// Shuffles of the permutation test (a fixed seed: the same samples give the same p).
inline constexpr int kBurstPermutations = 4999;

/// Whether `samples` (a paired sitting's, in any order: `sequence` orders them) hold slow runs
/// that came in bursts in both arms. A run is slow when its log value lies beyond its arm's
/// median in the worse direction (`better`) by more than max(kTailScales robust standard
/// deviations of the arm's log values, ln(1 + `band`)). Reported when there are at least
/// kMinSlowRuns of them with one or more in each arm, at least kMinBurstBlocks blocks of runs,
/// their rate bunches in time (time_p <= kBurstTimeP, the statistic Σ c_j² / b_j over the
/// blocks' counts, against kBurstPermutations shuffles of which runs were slow) and the arms'
/// rates do not differ (arm_p > kBurstArmsDifferP); nullopt otherwise. Warm-ups, failed and
/// censored runs are left out. Requires band > 0.
std::optional<SlowRunBursts> FindSlowRunBursts(std::span<const Sample> samples, double band,
                                               MetricDirection better);

/// One line for a sitting's notes: "slow runs came in bursts: 41 of 320 runs ...; rerun on a
/// quiet host".
std::string DescribeSlowRunBursts(const SlowRunBursts& bursts);

}  // namespace culprit
