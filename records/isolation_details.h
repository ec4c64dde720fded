#pragma once

// The flat facts of an `isolate` record (probes/isolation_report.cc): the plan and its
// suspect, the design and its budget, the correction, the reversibility verdict, the
// conclusion, and, when the engine broke, the condition and command it broke on. The seed,
// calibration and α spending are the sitting's (records/sitting_details.h). The keys and their
// spellings live in isolation_details.cc alone; the conditions, the orders and the simulated
// figures are the payload (records/isolation_payload.h).
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

/// The design every isolation runs, as its records spell it (details.design and the
/// payload's design.method).
inline constexpr std::string_view kIsolationDesign = "random Latin square per block of rounds";
/// The correction over an isolation's conditions (details.correction and the payload's
/// correction.method).
inline constexpr std::string_view kBonferroniCorrection = "bonferroni";
/// What an isolation's samples' tags mean (details.sample_tags).
inline constexpr std::string_view kIsolationSampleTags =
    "arm = condition, pair = round (-1: warm-up visit); warmup = true with a round: the "
    "settling run after the condition was set up";

/// Whether the suspect's cost went away with its release: the isolation's verdict
/// (probes/isolation_result.h's ReversibilityResult) and its records share this one enum and
/// its spellings, so that what isolate decided and what its record says cannot drift apart.
enum class Reversibility {
  kNotTested,      ///< "not tested": the plan holds and releases nothing, or no effect to release.
  kReversible,     ///< "reversible": the released condition is NULL against the baseline.
  kNotReversible,  ///< "not reversible": it is EFFECT: the cost stays after release.
  kUndecided,      ///< "undecided": INCONCLUSIVE, or no verdict.
};
/// "not tested", "reversible", "not reversible", "undecided", as written.
std::string_view ReversibilityName(Reversibility value);
/// Inverse of ReversibilityName (exact spelling); nullopt for anything else.
std::optional<Reversibility> ParseReversibility(std::string_view name);

struct IsolationDetails {
  SittingDetails sitting;
  std::optional<std::string> plan;        ///< The [residency] plan's name.
  std::optional<std::string> suspect;     ///< The suspect condition's name; none without one.
  std::optional<std::string> conclusion;  ///< The conclusion sentence.
  std::optional<std::string> design;      ///< kIsolationDesign.
  std::optional<int> rounds;              ///< Complete rounds.
  std::optional<int> max_rounds, runs_per_visit, settle_runs;  ///< The budget and a visit.
  std::optional<std::string> sample_tags;                      ///< kIsolationSampleTags.
  std::optional<std::string> correction;                       ///< kBonferroniCorrection.
  std::optional<double> condition_alpha;                       ///< What each comparison spends.
  std::optional<Reversibility> reversibility;
  /// "true" when the engine broke: the record is what was measured before; then the
  /// condition and the harness command it broke on.
  std::optional<bool> partial;
  std::optional<std::string> failed_condition, failed_command;

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any isolate record's details.
  static IsolationDetails FromDetails(const DetailMap& details);
  static IsolationDetails FromRecord(const Record& record) { return FromDetails(record.details); }

  bool operator==(const IsolationDetails&) const = default;
};

}  // namespace culprit
