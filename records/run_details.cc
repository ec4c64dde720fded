#include "records/run_details.h"

#include <fmt/format.h>

namespace culprit {
namespace {

// The keys, as run records have spelled them from the start.
constexpr std::string_view kMedian = "median";
constexpr std::string_view kMin = "min";
constexpr std::string_view kMax = "max";
constexpr std::string_view kMad = "mad";
constexpr std::string_view kResources = "resources";

void PutFigure(DetailMap* out, std::string_view key, const std::optional<double>& figure) {
  if (figure) (*out)[std::string(key)] = FormatRunFigure(figure);
}

}  // namespace

std::string FormatRunFigure(const std::optional<double>& figure) {
  return figure ? fmt::format("{:.6g}", *figure) : std::string("?");
}

void RunDetails::WriteTo(DetailMap* out) const {
  PutFigure(out, kMedian, median);
  PutFigure(out, kMin, min);
  PutFigure(out, kMax, max);
  PutFigure(out, kMad, mad);
  PutText(out, kResources, resources);
}

RunDetails RunDetails::FromDetails(const DetailMap& in) {
  RunDetails d;
  d.median = NumberIn(in, kMedian);
  d.min = NumberIn(in, kMin);
  d.max = NumberIn(in, kMax);
  d.mad = NumberIn(in, kMad);
  d.resources = TextIn(in, kResources);
  return d;
}

}  // namespace culprit
