#include "records/sitting_details.h"

#include <fmt/format.h>

namespace culprit {
namespace {

// The keys, as sittings have spelled them from the start.
constexpr std::string_view kSeed = "seed";
constexpr std::string_view kCalibrationChange = "calibration_change";
constexpr std::string_view kAlphaSpending = "alpha_spending";

}  // namespace

void SittingDetails::WriteTo(DetailMap* out) const {
  if (seed) (*out)[std::string(kSeed)] = std::to_string(*seed);
  if (calibration_change) {
    (*out)[std::string(kCalibrationChange)] = fmt::format("{:+.4f}", *calibration_change);
  }
  PutText(out, kAlphaSpending, alpha_spending);
}

SittingDetails SittingDetails::FromDetails(const DetailMap& in) {
  SittingDetails d;
  d.seed = Count64In(in, kSeed);
  d.calibration_change = NumberIn(in, kCalibrationChange);
  d.alpha_spending = TextIn(in, kAlphaSpending);
  return d;
}

}  // namespace culprit
