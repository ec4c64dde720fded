#include "records/table_details.h"

#include <fmt/format.h>

namespace culprit {
namespace {

// The keys, as table records have spelled them from the start.
constexpr std::string_view kCellsTested = "cells_tested";
constexpr std::string_view kCellAlpha = "cell_alpha";
constexpr std::string_view kMultiplicity = "multiplicity";
constexpr std::string_view kTailSighting = "tail_sighting";
constexpr std::string_view kCheck = "check";
constexpr std::string_view kOrder = "order";

}  // namespace

void TableDetails::WriteTo(DetailMap* out) const {
  sitting.WriteTo(out);
  PutCount(out, kCellsTested, cells_tested);
  if (cell_alpha) (*out)[std::string(kCellAlpha)] = fmt::format("{:.6g}", *cell_alpha);
  PutText(out, kMultiplicity, multiplicity);
  PutText(out, kTailSighting, tail_sighting);
  PutText(out, kCheck, check);
  PutText(out, kOrder, order);
}

TableDetails TableDetails::FromDetails(const DetailMap& in) {
  TableDetails d;
  d.sitting = SittingDetails::FromDetails(in);
  d.cells_tested = CountIn(in, kCellsTested);
  d.cell_alpha = NumberIn(in, kCellAlpha);
  d.multiplicity = TextIn(in, kMultiplicity);
  d.tail_sighting = TextIn(in, kTailSighting);
  d.check = TextIn(in, kCheck);
  d.order = TextIn(in, kOrder);
  return d;
}

}  // namespace culprit
