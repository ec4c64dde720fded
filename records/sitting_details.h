#pragma once

// The flat facts every sitting's record holds, whatever it compared (a comparison's, a
// table's): the seed of its order, how far the host's calibration moved across it and how
// its alpha was spent. Their keys and spellings live in sitting_details.cc alone; the kinds
// that hold them (records/comparison_details.h, records/table_details.h) write and read them
// through this struct.
//
// Every field is optional: set means "the record holds this fact". WriteTo writes the set
// fields; FromDetails reads any record, archived ones included: a missing or unparsable value
// reads as nullopt, never throws.

#include <cstdint>
#include <optional>
#include <string>

#include "records/detail_fields.h"

namespace culprit {

/// alpha_spending of a sequential sitting: the α spent in Pocock increments over its looks.
inline constexpr std::string_view kPocockIncrements = "pocock-increments";
/// alpha_spending of a sitting whose EFFECT spent α on √(pairs / budget) and whose NULL by
/// Pocock's function of pairs / budget (the bisect's confirmation, docs/statistics.md
/// "Spending on √t").
inline constexpr std::string_view kEffectOnRootTimeIncrements =
    "pocock-increments; EFFECT's on the square root of the pairs' share of the budget";

struct SittingDetails {
  std::optional<uint64_t> seed;              ///< The order's randomization.
  std::optional<double> calibration_change;  ///< End against start calibration, e.g. +0.0123.
  /// How the sitting spent its α: kPocockIncrements, or a sentence ("none: ...").
  std::optional<std::string> alpha_spending;

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any sitting's details.
  static SittingDetails FromDetails(const DetailMap& details);

  bool operator==(const SittingDetails&) const = default;
};

}  // namespace culprit
