#include "records/sweep_details.h"

#include <fmt/format.h>

namespace culprit {
namespace {

// The keys, as sweep records have spelled them from the start.
constexpr std::string_view kGood = "good";
constexpr std::string_view kBad = "bad";
constexpr std::string_view kSelection = "selection";
constexpr std::string_view kStepAlpha = "step_alpha";
constexpr std::string_view kChangeModel = "change_model";

}  // namespace

void SweepDetails::WriteTo(DetailMap* out) const {
  PutText(out, kGood, good);
  PutText(out, kBad, bad);
  PutText(out, kSelection, selection);
  if (step_alpha) (*out)[std::string(kStepAlpha)] = fmt::format("{:.6g}", *step_alpha);
  PutText(out, kChangeModel, change_model);
}

SweepDetails SweepDetails::FromDetails(const DetailMap& in) {
  SweepDetails d;
  d.good = TextIn(in, kGood);
  d.bad = TextIn(in, kBad);
  d.selection = TextIn(in, kSelection);
  d.step_alpha = NumberIn(in, kStepAlpha);
  d.change_model = TextIn(in, kChangeModel);
  return d;
}

}  // namespace culprit
