#include "bisect/bisect_budget.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "probes/sequential.h"

namespace culprit {

int PairsMeasured(const std::vector<BisectStepLog>& log) {
  int pairs = 0;
  for (const BisectStepLog& l : log) {
    if (!l.note.starts_with(kAdoptedNote)) pairs += l.pairs;
  }
  return pairs - SharedPairs(log);
}

int SharedRunCount(const std::vector<BisectStepLog>& log) {
  int runs = 0;
  for (const BisectStepLog& l : log) runs += l.shared_runs;
  return runs;
}

int PairsLeft(const BisectConfig& bisect, const std::vector<BisectStepLog>& log) {
  if (bisect.max_total_pairs <= 0) return std::numeric_limits<int>::max();
  return std::max(0, bisect.max_total_pairs - PairsMeasured(log));
}

SittingOptions SittingBudget(const SittingOptions& measure, const BisectConfig& bisect,
                             BisectStepKind kind, bool max_pairs_given, int pairs_left) {
  SittingOptions options = measure;
  const bool confirm = kind == BisectStepKind::kConfirm;
  const bool check = kind == BisectStepKind::kCheck;
  if (!max_pairs_given) {
    // Whether the range, or a part of it, moves is asked with the confirmation's budget: a
    // move a little beyond the band on a noisy host takes hundreds of pairs to tell from
    // the band. A part's tie, which earns only the "first bad commit" label, is sought
    // within check_max_pairs ([measure]'s by default).
    const int moves_budget = confirm || check ? bisect.confirm_max_pairs : 0;
    if (moves_budget > 0) options.max_pairs = std::max(moves_budget, measure.min_pairs);
    if (check) {
      const int tie_budget =
          bisect.check_max_pairs > 0 ? bisect.check_max_pairs : measure.max_pairs;
      options.max_pairs = std::max(options.max_pairs, tie_budget);
      options.null_max_pairs = tie_budget;
    }
  }
  if (bisect.max_total_pairs > 0) {
    // Whole blocks (an AB and a BA pair), so a sitting never runs past the cap.
    options.max_pairs = std::min(options.max_pairs, std::max(2, pairs_left / 2 * 2));
    options.min_pairs = std::min(options.min_pairs, options.max_pairs);
  }
  // An undecided answer is as good early as late: a check's part is reported unplaced
  // either way, and an undecided confirmation ends the bisect INCONCLUSIVE with what the
  // pairs could have seen. So both stop once neither verdict is within their budgets' reach
  // (a move on the band's edge is, until about half the budget).
  options.stop_when_futile = check || confirm;
  // A check's NULL spends its α from its first look that can state a tie with a wild pair set
  // aside at each end (40 pairs of 12, 14, 20, 28, 40, …, 160): the looks before it cannot
  // sight a slow tail at their shares, so what they held goes to that look.
  options.null_from_trimmed_look = check;
  if (check) options.trim_share = kCheckTrimShare;
  // The confirmation and the checks look more often than by doubling: a move (or a check's
  // tie) stops nearer the pairs it needs, and the sitting spends α over these looks, so the
  // overall α is kept. A check's tie budget (160) is a look of this schedule as of doubling.
  if (confirm || check) {
    options.looks =
        ConfirmationLooks(options.min_pairs, options.max_pairs, bisect.confirm_look_growth);
    // So many close looks share most of their pairs: read together (GroupSequentialAlphas),
    // they keep the whole α, where one at a time they keep about 0.03 of 0.05.
    options.joint_looks = bisect.joint_looks;
  }
  // Most of the confirmation's moves stop within a fifth of its 1280 pairs; only one within a
  // few percent of the band's edge goes further: its EFFECT spends on √t. A check keeps Pocock's
  // function, as its further-move rule-out and tie plan (PlanTie) read its looks that way.
  if (confirm && bisect.spend_on_root_time) options.effect_spending = Spending::kPocockOnRootTime;
  return options;
}

std::vector<int> ConfirmationLooks(int min_pairs, int max_pairs, double growth) {
  if (growth <= 1 || growth >= 2 || max_pairs <= min_pairs) {
    return LookSchedule(min_pairs, max_pairs);
  }
  std::vector<int> looks = {min_pairs};
  const double keep_below = max_pairs / ((1 + growth) / 2);
  for (double n = min_pairs * growth; n <= keep_below; n *= growth) {
    const int look = static_cast<int>(std::lround(n / kPairsPerBlock)) * kPairsPerBlock;
    if (look > looks.back() && look <= keep_below) looks.push_back(look);
  }
  looks.push_back(max_pairs);
  return looks;
}

int TieBudget(const SittingOptions& options) {
  if (options.null_max_pairs <= 0) return options.max_pairs;
  return std::clamp(options.null_max_pairs, options.min_pairs,
                    std::max(options.min_pairs, options.max_pairs));
}

SittingOptions CheckSittingBudget(const SittingOptions& check, const TiePlan& plan) {
  SittingOptions options = check;
  const bool rule_out = plan.alternative > 1 + check.band;
  if (plan.seek) {
    options.null_max_pairs = std::min(plan.budget, check.max_pairs);
    // The prediction behind it is from pairs this sitting does not use, so the spending is
    // fixed before its first pair, as any valid spending must be.
    options.null_from_pairs = plan.null_from_pairs;
    if (rule_out) {
      options.rule_out_band = plan.alternative - 1;
      // The tie first: a rule-out may end the check only once NULL's looks are over.
      options.rule_out_from_pairs = options.null_max_pairs;
    }
    return options;
  }
  if (rule_out) {
    // NULL's looks and spending up to the tie budget serve the rule-out alone.
    options.null_max_pairs = std::min(plan.budget, check.max_pairs);
    options.null_states_tie = false;
    options.rule_out_band = plan.alternative - 1;
    options.rule_out_from_pairs = 0;
    // Where the rule-out is shown half the time (TiePlan::null_from_pairs): the looks before
    // it would spend α on intervals still wider than ±ln A.
    options.null_from_pairs = plan.null_from_pairs;
    return options;
  }
  const std::vector<int> looks = LookSchedule(check.min_pairs, check.max_pairs);
  options.null_max_pairs = looks.size() >= 2 ? looks[1] : looks.front();
  return options;
}

SearchOptions MakeSearchOptions(const SittingOptions& measure, const BisectConfig& bisect, int n,
                                int endpoint_pairs, int pairs_left) {
  SearchOptions search_options;
  // The confirmation (or a segment's check) is the search's endpoint test; the search must
  // not re-judge it on its own look schedule and ask for more pairs of the bad end.
  search_options.confirm_endpoints = false;
  search_options.band = measure.band;
  search_options.confidence = measure.confidence;
  // A near-deterministic metric (instructions) sets the model's noise floor and lets the
  // near-deterministic rule read a verification's runs, as it reads every sitting's.
  search_options.near_deterministic = measure.near_deterministic;
  search_options.target_probability = bisect.target_probability;
  search_options.step_odds = bisect.step_odds;
  search_options.plan_verification = bisect.plan_verification;
  search_options.joint_looks = bisect.joint_looks;
  search_options.later_looks_spending =
      bisect.spend_on_root_time ? Spending::kPocockOnRootTime : Spending::kPocock;
  // Whether the culprit moves against its parent is the confirmation's question, with its
  // budget: a 10% change on a 24%-noise host is 5% beyond the band, and 320 pairs verified
  // it in a third of bisects (docs/bisect-evidence.md).
  if (bisect.confirm_max_pairs > 0) {
    search_options.verify_pairs_max =
        std::max(search_options.verify_pairs_min, bisect.confirm_max_pairs);
  }
  if (bisect.max_builds > 0) search_options.max_builds = bisect.max_builds;
  if (bisect.pairs_per_step > 0) search_options.max_pairs_per_step = bisect.pairs_per_step;
  if (bisect.max_pairs > 0) {
    search_options.max_pairs = bisect.max_pairs;
  } else {
    // The automatic budget sets verify_pairs_max aside for the endpoints. The endpoint
    // sitting may have taken more (up to confirm_max_pairs), and its pairs are the search's
    // first observation: what it took beyond that share must not come out of the search's.
    const int automatic = BisectSearch(n, search_options).max_pairs();
    search_options.max_pairs =
        automatic + std::max(0, endpoint_pairs - search_options.verify_pairs_max);
  }
  // The search's pairs include its endpoint observation, already counted when measured.
  if (bisect.max_total_pairs > 0) {
    search_options.max_pairs = std::min(search_options.max_pairs, endpoint_pairs + pairs_left);
  }
  return search_options;
}

}  // namespace culprit
