#pragma once

// The three verdicts of the design, applied to a shift interval on the log
// scale against the reproducibility band ±b.

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
