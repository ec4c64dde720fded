#pragma once

// Whether a check should seek a tie, from the noise the bisect already measured. A tie of
// the part before a change ("parent against the good end within the band") is what shows
// the change is the first bad commit; on a noisy host it takes hundreds of pairs, and a check
// that seeks it within [measure]'s 160 spends them and shows it in a few percent of bisects.
// So the pairs a tie needs are predicted first, from pairs the tie will not use (the search's,
// the verification's, the endpoint sitting's), and the tie is sought only when the prediction
// fits the check's budget; `--prove-first` seeks it with a budget that holds the prediction.
// Pure functions: no I/O, no world.

#include <optional>
#include <span>

#include "bisect/bisect_config.h"
#include "bisect/search_model.h"
#include "probes/statistics.h"

namespace culprit {

/// The spread of one pair's log-ratio d, pooled from batches whose pairs share a mean.
struct PairNoise {
  /// The scale a tie's trimmed mean reads (TrimmedPairScale): the pooled deviations winsorized
  /// at kTrimShare of the pairs at each end, over 1 − 2·kTrimShare. What a tie's and a
  /// rule-out's interval is predicted from. Equal to plain_sd when no pair is set aside.
  double sd = 0;
  int pairs = 0;  ///< Pairs it was computed from.
  int dof = 0;    ///< Degrees of freedom: pairs minus the groups they fell in.
  /// Pooled sample standard deviation of d, outliers included: the plain mean's scale.
  double plain_sd = 0;
};

/// Fewer degrees of freedom than this give no PairNoise: too few pairs to predict from.
inline constexpr int kMinNoiseDof = 10;

/// The spread of d over `observations`, each group of pairs of one commit against one baseline
/// (verification pairs apart) centred on its own mean: every pair of such a group compares the
/// same two builds, so whatever the first bad commit is, they share a mean, and the pooled
/// spread is the noise of one pair with no model assumed. plain_sd is the pooled sample
/// deviation (what the plain mean's t-interval reads); sd is TrimmedPairScale of the pooled
/// deviations, what the tie's trimmed mean reads (probes/verdict.h, TrimForTie: a tie sets
/// the few wild pairs at each end aside, so the spread they add must not count against it).
/// nullopt with fewer than kMinNoiseDof degrees of freedom.
std::optional<PairNoise> PooledPairNoise(std::span<const Observation> observations);

/// The scale of one pair for a Yuen trimmed mean that sets aside k = ⌊`share` · n⌋ of the n
/// `deviations` at each end: the deviations winsorized (the k smallest raised to the (k+1)-th
/// smallest, the k largest lowered to the (k+1)-th largest), their sum of squares about their
/// mean over `dof`, the root of that over 1 − 2k/n. A trimmed mean of m pairs then has a
/// standard error of about this over √m (Yuen's, sqrt((m−1)·s_w²/(h(h−1))), h = m − 2k). The
/// plain sample deviation (over `dof`) when k = 0. Requires dof >= 1, 0 <= share < 0.5.
double TrimmedPairScale(std::span<const double> deviations, int dof, double share);

/// The chance that a tie is shown, at a true ratio of exactly 1, that TiePairsNeeded plans
/// for: kShowPower for "≈ N pairs" and whether a tie is sought within a check's budget (the
/// pairs at which it is shown about half the time), kProvePower for the budget `--prove-first`
/// seeks it with.
inline constexpr double kShowPower = 0.5;
inline constexpr double kProvePower = 0.9;

/// NULL's share of α = 1 − `confidence` at its last look, `null_max_pairs`, as a check spends
/// it: Pocock over the checks' looks (ConfirmationLooks from `min_pairs` growing by
/// `look_growth`, by default [bisect] confirm_look_growth's default, to null_max_pairs; a
/// configured growth changes how well the predicted power holds, never an error rate). 0.01003 of
/// 0.05 at 10…160 by √2 (the look before it, 114, is at 0.71 of the information), 0.018994 by
/// doubling.
double NullLastAlpha(double confidence, int min_pairs, int null_max_pairs,
                     double look_growth = BisectConfig{}.confirm_look_growth);

/// Pairs a check with NULL's last look at `null_max_pairs` (NullLastAlpha's looks and
/// spending) needs to show a tie within ±`band` with probability
/// `power` when the true ratio is 1 and one pair's d has standard deviation `noise`:
///   n = (π/3) · ((z_{1-α/2} + z_{(1+power)/2}) · noise / τ)²,
/// α the NULL's share at its last look, τ = ln(1 + band): the t-interval of the mean log ratio
/// and the Hodges–Lehmann interval (√(π/3) wider on normal noise) both inside (−τ, τ) when
/// the estimate strays less than z_{(1+power)/2} standard errors from 0. At least
/// PairsToSightTail(TailSightingAlpha(α)) (a NULL needs them). Monotone in `noise`; INT_MAX
/// when it would not fit an int; min_pairs at noise 0. Requires band > 0, 0 < confidence < 1,
/// 0 < power < 1, 1 <= min_pairs.
int TiePairsNeeded(double noise, double band, double confidence, double power, int min_pairs,
                   int null_max_pairs);

/// What a check does about a tie.
struct TiePlan {
  /// Seek the tie (within `budget` pairs). False: the check hunts a further move only.
  bool seek = true;
  /// The pairs NULL's looks may go to when seeking; the check's own tie budget otherwise.
  int budget = 0;
  /// ≈ the pairs a tie needs (kShowPower); 0 when nothing predicted it (no PairNoise).
  int pairs_needed = 0;
  /// The pairs `--prove-first` plans for (kProvePower); 0 as pairs_needed.
  int pairs_to_prove = 0;
  /// `--prove-first`: its cap holds fewer than pairs_to_prove (sought anyway, with the cap).
  bool short_of_proof = false;
  double noise = 0;  ///< The PairNoise sd it was predicted from (0: none).
  /// A of "is there another change of at least ×A here" (FurtherMoveAlternative): the check
  /// stops once every move of ×A or more is ruled out (SittingOptions::rule_out_band); 0: no
  /// such stop (the hunt goes on to the check's budget or its futility stop).
  double alternative = 0;
  /// Whether this part's tie earns a label (TieEarnsFirst: the part before the earliest
  /// change, whose tie shows the first bad commit). False: not sought where a rule-out
  /// answers the part's question (alternative beyond the band), however few pairs it needs.
  bool earns_label = true;
  /// Sought within kEarningTieBudgetFactor times the check's tie budget, without
  /// `--prove-first`: the tie that earns the label did not hold its proof within the check's own.
  bool widened = false;
  /// NULL's spending starts at the last of its looks at or before this many pairs
  /// (SittingOptions::null_from_pairs); 0: at its first trimmed look. `--prove-first` sets
  /// pairs_needed: its tie's budget holds the proof's pairs, several √2 looks past the pairs at
  /// which the tie is shown half the time, and at 24% noise the looks up to 452 cannot state it
  /// (docs/statistics.md, "A proof's tie spends from where it may be shown"). A check that
  /// hunts a further move only (seek false, alternative beyond the band, noise predicted) sets
  /// the pairs at which its rule-out of ×A is shown half the time (TiePairsNeeded against a
  /// band of A − 1 at kShowPower): NULL's looks then serve the rule-out alone, and the looks
  /// well before those pairs hardly ever rule it out (95 pairs of 160 wherever the noise sets
  /// A; docs/statistics.md, "The rule-out spends from where it may be shown").
  int null_from_pairs = 0;
};

/// The tie that earns the "first bad commit" label (the part before the earliest change) is
/// sought within up to this many times the check's tie budget when the check's own would not
/// give it kProvePower: on a 10%-noise host its tie needs ≈ 170–290 pairs, and within 160 it
/// was shown in 56% of bisects (docs/bisect-evidence.md). Further, only `--prove-first`.
inline constexpr int kEarningTieBudgetFactor = 2;

/// The chance that a check rules out every move of ×A or more, on a part where nothing moves,
/// by its tie budget's last look: the power FurtherMoveAlternative plans A for.
inline constexpr double kRuleOutPower = 0.9;

/// ln A is never below this many times the band's edge τ: a rule-out against the band itself
/// is the tie, with its cost. 1.25: ×1.063 at a 5% band, below a +7% change.
inline constexpr double kMinAlternativeOverBand = 1.25;

/// The same floor for a part whose tie earns no label (a part after the earliest change):
/// there the check asks only whether another change of practical size hides, and A's floor
/// is its cost on a quiet host, where the noise puts A at the floor. 1.6: ×1.081 at a 5%
/// band, within issue 27's "later moves ≥ ×1.10 ruled out" and below the +9% of bisect-sim's
/// two-change worlds, which are all still named (at 2.0, ×1.103, a later +9% was ruled out
/// instead in 7-10% of them; docs/bisect-evidence.md, "A later part's floor").
inline constexpr double kMinLaterAlternativeOverBand = 1.6;

/// The alternative A a check hunts a further move against: the smallest move it rules out with
/// probability kRuleOutPower within `tie_budget` pairs on a part where nothing moves,
///   ln A = √(π/3) · (z_{1-α_L/2} + z_{(1+kRuleOutPower)/2}) · noise / √tie_budget,
/// α_L NULL's share of α at its last look (Pocock over the looks from `min_pairs` to
/// tie_budget on the checks' looks: NullLastAlpha, 0.010 of 0.05), never below
/// kMinAlternativeOverBand · τ, τ = ln(1 + band):
/// TiePairsNeeded's rule read for the ratio at a given n instead of the n at a given ratio.
/// A spread from fewer pairs than tie_budget, which PlanTie does not trust to skip a tie, is
/// used here: A only sets what the check claims. Without any noise A is the floor,
/// exp(kMinAlternativeOverBand · τ). `min_over_band` replaces kMinAlternativeOverBand
/// (PlanTie: kMinLaterAlternativeOverBand for a part whose tie earns no label). Returns A
/// (> 1 + band). Requires band > 0, 0 < confidence < 1, 1 <= min_pairs <= tie_budget,
/// min_over_band > 1.
double FurtherMoveAlternative(std::optional<PairNoise> noise, double band, double confidence,
                              int min_pairs, int tie_budget,
                              double min_over_band = kMinAlternativeOverBand);

/// ≈ The pairs an undecided check's interval `now` would need to rule out every move of
/// ×`alternative` or more, if the noise to come is the noise so far (ReachOfLastLook's
/// projection at now's confidence); 0 when the estimate is at or beyond ±ln alternative (a
/// move that large is as likely as not there), when the interval already lies inside it (what
/// held the rule-out back was more than its width: FurtherMoveText says what), when `alternative`
/// is 0 (none), or when it would not fit an int.
int PairsToRuleOut(const ShiftEstimate& now, double alternative);

/// The plan of a check whose tie budget is `tie_budget` (its NULL's last look) and whose whole
/// budget is `cap` (its last look; a move is hunted up to it), with its alternative
/// (FurtherMoveAlternative, floored at kMinLaterAlternativeOverBand · τ when the tie does not
/// earn the label) for the hunt. A tie that does not `earns_label` (TieEarnsFirst) is
/// never sought when the alternative is beyond the band: the part's question is then whether
/// another move of ×A or more hides there, which the rule-out answers. Otherwise, without
/// `noise` the tie is sought within tie_budget, as before any prediction; without
/// `prove_first` it is sought within tie_budget when pairs_needed fits it, and a tie that
/// earns the label whose pairs_to_prove tie_budget does not hold is sought within
/// kEarningTieBudgetFactor · tie_budget (and cap) when pairs_needed fits that (widened); with
/// `prove_first` it is sought within the least of tie_budget, tie_budget·2, ·4, … (and cap)
/// that holds pairs_to_prove, and within cap when none does (short_of_proof). The budgets
/// considered never exceed cap. pairs_needed and pairs_to_prove are predicted either way. A
/// plan with `noise` that seeks no tie and has an alternative beyond the band sets
/// null_from_pairs to where its rule-out is shown half the time; `prove_first`'s sought tie
/// sets it to pairs_needed.
TiePlan PlanTie(std::optional<PairNoise> noise, double band, double confidence, int min_pairs,
                int tie_budget, int cap, bool prove_first, bool earns_label = true);

}  // namespace culprit
