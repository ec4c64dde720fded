#include "probes/log_interval.h"

#include <cmath>

namespace culprit {

LogInterval LogInterval::Of(const ShiftEstimate& shift) {
  return {shift.estimate, shift.low, shift.high};
}

LogInterval LogInterval::OfRatio(const Estimate& ratio) {
  return {std::log(ratio.ratio), std::log(ratio.low), std::log(ratio.high)};
}

LogInterval LogInterval::Flipped() const { return {-estimate, -high, -low}; }

double LogInterval::Ratio() const { return std::exp(estimate); }

Estimate LogInterval::ToRatioEstimate() const {
  Estimate e;
  e.ratio = std::exp(estimate);
  e.low = std::exp(low);
  e.high = std::exp(high);
  return e;
}

Estimate RatioEstimate(const ShiftEstimate& shift) {
  Estimate e = LogInterval::Of(shift).ToRatioEstimate();
  e.confidence = shift.confidence;
  e.pairs = static_cast<int>(shift.n);
  e.exact = shift.exact;
  return e;
}

}  // namespace culprit
