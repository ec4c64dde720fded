#pragma once

// The flat facts of a `run` record (one arm, no comparison): the figures of its kept
// samples and the medians of what the kernel counted of its runs. Written by `culprit run`
// (probes/measure_commands.cc) and read by its summary, so the keys and their spellings live
// in run_details.cc alone.
//
// A missing or unparsable value reads as nullopt, never throws.

#include <optional>
#include <string>

#include "records/detail_fields.h"
#include "records/record.h"

namespace culprit {

struct RunDetails {
  /// The kept samples' median, least, greatest and median absolute deviation, in the unit.
  std::optional<double> median, min, max, mad;
  /// "wall 14.2 ms, cpu 13.9 ms, max_rss 68180 KiB, ..." (probes/secondary_figures.h).
  std::optional<std::string> resources;

  /// Writes the set fields into `details` in today's spellings ("{:.6g}" for the figures).
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any run record's details.
  static RunDetails FromDetails(const DetailMap& details);
  static RunDetails FromRecord(const Record& record) { return FromDetails(record.details); }

  bool operator==(const RunDetails&) const = default;
};

/// A figure of a run as its record spells it ("{:.6g}": "12.3456"), or "?" when none.
std::string FormatRunFigure(const std::optional<double>& figure);

}  // namespace culprit
