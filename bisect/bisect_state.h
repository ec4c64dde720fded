#pragma once

// The saved state of a bisect: the range, the search (every pair measured,
// every build fact), the step log and the records written. It is rewritten
// atomically after every batch of pairs, so Ctrl-C or a killed process loses
// at most the batch in flight, and `culprit bisect resume` continues without
// re-measuring anything.

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/sitting.h"
#include "probes/slow_run_bursts.h"
#include "records/bisect_step_details.h"
#include "records/record.h"

namespace culprit {

inline constexpr std::string_view kBisectStateSchema = "culprit.bisect/v1";

/// Where a bisect is.
enum class BisectStatus { kRunning, kInterrupted, kDone };

/// A segment's check, against the direction the whole range moved.
enum class SegmentCheck {
  kNotMeasured,
  kSame,       ///< An EFFECT the way the range moved.
  kTie,        ///< NULL.
  kOpposite,   ///< An EFFECT the other way.
  kUndecided,  ///< INCONCLUSIVE.
};

/// What a segment's search came to.
enum class SegmentOutcome {
  kNone,          ///< Not searched, or searching.
  kChange,        ///< Verified: first == change.
  kRange,         ///< Verified, first..change-1 unbuildable.
  kInconclusive,  ///< Searched, nothing verified.
  kUnsearched,    ///< It moves, but the budget of changes was spent.
};

/// The spellings in the state file and in output (a step's kind, BisectStepKind, is
/// records/bisect_step_details.h's): "running", "interrupted", "done"; "" (not measured), "same",
/// "tie", "opposite", "undecided"; "" (none), "change", "range", "inconclusive", "unsearched".
std::string_view BisectStatusName(BisectStatus status);
std::string_view SegmentCheckName(SegmentCheck check);
std::string_view SegmentOutcomeName(SegmentOutcome outcome);
/// Inverses of the above (exact spelling); nullopt for anything else.
std::optional<BisectStatus> ParseBisectStatus(std::string_view name);
std::optional<SegmentCheck> ParseSegmentCheck(std::string_view name);
std::optional<SegmentOutcome> ParseSegmentOutcome(std::string_view name);
/// Print the names above, for GoogleTest's messages.
void PrintTo(BisectStatus status, std::ostream* out);
void PrintTo(SegmentCheck check, std::ostream* out);
void PrintTo(SegmentOutcome outcome, std::ostream* out);

/// The most runs of a shared arm a check takes besides one a pair: a warm-up, its retries,
/// and the failed runs a sitting tolerates before it stops as broken, generously.
inline constexpr int kMaxSharedRunsBesidePairs = 64;

/// One search step: a candidate measured against a baseline until decisive.
struct BisectStepLog {
  int step = 0;
  BisectStepKind kind = BisectStepKind::kMeasure;
  int index = 0;  ///< Commit index in the range (0 = good).
  int baseline = 0;
  std::string commit;  ///< Full id.
  int pairs = 0;
  /// Of a check measured beside a verification (SharedRuns): how many of its runs were the
  /// verification's runs too, taken once for both: runs of one of its arms only, so at most
  /// `pairs` and the warm-up, retries and failed runs of that arm
  /// (kMaxSharedRunsBesidePairs). The bisect counts pairs - shared_runs / 2 of it as measured.
  int shared_runs = 0;
  double ratio = 1, low = 1, high = 1;  ///< Over this step's pairs, 95% interval.
  /// False when the step's pairs were too few for a 95% interval (a search batch of 2 on a
  /// quiet host): `ratio` is then the pairs' median and low/high mean nothing.
  bool has_interval = true;
  double mass_at_or_before = 0;  ///< P(first bad ≤ index) after the step.
  std::string best_commit;       ///< Most probable first-bad commit after the step.
  double best_probability = 0;
  std::string record_id;
  std::string note;  ///< e.g. "unbuildable: skipped".
  /// The calibration loop timed at the start and at the end of the step: whether both
  /// times were taken, and end / start - 1 (positive: the host got slower).
  bool calibrated = false;
  double drift = 0;
  /// The step's sitting had slow runs in bursts in both arms (FindSlowRunBursts): the host's
  /// noise. The state keeps the counts and the factor (slow, runs, factor); the rest of the
  /// evidence is in the step's record's note. nullopt for a search batch, a step without a
  /// sitting of its own, and every step of a state saved before it was kept.
  std::optional<SlowRunBursts> bursts;
};

/// One part of the range, [lo, hi] by commit index (lo its good end, hi its bad end),
/// checked (hi against lo in one sitting) and, when it moves the way the whole range does,
/// searched like the whole range. Segment 0 is the whole range, checked by the endpoint
/// confirmation; the others are the parts a verified change leaves unexplained.
struct BisectSegment {
  int lo = 0, hi = 0;
  SegmentCheck check = SegmentCheck::kNotMeasured;
  double ratio = 1, low = 1, high = 1;  ///< The check's ratio and interval, as measured.
  double confidence = 0;                ///< The check interval's confidence.
  int pairs = 0;
  std::string check_record;
  /// The segment's search while and after it runs (commit indexes relative to lo). Segment
  /// 0's is BisectState::search_json, where it always was.
  std::string search_json;
  SegmentOutcome outcome = SegmentOutcome::kNone;
  int first = -1, change = -1;  ///< Global indexes of the verified change (first..change).
  double log_ratio = 0, log_low = 0, log_high = 0;  ///< Verification, as measured (log).
  double verify_confidence = 0;
  int verification_pairs = 0;
  double probability = 0;
  std::string reason;
  /// What the check did about a tie (TiePlan, bisect/tie_plan.h): false when it hunted a
  /// further move only, a tie being predicted not to fit its budget; the pairs a tie was
  /// predicted to need (0: nothing predicted them), and within how many it was sought;
  /// `tie_short`: `--prove-first` sought it with a cap below the pairs predicted.
  bool tie_sought = true;
  int tie_pairs_needed = 0;
  int tie_budget = 0;
  bool tie_short = false;
  /// False: the tie was not sought because it would earn no label (TiePlan::earns_label), not
  /// for its cost.
  bool tie_earns_label = true;
  /// The check's further-move alternative A (TiePlan::alternative; 0: none), whether its
  /// sitting ruled out every move of ×A or more (SittingResult::ruled_out), and, for an
  /// undecided check that did not, ≈ the pairs ruling it out would have taken (0: a move of
  /// ×A or more is as likely as not there, or nothing predicted them).
  double alternative = 0;
  bool ruled_out = false;
  int rule_out_pairs_needed = 0;
  /// Ruled out, on an estimate beyond the band: a change below ×A may be there (the part
  /// stays unplaced).
  bool small_move_suspected = false;
  /// A part's search (never segment 0's) that has turned wary (BisectSearch::Wary) after
  /// verifying the part's bad end measures the part's ends again on fresh pairs before it
  /// goes on (Session::RecheckDue, Recheck): a check's EFFECT is wrong at its α now and then,
  /// and a search of a part that does not move spends its whole pair budget. The re-check's
  /// class (kNotMeasured: none; kUndecided when its runs kept failing) and record. When it is
  /// not `check` again, the search ends there and the part stays unplaced, `reason` saying
  /// both sittings.
  SegmentCheck recheck = SegmentCheck::kNotMeasured;
  std::string recheck_record;
  /// The check's runs that gave no number, arm 0 its good end and 1 its bad end, and Fisher's
  /// test of their rates (SittingResult::failures): a tie or a rule-out read its timed-out runs
  /// as censored, and the ending says how many there were. Zero counts in a state saved before
  /// they were kept.
  FailureComparison check_failures;
};

/// The step in flight when the state was saved: the pairs of its batches so far. The search
/// counts them as soon as they are measured, but a step is archived as one record only when
/// it ends; the state carries them meanwhile, so that a process killed between a save and the
/// step's record loses none of them from the archive: a resumed bisect continues the step with
/// them and archives them in its record.
struct BisectPendingStep {
  BisectStepKind kind = BisectStepKind::kMeasure;  ///< kMeasure or kVerify.
  int index = -1;                                  ///< Commit index in the range (0 = good).
  int baseline = 0;
  int pairs = 0;
  std::vector<double> d;        ///< The pairs' log ratios as measured (not sign-flipped).
  std::vector<Sample> samples;  ///< Execution order, numbered across the step's batches.
};

struct BisectState {
  std::string schema = std::string(kBisectStateSchema);
  std::string run_id;  ///< Links this bisect's records together.
  BisectStatus status = BisectStatus::kRunning;
  std::string started, updated;
  std::string good_rev, bad_rev, query;
  bool first_parent = true;
  /// The merge whose branch this bisect searches (BisectRequest::descended_from), or "".
  std::string descended_from;
  /// `bisect run --max-pairs` and `--seed` (0: not given), so that a resumed bisect keeps
  /// the budgets and the order it was started with.
  int max_pairs = 0;
  uint64_t seed = 0;
  /// `bisect run --prove-first`: the tie that shows the first bad commit is sought with a
  /// budget that holds the pairs it is predicted to need.
  bool prove_first = false;
  bool speedup = false;              ///< The bad end is faster: d's sign is flipped for the search.
  std::vector<std::string> commits;  ///< Index 0 = good, N = bad; full ids.
  std::string search_json;           ///< BisectSearch::ToJson.
  std::vector<BisectStepLog> log;
  std::vector<std::string> records;  ///< Ids of the records written, in order.
  std::string result_record;         ///< Id of the final "bisect" record, when done.
  std::string config_digest;
  /// The range's segments in the order they were found; empty until the endpoints are
  /// confirmed (and in states written before segments existed: then the whole range).
  std::vector<BisectSegment> segments;
  int active_segment = 0;  ///< The segment whose search runs now.
  std::optional<BisectPendingStep> pending_step;
  /// The runs kept for re-use on a counted near-deterministic metric, and what the step in
  /// flight took of them (RunReuse::ToJson, bisect/run_reuse.h); "" when none are kept.
  std::string run_reuse_json;
};

std::string BisectStateToJson(const BisectState& state);
/// Refuses other schemas and damaged files, naming `source`.
Result<BisectState> BisectStateFromJson(std::string_view json, std::string_view source);

Result<BisectState> LoadBisectState(const std::filesystem::path& path);
Status SaveBisectState(const std::filesystem::path& path, const BisectState& state);

}  // namespace culprit
