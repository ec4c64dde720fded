#pragma once

// The flat facts of a `table` record (and of a `sweep`'s, which is a table sitting) beside
// the sitting's own (records/sitting_details.h): how many cells were tested and at what α
// each, how the family's errors were bounded, the published table it checked and the order
// it followed. Written by `culprit table` (probes/table_command.cc), so the keys and their
// spellings live in table_details.cc alone; the cells are the payload
// (records/table_payload.h).
//
// Every field is optional: set means "the record holds this fact". WriteTo writes the set
// fields; FromDetails reads any record, archived ones included: a missing or unparsable value
// reads as nullopt, never throws.

#include <optional>
#include <string>
#include <string_view>

#include "records/detail_fields.h"
#include "records/record.h"
#include "records/sitting_details.h"

namespace culprit {

/// The spellings a table has written: multiplicity "bonferroni", tail_sighting
/// "cell-alpha" (a tie's tail sighting asked at the cell's whole α), order "registry".
inline constexpr std::string_view kBonferroni = "bonferroni";
inline constexpr std::string_view kTailSightingCellAlpha = "cell-alpha";
inline constexpr std::string_view kRegistryOrder = "registry";

struct TableDetails {
  SittingDetails sitting;
  std::optional<int> cells_tested;
  std::optional<double> cell_alpha;          ///< Each cell's two-sided α.
  std::optional<std::string> multiplicity;   ///< kBonferroni.
  std::optional<std::string> tail_sighting;  ///< kTailSightingCellAlpha.
  std::optional<std::string> check;          ///< The published table checked (--check).
  std::optional<std::string> order;          ///< kRegistryOrder when the registry's.

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any table record's details.
  static TableDetails FromDetails(const DetailMap& details);

  bool operator==(const TableDetails&) const = default;
};

}  // namespace culprit
