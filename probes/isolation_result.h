#pragma once

// What a residency isolation works on (probes/isolation.h): the plan and its
// options, and the result the sitting fills as it measures (the visits, the
// samples, the host's snapshots) and the verdict functions fill as it decides
// (probes/isolation_verdict.h); the record and the text are written from it
// (probes/isolation_report.h).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/metric.h"
#include "probes/calibration.h"
#include "probes/host.h"
#include "probes/residency_config.h"
#include "probes/statistics.h"
#include "probes/verdict.h"
#include "records/isolation_details.h"
#include "records/record.h"

namespace culprit {

/// What to isolate: the query sent in `run QUERY N` and the conditions,
/// the first of which is the baseline.
struct IsolationPlan {
  std::string name;  ///< The [residency."NAME"] plan, for records and messages.
  std::string query;
  std::vector<ResidencyCondition> conditions;
};

struct IsolationOptions {
  int warmup = 1;          ///< Warm-up visits per condition before the rounds (not analysed).
  int runs_per_visit = 3;  ///< N of `run QUERY N`; a visit's value is the median of the N.
  /// Untimed-for-the-statistics runs after setting up a condition and before
  /// its measured runs (`run QUERY settle_runs`, recorded as warm-up samples):
  /// setting up writes and frees memory, which leaves the caches cold, and a
  /// new structure may start background work; neither is what is resident.
  int settle_runs = 1;
  int min_rounds = 10;   ///< First look (rounded up to a whole block of rounds).
  int max_rounds = 160;  ///< Last look; the budget.
  double band = 0.05;
  double confidence = 0.95;  ///< Overall, across conditions and looks.
  bool calibrate_between_looks = false;
  uint64_t seed = 0;  ///< The design's seed; 0 picks one (recorded either way).
};

/// One condition's comparison with the baseline.
struct ConditionOutcome {
  ResidencyCondition condition;
  std::map<std::string, uint64_t> bytes;  ///< Structure -> size, when `hold` answered bytes=N.
  std::vector<double> log_ratios;         ///< ln(this) - ln(baseline) per complete round.
  std::optional<ShiftEstimate> shift;     ///< At the look that decided (or the last one).
  std::optional<VerdictResult> verdict;   ///< None for the baseline, or with no verdict at all.
  double nominal_confidence = 0;
  int decided_at = 0;  ///< Rounds at the look whose interval is reported.
};

struct ReversibilityResult {
  Reversibility verdict = Reversibility::kNotTested;
  int condition = -1;    ///< The condition that holds and then releases, or -1.
  std::string sentence;  ///< "released: tie → a residency effect, not damage", ...
};

/// A sitting's simulated figures (`culprit isolate --simulate METRIC`,
/// probes/isolation_simulated.h): per condition, per sample, the count of one run of the
/// query, from two fresh harness processes under cachegrind, differenced. Secondary: never a
/// verdict.
struct SimulatedIsolation {
  MetricRule::Kind kind = MetricRule::Kind::kLlMisses;
  std::string valgrind_version;             ///< "valgrind-3.19.0".
  int samples = 0;                          ///< Samples per condition asked for.
  int runs = 0;                             ///< N of the measured `run QUERY N`.
  int settle_runs = 0;                      ///< Runs before it, in both processes of a sample.
  std::vector<std::vector<double>> values;  ///< [condition][sample].
  std::string failure;  ///< Why it stopped (a process failed, Ctrl-C); "" when it did not.
};

struct IsolationResult {
  std::vector<Sample> samples;  ///< Execution order; arm = condition, pair = round (-1: warm-up).
  std::vector<std::vector<int>> orders;           ///< The design of the rounds that were started.
  std::vector<std::vector<double>> visit_values;  ///< [round][condition]: median of the visit.
  int rounds_done = 0;                            ///< Complete rounds.
  std::vector<ConditionOutcome> conditions;       ///< [0] is the baseline.
  std::vector<int> looks;                         ///< Round counts at which it looks.
  double condition_alpha = 0;  ///< Alpha of each comparison: (1 - confidence) / comparisons.
  int suspect = -1;            ///< See SuspectCondition.
  ReversibilityResult reversibility;
  std::string conclusion;
  HostState start, end;
  std::vector<double> checkpoint_calibrations_ms;
  std::optional<CalibrationCheck> calibration;
  bool interrupted = false;
  std::optional<Error> failure;  ///< The engine broke: no verdict; the message names the
                                 ///< condition and the command sent.
  std::string failed_condition, failed_command;
  std::vector<std::string> notes;
  uint64_t seed = 0;
  std::optional<SimulatedIsolation> simulated;  ///< With `--simulate` only.
};

}  // namespace culprit
