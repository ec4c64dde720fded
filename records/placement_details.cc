#include "records/placement_details.h"

namespace culprit {
namespace {

// The keys and the flag's spellings, as records have spelled them from the start.
constexpr std::string_view kCpus = "cpus";
constexpr std::string_view kAslr = "aslr";
constexpr std::string_view kOn = "on";
constexpr std::string_view kOff = "off";

}  // namespace

void PlacementDetails::WriteTo(DetailMap* out) const {
  PutText(out, kCpus, cpus);
  PutFlag(out, kAslr, aslr, kOn, kOff);
}

PlacementDetails PlacementDetails::FromDetails(const DetailMap& in) {
  PlacementDetails d;
  d.cpus = TextIn(in, kCpus);
  d.aslr = FlagIn(in, kAslr, kOn, kOff);
  return d;
}

}  // namespace culprit
