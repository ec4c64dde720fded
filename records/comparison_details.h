#pragma once

// The flat facts of a sitting of two arms (a `probe`, `compare` or `bisect-step` record, and
// `judge`'s): which way its metric is better and which metric decided, the sitting's pairs and
// failures, how its interval was decided, and the secondary figures shown beside it. Written
// by probes/comparison.cc (and the commands that fill a plan's details: probe's override
// sets, judge, the bisect's rule) and read by the summaries and reports, so the keys and
// their spellings live in comparison_details.cc alone; the seed, calibration and α spending
// are the sitting's (records/sitting_details.h), where the runs ran is
// records/placement_details.h, and a bisect step's own facts are
// records/bisect_step_details.h.
//
// Every field is optional: set means "the record holds this fact". WriteTo writes the set
// fields and leaves the others alone; FromDetails reads any record, archived ones included:
// a missing or unparsable value reads as nullopt, never throws.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/metric_direction.h"
#include "records/detail_fields.h"
#include "records/record.h"
#include "records/sitting_details.h"

namespace culprit {

/// What decided a sitting's interval, when not its sequential test.
enum class DecidedBy {
  kNearDeterministicRule,  ///< "near-deterministic rule": the range of the runs' ratios.
};
/// "near-deterministic rule", as written.
std::string_view DecidedByName(DecidedBy value);

struct ComparisonDetails {
  SittingDetails sitting;
  std::optional<MetricDirection> better;  ///< "lower" / "higher" (base/metric_direction.h).
  /// The metric that decided: a named metric ("wall_ms", "instructions" ...), "regex", "json".
  std::optional<std::string> metric;
  /// What counted the metric when not the run itself ("cachegrind" ...); not constrained.
  std::optional<std::string> metric_source;
  std::optional<int> pairs_dropped, pairs_censored;
  std::optional<std::string> failures;   ///< "A 1/30 failed, 0 timed out; B ...".
  std::optional<double> failure_test_p;  ///< The test of the arms' failure counts.
  std::optional<bool> failures_differ;   ///< "true" / "false".
  std::optional<std::vector<double>> checkpoint_calibrations_ms;  ///< Between the looks.
  std::optional<DecidedBy> decided_by;
  std::optional<double> nominal_confidence;  ///< The interval's, before the looks' spending.
  std::optional<std::string> mean_ratio;     ///< The pairs' mean ratio, as printed.
  std::optional<std::string> tails;          ///< The tails' balance, as printed.
  /// The figures that did not decide, by metric name (kept as "secondary.NAME"): "1.012
  /// [0.998, 1.025] (...)" or "unavailable: <why>".
  std::map<std::string, std::string> secondary;
  std::optional<std::string> secondary_confidence;        ///< Their intervals' level, "95%".
  std::optional<std::vector<std::string>> override_sets;  ///< `probe`'s named sets.
  std::optional<std::string> judge;                       ///< "git bisect run" for `judge`.

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any sitting's details.
  static ComparisonDetails FromDetails(const DetailMap& details);
  static ComparisonDetails FromRecord(const Record& record) { return FromDetails(record.details); }

  bool operator==(const ComparisonDetails&) const = default;
};

}  // namespace culprit
