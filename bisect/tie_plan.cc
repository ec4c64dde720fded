#include "bisect/tie_plan.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>
#include <map>
#include <numbers>
#include <tuple>
#include <vector>

#include "bisect/bisect_budget.h"
#include "probes/sequential.h"
#include "probes/sitting.h"
#include "probes/statistics.h"
#include "probes/verdict.h"

namespace culprit {

std::optional<PairNoise> PooledPairNoise(std::span<const Observation> observations) {
  // The pairs per group: one commit against one baseline (a verification's apart, though they
  // compare the same builds: they are kept as the sitting they were).
  std::map<std::tuple<int, int, bool>, std::vector<double>> groups;
  for (const Observation& o : observations) {
    std::vector<double>& g = groups[{o.commit, o.baseline, o.verification}];
    for (double d : o.d) {
      if (std::isfinite(d)) g.push_back(d);
    }
  }
  PairNoise noise;
  std::vector<double> deviations;
  double ss = 0;
  for (const auto& [key, g] : groups) {
    if (g.empty()) continue;
    noise.pairs += static_cast<int>(g.size());
    noise.dof += static_cast<int>(g.size()) - 1;
    double sum = 0;
    for (double d : g) sum += d;
    const double mean = sum / static_cast<double>(g.size());
    for (double d : g) {
      deviations.push_back(d - mean);
      ss += (d - mean) * (d - mean);
    }
  }
  if (noise.dof < kMinNoiseDof) return std::nullopt;
  noise.plain_sd = std::sqrt(ss / noise.dof);
  noise.sd = TrimmedPairScale(deviations, noise.dof, kTrimShare);
  return noise;
}

double TrimmedPairScale(std::span<const double> deviations, int dof, double share) {
  assert(dof >= 1 && share >= 0 && share < 0.5);
  std::vector<double> w(deviations.begin(), deviations.end());
  const int n = static_cast<int>(w.size());
  const int k = static_cast<int>(std::floor(share * n + 1e-9));
  if (n == 0) return 0;
  std::sort(w.begin(), w.end());
  for (int i = 0; i < k; ++i) {
    w[i] = w[k];
    w[n - 1 - i] = w[n - 1 - k];
  }
  double mean = 0;
  for (double x : w) mean += x;
  mean /= n;
  double ss = 0;
  for (double x : w) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / dof) / (1 - 2.0 * k / n);
}

double NullLastAlpha(double confidence, int min_pairs, int null_max_pairs, double look_growth) {
  const double alpha = 1 - confidence;
  const std::vector<int> looks =
      StoppableLooks(ConfirmationLooks(min_pairs, std::max(min_pairs, null_max_pairs), look_growth),
                     alpha, Spending::kPocock, kPairsPerBlock);
  return SpendAlpha(alpha, looks, Spending::kPocock).back();
}

int TiePairsNeeded(double noise, double band, double confidence, double power, int min_pairs,
                   int null_max_pairs) {
  assert(band > 0 && confidence > 0 && confidence < 1 && power > 0 && power < 1);
  assert(min_pairs >= 1);
  // NULL's share at its last look, as a check's sitting spends it (Pocock over its looks).
  const double last_alpha = NullLastAlpha(confidence, min_pairs, null_max_pairs);
  const double z = NormalQuantile(1 - last_alpha / 2) + NormalQuantile((1 + power) / 2);
  const double tau = BandEdge(band);
  const double n = std::numbers::pi / 3 * std::pow(z * std::max(0.0, noise) / tau, 2);
  if (!(n < INT_MAX / 2)) return INT_MAX;
  return std::max(
      {min_pairs, PairsToSightTail(TailSightingAlpha(last_alpha)), static_cast<int>(std::ceil(n))});
}

double FurtherMoveAlternative(std::optional<PairNoise> noise, double band, double confidence,
                              int min_pairs, int tie_budget, double min_over_band) {
  assert(band > 0 && confidence > 0 && confidence < 1 && min_pairs >= 1 && min_over_band > 1);
  tie_budget = std::max(tie_budget, min_pairs);
  const double floor = min_over_band * BandEdge(band);
  // A spread from fewer pairs than the tie budget is used too (PlanTie does not trust it to
  // skip a tie): A only says what the check claims to rule out, and a quiet host's spread
  // inflated by an outlier or two gives at most ×1.10 or so.
  if (!noise) return std::exp(floor);
  const double last_alpha = NullLastAlpha(confidence, min_pairs, tie_budget);
  const double z = NormalQuantile(1 - last_alpha / 2) + NormalQuantile((1 + kRuleOutPower) / 2);
  const double log_a = std::sqrt(std::numbers::pi / 3) * z * std::max(0.0, noise->sd) /
                       std::sqrt(static_cast<double>(tie_budget));
  return std::exp(std::max(floor, log_a));
}

int PairsToRuleOut(const ShiftEstimate& now, double alternative) {
  if (!(alternative > 1) || now.n == 0) return 0;
  // An interval already inside ±ln A that did not rule the move out was held back by more
  // than its width (the mean and the tails, at the rule-out's confidence: RulesOutMove); a
  // projection of the interval would say fewer pairs than were measured.
  if (Classify(now.low, now.high, std::log(alternative)) == Verdict::kNull) return 0;
  const double alpha = std::clamp(1 - now.confidence, 1e-12, 0.5);
  const double pairs =
      ReachOfLastLook(now, alternative - 1, static_cast<int>(now.n), alpha).pairs_for_tie;
  if (!(pairs > 0) || !(pairs < INT_MAX / 2)) return 0;
  return static_cast<int>(std::ceil(pairs));
}

namespace {

// The pairs a tie needs at `power`, read at the NULL schedule that holds them: the least of
// `from`, 2·from, 4·from, … whose last look is at or past its own need (the last share of α of
// a schedule growing by a fixed factor hardly depends on its length, so this settles at once in
// practice).
int NeedAtFittingSchedule(double noise, double band, double confidence, double power, int min_pairs,
                          int from) {
  int need = INT_MAX;
  for (long long b = std::max(from, min_pairs); b < INT_MAX / 2; b *= 2) {
    need = TiePairsNeeded(noise, band, confidence, power, min_pairs, static_cast<int>(b));
    if (need <= b) break;
  }
  return need;
}

// Where a check that hunts a further move only (no tie sought, A beyond the band) starts
// NULL's spending, which serves the rule-out alone: the pairs at which the rule-out of ×A is
// shown half the time. 0 for a check that seeks its tie, or has no rule-out, or whose
// rule-out is shown half the time on the pairs a NULL needs to sight a slow tail (a quiet
// host's): it could not stop sooner anyway, and the check's line would announce a start
// that changes nothing.
int RuleOutFromPairs(const TiePlan& plan, double noise, double band, double confidence,
                     int min_pairs, int tie_budget) {
  if (plan.seek || !(plan.alternative > 1 + band)) return 0;
  const int need =
      TiePairsNeeded(noise, plan.alternative - 1, confidence, kShowPower, min_pairs, tie_budget);
  const int sighting =
      PairsToSightTail(TailSightingAlpha(NullLastAlpha(confidence, min_pairs, tie_budget)));
  return need > sighting ? need : 0;
}

}  // namespace

TiePlan PlanTie(std::optional<PairNoise> noise, double band, double confidence, int min_pairs,
                int tie_budget, int cap, bool prove_first, bool earns_label) {
  TiePlan plan;
  cap = std::max(cap, 1);
  tie_budget = std::clamp(tie_budget, 1, cap);
  plan.budget = tie_budget;
  plan.alternative =
      FurtherMoveAlternative(noise, band, confidence, min_pairs, tie_budget,
                             earns_label ? kMinAlternativeOverBand : kMinLaterAlternativeOverBand);
  plan.earns_label = earns_label;
  // A tie that earns no label is read by nobody, and seeking it costs: the rule-out may end
  // the check only once NULL's looks are over (CheckSittingBudget). The rule-out's wider band
  // answers the part's own question sooner.
  const bool unearned = !earns_label && plan.alternative > 1 + band;
  if (unearned) plan.seek = false;
  // A spread from fewer pairs than the tie would take is not trusted: a quiet host's few
  // dozen pairs hold an outlier or two, or none, and their spread swings by a factor of five.
  if (!noise || noise->pairs < tie_budget) {
    if (prove_first && !unearned) plan.budget = cap;
    return plan;
  }
  plan.noise = noise->sd;
  plan.pairs_needed =
      NeedAtFittingSchedule(noise->sd, band, confidence, kShowPower, min_pairs, tie_budget);
  plan.pairs_to_prove =
      NeedAtFittingSchedule(noise->sd, band, confidence, kProvePower, min_pairs, tie_budget);
  if (unearned) {
    plan.null_from_pairs =
        RuleOutFromPairs(plan, noise->sd, band, confidence, min_pairs, tie_budget);
    return plan;
  }
  if (!prove_first) {
    plan.seek = plan.pairs_needed <= tie_budget;
    // The tie that earns the label, short of its proof within the check's budget: a wider
    // one, its looks spending the same α (Pocock over more looks), while it is within reach.
    const int wider = std::min(cap, kEarningTieBudgetFactor * tie_budget);
    if (earns_label && plan.pairs_to_prove > tie_budget && wider > tie_budget) {
      const int need =
          NeedAtFittingSchedule(noise->sd, band, confidence, kShowPower, min_pairs, wider);
      if (need <= wider) {
        plan.seek = true;
        plan.widened = true;
        plan.budget = wider;
        plan.pairs_needed = need;
      }
    }
    plan.null_from_pairs =
        RuleOutFromPairs(plan, noise->sd, band, confidence, min_pairs, tie_budget);
    return plan;
  }
  // The least budget from tie_budget doubling (cap the last) that holds the proof's pairs.
  plan.seek = true;
  plan.null_from_pairs = plan.pairs_needed;
  for (long long b = tie_budget;; b *= 2) {
    const int budget = static_cast<int>(std::min<long long>(b, cap));
    if (TiePairsNeeded(noise->sd, band, confidence, kProvePower, min_pairs, budget) <= budget) {
      plan.budget = budget;
      return plan;
    }
    if (budget >= cap) break;
  }
  plan.budget = cap;
  plan.short_of_proof = true;
  return plan;
}

}  // namespace culprit
