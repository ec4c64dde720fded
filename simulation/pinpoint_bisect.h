#pragma once

// Chromium Pinpoint's performance bisect, re-implemented over the simulated world so that
// bench/bisect-sim can run it beside culprit and the naive script on the same worlds and
// seeds. Read from catapult-project/catapult at 6fd8bbe723677254ff1130a1a416988b8b3e285e
// (2025-11-18), not copied:
//   dashboard/dashboard/pinpoint/models/compare/compare.py       the decision
//   dashboard/dashboard/pinpoint/models/compare/mann_whitney_u.py the U test's p-value
//   dashboard/dashboard/pinpoint/models/compare/kolmogorov_smirnov.py the KS p-value
//   dashboard/dashboard/pinpoint/models/compare/thresholds.py    low and high thresholds
//   dashboard/dashboard/pinpoint/models/compare/thresholds_performance.py how the high
//                                                                 thresholds are made
//   dashboard/dashboard/pinpoint/models/job_state.py             attempts, Explore, Differences
//   dashboard/dashboard/pinpoint/models/exploration.py           the midpoint exploration
//   dashboard/dashboard/common/math_utils.py                     Iqr, Percentile
//   dashboard/dashboard/models/alert_group_workflow.py           the magnitude an auto-bisect asks
//
// What it does, as there:
// - Each change (commit) gets 10 attempts (one run each here); a pair of neighbouring changes
//   is compared on all their values with p = min(KS p, Mann–Whitney p).
// - While the bisect explores (Explore, called with the job's benchmark arguments) a pair is
//   DIFFERENT when p <= max(0.01, 0.05), SAME when p > max(high, 0.10), else UNKNOWN; the
//   high threshold depends on the magnitude sought, in IQRs of the samples, and the sample
//   count. An UNKNOWN pair doubles the attempts of its side with fewer (both when equal),
//   up to 160; a DIFFERENT pair gets its midpoint (the lower one for an even range) as a
//   new change with 10 attempts; more than 60 changes fail the job.
// - A pair whose mean moved the improving way is SAME (auto-bisects know the direction).
// - When nothing is left to run, the culprits are the neighbouring pairs that Differences()
//   finds DIFFERENT; it calls Compare without the benchmark arguments, so at p <= 0.01.
//   That comparison of the culprit with its parent, on all their values, is the verification.
// - The high thresholds are not copied: they are made as thresholds_performance.py makes
//   them (the 99th percentile of the U test's p-value between two normal samples that
//   magnitude apart), by simulation here.
// Not modelled: sandwich verification (a later service for allowlisted subscriptions), DEPS
// rolls, several values per attempt, and bots running attempts in parallel (an attempt's
// runs come one after another in a shuffled order, so the host's drift falls between them).

#include <cstdint>
#include <span>
#include <vector>

#include "simulation/simulation.h"

namespace culprit {

/// Two-sided Mann–Whitney U p-value by the normal approximation with continuity (0.5) and
/// tie corrections, ties ranked by their mean rank. 1 when every value is tied or a side is
/// empty.
double MannWhitneyPValue(std::span<const double> x, std::span<const double> y);

/// The Kolmogorov distribution's survival function Q(λ) = 2 Σ_{k>=1} (-1)^(k-1) e^(-2k²λ²);
/// 1 for λ below 1.1e-16.
double KolmogorovSurvival(double lambda);

/// Two-sided two-sample Kolmogorov–Smirnov p-value, asymptotic with Stephens' small-sample
/// correction: Q((√e + 0.12 + 0.11/√e) D), e = mn/(m+n). 1 when a side is empty.
double KolmogorovSmirnovPValue(std::span<const double> x, std::span<const double> y);

/// Pinpoint's interquartile range: the 75th minus the 25th percentile, each interpolated
/// between the closest ranks at index n p - 1/2 (clamped to the ends). 0 when empty.
double PinpointIqr(std::span<const double> values);

/// Pinpoint's three answers for a pair of changes.
enum class PinpointVerdict { kSame, kDifferent, kUnknown };

/// The decision at thresholds: kDifferent when p <= low, kSame when p > high, else kUnknown.
PinpointVerdict PinpointDecide(double p_value, double low, double high);

/// The high thresholds of performance comparisons: for a magnitude of m IQRs (rows of
/// 0.1 IQR from 0.3 to 4.0: m is truncated to its row and clamped to the ends) and n values
/// per side, the 99th percentile of the U test's p-value when the two samples are normal and
/// m IQRs apart. Rows are simulated on first use and kept; deterministic.
class PinpointThresholds {
 public:
  /// `simulations` draws per row (thresholds_performance.py used 10^6).
  explicit PinpointThresholds(int simulations = 10000);
  /// The threshold for `magnitude_iqr` and `sample_size` (>= 1; beyond 160, 160's).
  double High(double magnitude_iqr, int sample_size);

 private:
  static constexpr int kRows = 38;
  static constexpr int kMaxSampleSize = 160;
  int simulations_;
  std::vector<std::vector<double>> rows_;  ///< Empty until simulated.
};

/// One quest's values compared as job_state._Compare does: SAME when b's mean moved the
/// improving way; else p = min(KS p, U test p) against `low` and max(the high threshold,
/// `high_floor`), the high threshold's magnitude being |magnitude| / max(IQR a, IQR b, 0.001)
/// (1 IQR when magnitude is 0) and its sample count (|a| + |b|) / 2. kUnknown when a side
/// is empty.
PinpointVerdict PinpointCompareValues(std::span<const double> a, std::span<const double> b,
                                      double magnitude, double low, double high_floor,
                                      bool lower_is_better, PinpointThresholds& thresholds);

/// Pinpoint's job settings (job_state.py and compare.py at the version above).
struct PinpointOptions {
  int min_attempts = 10;
  int max_attempts = 160;
  int max_builds = 60;  ///< Changes in the job, endpoints included.
  double explore_low = 0.05, explore_high_floor = 0.10;  ///< With the benchmark arguments.
  double report_low = 0.01;                              ///< Differences(): without them.
  /// The size sought, in the values' units (the good commit runs at 1.0): the alert's median
  /// after minus median before. 0: the default magnitude of 1 IQR.
  double magnitude = 0;
  bool lower_is_better = true;  ///< Times: a pair whose mean fell is an improvement (SAME).
};

/// Pinpoint's bisect of `world` from commit 0 to N. Every run goes to the world (`runs`
/// counts them, endpoints included); `seed` orders each round's attempts. Scored as the
/// runner's bisects are: against the changes that move the way the whole range moves, a
/// named change is wrong when its range holds none; exact when every such change is named
/// as one commit.
/// More than max_builds changes fail the job: kInconclusive. `pairs` is left 0.
TrialResult RunPinpointTrial(SimWorld& world, PinpointThresholds& thresholds,
                             const PinpointOptions& options, uint64_t seed);

}  // namespace culprit
