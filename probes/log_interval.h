#pragma once

// A shift on the log scale with its interval, and the two operations every
// reader of one needs: reading it the other way round (a speed-up searched as
// a slowdown, the ends swap as well as change sign) and turning it into the
// record's ratio estimate (exp of each end). Written once here so no caller
// flips or exponentiates by hand.

#include "probes/statistics.h"
#include "records/record.h"

namespace culprit {

/// log(B/A) with its closed confidence interval [low, high]. Holds low <= estimate <= high when
/// built from an estimator; the operations below keep that order.
struct LogInterval {
  double estimate = 0;  ///< Point estimate of log(B/A).
  double low = 0;       ///< Lower end of the interval.
  double high = 0;      ///< Upper end of the interval.

  /// The estimate and interval of `shift` (its confidence, n and exactness are not kept).
  static LogInterval Of(const ShiftEstimate& shift);
  /// The log of a ratio estimate's ratio and ends. Requires them positive (a record's ratio
  /// always is); a non-positive one gives -inf or NaN, as std::log does.
  static LogInterval OfRatio(const Estimate& ratio);

  /// The same shift read as log(A/B): -estimate, with the ends negated and swapped, so
  /// [low, high] becomes [-high, -low]. Flipping twice gives back the original.
  LogInterval Flipped() const;
  /// Flipped() when `flip`, else a copy: for code that holds "the other direction" as a flag.
  LogInterval FlippedIf(bool flip) const { return flip ? Flipped() : *this; }

  /// exp(estimate): the ratio B/A.
  double Ratio() const;
  /// The record's ratio estimate: ratio, low and high are exp of estimate, low and high; the
  /// other fields (confidence, pairs, exact, method) keep Estimate's defaults for the caller.
  Estimate ToRatioEstimate() const;

  bool operator==(const LogInterval&) const = default;
};

/// The record's ratio estimate of a shift: LogInterval::Of(shift).ToRatioEstimate() with the
/// shift's confidence, pairs (its n) and exactness; method is left empty for the caller.
Estimate RatioEstimate(const ShiftEstimate& shift);

}  // namespace culprit
