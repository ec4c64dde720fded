#pragma once

// One sitting: two arms measured back to back on one host, in pairs whose
// order (AB or BA) is randomized in balanced blocks, with warm-up, sequential
// looks under alpha spending, calibration at the start and end, and honest
// handling of failed samples and Ctrl-C. Everything it measured is returned in
// execution order, dropped samples included, so the record can show it all.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "probes/calibration.h"
#include "probes/host.h"
#include "probes/sequential.h"
#include "probes/statistics.h"
#include "probes/verdict.h"
#include "records/record.h"

namespace culprit {

/// One run of one arm, as the sitting sees it.
struct SampleOutcome {
  bool ok = false;
  double value = 0;     ///< In the query's unit; meaningful when ok.
  std::string failure;  ///< Why it is not a number, when !ok.
  /// The run exceeded its timeout: a censored observation ("slower than
  /// censor_value"), kept in the statistics rather than dropped.
  bool timed_out = false;
  double censor_value = 0;  ///< The timeout in the query's unit; 0 when the metric has none.
  double wall_ms = 0, user_ms = 0, system_ms = 0;
  long max_rss_kb = 0;
  /// What the kernel counted of the run (Sample's); nullopt when the source has no process
  /// of its own per sample.
  std::optional<long> minor_faults, major_faults, voluntary_switches, involuntary_switches;
};

/// The sample `outcome` makes, as the `sequence`-th of a sitting, of record arm `arm` in
/// pair (or block) `pair` (-1 and `warmup` for a warm-up run): its value, failure and
/// resource figures. A metric that is not a positive finite number is a failed sample (log
/// ratios need positive values). Censoring a timed-out run is the caller's decision.
Sample SampleFrom(const SampleOutcome& outcome, int sequence, int arm, int pair, bool warmup);

/// Where samples come from: the real query runner, or a script in tests.
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  /// Runs arm 0 (A) or 1 (B) once.
  virtual SampleOutcome Run(int arm) = 0;
};

/// Receives progress; the command line prints it on a terminal.
class SittingProgress {
 public:
  virtual ~SittingProgress() = default;
  /// After each kept pair (or sample, for one arm). `ratio` is the current
  /// estimate once enough pairs exist.
  virtual void OnProgress(int done, int target, std::optional<double> ratio) = 0;
  /// Before a calibration or warm-up, so a silent pause is explained.
  virtual void OnPhase(const std::string& phase) {}
  /// A warning the user should see before the sitting's results, e.g. a load already at the
  /// core count when it starts (the same text is kept in the result's notes).
  virtual void OnWarning(const std::string& warning) {}
};

/// A paired sitting keeps pairs a block at a time: an AB pair and a BA pair, so the smallest
/// sitting, and the step by which a look can move (StoppableLooks), is two pairs.
inline constexpr int kPairsPerBlock = 2;

struct SittingOptions {
  int warmup = 1;            ///< Warm-up runs per arm, not analysed.
  int min_pairs = 10;        ///< First look.
  int max_pairs = 160;       ///< Last look; the budget.
  double band = 0.05;        ///< Reproducibility band b.
  double confidence = 0.95;  ///< Overall confidence, spent across looks.
  bool calibrate_between_looks = false;
  uint64_t seed = 0;  ///< Order randomization; 0 picks one (recorded either way).
  /// Stop as broken after this many measured runs gave nothing to rank (they failed, or both
  /// sides of their pair timed out; a timeout kept as a censored side is not counted);
  /// 0: max(5, max_pairs / 4).
  int max_failed_samples = 0;
  /// A failed warm-up run is retried up to this many times per arm before the
  /// arm is declared broken: one flaky start is infrastructure noise.
  int warmup_retries = 3;
  /// Stop at a look from which neither verdict is within reach of the last look
  /// (ReachOfLastLook), as INCONCLUSIVE that says what a tie would take. For a sitting whose
  /// undecided answer serves as well early as late (the bisect's checks): on a noisy host a
  /// tie inside a 5% band can be out of reach of the whole budget from the second look on.
  bool stop_when_futile = false;
  /// The last look at which a NULL may be declared (0: max_pairs; else clamped to
  /// [min_pairs, max_pairs] and made a look). NULL's α is spent over the looks up to it and
  /// EFFECT's over all of them: each verdict is wrong only when the interval misses the true
  /// shift on its own side, so two spendings of α/2 a side keep P(a wrong verdict) <= α. The
  /// bisect's checks hunt a further move with their whole budget, but a tie, which earns only
  /// the "first bad commit" label, with [measure]'s, and at [measure]'s confidences.
  int null_max_pairs = 0;
  /// Whether a NULL may be stated at NULL's looks. False: those looks and their spending are
  /// kept for a rule-out (`rule_out_band`) only, and no tie is stated or sought (a bisect's
  /// check whose tie was predicted not to fit its budget, or whose tie earns no label).
  bool null_states_tie = true;
  /// A further move's alternative: A - 1 for the smallest move ×A (> 1 + band) the sitting
  /// may rule out; 0: none. At a look that states neither verdict, every move of ×A or more
  /// either way is ruled out when the look's interval and the tails lie inside ±ln A
  /// (RulesOutMove): the sitting stops there, INCONCLUSIVE, with SittingResult::ruled_out.
  /// It reads NULL's intervals at NULL's looks and EFFECT's past them, so it spends no α of
  /// its own (docs/statistics.md, "A further move against an explicit alternative"); it may
  /// stop the sitting only from the look at `rule_out_from_pairs` pairs on (a tie sought
  /// first). Where a tie is stated it only adds a way to stop; where none is
  /// (null_states_tie false) it is the sitting's answer, and the futility stop waits while a
  /// later look may still rule ×A out.
  double rule_out_band = 0;
  int rule_out_from_pairs = 0;
  /// The metric is near-deterministic (IsNearDeterministicMetric: instructions): after every
  /// kept block, LookNearDeterministic over the kept runs may decide EFFECT or NULL and stop
  /// the sitting, before its first look; only while no measured run failed or timed out.
  /// Otherwise, and when the rule does not decide, the usual looks decide.
  bool near_deterministic = false;
  /// Whether a NULL's tail sighting (PairsToSightTail) is asked once for the whole sitting, at
  /// its α (1 - confidence), instead of at each look's share: the pairs that never caught a run
  /// of the tail are nested (none in n pairs, none in fewer), so the chance that any look states
  /// a tie on them is the chance at the first look that may, (1 - r)^n <= α, the bound the
  /// looks' shares summed to (docs/statistics.md, "A tie needs the tails to agree"). A quiet
  /// tie of 10..160 at 95% is then stated at 20 pairs, not 40. Off by default: the bisect's
  /// checks keep a tie out of their looks of 20 pairs by relying on the share's sighting
  /// (CheckSittingBudget's null_max_pairs = 20 when no tie is sought).
  bool sight_tail_once = false;
  /// The largest share of its pairs a look's mean sets aside at each end (TrimAtLook at the
  /// look's sighting α, TailSightingAlpha: never so many that a slow tail could hide in them); 0:
  /// the plain mean. Not with sight_tail_once, whose one sighting is of the untrimmed pairs.
  double trim_share = kTrimShare;
  /// Whether NULL's spending starts at its first look that can state a tie with a wild pair
  /// set aside at each end (NullSpendingFromTrimmedLook), instead of at the first look: NULL's
  /// looks before it could not sight a slow tail at their shares (a 10…160 check's looks at
  /// 12 to 28 pairs need 32 to 43), so their α was spent for nothing. Needs trim_share > 0 and
  /// not sight_tail_once; the bisect's checks (SittingBudget) set it.
  bool null_from_trimmed_look = false;
  /// With null_from_trimmed_look: NULL's spending starts no earlier than the last of NULL's
  /// looks at or before this many pairs (0: no such start), what the looks before it held going
  /// to it (NullSpendingFromTrimmedLook's `from_pairs`). A bisect's `--prove-first` check sets
  /// the pairs its tie was predicted to need (TiePlan::null_from_pairs, predicted from pairs the
  /// check does not use): the looks well before them would state the tie rarely, and their α
  /// buys more at the looks that may.
  int null_from_pairs = 0;
  /// Whether the looks' nominal α are read from their joint distribution
  /// (GroupSequentialAlphas over the spending's increments) instead of one at a time
  /// (Bonferroni: each look at its increment). Both keep the overall α; Bonferroni keeps
  /// about 0.03 of 0.05 over many close looks, these boundaries 0.05, and stop sooner. The
  /// failure-rate test (Fisher's, on counts) stays at the increments. The bisect's
  /// confirmation and checks set it (SittingBudget); a probe does not (yet).
  bool joint_looks = false;
  /// The pair counts at which to look, increasing (whole blocks); empty: min_pairs doubling
  /// to max_pairs (LookSchedule). Counts past max_pairs are dropped, and max_pairs (and a
  /// null_max_pairs below it) are made looks. The spending (Pocock) and StoppableLooks are
  /// applied to this schedule as to the doubling one, so the overall α is kept whatever it is.
  /// The bisect's confirmation looks more often than by doubling (ConfirmationLooks).
  std::vector<int> looks;
  /// How EFFECT's α (and the failure test's) is spread over the looks. NULL's keeps Pocock's,
  /// and so does the choice of the first look (StoppableLooks). The bisect's confirmation
  /// spends on √t (Spending::kPocockOnRootTime, SittingBudget): its moves mostly stop by 226
  /// of its 1280 pairs, where Pocock's own function has spent about a quarter of α.
  Spending effect_spending = Spending::kPocock;
  /// Besides Ctrl-C, a reason to stop before the next run as interrupted, read before each
  /// run; none when empty. A bisect's check measured beside a verification stops so when the
  /// candidate it checks around is refuted (SharedRuns::Cancel).
  std::function<bool()> stop_requested;
};

/// Runs that gave no number, per arm, over the measured (not warm-up) runs, and Fisher's exact
/// test of the difference in their rates. A difference makes NULL impossible: two arms that
/// fail, or exceed the timeout, at different rates are not the same, whatever the pairs that
/// survived say. (A timed-out run is also kept in the ranks as censored; a crash is not.)
struct FailureComparison {
  int failed[2] = {0, 0};     ///< Crashes, non-zero exits, missing metrics.
  int timed_out[2] = {0, 0};  ///< Censored runs.
  int runs[2] = {0, 0};
  double p_value = 1;   ///< Fisher's exact test of Unmeasured(0)/runs[0] vs Unmeasured(1)/runs[1].
  bool differ = false;  ///< p_value below the alpha of the look that tested it.

  int Unmeasured(int arm) const { return failed[arm] + timed_out[arm]; }
  /// The arm with the higher rate of unmeasured runs (B on a tie).
  int WorseArm() const {
    return Unmeasured(1) * std::max(runs[0], 1) >= Unmeasured(0) * std::max(runs[1], 1) ? 1 : 0;
  }
  /// "B failed 10 of 40 runs (8 timed out), A 0 of 40 runs (Fisher's exact test p = 0.0012)".
  std::string Describe() const;
};

/// Everything one sitting measured and concluded.
struct SittingResult {
  std::vector<Sample> samples;     ///< Execution order; arm 0 = A, 1 = B.
  std::vector<double> log_ratios;  ///< ln(B) - ln(A) of kept pairs, in pair order.
  int pairs_kept = 0;
  int pairs_dropped = 0;
  int failed_samples = 0;
  std::optional<ShiftEstimate> shift;  ///< At the confidence of the look that decided.
  /// The mean of the log-ratios and the balance of the tails at the same look and confidence
  /// (GatherTailEvidence): a NULL needs them to agree with the shift (ClassifyWithTails).
  std::optional<TailEvidence> tails;
  std::optional<VerdictResult> verdict;
  double nominal_confidence = 0;  ///< The look's confidence after alpha spending.
  std::vector<int> looks;         ///< Pair counts at which the sitting looked.
  /// How EFFECT's α was spread over the looks (SittingOptions::effect_spending): the record
  /// says it (MakeComparisonRecord's alpha_spending).
  Spending effect_spending = Spending::kPocock;
  /// The sitting stopped before its last look, neither verdict being within its reach
  /// (SittingOptions::stop_when_futile); the verdict is INCONCLUSIVE.
  bool stopped_futile = false;
  /// The sitting stopped with every move of ×(1 + SittingOptions::rule_out_band) or more
  /// ruled out (`shift` is the interval that did it); the verdict is INCONCLUSIVE or NULL.
  bool ruled_out = false;
  HostState start, end;
  std::vector<double> checkpoint_calibrations_ms;  ///< Between looks, if asked.
  std::optional<CalibrationCheck> calibration;
  bool interrupted = false;
  std::optional<Error> failure;  ///< Set when the arms kept failing: no verdict.
  FailureComparison failures;
  int pairs_censored = 0;  ///< Kept pairs with one side timed out.
  /// The near-deterministic rule's last look (SittingOptions::near_deterministic); the
  /// sitting's verdict is its own when its state is kDecided. nullopt when it never looked.
  std::optional<NearDeterministicLook> near_deterministic;
  std::vector<std::string> notes;
  uint64_t seed = 0;
};

/// How many of `samples` (warm-ups included) are failed runs of `arm`: which
/// side of a broken sitting was broken.
int FailedSamples(const std::vector<Sample>& samples, int arm);

/// The ln(B) - ln(A) of the pairs a paired sitting kept, read back from its samples (as a
/// record keeps them): equal to that sitting's `log_ratios`, censored sides included. Empty
/// when no pair of both arms was kept. Lets a later step use an archived sitting as its
/// evidence without measuring it again (a bisect adopting investigate's confirmation).
std::vector<double> KeptLogRatios(const std::vector<Sample>& samples);

/// The notes every sitting (paired, single-arm, table, isolation) ends with, into `notes`: the
/// calibration drift between its two snapshots, into `calibration` when both snapshots have
/// one, then what changed on the host meanwhile (HostChangeWarnings; none when `host` is
/// null: a caller whose sitting may stop before a snapshot passes null then).
void NoteSittingEnd(const HostProbe* host, const HostState& start, const HostState& end,
                    std::optional<CalibrationCheck>& calibration, std::vector<std::string>& notes);

/// NULL's nominal two-sided α at each of `null_looks` (the looks up to null_max_pairs, after
/// StoppableLooks): Pocock spending of `alpha` over the looks from the first one, n_j, at which
/// TrimAtLook(n_j, PocockSpent(alpha, n_j / the last look), `share`) >= 1, and 0 before it
/// (those looks state no NULL); SpendAlpha over every look when no look is such. Pocock's
/// increments after n_j are the same either way: n_j gets what the looks before it had, so the
/// shares still sum to `alpha`, and a look before it could not have stated a tie anyway unless
/// its pairs sight a slow tail at its own share without a pair set aside. E.g. {12, 14, 20, 28,
/// 40, 56, 80, 114, 160} at 0.05: 0 up to 28, 0.0179 at 40 (one pair a side set aside:
/// P(at most one tail run in 40) = 0.0121), then 0.0057, 0.0075, 0.0090, 0.0100. The start
/// reads the look's whole share, not TailSightingAlpha of it, though a tie at 40 then sets no
/// pair aside: started at the first look that half a share lets set one aside (56), the later
/// looks held more α and a tie over a slow tail stood in 7 bisects of 1,000 in the simulator's
/// tail world, against 2 of 1,200 (docs/statistics.md, "A tie needs the tails to agree").
/// `from_pairs` > 0 moves the start later, never earlier: to the last look at or before
/// from_pairs when that is past n_j (the last look when every look is at or before it), again
/// with what the looks before it held, so the later shares and the sum are unchanged.
std::vector<double> NullSpendingFromTrimmedLook(std::span<const int> null_looks, double alpha,
                                                double share, int from_pairs = 0);

/// Runs a paired sitting of arm B against arm A. `host` may be null (no host
/// state, tests). Never throws; a broken arm ends the sitting with `failure`.
SittingResult RunPairedSitting(SampleSource& source, const HostProbe* host,
                               const SittingOptions& options, SittingProgress* progress);

/// Runs arm 0 alone: warm-up, then `samples` runs (no pairs, no verdict).
SittingResult RunSingleArmSitting(SampleSource& source, const HostProbe* host, int warmup,
                                  int samples, SittingProgress* progress);

}  // namespace culprit
