#pragma once

// Rank statistics for comparing two arms. Everything works on the log scale: a
// paired design gives d = ln(B) - ln(A) per pair, and the ratio B/A is exp of
// the shift estimated here. The estimators are Hodges–Lehmann (median of the
// Walsh averages, or of all cross differences for unpaired data) and their
// intervals are the matching rank-test inversions, which need no assumption
// beyond symmetry (paired) or a pure shift (unpaired): timing noise is skewed
// and heavy-tailed, so a t interval would lie.
//
// Pure functions over spans: no I/O, no global state.

#include <cstddef>
#include <span>
#include <vector>

#include "base/median.h"
#include "base/result.h"

namespace culprit {

/// A location shift with its confidence interval, on the log scale.
struct ShiftEstimate {
  double estimate = 0;    ///< Hodges–Lehmann estimate.
  double low = 0;         ///< Lower end of the confidence interval (closed).
  double high = 0;        ///< Upper end of the confidence interval (closed).
  double confidence = 0;  ///< Confidence actually achieved (exact intervals are discrete, so
                          ///< this is at least the requested one).
  size_t n = 0;           ///< Pairs used (paired), or n1 + n2 (unpaired).
  bool exact = false;     ///< Exact null distribution (true) or normal approximation (false).
};

/// How the null distribution of a rank statistic is evaluated.
enum class RankMethod {
  kAuto,    ///< Exact up to the thresholds below, normal approximation beyond.
  kExact,   ///< Always exact (for tests and for checking the approximation).
  kNormal,  ///< Always the normal approximation with continuity correction.
};

/// Largest n for which SignedRankEstimate uses the exact distribution under kAuto. At n = 60 the
/// approximation already matches the exact critical value to within one rank (see the tests).
inline constexpr size_t kMaxExactSignedRankN = 60;
/// Largest group size for which RankSumEstimate uses the exact distribution under kAuto (both
/// groups must be at most this).
inline constexpr size_t kMaxExactRankSumN = 50;

/// Standard normal CDF Φ(x).
double NormalCdf(double x);
/// Standard normal quantile Φ⁻¹(p) for p in (0, 1); -inf/+inf at 0/1. Accurate to ~1e-15.
double NormalQuantile(double p);

// Median (mean of the two middle values for even sizes) is base/median.h's, included above.
/// Sample quantile with linear interpolation between order statistics (the "type 7"
/// definition: q = 0 is the minimum, q = 1 the maximum). Requires non-empty values, q in [0, 1].
double Quantile(std::span<const double> values, double q);
/// Median of |x - Median(x)|, unscaled (multiply by 1.4826 for a normal sigma). Requires
/// non-empty values.
double MedianAbsoluteDeviation(std::span<const double> values);

/// Which order statistics bound a rank-based confidence interval: the interval is
/// [s_(k), s_(count + 1 - k)] over the `count` sorted Walsh averages or cross differences
/// (1-based). k == 0 means no interval reaches the requested confidence at this size.
struct RankInterval {
  size_t k = 0;
  double confidence = 0;  ///< Achieved two-sided confidence, 1 - 2 P(T <= k - 1).
  bool exact = false;
};

/// Exact null distribution of the Wilcoxon signed-rank statistic W+ for n untied, nonzero
/// differences: element w is P(W+ = w), w = 0 .. n(n+1)/2.
std::vector<double> SignedRankNullDistribution(size_t n);
/// Exact null distribution of the Mann–Whitney statistic U for group sizes m and n: element u
/// is P(U = u), u = 0 .. m n.
std::vector<double> RankSumNullDistribution(size_t m, size_t n);

/// The order statistic index for a signed-rank interval at two-sided `confidence`: the largest
/// k with P(W+ <= k - 1) <= (1 - confidence) / 2. For n = 10 at 0.95 this is 9 (table critical
/// value T = 8). Requires confidence in (0, 1).
RankInterval SignedRankOrderIndex(size_t n, double confidence,
                                  RankMethod method = RankMethod::kAuto);
/// The same for the Mann–Whitney interval with group sizes m and n (largest k with
/// P(U <= k - 1) <= (1 - confidence) / 2).
RankInterval RankSumOrderIndex(size_t m, size_t n, double confidence,
                               RankMethod method = RankMethod::kAuto);

/// Smallest number of pairs for which a signed-rank interval exists at `confidence` (6 at 0.95,
/// 8 at 0.99). Requires confidence in (0, 1).
size_t MinPairsForSignedRank(double confidence);

/// Paired: Hodges–Lehmann pseudo-median of d (median of the n(n+1)/2 Walsh averages
/// (d_i + d_j) / 2, i <= j) and the Wilcoxon signed-rank confidence interval at `confidence`,
/// exact for n <= kMaxExactSignedRankN.
///
/// Ties and zeros: all n differences are kept (zeros are not dropped, unlike the textbook
/// test) and the interval is the closed span between two order statistics of the Walsh
/// averages, so tied values at an end are inside it. The null distribution is the untied one;
/// for the normal approximation the variance n(n+1)(2n+1)/24 is used without the tie
/// correction, which can only overstate the variance and so widen the interval. With
/// quantised timings the closed interval keeps at least the stated coverage (checked by
/// simulation in the tests); the reported confidence is the untied one.
///
/// Errors: empty or non-finite input, confidence outside (0, 1), or n too small for any
/// interval at that confidence (the message names the minimum n). O(n²) time and memory.
Result<ShiftEstimate> SignedRankEstimate(std::span<const double> d, double confidence,
                                         RankMethod method = RankMethod::kAuto);

/// Unpaired: two-sample Hodges–Lehmann shift of y relative to x (median of the m n differences
/// y_j - x_i) with the Mann–Whitney confidence interval, exact when both groups have at most
/// kMaxExactRankSumN values. Ties are handled as for SignedRankEstimate (untied null
/// distribution, no variance correction). Errors as for SignedRankEstimate.
Result<ShiftEstimate> RankSumEstimate(std::span<const double> x, std::span<const double> y,
                                      double confidence, RankMethod method = RankMethod::kAuto);

/// Student's t quantile: the t with P(T <= t) = p for T with `dof` > 0 degrees of freedom, for
/// p in (0, 1); -inf/+inf at 0/1. From the regularized incomplete beta function, inverted by
/// bisection to ~1e-12 relative; accurate in the far tails the early sequential looks ask for.
double StudentTQuantile(double p, double dof);

/// Paired: the mean of d (ln(B) - ln(A) per pair, so exp of it is the geometric mean of the
/// pairs' ratios) with the Student-t interval at `confidence`, on n - 1 degrees of freedom.
/// Unlike the Hodges–Lehmann shift it moves with a slow tail: B twice as slow in 15% of its
/// runs moves the mean by 0.15 ln 2 (x1.11) and the pseudo-median by almost nothing. The
/// interval rests on the central limit theorem rather than on symmetry, so it is a check on
/// the rank interval, not a replacement. `exact` is false. Errors: fewer than 2 pairs,
/// non-finite input, confidence outside (0, 1).
Result<ShiftEstimate> MeanShiftEstimate(std::span<const double> d, double confidence);

/// The Student-t interval `mean` ± t_{dof, (1+confidence)/2} · `se` as a ShiftEstimate of `n`
/// pairs (`exact` false): what a mean's and a trimmed mean's intervals share. The quantile is
/// taken from the tail, so a confidence within 1e-16 of 1 still gives a finite interval.
/// Requires 0 < confidence < 1 and dof > 0.
ShiftEstimate StudentTInterval(double mean, double se, double dof, double confidence, size_t n);

/// How the pairs far from the centre split between the two sides: the tails of a pure shift
/// are mirror images of each other, an intermittent slowdown's are not.
struct TailBalance {
  double center = 0;     ///< Where the tails are measured from (log scale).
  double threshold = 0;  ///< A pair is in a tail when |d - center| > threshold.
  int slow = 0;          ///< Pairs with d > center + threshold (B slower).
  int fast = 0;          ///< Pairs with d < center - threshold (B faster).
  double p_value = 1;    ///< Exact two-sided sign test of slow against fast (SignTestTwoSided).
};

/// Counts the pairs of d beyond `threshold` either side of `center` and tests their split.
/// When d is symmetric about `center` (the signed-rank interval's own assumption) the sign of
/// d - center is a fair coin independent of |d - center|, so given slow + fast the count of
/// slow pairs is Binomial(slow + fast, 1/2), whatever the threshold chosen from the |d - center|.
TailBalance TestTailBalance(std::span<const double> d, double center, double threshold);

/// Exact two-sided binomial test of k successes in n trials at p = 1/2: the probability of a
/// split at least as uneven, min(1, 2 P(X <= min(k, n - k))). 1 when n == 0.
double SignTestTwoSided(int k, int n);

/// Fisher's exact test of two proportions, two-sided: the probability, with the margins of the
/// 2x2 table fixed, of a table at most as likely as the observed one (a_failed of a_runs against
/// b_failed of b_runs). 1 when either arm has no runs or nothing failed or everything did.
/// Used for failure rates: a run that crashes is information about its arm.
double FisherExactTwoSided(int a_failed, int a_runs, int b_failed, int b_runs);

}  // namespace culprit
