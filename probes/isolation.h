#pragma once

// Residency isolation: every condition of a plan measured in ONE engine
// process, through the harness protocol, interleaved in rounds. Each round
// visits every condition once, in the order of a balanced design
// (probes/round_design.h); a visit sets up the condition (its holds, then its
// releases), sends `run QUERY N`, and undoes what it still holds. Each
// condition is compared with the first one (the baseline, "nothing held")
// paired by round, with the statistics of `probe` (paired Hodges–Lehmann
// ratio, signed-rank interval, sequential looks with Pocock alpha spending,
// EFFECT / NULL / INCONCLUSIVE against the band); the overall error rate
// across conditions is controlled by splitting alpha equally between them
// (Bonferroni; docs/statistics.md says why not Holm).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/harness_client.h"
#include "probes/calibration.h"
#include "probes/host.h"
#include "probes/residency_config.h"
#include "probes/sitting.h"
#include "probes/statistics.h"
#include "probes/verdict.h"
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

enum class Reversibility {
  kNotTested,      ///< The plan holds and releases nothing.
  kReversible,     ///< The released condition is NULL against the baseline.
  kNotReversible,  ///< It is EFFECT: the cost stays after release.
  kUndecided,      ///< INCONCLUSIVE, or no verdict.
};

/// "reversible", "not reversible", "undecided", "not tested".
std::string_view ReversibilityName(Reversibility r);

struct ReversibilityResult {
  Reversibility verdict = Reversibility::kNotTested;
  int condition = -1;    ///< The condition that holds and then releases, or -1.
  std::string sentence;  ///< "released: tie → a residency effect, not damage", ...
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
};

/// ln(values[r][c]) - ln(values[r][0]) for the first `rounds` rounds: the
/// pairing by round. Requires positive values.
std::vector<double> PairedLogRatios(const std::vector<std::vector<double>>& visit_values,
                                    int condition, int rounds);

/// Bonferroni: each of `comparisons` (>= 1) comparisons gets (1 - confidence) / comparisons.
double PerConditionAlpha(double confidence, int comparisons);

/// The condition holding the suspect structure(s): the structures some
/// condition holds and then releases are the suspects, and the suspect
/// condition is the first that holds exactly them and releases nothing;
/// without a release condition, the last condition that holds and releases
/// nothing. -1 when there is none (a plan of the baseline alone).
int SuspectCondition(const std::vector<ResidencyCondition>& conditions);

/// The reversibility rule: the condition that holds and then releases the
/// suspect's structures (else the first that releases anything) must be NULL
/// against the baseline for "a residency effect, not damage"; EFFECT means
/// "the cost stays after release: damage or a leak, not residency".
ReversibilityResult JudgeReversibility(const std::vector<ConditionOutcome>& conditions,
                                       int suspect);

/// The conclusion sentence: the suspect's cost with its interval and size,
/// each control's, the released condition's, then what follows, e.g.
/// "holding `traversal_index` (64.0 MiB) costs series.count +29.0% [+22.0%, +35.0%];
///  `plain_columns` (64.0 MiB) +1.0% [-1.0%, +3.0%] (tie); released: tie
///  → a residency effect of `traversal_index` itself, not of memory held in general".
std::string IsolationConclusion(const IsolationResult& result, const std::string& query);

/// What the sitting knows at a look, per condition: each one's ratio to the
/// baseline on every complete round so far (decided or not), with its
/// verdict once a look decided it, e.g. "look at 40 rounds: ballast held
/// +1.0%, index held +48.8% (effect), index released +0.2% (tie)". The
/// sitting passes it to SittingProgress::OnPhase after each look.
std::string DescribeLook(const IsolationResult& result);

/// "64.0 MiB", "512.0 KiB", "100 B".
std::string FormatBytes(uint64_t bytes);

/// Runs the sitting on an already started harness: warm-up, calibration
/// (after the warm-up, so the engine's start-up is not in it), rounds with
/// looks, calibration, then `quit`. Never throws; a broken engine ends it with
/// `failure`, Ctrl-C with `interrupted`. `host` and `progress` may be null.
IsolationResult RunIsolationSitting(HarnessSession& harness, const IsolationPlan& plan,
                                    const HostProbe* host, const IsolationOptions& options,
                                    SittingProgress* progress);

/// Where the measured engine came from, for the record.
struct IsolationProvenance {
  std::string revision, commit, tree;
  std::vector<std::string> command;  ///< The harness argv.
  std::string config_digest;
  std::vector<std::string> notes;
};

/// The `isolate` record (pure): one arm per condition, every raw value in
/// execution order tagged with its condition (arm) and round (pair), the
/// suspect's estimate and verdict (ERROR when the engine broke, with
/// details.partial = "true"), and in details_json the design, each
/// condition's verdict, the reversibility verdict and the calibrations.
Record MakeIsolationRecord(const IsolationPlan& plan, const IsolationOptions& options,
                           const IsolationResult& result, const IsolationProvenance& provenance,
                           const HostIdentity& host);

}  // namespace culprit
