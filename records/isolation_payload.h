#pragma once

// What an `isolate` record holds besides its samples and flat details: the design of the
// sitting (its seed and the order of every block of rounds), its looks, the correction, each
// condition with what it holds and releases, the structures' sizes the engine answered, and
// its verdict and interval against the baseline, the reversibility verdict and the
// calibrations; kept in the record's details_json. Written by the isolation's producer
// (probes/isolation_report.cc) and read by every reporter, so the keys live here alone.
//
// Records archived before this struct existed have the same keys (the JSON was written by
// hand in the same shape) and no "version": they read as version 1.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/isolation_details.h"
#include "records/record.h"

namespace culprit {

/// The payload's version: a reader takes the versions it knows (1) and says so of others.
inline constexpr int kIsolationPayloadVersion = 1;

/// What a condition is in the plan, as the reports colour it.
enum class ConditionRole {
  kBaseline,  ///< Condition 0: what every other condition is compared with.
  kSuspect,   ///< The condition holding what the plan suspects.
  kReleased,  ///< Holds then releases: whether the cost goes away with it.
  kControl,   ///< Holds something else: whether holding anything costs as much.
  kOther,     ///< Holds nothing and is not the baseline.
};
std::string_view ConditionRoleName(ConditionRole role);

struct IsolationConditionPayload {
  std::string name;
  std::vector<std::string> hold, release;
  std::map<std::string, uint64_t> bytes;  ///< The sizes the engine answered, by structure.
  bool baseline = false;
  std::optional<Verdict> verdict;  ///< None for the baseline and before a first look.
  std::string explanation;         ///< The verdict's sentence.
  /// Against the baseline (a ratio of the medians' kind, with its interval), at the look that
  /// decided it; none before a first look.
  std::optional<double> ratio, low, high;
  double confidence = 0, nominal_confidence = 0;
  int rounds = 0;  ///< The rounds at that look.

  /// The sum of `bytes` when every structure held was sized; nullopt otherwise.
  std::optional<uint64_t> HeldBytes() const;
};

/// The simulated figures of a sitting (`culprit isolate --simulate METRIC`): each condition's
/// count per run of the query (instructions, or simulated cache misses from cachegrind's model),
/// each sample from two fresh harness processes under valgrind, differenced
/// (probes/isolation_simulated.h). A secondary figure: it never turns a verdict.
struct IsolationSimulatedPayload {
  std::string metric;  ///< "ll_misses", "d1_misses" or "instructions".
  /// As `isolate` prints it: "simulated (cachegrind, valgrind-3.19.0, --fair-sched=yes)"
  /// (before 2026-12-05: "simulated (cachegrind, --fair-sched=yes), valgrind-3.19.0").
  std::string source;
  int samples = 0;  ///< Samples per condition asked for.
  int runs = 0;     ///< N of the measured `run QUERY N` in each sample's process.
  int settle_runs = 0;
  std::vector<std::vector<double>> values;  ///< [condition][sample]: count per run of the query.
  std::string failure;                      ///< Why it stopped early; "" when it did not.

  /// The median of condition `c`'s values; nullopt without any.
  std::optional<double> MedianOf(size_t c) const;
  /// Condition `c`'s median over the baseline's; nullopt unless both are positive.
  std::optional<double> RatioOf(size_t c) const;
};

struct IsolationPayload {
  int version = kIsolationPayloadVersion;
  uint64_t seed = 0;
  std::vector<std::vector<int>> orders;               ///< Each block's order of the conditions.
  std::vector<int> looks;                             ///< Rounds at which the sitting looked.
  int comparisons = 0;                                ///< Conditions tested against the baseline.
  double condition_alpha = 0;                         ///< Bonferroni: what each comparison spends.
  std::vector<IsolationConditionPayload> conditions;  ///< [0] is the baseline.
  int suspect = 0;                                    ///< Index; 0: the plan has none.
  /// The reversibility verdict (none: the payload's spelling is not one this culprit writes),
  /// the released condition's index, the sentence.
  std::optional<Reversibility> reversibility;
  int reversibility_condition = 0;
  std::string reversibility_sentence;
  std::optional<double> calibration_start_ms, calibration_end_ms;
  std::vector<double> checkpoint_calibrations_ms;
  bool partial = false;  ///< The engine broke: the record is what was measured before.
  std::string conclusion;
  std::optional<IsolationSimulatedPayload> simulated;  ///< With `--simulate` only.

  /// Each condition's role: the baseline, the suspect (by index), a released condition (it
  /// releases something, or is the reversibility's), a control (holds something else), other.
  ConditionRole RoleOf(size_t condition) const;
};

/// The payload as details_json.
std::string IsolationPayloadToJson(const IsolationPayload& payload);

/// The payload of an `isolate` record, read leniently (a missing or mistyped field is its
/// default); nullopt when the record has no payload with conditions, or a version this build
/// does not know.
std::optional<IsolationPayload> ReadIsolationPayload(const Record& record);

}  // namespace culprit
