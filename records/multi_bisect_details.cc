#include "records/multi_bisect_details.h"

namespace culprit {
namespace {

// The keys, as multi-bisect records have spelled them from the start.
constexpr std::string_view kGood = "good";
constexpr std::string_view kBad = "bad";
constexpr std::string_view kQueries = "queries";
constexpr std::string_view kFromTable = "from_table";

}  // namespace

void MultiBisectDetails::WriteTo(DetailMap* out) const {
  PutText(out, kGood, good);
  PutText(out, kBad, bad);
  PutList(out, kQueries, queries);
  PutText(out, kFromTable, from_table);
}

MultiBisectDetails MultiBisectDetails::FromDetails(const DetailMap& in) {
  MultiBisectDetails d;
  d.good = TextIn(in, kGood);
  d.bad = TextIn(in, kBad);
  d.queries = ListIn(in, kQueries);
  d.from_table = TextIn(in, kFromTable);
  return d;
}

}  // namespace culprit
