#pragma once

// The flat facts of a `sweep` record (its Record::details) beside the table sitting's own:
// the range, which commits were measured and at what level each step was tested. Written by
// the sweep (bisect/sweep_runner.cc), so the keys and their spellings live in
// sweep_details.cc alone; the table and the changes are the payload (records/sweep_payload.h).
//
// Every field is optional: set means "the record holds this fact". WriteTo writes the set
// fields; FromDetails reads any record, archived ones included: a missing or unparsable value
// reads as nullopt, never throws.

#include <optional>
#include <string>
#include <string_view>

#include "records/detail_fields.h"
#include "records/record.h"

namespace culprit {

/// The one change model a sweep has written: changes placed where the bisect's posterior
/// puts them, segment by segment.
inline constexpr std::string_view kSweepChangeModelBisectPosterior = "bisect-posterior-segments";

struct SweepDetails {
  std::optional<std::string> good, bad;  ///< The range's ends, resolved.
  std::optional<std::string> selection;  ///< Which commits were measured, as said.
  std::optional<double> step_alpha;      ///< Each step's two-sided α.
  std::optional<std::string> change_model;

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any sweep record's details.
  static SweepDetails FromDetails(const DetailMap& details);

  bool operator==(const SweepDetails&) const = default;
};

}  // namespace culprit
