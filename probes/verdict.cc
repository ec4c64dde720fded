#include "probes/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "base/strings.h"
#include "probes/log_interval.h"

namespace culprit {
namespace {

// Power the detectable effect is quoted at.
constexpr double kPower = 0.8;
// Beyond this many times the current pairs, suggesting a number is not useful advice.
constexpr double kMaxUsefulGrowth = 64;

std::string DescribeInterval(const ShiftEstimate& s) {
  const Estimate e = LogInterval::Of(s).ToRatioEstimate();
  return fmt::format("{} [{}, {}]", PercentChange(e.ratio), PercentChange(e.low),
                     PercentChange(e.high));
}

// What would settle an INCONCLUSIVE: the half-width that would put the interval
// around the current estimate entirely on one side of the band edge.
std::string MorePairsAdvice(const ShiftEstimate& s, double tau) {
  double half_width = (s.high - s.low) / 2;
  double distance = std::fabs(std::fabs(s.estimate) - tau);
  if (s.n == 0 || half_width <= 0) return "collect more pairs";
  double needed = static_cast<double>(s.n) * std::pow(half_width / distance, 2);
  if (!(needed <= kMaxUsefulGrowth * static_cast<double>(s.n))) {
    return "the estimate sits at the band's edge, so only far more pairs would settle it";
  }
  // At least double: advice to collect as many pairs as were already taken is none.
  size_t pairs = 2 * s.n;
  while (static_cast<double>(pairs) < needed) pairs *= 2;
  return fmt::format("collect more pairs (--max-pairs {})", pairs);
}

// A sign test of the tails at this p or below: the tails lean one way.
constexpr double kTailsLean = 0.05;

// Whether the tails lean the way `mean` moved: their sign test at kTailsLean or below, with
// more pairs on the mean's side. An EFFECT of the mean alone claims an intermittent change,
// and this is the part of that claim the mean's interval does not test.
bool TailsLeanWithTheMean(const ShiftEstimate& mean, const TailBalance& t) {
  if (t.p_value > kTailsLean) return false;
  return mean.estimate > 0 ? t.slow > t.fast : t.fast > t.slow;
}

}  // namespace

Verdict Classify(double low, double high, double tau) {
  if (low > tau || high < -tau) return Verdict::kEffect;
  if (-tau < low && high < tau) return Verdict::kNull;
  return Verdict::kInconclusive;
}

double BandEdge(double band) {
  assert(band >= 0);
  // Literally ln(1 + b), not log1p(b): the two differ in the last bit, and callers and records
  // that compute the edge as the design writes it must land on the same side of it.
  return std::log(1 + band);
}

VerdictResult Decide(const ShiftEstimate& shift, double band) {
  double tau = BandEdge(band);
  VerdictResult result;
  result.excludes_zero = shift.low > 0 || shift.high < 0;

  // z_{1-α/2} from the tail, so that an achieved confidence within 1e-16 of 1
  // (early sequential looks) still gives a finite quantile.
  double alpha = std::max(1 - shift.confidence, 1e-300);
  double z_alpha = -NormalQuantile(alpha / 2);
  double z_power = NormalQuantile(kPower);
  double half_width = (shift.high - shift.low) / 2;
  result.detectable_ratio = std::exp(tau + half_width * (z_alpha + z_power) / z_alpha);

  std::string band_text = fmt::format("±{:g}%", band * 100);
  std::string interval = DescribeInterval(shift);
  result.verdict = Classify(shift.low, shift.high, tau);
  if (result.verdict == Verdict::kEffect) {
    result.explanation = fmt::format("an effect: ratio {:.3f}x, {}, entirely beyond the {} band",
                                     std::exp(shift.estimate), interval, band_text);
  } else if (result.verdict == Verdict::kNull) {
    result.explanation =
        fmt::format("a tie: {} lies entirely inside the {} band", interval, band_text);
  } else {
    std::string what;
    if (!result.excludes_zero) {
      what = fmt::format("not settled: {} includes no change and reaches outside the {} band",
                         interval, band_text);
    } else if (std::fabs(shift.estimate) < tau) {
      what = fmt::format(
          "real but small: {} excludes no change but crosses the edge of the {} "
          "band",
          interval, band_text);
    } else {
      what = fmt::format(
          "real, possibly beyond the band: {} excludes no change but crosses the "
          "edge of the {} band",
          interval, band_text);
    }
    result.explanation = fmt::format("{}; this sitting could have detected ≥ {:.3f}x; {}", what,
                                     result.detectable_ratio, MorePairsAdvice(shift, tau));
  }
  return result;
}

double TailThreshold(std::span<const double> d, double band) {
  const double tau = BandEdge(band);
  if (d.empty()) return tau;
  return std::max(tau, kTailScales * 1.4826 * MedianAbsoluteDeviation(d));
}

namespace {

// Yuen's trimmed mean of d with `trim` values set aside at each end, and its Student-t interval
// on h - 1 degrees of freedom, h = n - 2 trim; nullopt when h < 2 or the confidence is invalid.
std::optional<ShiftEstimate> TrimmedMean(std::span<const double> d, double confidence, int trim) {
  const size_t g = static_cast<size_t>(trim);
  if (d.size() < 2 * g + 2 || !(confidence > 0 && confidence < 1)) return std::nullopt;
  std::vector<double> sorted(d.begin(), d.end());
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size(), h = n - 2 * g;
  double kept = 0;
  for (size_t i = g; i < n - g; ++i) kept += sorted[i];
  const double mean = kept / static_cast<double>(h);
  // The winsorized pairs: each set-aside value replaced by the nearest kept one.
  double winsorized = 0;
  for (size_t i = 0; i < n; ++i) winsorized += sorted[std::clamp(i, g, n - g - 1)];
  winsorized /= static_cast<double>(n);
  double ss = 0;
  for (size_t i = 0; i < n; ++i) {
    const double w = sorted[std::clamp(i, g, n - g - 1)] - winsorized;
    ss += w * w;
  }
  const double hd = static_cast<double>(h);
  return StudentTInterval(mean, std::sqrt(ss / (hd * (hd - 1))), hd - 1, confidence, n);
}

}  // namespace

TailEvidence GatherTailEvidence(std::span<const double> d, double center, double confidence,
                                double band, int trim) {
  TailEvidence evidence;
  if (trim > 0) {
    if (std::ranges::all_of(d, [](double x) { return std::isfinite(x); })) {
      evidence.mean = TrimmedMean(d, confidence, trim);
    }
    evidence.trimmed = trim;
  } else if (Result<ShiftEstimate> mean = MeanShiftEstimate(d, confidence)) {
    evidence.mean = *mean;
  }
  evidence.tails = TestTailBalance(d, center, TailThreshold(d, band));
  return evidence;
}

NearDeterministicLook LookNearDeterministic(std::span<const double> a, std::span<const double> b,
                                            double band, size_t repeats, double max_spread) {
  NearDeterministicLook look;
  if (a.size() < repeats || b.size() < repeats || a.empty() || b.empty()) {
    look.explanation = fmt::format("fewer than {} runs of each arm", repeats);
    return look;
  }
  const auto [a_min, a_max] = std::minmax_element(a.begin(), a.end());
  const auto [b_min, b_max] = std::minmax_element(b.begin(), b.end());
  look.spread[0] = *a_max / *a_min - 1;
  look.spread[1] = *b_max / *b_min - 1;
  look.range.estimate = std::log(Median(b)) - std::log(Median(a));
  look.range.low = std::log(*b_min) - std::log(*a_max);
  look.range.high = std::log(*b_max) - std::log(*a_min);
  look.range.confidence = 1;
  look.range.n = std::min(a.size(), b.size());
  look.range.exact = true;
  const std::string spreads =
      fmt::format("A's {} runs spread by {:.3g}%, B's {} by {:.3g}%", a.size(),
                  100 * look.spread[0], b.size(), 100 * look.spread[1]);
  if (look.spread[0] > max_spread || look.spread[1] > max_spread) {
    look.state = NearDeterministicLook::State::kSpread;
    look.explanation = fmt::format(
        "{}, more than the {:.3g}% the near-deterministic rule allows: the usual rules decide",
        spreads, 100 * max_spread);
    return look;
  }
  const double tau = BandEdge(band);
  const Verdict verdict = Classify(look.range.low, look.range.high, tau);
  const std::string range = fmt::format("B/A {:.4f}, every pairing of runs in [{:.4f}, {:.4f}]",
                                        std::exp(look.range.estimate), std::exp(look.range.low),
                                        std::exp(look.range.high));
  if (verdict == Verdict::kInconclusive) {
    look.state = NearDeterministicLook::State::kUndecided;
    look.explanation = fmt::format("{}; {}, which reaches the edge of the ±{} band", spreads, range,
                                   PercentOf(band));
    return look;
  }
  look.state = NearDeterministicLook::State::kDecided;
  look.verdict = verdict;
  look.explanation = fmt::format(
      "{} ({}, within the near-deterministic rule's {:.3g}%): the whole range is {} the ±{} "
      "band",
      range, spreads, 100 * max_spread, verdict == Verdict::kEffect ? "beyond" : "inside",
      PercentOf(band));
  return look;
}

std::string FormatMeanRatio(const ShiftEstimate& mean) {
  return FormatRatioInterval(std::exp(mean.estimate), std::exp(mean.low), std::exp(mean.high));
}

namespace {

// "mean ratio", or for Yuen's trimmed mean what it set aside.
std::string MeanName(int trimmed) {
  return trimmed > 0 ? fmt::format(
                           "mean ratio (its {0} largest and {0} smallest pair{1} "
                           "set aside)",
                           trimmed, trimmed == 1 ? "" : "s")
                     : "mean ratio";
}
std::string MeanName(const TailEvidence& tails) { return MeanName(tails.trimmed); }

std::string DescribeTails(const TailBalance& t) {
  return fmt::format(
      "B slower beyond x{:.2f} of the typical pair in {}, faster in {} (sign test p = {:.2g})",
      std::exp(t.threshold), CountOf(t.slow, "pair"), t.fast, t.p_value);
}

}  // namespace

int PairsToSightTail(double alpha) {
  assert(alpha > 0 && alpha < 1);
  return static_cast<int>(std::ceil(std::log(alpha) / std::log1p(-kTailSightingRate) - 1e-9));
}

int PairsToTrimTail(double alpha) {
  assert(alpha > 0 && alpha < 1);
  const double r = kTailSightingRate, q = 1 - r;
  const int n0 = PairsToSightTail(alpha);
  for (int n = n0 + 1;; ++n) {
    // A tail hidden untrimmed at n0 pairs or trimmed at n; or at most one tail run in n.
    const double one_end = std::pow(q, n0) + n0 * r * std::pow(q, n - 1);
    const double other_end = std::pow(q, n) + n * r * std::pow(q, n - 1);
    if (std::max(one_end, other_end) <= alpha) return n;
  }
}

double TailRunsAtMost(int k, int n) {
  assert(k >= 0 && n >= 0);
  const double r = kTailSightingRate, q = 1 - r;
  // Summed term by term: P(X = i + 1) = P(X = i) · (n - i) / (i + 1) · r / q.
  double term = std::pow(q, n), sum = 0;
  for (int i = 0; i <= std::min(k, n); ++i) {
    sum += term;
    term *= static_cast<double>(n - i) / (i + 1) * r / q;
  }
  return std::min(sum, 1.0);
}

int TrimAtLook(int n, double alpha, double share) {
  assert(alpha > 0 && alpha < 1 && share >= 0);
  int k = static_cast<int>(std::floor(share * n + 1e-9));
  while (k > 0 && TailRunsAtMost(k, n) > alpha) --k;
  return k;
}

std::string TailDisagreement(const TailEvidence& tails, double band) {
  const double tau = BandEdge(band);
  std::vector<std::string> why;
  if (!tails.mean) {
    why.push_back("too few pairs for the mean's interval");
    return why.front();
  }
  // A tie reads the mean its look set aside wild pairs of (TrimForTie), when it did.
  const ShiftEstimate& mean = tails.tie_mean ? *tails.tie_mean : *tails.mean;
  const int trimmed = tails.tie_mean ? tails.tie_trimmed : tails.trimmed;
  // The mean answers for the tails only when they hint at a lopsided split: symmetric
  // outliers (both arms hit) leave the centre where it is but widen the mean's interval
  // several times over, and a tie would cost hundreds of pairs for nothing.
  const bool lopsided = tails.tails.p_value <= kTailHint;
  if (lopsided && Classify(mean.low, mean.high, tau) != Verdict::kNull) {
    // kTailHint is 1, so the mean is asked of every tie, tails balanced or not: the text says
    // the tails lean one way only when their sign test does (a demo probe once printed "the
    // tails lean one way (... in 0 pairs, faster in 0 ...)").
    if (tails.tails.p_value <= kTailsLean) {
      why.push_back(fmt::format(
          "the tails lean one way ({}) and the {} {} reaches outside the "
          "±{:g}% band",
          DescribeTails(tails.tails), MeanName(trimmed), FormatMeanRatio(mean), band * 100));
    } else {
      why.push_back(fmt::format("the {} {} reaches outside the ±{:g}% band (the tails: {})",
                                MeanName(trimmed), FormatMeanRatio(mean), band * 100,
                                DescribeTails(tails.tails)));
    }
  }
  const double sight_alpha =
      tails.sighting_alpha > 0 ? tails.sighting_alpha : TailSightingAlpha(1 - mean.confidence);
  const double clamped = std::clamp(sight_alpha, 1e-300, 0.5);
  const int n = static_cast<int>(mean.n);
  if (tails.tie_mean) {
    // Trimmed at the look's sighting α (TrimForTie): more than `trimmed` tail runs must be
    // likely.
    if (TailRunsAtMost(trimmed, n) > clamped) {
      why.push_back(fmt::format(
          "{} pairs could hold a slow tail in {:g}% of the runs only in the {} set aside at each "
          "end",
          n, kTailSightingRate * 100, trimmed));
    }
  } else {
    const int sight = trimmed > 0 ? PairsToTrimTail(clamped) : PairsToSightTail(clamped);
    if (n < sight) {
      why.push_back(
          fmt::format("{} pairs could miss a slow tail in {:g}% of the runs (seeing one takes {} "
                      "at α {:.2g}{})",
                      n, kTailSightingRate * 100, sight, clamped,
                      trimmed > 0 ? ", with a pair set aside at each end" : ""));
    }
  }
  std::string text;
  for (const std::string& w : why) text += (text.empty() ? "" : "; ") + w;
  return text;
}

void TrimForTie(std::span<const double> d, double share, TailEvidence* tails) {
  if (!tails->mean || share <= 0 || tails->sighting_alpha > 0) return;
  const double alpha = 1 - tails->mean->confidence;
  if (!(alpha > 0 && alpha < 1)) return;
  const int k = TrimAtLook(static_cast<int>(d.size()), TailSightingAlpha(alpha), share);
  if (k == 0 || !std::ranges::all_of(d, [](double x) { return std::isfinite(x); })) return;
  tails->tie_mean = TrimmedMean(d, tails->mean->confidence, k);
  tails->tie_trimmed = tails->tie_mean ? k : 0;
}

Verdict ClassifyWithTails(const ShiftEstimate& shift, const TailEvidence& tails, double band) {
  const double tau = BandEdge(band);
  const Verdict hl = Classify(shift.low, shift.high, tau);
  if (hl == Verdict::kEffect) return hl;
  // The mean beyond the band counts only with the tails leaning its way: the mean's t interval
  // is a second test of the same pairs, and without that condition it added its own false
  // EFFECTs of a noisy host to the rank interval's (a probe of a variable the program ignores
  // was called "an intermittent change" with its tails 0 pairs slow and 1 fast, CI 2026-12-07).
  if (tails.mean && Classify(tails.mean->low, tails.mean->high, tau) == Verdict::kEffect &&
      TailsLeanWithTheMean(*tails.mean, tails.tails)) {
    return Verdict::kEffect;
  }
  if (hl == Verdict::kNull && TailDisagreement(tails, band).empty()) return Verdict::kNull;
  return Verdict::kInconclusive;
}

bool RulesOutMove(const ShiftEstimate& shift, const TailEvidence& tails, double alternative) {
  assert(alternative > 0);
  return ClassifyWithTails(shift, tails, alternative) == Verdict::kNull;
}

VerdictResult Decide(const ShiftEstimate& shift, double band, const TailEvidence& tails) {
  VerdictResult result = Decide(shift, band);
  const Verdict verdict = ClassifyWithTails(shift, tails, band);
  const std::string band_text = fmt::format("±{:g}%", band * 100);
  if (verdict == result.verdict) {
    if (verdict == Verdict::kNull && tails.mean) {
      const ShiftEstimate& mean = tails.tie_mean ? *tails.tie_mean : *tails.mean;
      const std::string name = MeanName(tails.tie_mean ? tails.tie_trimmed : tails.trimmed);
      const bool inside = Classify(mean.low, mean.high, BandEdge(band)) == Verdict::kNull;
      result.explanation += inside ? fmt::format("; so does the {} {}", name, FormatMeanRatio(mean))
                                   : fmt::format(
                                         "; the tails are balanced ({}), so the {} {} is not "
                                         "needed to agree",
                                         DescribeTails(tails.tails), name, FormatMeanRatio(mean));
      if (tails.tie_mean) {
        result.explanation +=
            fmt::format(" (the mean ratio of every pair: {})", FormatMeanRatio(*tails.mean));
      }
    }
    if (verdict == Verdict::kInconclusive && tails.mean &&
        Classify(tails.mean->low, tails.mean->high, BandEdge(band)) == Verdict::kEffect) {
      // The mean is beyond the band, but ClassifyWithTails did not call it an intermittent
      // change: say what it read, and why that is not a verdict.
      result.explanation += fmt::format(
          "; the {} {} lies beyond the {} band, but the tails do not lean its way ({}), so it is "
          "not read as an intermittent change",
          MeanName(tails), FormatMeanRatio(*tails.mean), band_text, DescribeTails(tails.tails));
    }
    return result;
  }
  if (verdict == Verdict::kEffect) {
    // Only the mean is beyond the band: the typical run did not move, some runs did.
    const ShiftEstimate& mean = *tails.mean;
    result.verdict = Verdict::kEffect;
    result.excludes_zero = true;
    result.explanation = fmt::format(
        "an effect in the mean: {} {:.3f}x, {}, entirely beyond the {} band, while the "
        "typical pair's ratio {} is not: an intermittent change ({})",
        MeanName(tails), std::exp(mean.estimate), DescribeInterval(mean), band_text,
        DescribeInterval(shift), DescribeTails(tails.tails));
    return result;
  }
  // The pseudo-median ties, the tails do not: never a NULL. Every reason TailDisagreement
  // gives is settled by more pairs; the advice reads the mean the tie reads. Balanced tails
  // are not called an intermittent slowdown: a noisy host's outliers on both sides widen the
  // mean as well (a table of the demo engine said "an intermittent slowdown" of a cell whose
  // tails were 26 pairs slow and 30 fast, its mean 0.996, 2026-12-07).
  result.verdict = Verdict::kInconclusive;
  const std::optional<ShiftEstimate>& mean = tails.tie_mean ? tails.tie_mean : tails.mean;
  const std::string advice = mean ? MorePairsAdvice(*mean, BandEdge(band)) : "collect more pairs";
  result.explanation = fmt::format(
      "not shown to be a tie: the typical pair ties ({} inside the {} band), but {}; {}; {}",
      DescribeInterval(shift), band_text, TailDisagreement(tails, band),
      tails.tails.p_value <= kTailsLean
          ? "a slow tail the typical pair does not show (an intermittent slowdown) is not a tie"
          : "the tails do not lean one way",
      advice);
  return result;
}

bool IsDecisive(const ShiftEstimate& shift, double band) {
  Verdict v = Classify(shift.low, shift.high, BandEdge(band));
  return v == Verdict::kEffect || v == Verdict::kNull;
}

LastLookReach ReachOfLastLook(const ShiftEstimate& now, double band, int last_pairs,
                              double last_alpha) {
  assert(last_pairs > 0 && last_alpha > 0 && last_alpha < 1);
  LastLookReach reach;
  const double tau = BandEdge(band);
  const double m = std::fabs(now.estimate);
  const double half_width = (now.high - now.low) / 2;
  // z of the confidence achieved (an exact rank interval is at least the one asked for), from
  // the tail so that a confidence within 1e-16 of 1 still gives a finite quantile.
  const double z_now = -NormalQuantile(std::max(1 - now.confidence, 1e-300) / 2);
  if (now.n == 0 || !(half_width > 0) || !(z_now > 0)) {
    if (m < tau) reach.pairs_for_tie = static_cast<double>(now.n);
    return reach;
  }
  const double se = half_width / z_now;
  const double z_last = -NormalQuantile(last_alpha / 2);
  const double w_last =
      z_last * se * std::sqrt(static_cast<double>(now.n) / static_cast<double>(last_pairs));
  reach.tie_reachable = std::max(0.0, m - kFutilityMargin * se) + w_last < tau;
  reach.effect_reachable = m + kFutilityMargin * se - w_last > tau;
  if (m < tau)
    reach.pairs_for_tie = static_cast<double>(now.n) * std::pow(z_last * se / (tau - m), 2);
  return reach;
}

}  // namespace culprit
