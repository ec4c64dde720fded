#pragma once

// The bisect's budgets, as pure functions of [bisect], the sitting options and the log:
// how many pairs a sitting of each step kind may take, the search's options, and what
// [bisect] max_total_pairs leaves. No I/O, no world: the runner asks, and spends.

#include <string_view>
#include <vector>

#include "bisect/bisect_config.h"
#include "bisect/bisect_state.h"
#include "bisect/search.h"
#include "bisect/tie_plan.h"
#include "probes/sitting.h"

namespace culprit {

/// The note of a confirmation step whose pairs an archived record measured (--confirmed-by):
/// they are the bisect's evidence, not pairs it spent.
inline constexpr std::string_view kAdoptedNote = "adopted: ";

/// Pairs the bisect whose steps are `log` has measured (an adopted confirmation's are not its
/// own, so they are not counted): a check's runs that were its verification's too
/// (BisectStepLog::shared_runs) count once, as SharedPairs says.
int PairsMeasured(const std::vector<BisectStepLog>& log);
/// The runs `log`'s checks took from the verifications they were measured beside
/// (BisectStepLog::shared_runs, summed).
int SharedRunCount(const std::vector<BisectStepLog>& log);
/// Their pairs' worth (two runs a pair, rounded down): what summing the steps' pairs counts
/// twice.
inline int SharedPairs(const std::vector<BisectStepLog>& log) { return SharedRunCount(log) / 2; }

/// What `bisect.max_total_pairs` leaves to measure after `log`: never negative, and INT_MAX
/// when there is no cap (max_total_pairs <= 0).
int PairsLeft(const BisectConfig& bisect, const std::vector<BisectStepLog>& log);

/// The share of a check's pairs its tie's mean may set aside at each end (SittingOptions::
/// trim_share; probes' kTrimShare is 2.5%). A host with one wild run in fifty puts one in
/// twenty-five pairs far out, slow or fast at random: at 2.5% a side a 160-pair tie kept the
/// few more of one side than the other that chance gives, and its mean's interval left the
/// band where the pairs' own (Hodges–Lehmann) interval held: on a 10%-noise host, 5% a side
/// showed the first bad commit in 80 bisects of 100 where 2.5% showed it in 73. At 5%
/// a side a slow tail in 15% of B's runs keeps at least 10% of the pairs slow, a mean ×1.07
/// for B twice as slow, still beyond a 5% band; and TrimAtLook never sets aside more than
/// the sighting allows at the look's sighting α (TailSightingAlpha).
inline constexpr double kCheckTrimShare = 0.05;

/// The options of one full sitting of a step of `kind` (the endpoints' confirmation, or a
/// check of a part a verified change leaves unexplained): `measure`, the [measure] options with
/// the command's flags applied, with [bisect]'s budgets for the kind unless `max_pairs_given`
/// (--max-pairs then bounds it), cut to `pairs_left` in whole blocks. Confirmations and checks
/// stop once neither verdict is within reach, and look on ConfirmationLooks' schedule.
SittingOptions SittingBudget(const SittingOptions& measure, const BisectConfig& bisect,
                             BisectStepKind kind, bool max_pairs_given, int pairs_left);

/// The looks of the endpoint confirmation and of a check: `min_pairs`, then each about `growth`
/// times the last (min_pairs·growth^k rounded to whole blocks), then `max_pairs`; an intermediate
/// look closer than (1 + growth) / 2 to max_pairs is dropped (as LookSchedule drops one closer
/// than 1.5x), and so is one that rounds onto the look before it. E.g. {10, 14, 20, 28, 40, 56, 80,
/// 114, 160, 226, 320, 452, 640, 906, 1280} for (10, 1280, √2). growth outside (1, 2) (or max_pairs
/// <= min_pairs) gives LookSchedule's looks. The sitting spends α over them (Pocock), so finer
/// looks keep the overall α: each look's share is smaller, and a move stops nearer the pairs
/// it needs.
std::vector<int> ConfirmationLooks(int min_pairs, int max_pairs, double growth);

/// The last look at which the sitting `options` may state a NULL: its null_max_pairs (clamped
/// as the sitting clamps it), or its max_pairs.
int TieBudget(const SittingOptions& options);

/// A check's options (SittingBudget's, kind kCheck) with `plan` (PlanTie) applied. A tie
/// sought: NULL's looks end at plan.budget, and the check's budget is raised to it, never
/// beyond `check`'s own max_pairs (PlanTie's cap), and NULL's spending starts where the plan
/// says (SittingOptions::null_from_pairs = plan.null_from_pairs). A tie not sought: NULL's looks
/// end at the check's second look, where no NULL can be stated (a NULL needs PairsToSightTail pairs
/// at half NULL's share of α there, TailSightingAlpha, more than the look holds with [measure]'s
/// defaults), so the looks and EFFECT's spending are the check's as before, and the futility stop
/// ends the sitting once no move is within reach of its last look. With plan.alternative A (beyond
/// the band) the check also stops once every move of ×A or more is ruled out
/// (SittingOptions::rule_out_band): a tie sought, from NULL's last look on; a tie not sought, from
/// its first look on, NULL's looks up to plan.budget then reading the rule-out alone
/// (null_states_tie false: no tie is stated).
SittingOptions CheckSittingBudget(const SittingOptions& check, const TiePlan& plan);

/// The search's options for a range (or part) of `n` commits whose endpoint sitting (the
/// confirmation or a check) took `endpoint_pairs` pairs, with `pairs_left` (PairsLeft, counting
/// that sitting) of [bisect] max_total_pairs to spend. A near-deterministic `measure`
/// (SittingOptions::near_deterministic) makes a near-deterministic search (its noise floor and
/// its verifications' rule: SearchOptions::near_deterministic).
SearchOptions MakeSearchOptions(const SittingOptions& measure, const BisectConfig& bisect, int n,
                                int endpoint_pairs, int pairs_left);

}  // namespace culprit
