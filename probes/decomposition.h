#pragma once

// A move taken apart into measured factors: the bisect's changes (the endpoint
// move = change A x change B x what is left) and the audit's factors (today /
// published = drift x code x order x what is left). Pure arithmetic on the log
// scale, where factors add; no I/O.

#include <span>
#include <string>
#include <vector>

#include "probes/log_interval.h"

namespace culprit {

/// One multiplicative factor, as a log-ratio with its interval.
struct Factor {
  std::string name;
  double log_ratio = 0;
  double low = 0, high = 0;  ///< Interval ends on the log scale; low <= log_ratio <= high.

  /// The factor's estimate and interval as one value.
  LogInterval Interval() const { return {log_ratio, low, high}; }
  /// Sets the estimate and interval from `interval`.
  void SetInterval(const LogInterval& interval) {
    log_ratio = interval.estimate;
    low = interval.low;
    high = interval.high;
  }
};

/// Where the remainder stands against the band.
enum class RemainderClass {
  kTie,        ///< Its whole interval is inside the band: the factors explain the move.
  kBeyond,     ///< Its whole interval is beyond the band: something is unaccounted for.
  kUndecided,  ///< Neither: the intervals are too wide to tell.
};

struct Decomposition {
  Factor total;
  std::vector<Factor> parts;
  /// total minus the parts. Its interval is interval arithmetic (total.low - sum of the
  /// parts' highs .. total.high - sum of the parts' lows): conservative, since each
  /// interval comes from its own sitting, so it covers at least 1 - (sum of their alphas).
  Factor remainder;
  RemainderClass remainder_class = RemainderClass::kUndecided;
};

/// Takes `total` apart into `parts` and what they leave, judged against band b.
Decomposition Decompose(const Factor& total, std::span<const Factor> parts, double band);

/// "x1.265 [1.201, 1.333]": a factor as a ratio with its interval.
std::string FormatFactor(const Factor& factor);

/// One line: "the move x1.265 [..] = commit a x1.080 [..] · commit b x1.157 [..]; unexplained
/// x1.010 [..] (tie: fully explained)".
std::string FormatDecomposition(const Decomposition& d);

}  // namespace culprit
