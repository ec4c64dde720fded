#pragma once

// The three verdicts of the design, applied to a shift interval on the log
// scale against the reproducibility band ±b.

#include <optional>
#include <span>
#include <string>

#include "probes/statistics.h"
#include "records/verdict.h"

namespace culprit {

struct VerdictResult {
  Verdict verdict = Verdict::kInconclusive;
  bool excludes_zero = false;   ///< The interval excludes 0 on the log scale (ratio 1).
  double detectable_ratio = 0;  ///< Smallest ratio (> 1) this sitting could have called
                                ///< EFFECT with 80% power.
  std::string explanation;      ///< One sentence for the user.
};

/// The log-scale band edge τ = ln(1 + band). The band is symmetric on the log scale: ratios in
/// (1/(1+b), 1+b) are ties, so a band of 5% reaches down to -4.76%, not -5%: B 5% slower than A
/// is the same distance from a tie as A 5% slower than B.
double BandEdge(double band);

/// The rule itself, on an interval [low, high] of the log ratio against τ (BandEdge):
/// kEffect when low > τ or high < -τ, kNull when -τ < low and high < τ, else kInconclusive.
/// Strict both ways: an interval touching the edge is neither beyond it nor inside it. Decide
/// and the bisect's verification both apply it, so the two can never disagree.
Verdict Classify(double low, double high, double tau);

/// Applies the design's verdicts to `shift` with band b >= 0 (τ = BandEdge(b)):
///  - EFFECT when low > τ or high < -τ (strict: an interval touching the edge is not beyond it);
///  - NULL when -τ < low and high < τ (strict: touching the edge is not inside; with b = 0
///    NULL is impossible, as a zero-width band should make it);
///  - INCONCLUSIVE otherwise, saying whether the interval excludes 0 ("real but small") and
///    the effect the sitting could have detected.
/// detectable_ratio = exp(τ + w (z_{1-α/2} + z_{0.8}) / z_{1-α/2}), with w the interval's
/// half-width and α = 1 - shift.confidence: the true shift at which the interval, of the same
/// width, would be expected to clear τ with 80% power. The explanation of an INCONCLUSIVE
/// suggests how many pairs would settle it, assuming the half-width shrinks as 1/√n.
VerdictResult Decide(const ShiftEstimate& shift, double band);

/// What the pairs' tails say beside the Hodges–Lehmann shift. The pseudo-median ignores a slow
/// tail (B twice as slow in 15% of its runs: mean x1.15, pseudo-median x1.00), so a tie read
/// from it alone can hide an intermittent slowdown; a NULL needs the tails to agree too.
struct TailEvidence {
  /// The mean of the log-ratios with its t interval (MeanShiftEstimate) at the look's
  /// confidence; nullopt when there are too few pairs for one.
  std::optional<ShiftEstimate> mean;
  /// The pairs beyond TailThreshold either side of the Hodges–Lehmann estimate.
  TailBalance tails;
  /// The α at which a NULL must have had the pairs to sight a slow tail (PairsToSightTail);
  /// 0: the look's, 1 - the mean's confidence. A table gives its cell's whole α: the chance
  /// that n pairs hold no tail run only falls as n grows, so one bound at the first look that
  /// may state a NULL covers every later look (docs/statistics.md, "Error rate across the
  /// table").
  double sighting_alpha = 0;
  /// Pairs set aside at each end of the sorted log-ratios before the mean (Yuen's trimmed
  /// mean, GatherTailEvidence's `trim`): 0, the plain mean, or 1 from PairsToTrimTail pairs on
  /// (a table's cells: one wild run, in the arm or in the baseline, does not hold a tie back).
  int trimmed = 0;
  /// The mean a tie reads instead of `mean` (TrimForTie): Yuen's trimmed mean with
  /// `tie_trimmed` pairs set aside at each end, at the same confidence; nullopt when the look
  /// sets none aside. `mean` stays the plain mean: it is the one reported, and the one an EFFECT
  /// of the mean alone is read from (a slow tail the trim would thin shows there first).
  std::optional<ShiftEstimate> tie_mean;
  int tie_trimmed = 0;
};

/// A pair is in a tail when it lies beyond this many robust standard deviations (1.4826 MAD)
/// of the pairs from the centre, and never closer than the band's edge.
inline constexpr double kTailScales = 3;
/// A sign test of the tails at this p or below is a hint that they lean one way; then a NULL
/// needs the mean's interval inside the band too. This check can only turn a NULL into
/// INCONCLUSIVE, so it needs no share of the sitting's α. 1: the mean is asked of every tie. A hint
/// at p <= 0.5 (two slow tail pairs and no fast one) was cheaper but let a part holding an
/// intermittent x2 in 15% of its runs pass as a tie in 3 of 10 simulated bisects, where
/// symmetric outliers gave the tails a fast pair or two to balance the slow ones.
inline constexpr double kTailHint = 1.0;

/// A NULL is stated only on enough pairs to have seen, with probability at least 1 - α of the
/// look, one slow run of a tail in this share of B's runs: a tail the pairs never caught looks
/// exactly like a clean tie, whatever the statistic. 15%: B twice as slow in 15% of its runs
/// is a mean x1.15, three times a 5% band.
inline constexpr double kTailSightingRate = 0.15;

/// The share of a look's α that a tie's tail sighting holds: a slow tail of kTailSightingRate
/// hides from the pairs a look states a tie on (none of its runs among them, or only in the
/// pairs set aside) with probability at most this share of the look's α. Half, not all, because
/// a tail run the mean reads does not always undo the tie: two slow pairs of 56 move the mean
/// by x1.025, and its interval can still lie inside a 5% band. In the simulator's world of that
/// tail ("x2 in 15% then +30%", 1,200 bisects over seeds 1-12) the look's whole α let 12 ties
/// stand over the slow commit (1.0%), half of it 2 (0.17%). The other half is a margin measured
/// there, not a bound derived. A sighting asked once at a whole α (TailEvidence::sighting_alpha:
/// a table's cells, SittingOptions::sight_tail_once) keeps that α.
inline constexpr double kTailSightingShare = 0.5;

/// The α at which a look of two-sided level `look_alpha` sights a slow tail:
/// kTailSightingShare · look_alpha.
inline double TailSightingAlpha(double look_alpha) { return kTailSightingShare * look_alpha; }

/// The pairs a NULL needs at a look of two-sided level `alpha`: the least n with
/// (1 - kTailSightingRate)^n <= alpha (29 at alpha 0.0096, 19 at 0.05).
int PairsToSightTail(double alpha);

/// The pairs from which a tie's mean may set aside its largest and smallest pair (trim 1)
/// with the sighting still held at `alpha`. A tail run set aside is not seen, so trimming one
/// pair spends part of the sighting: a slow tail hides from a tie stated at a look of N0 pairs
/// untrimmed (no tail run in them) or at a later look of N1 pairs trimmed (at most one in them),
/// and the chance of either, (1-r)^N0 + N0·r·(1-r)^(N1-1), is at most its value at one end,
/// N0 = n0 (PairsToSightTail(alpha), the fewest pairs a tie is stated on) or N0 = N1
/// (P(Binomial(N1, r) <= 1)); the later looks trimmed hide it only if N1 does (at most one tail
/// run in more pairs implies it in fewer). So: the least n with both ends <= alpha, r =
/// kTailSightingRate (66 at 0.05 / 26, 59 at 0.05 / 13, 41 at 0.05). Requires 0 < alpha < 1.
int PairsToTrimTail(double alpha);

/// The largest share of a paired sitting's pairs its tie's mean sets aside at each end
/// (TrimAtLook). A wild run (a preempted or migrated run, one sample in fifty on a shared host)
/// lands in either arm, so it puts a pair far out on either side: a few of them leave the
/// centre where it is but widen the plain mean's t interval several times over, and a tie
/// that the Hodges–Lehmann interval showed at 40 pairs waited for 160. 2.5% a side keeps a
/// slow tail in 15% of the runs in the mean: at least 12.5% of the pairs stay slow, a mean
/// ×1.09 for B twice as slow, beyond a 5% band.
inline constexpr double kTrimShare = 0.025;

/// P(Binomial(n, kTailSightingRate) <= k): the chance that n pairs hold at most k runs of a
/// slow tail in kTailSightingRate of B's runs. Requires 0 <= k, 0 <= n.
double TailRunsAtMost(int k, int n);

/// The pairs a look of a paired sitting of `n` pairs at two-sided level `alpha` sets aside at
/// each end of its mean: the largest k <= floor(`share` · n) with TailRunsAtMost(k, n) <=
/// alpha, so that a tail of kTailSightingRate is still sighted beyond the pairs set aside at
/// that look's α (TailDisagreement); 0 when none is (the plain mean, sighted by
/// PairsToSightTail). Requires 0 < alpha < 1, share >= 0.
int TrimAtLook(int n, double alpha, double share = kTrimShare);

/// max(τ, kTailScales · 1.4826 · MAD(d)), τ = BandEdge(band); τ when d is empty.
double TailThreshold(std::span<const double> d, double band);

/// The mean's interval at `confidence` (the look's nominal one) and the tail balance around
/// `center` (the Hodges–Lehmann estimate) beyond TailThreshold(d, band). With `trim` > 0 the
/// mean is Yuen's trimmed mean: the `trim` largest and smallest pairs set aside, its standard
/// error from the winsorized pairs, sqrt((n-1)·s_w² / (h(h-1))), h = n - 2·trim, with a
/// Student-t of h - 1 degrees of freedom (the plain mean's t interval at trim 0); no mean when
/// h < 2. `trimmed` says so. `trim` is 0 or 1 (the sighting is paid for one: PairsToTrimTail).
TailEvidence GatherTailEvidence(std::span<const double> d, double center, double confidence,
                                double band, int trim = 0);

/// Why the tails do not let the pairs be called a tie, or "" when they do: the mean's
/// interval is missing, or the sign test of the tails gives p <= kTailHint and the tie's mean
/// (tie_mean when there is one, else mean) reaches outside the band, or the pairs could have
/// missed a slow tail: fewer than PairsToSightTail(the sighting α: sighting_alpha, or
/// TailSightingAlpha(1 - the mean's confidence)); for a mean trimmed under a whole cell's
/// sighting_alpha, fewer than PairsToTrimTail of it; with a tie_mean (trimmed at the look's
/// sighting α, TrimForTie), TailRunsAtMost(tie_trimmed, n) above that α.
std::string TailDisagreement(const TailEvidence& tails, double band);

/// Gives `tails` (GatherTailEvidence's, untrimmed, at a look's own α: sighting_alpha 0) the
/// trimmed mean a tie reads: TrimAtLook(d.size(), TailSightingAlpha(1 - the mean's
/// confidence), `share`) pairs set aside at each end of d. Nothing when that is 0, when share
/// <= 0, when d holds a value that is not finite (a censored pair), or for a sighting asked
/// once (sighting_alpha > 0).
void TrimForTie(std::span<const double> d, double share, TailEvidence* tails);

/// The verdict rule with the tails (Classify is its Hodges–Lehmann half):
///  - kEffect when the shift's interval is beyond the band (as Classify), or else when the
///    mean's interval is and the tails lean its way (their sign test at p <= 0.05, more pairs
///    on the mean's side): an intermittent change moves the mean and not the pseudo-median,
///    and it moves them by a lopsided tail. Without the tails' condition the mean's interval is
///    a second route to an EFFECT of the same pairs, with false EFFECTs of its own;
///  - kNull only when the shift's interval is inside the band and TailDisagreement is empty;
///  - kInconclusive otherwise.
Verdict ClassifyWithTails(const ShiftEstimate& shift, const TailEvidence& tails, double band);

/// Whether `shift` and `tails` rule out every move of ×(1 + `alternative`) or more either way:
/// ClassifyWithTails against a band of `alternative` gives kNull (the interval inside
/// ±ln(1 + alternative), and the mean's too, on enough pairs to have sighted a slow tail).
/// The claim of a NULL against a wider band: wrong only when the interval misses a true shift
/// beyond ±ln(1 + alternative) on its own side, as a NULL's is (docs/statistics.md, "A further
/// move against an explicit alternative"). Requires alternative > 0.
bool RulesOutMove(const ShiftEstimate& shift, const TailEvidence& tails, double alternative);

/// Decide with the tails: the verdict of ClassifyWithTails. An EFFECT of the mean alone says
/// so (the mean ratio and its interval, and how the tails split); a tie of the pseudo-median
/// that the tails contradict is INCONCLUSIVE and says why (never NULL); a NULL says that the
/// mean ratio is inside the band too. Otherwise as Decide(shift, band).
VerdictResult Decide(const ShiftEstimate& shift, double band, const TailEvidence& tails);

/// The near-deterministic rule (docs/statistics.md, "Near-deterministic metrics"): for a
/// metric that repeats to within a small fraction of itself (IsNearDeterministicMetric:
/// instructions), a few runs per arm show the whole of its spread, and the ranges of the two
/// arms decide without ranks or α. It applies once each arm has kNearDeterministicRepeats
/// runs and each arm's runs lie within kNearDeterministicSpread of each other.
inline constexpr size_t kNearDeterministicRepeats = 3;
/// The most an arm's runs may spread, max/min - 1, for the near-deterministic rule: 0.1%,
/// 50 times below the default 5% band and the bound for instruction counts with
/// ASLR off (measured far below it: docs/statistics.md).
inline constexpr double kNearDeterministicSpread = 0.001;

/// What the near-deterministic rule says of the runs so far.
struct NearDeterministicLook {
  enum class State {
    kTooFew,     ///< An arm has fewer than `repeats` runs.
    kSpread,     ///< An arm's runs spread by more than `max_spread`: not near-deterministic.
    kUndecided,  ///< Both arms repeat, but the range of B/A reaches a band edge.
    kDecided,    ///< Both arms repeat and the range of B/A is beyond the band or inside it.
  };
  State state = State::kTooFew;
  Verdict verdict = Verdict::kInconclusive;  ///< kEffect or kNull when kDecided.
  double spread[2] = {0, 0};                 ///< max/min - 1 of each arm's runs.
  /// On the log scale: estimate ln(median B / median A), low ln(min B / max A), high
  /// ln(max B / min A) (every ratio of a run of B to a run of A lies in it; identical repeats
  /// give a point); n the fewer runs of the two arms; confidence 1 and exact: not a
  /// confidence interval but the observed range. Meaningful from kSpread on.
  ShiftEstimate range;
  std::string explanation;  ///< One sentence for the user.
};

/// The near-deterministic rule over each arm's runs `a` and `b` (positive values): kEffect
/// when the range of B/A lies beyond the band (Classify on [range.low, range.high] gives
/// kEffect: the arms' ranges are disjoint by more than the band), kNull when it lies inside
/// (Classify gives kNull), else kUndecided; kTooFew and kSpread as their names say. Pure.
NearDeterministicLook LookNearDeterministic(std::span<const double> a, std::span<const double> b,
                                            double band, size_t repeats = kNearDeterministicRepeats,
                                            double max_spread = kNearDeterministicSpread);

/// "1.112 [1.061, 1.166]": exp of a log-scale estimate and its interval.
std::string FormatMeanRatio(const ShiftEstimate& mean);

/// Whether sampling can stop at this look: the verdict is EFFECT or NULL.
bool IsDecisive(const ShiftEstimate& shift, double band);

/// What a sitting that did not decide at a look may still expect of its last look, if the
/// noise to come is the noise so far (the interval's half-width shrinking as 1/√n).
struct LastLookReach {
  bool tie_reachable = true;     ///< A NULL is within reach of the last look.
  bool effect_reachable = true;  ///< An EFFECT is.
  /// Pairs the interval would need to fit inside the band around the current estimate, at the
  /// last look's confidence; 0 when the estimate is at or beyond the band's edge.
  double pairs_for_tie = 0;
};

/// How many standard errors of the current estimate ReachOfLastLook grants the true shift
/// towards whichever verdict it asks about: the benefit of the doubt that keeps a futility
/// stop from ending a sitting the last look would have decided.
inline constexpr double kFutilityMargin = 1.5;

/// The reach of the last look (`last_pairs` pairs at nominal two-sided `last_alpha`) from the
/// interval `now` (at the confidence `now` achieved, on now.n pairs), against band b. With se
/// the current standard error (the half-width over its z), w the last look's projected
/// half-width (z_{1-last_alpha/2} · se · √(now.n / last_pairs)) and m = |estimate|:
///  - a tie is reachable when max(0, m - kFutilityMargin·se) + w < τ;
///  - an effect when m + kFutilityMargin·se - w > τ.
/// Stopping when neither is reachable only ever turns a would-be verdict into INCONCLUSIVE,
/// so it cannot raise the rate of a wrong EFFECT or NULL; what it costs is the rare sitting
/// whose last look would have decided after all. An interval of zero width reaches both.
LastLookReach ReachOfLastLook(const ShiftEstimate& now, double band, int last_pairs,
                              double last_alpha);

}  // namespace culprit
