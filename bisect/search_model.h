#pragma once

// The statistical model behind the noise-aware bisect: a probability for every
// hypothesis "commit j is the first bad commit", computed from every paired
// measurement taken so far. It is a pure function of the observations, so a
// resumed search recomputes exactly the posterior the interrupted one had.
//
// Commits are indexed 0..N: 0 is the known-good commit, N the known-bad one.
// Hypothesis j (1..N) says commits j..N carry the regression and 0..j-1 do not.
// An observation of `commit` c against `baseline` b is a batch of paired
// log-ratios d = ln(time of c) - ln(time of b); under hypothesis j their
// location is δ when b < j <= c (c bad, b good) and 0 otherwise, with a
// Student-t scatter of scale s (heavy tails, so one outlier run cannot swing
// the posterior). δ and s are unknown: they are re-estimated by EM from all
// observations, each weighted by the posterior probability that it compared a
// bad commit with a good one.

#include <span>
#include <vector>

namespace culprit {

/// One batch of paired measurements of `commit` against `baseline` (baseline < commit).
struct Observation {
  int commit = 0;
  int baseline = 0;
  /// True for pairs taken to verify a culprit against its parent: they count as
  /// evidence like any other pairs, and also form the verification's fresh sample.
  bool verification = false;
  /// d = ln(commit's value) - ln(baseline's value), one per pair, each pair
  /// measured back to back. Positive means the commit is slower.
  std::vector<double> d;
};

/// The posterior and the fitted effect and noise.
struct ModelFit {
  /// Size N + 1; element j is P(first bad commit is j | observations); element 0 is 0.
  std::vector<double> posterior;
  double effect = 0;  ///< δ: log-ratio of a bad commit over a good one.
  double noise = 0;   ///< s: scale of the Student-t scatter of one pair's d.
};

/// Degrees of freedom of the Student-t pair likelihood (heavy enough that a 3× outlier
/// among pairs with 10% noise moves the posterior by a bounded amount).
inline constexpr double kStudentDof = 4.0;

/// The floor on the fitted noise scale s of a timed metric (wall time, CPU time): 2% per pair.
/// Timings are quantised and scripted ones repeat exactly, so a batch's d can all be equal
/// while the metric's real spread is percents; the floor keeps one such pair from settling a
/// step on its own (search_model.cc says how much it may carry).
inline constexpr double kMinNoise = 0.02;
/// The floor for a near-deterministic metric (IsNearDeterministicMetric: instructions):
/// 0.1%, the spread of an arm's runs the near-deterministic rule still calls repeats
/// (kNearDeterministicSpread, probes/verdict.h). An instruction count's identical repeats are
/// the metric, not a quantisation of it (10 runs spread by 0.0004%: docs/statistics.md), so a
/// floor of 2% would claim noise that is not there and make the search measure each step
/// and plan each verification as if it were wall time (docs/bisect.md, "A real regression on
/// instructions": 4 pairs a step and a first look at 12 pairs where 2 and 4 do). A metric
/// that does spread fits its own s above either floor.
inline constexpr double kNearDeterministicMinNoise = 0.001;

/// Fits δ and s by EM (alternating the posterior and a weighted Student-t fit, a fixed
/// number of iterations from a deterministic start) and returns the posterior under the
/// fit. With a uniform prior over hypotheses 1..N. With no observations the posterior is
/// uniform, effect and noise 0. Requires n_commits >= 1 and 0 <= baseline < commit <= N
/// for every observation. Deterministic: same observations, same bits.
///
/// `excluded` (ascending, each in 1..N) are hypotheses with prior zero: commits a verification
/// refuted (bisect/search.h). They get posterior 0 and weigh nothing in the fit; with none the
/// fit is bit for bit the one without the argument. When every hypothesis is excluded the
/// posterior is all zeros.
///
/// `min_noise` (> 0) is the floor on s: kMinNoise for a timed metric, kNearDeterministicMinNoise
/// for a near-deterministic one (SearchNoiseFloor).
ModelFit FitSearchModel(int n_commits, std::span<const Observation> observations,
                        std::span<const int> excluded = {}, double min_noise = kMinNoise);

/// The floor on the search model's noise for a metric that is (or is not) near-deterministic.
inline double SearchNoiseFloor(bool near_deterministic) {
  return near_deterministic ? kNearDeterministicMinNoise : kMinNoise;
}

}  // namespace culprit
