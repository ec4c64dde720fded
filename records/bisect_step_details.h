#pragma once

// The flat facts of a `bisect-step` record (its Record::details) that the bisect adds to the
// sitting's own (records/comparison_details.h): which run and step it was, the commits it
// set against each other, the stopping rule it ran under and the search's state after it.
// Written by the bisect's step recorder and step lines (bisect/step_recorder.cc,
// bisect/step_lines.cc) and read by the reporters, so the keys and their spellings live in
// bisect_step_details.cc alone.
//
// Every field is optional: set means "the record holds this fact". WriteTo writes the set
// fields and leaves the others alone; FromDetails reads any record, archived ones included:
// a missing or unparsable value reads as nullopt, never throws.

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/detail_fields.h"
#include "records/record.h"

namespace culprit {

/// What a step of a bisect was: the bisect's log and state (bisect/bisect_state.h) and its
/// step records share this one enum and its spellings, so that a record and the state file
/// can never disagree on what a step was called.
enum class BisectStepKind {
  kConfirm,  ///< "confirm": the endpoints in one sitting, before anything is searched.
  kMeasure,  ///< "measure": evidence for the search: a candidate against a baseline.
  kVerify,   ///< "verify": the sequential test of a commit against its parent.
  kCheck,    ///< "check": a part of the range a verified change leaves, end against end.
};
/// "confirm", "measure", "verify", "check", as written in records, the state and output.
std::string_view BisectStepKindName(BisectStepKind kind);
/// Inverse of BisectStepKindName (exact spelling); nullopt for anything else.
std::optional<BisectStepKind> ParseBisectStepKind(std::string_view name);
/// Prints BisectStepKindName, for GoogleTest's messages.
void PrintTo(BisectStepKind kind, std::ostream* out);

struct BisectStepDetails {
  std::optional<std::string> bisect_run;  ///< The bisect's run id.
  std::optional<BisectStepKind> step_kind;
  std::optional<std::string> candidate_commit, baseline_commit;
  std::optional<int> candidate_index, baseline_index;  ///< Into the range (0 = good).
  /// What the near-deterministic rule said of the step, when it looked.
  std::optional<std::string> near_deterministic;
  std::optional<double> step_odds, target_probability;  ///< The stopping rule in force.
  /// A verification's looks (pairs) and the nominal two-sided alpha each look's interval used
  /// (its spending increment, or the increments read together: [bisect] joint_looks), and how
  /// they were planned.
  std::optional<std::vector<int>> verify_looks;
  std::optional<std::vector<double>> verify_look_alphas;
  std::optional<std::string> verify_plan;
  std::optional<std::string> evidence;  ///< "bisect search".
  /// After the step: P(first bad <= candidate), and the search's best guess.
  std::optional<double> posterior_at_or_before;
  std::optional<std::string> best_commit;
  std::optional<double> best_probability;
  std::optional<int> pairs;  ///< The step's pairs.
  /// Runs the step took from earlier steps instead of running them again (a counted
  /// near-deterministic metric, bisect/run_reuse.h): by arm and source step ("A 6ccd24eff5:
  /// 4 runs of step 1; B ..."), how many of each arm, and the sequence numbers of the samples
  /// that are those runs (copies of the source step's). Absent: every run was measured here.
  std::optional<std::string> reused_runs;
  std::optional<int> reused_runs_a, reused_runs_b;
  std::optional<std::vector<int>> reused_samples;

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any bisect step record's details.
  static BisectStepDetails FromDetails(const DetailMap& details);
  static BisectStepDetails FromRecord(const Record& record) { return FromDetails(record.details); }

  bool operator==(const BisectStepDetails&) const = default;
};

}  // namespace culprit
