#include "probes/decomposition.h"

#include <fmt/format.h>

#include <cmath>

#include "base/strings.h"
#include "probes/verdict.h"

namespace culprit {

Decomposition Decompose(const Factor& total, std::span<const Factor> parts, double band) {
  Decomposition d;
  d.total = total;
  d.parts.assign(parts.begin(), parts.end());
  d.remainder.name = "unexplained";
  d.remainder.log_ratio = total.log_ratio;
  d.remainder.low = total.low;
  d.remainder.high = total.high;
  for (const Factor& part : parts) {
    d.remainder.log_ratio -= part.log_ratio;
    d.remainder.low -= part.high;
    d.remainder.high -= part.low;
  }
  const double tau = BandEdge(band);
  if (d.remainder.low > -tau && d.remainder.high < tau) {
    d.remainder_class = RemainderClass::kTie;
  } else if (d.remainder.low > tau || d.remainder.high < -tau) {
    d.remainder_class = RemainderClass::kBeyond;
  } else {
    d.remainder_class = RemainderClass::kUndecided;
  }
  return d;
}

std::string FormatFactor(const Factor& factor) {
  return "×" + FormatRatioInterval(std::exp(factor.log_ratio), std::exp(factor.low),
                                   std::exp(factor.high));
}

std::string FormatDecomposition(const Decomposition& d) {
  std::string text = fmt::format("{} {} =", d.total.name, FormatFactor(d.total));
  for (size_t i = 0; i < d.parts.size(); ++i) {
    text += fmt::format("{} {} {}", i == 0 ? "" : " ·", d.parts[i].name, FormatFactor(d.parts[i]));
  }
  const char* verdict = "";
  switch (d.remainder_class) {
    case RemainderClass::kTie:
      verdict = "tie: fully explained";
      break;
    case RemainderClass::kBeyond:
      verdict = "beyond the band: not accounted for";
      break;
    case RemainderClass::kUndecided:
      verdict = "undecided: the intervals are too wide";
      break;
  }
  text += fmt::format("; {} {} ({})", d.remainder.name, FormatFactor(d.remainder), verdict);
  return text;
}

}  // namespace culprit
