#pragma once

// Where a record's measured runs ran, as its flat facts say: the CPUs they were pinned to
// ("any", or a list such as "2-3,6") and whether ASLR was on. Written by every sitting that
// starts measured runs (probes/host_tuning.cc RecordPlacement) and by `explain` (ASLR off),
// and read to compare a record's placement with today's, so the keys and spellings live in
// placement_details.cc alone. The CPU list is kept as its text: probes/host_tuning.h parses
// and formats it.
//
// A missing or unparsable value reads as nullopt, never throws.

#include <optional>
#include <string>
#include <string_view>

#include "records/detail_fields.h"
#include "records/record.h"

namespace culprit {

/// cpus of runs not pinned to any CPU.
inline constexpr std::string_view kAnyCpu = "any";

struct PlacementDetails {
  std::optional<std::string> cpus;  ///< kAnyCpu or a CPU list ("0-3,8").
  std::optional<bool> aslr;         ///< "on" / "off".

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any record's details.
  static PlacementDetails FromDetails(const DetailMap& details);
  static PlacementDetails FromRecord(const Record& record) { return FromDetails(record.details); }

  bool operator==(const PlacementDetails&) const = default;
};

}  // namespace culprit
