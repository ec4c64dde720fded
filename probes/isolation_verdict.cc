#include "probes/isolation_verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "probes/isolation_report.h"
#include "probes/round_design.h"
#include "probes/sequential.h"

namespace culprit {
namespace {

std::set<std::string> AsSet(const std::vector<std::string>& names) {
  return std::set<std::string>(names.begin(), names.end());
}

bool HoldsOnly(const ResidencyCondition& c) { return !c.hold.empty() && c.release.empty(); }

VerdictResult Inconclusive(std::string why) {
  VerdictResult v;
  v.verdict = Verdict::kInconclusive;
  v.explanation = std::move(why);
  return v;
}

}  // namespace

std::vector<int> IsolationLooks(const IsolationOptions& options, int conditions,
                                double condition_alpha) {
  const int comparisons = std::max(0, conditions - 1);
  return comparisons == 0
             ? std::vector<int>{std::max(1, options.min_rounds)}
             // Split over the comparisons, the first look's alpha is small (0.0013 at
             // 10 of 160 rounds, five conditions), beyond any interval on 10 rounds:
             // that look moves up by whole blocks of rounds until it can stop.
             : StoppableLooks(BlockAlignedLooks(
                                  LookSchedule(options.min_rounds, options.max_rounds), conditions),
                              condition_alpha, Spending::kPocock, conditions);
}

int DecideAtLook(IsolationResult& r, double alpha, double band, std::vector<bool>& decided) {
  int newly_decided = 0;
  for (int c = 1; c < static_cast<int>(r.conditions.size()); ++c) {
    if (decided[c]) continue;
    ConditionOutcome& outcome = r.conditions[c];
    outcome.log_ratios = PairedLogRatios(r.visit_values, c, r.rounds_done);
    Result<ShiftEstimate> shift = SignedRankEstimate(outcome.log_ratios, 1 - alpha);
    if (!shift) continue;
    outcome.shift = *shift;
    outcome.nominal_confidence = 1 - alpha;
    outcome.decided_at = r.rounds_done;
    if (IsDecisive(*shift, band)) {
      outcome.verdict = Decide(*shift, band);
      decided[c] = true;
      ++newly_decided;
    }
  }
  return newly_decided;
}

std::optional<double> RatioNow(const IsolationResult& r, int c) {
  const std::vector<double> d = PairedLogRatios(r.visit_values, c, r.rounds_done);
  if (d.size() < 2) return std::nullopt;
  std::vector<double> walsh;
  walsh.reserve(d.size() * (d.size() + 1) / 2);
  for (size_t i = 0; i < d.size(); ++i) {
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  }
  return std::exp(Median(walsh));
}

void DropVerdicts(IsolationResult& r) {
  for (ConditionOutcome& c : r.conditions) {
    c.verdict.reset();
    c.shift.reset();
  }
  r.notes.push_back(
      fmt::format("partial: the engine broke after {} complete rounds", r.rounds_done));
}

void EstimateWithoutVerdict(IsolationResult& r, double alpha) {
  for (int c = 1; c < static_cast<int>(r.conditions.size()); ++c) {
    ConditionOutcome& outcome = r.conditions[c];
    outcome.log_ratios = PairedLogRatios(r.visit_values, c, r.rounds_done);
    if (outcome.log_ratios.size() >= 2) {
      Result<ShiftEstimate> shift = SignedRankEstimate(outcome.log_ratios, 1 - alpha);
      if (shift) {
        outcome.shift = *shift;
        outcome.nominal_confidence = 1 - alpha;
        outcome.decided_at = r.rounds_done;
      }
    }
    outcome.verdict = Inconclusive(
        fmt::format("interrupted after {} rounds, before the sitting could decide", r.rounds_done));
  }
  r.notes.push_back(fmt::format("interrupted after {} complete rounds; no verdict", r.rounds_done));
}

void DecideTheUndecided(IsolationResult& r, double band) {
  for (int c = 1; c < static_cast<int>(r.conditions.size()); ++c) {
    ConditionOutcome& outcome = r.conditions[c];
    if (outcome.verdict) continue;
    if (outcome.shift) {
      outcome.verdict = Decide(*outcome.shift, band);
    } else {
      outcome.verdict = Inconclusive(
          fmt::format("only {} rounds, too few for an interval at this confidence", r.rounds_done));
    }
  }
}

std::vector<double> PairedLogRatios(const std::vector<std::vector<double>>& visit_values,
                                    int condition, int rounds) {
  std::vector<double> d;
  for (int r = 0; r < rounds && r < static_cast<int>(visit_values.size()); ++r) {
    d.push_back(std::log(visit_values[r][condition]) - std::log(visit_values[r][0]));
  }
  return d;
}

double PerConditionAlpha(double confidence, int comparisons) {
  return (1 - confidence) / std::max(1, comparisons);
}

int SuspectCondition(const std::vector<ResidencyCondition>& conditions) {
  for (const ResidencyCondition& c : conditions) {
    if (c.release.empty()) continue;
    const std::set<std::string> suspects = AsSet(c.release);
    for (size_t i = 1; i < conditions.size(); ++i) {
      if (HoldsOnly(conditions[i]) && AsSet(conditions[i].hold) == suspects) {
        return static_cast<int>(i);
      }
    }
  }
  for (size_t i = conditions.size(); i-- > 1;) {
    if (HoldsOnly(conditions[i])) return static_cast<int>(i);
  }
  return -1;
}

ReversibilityResult JudgeReversibility(const std::vector<ConditionOutcome>& conditions,
                                       int suspect) {
  ReversibilityResult out;
  std::set<std::string> suspects;
  if (suspect >= 0) suspects = AsSet(conditions[suspect].condition.hold);
  for (size_t i = 1; i < conditions.size(); ++i) {
    const ResidencyCondition& c = conditions[i].condition;
    if (c.release.empty()) continue;
    if (out.condition < 0 || (!suspects.empty() && AsSet(c.release) == suspects)) {
      out.condition = static_cast<int>(i);
      if (!suspects.empty() && AsSet(c.release) == suspects) break;
    }
  }
  if (out.condition < 0) {
    out.verdict = Reversibility::kNotTested;
    out.sentence = "no condition holds and then releases: reversibility not tested";
    return out;
  }
  const ConditionOutcome& released = conditions[out.condition];
  if (!released.verdict) {
    out.verdict = Reversibility::kUndecided;
    out.sentence = "released: no verdict";
  } else if (released.verdict->verdict == Verdict::kNull) {
    out.verdict = Reversibility::kReversible;
    out.sentence = "released: tie → a residency effect, not damage";
  } else if (released.verdict->verdict == Verdict::kEffect) {
    out.verdict = Reversibility::kNotReversible;
    out.sentence = fmt::format(
        "released: {} → the cost stays after release: damage or a leak, "
        "not residency",
        OutcomeText(released));
  } else {
    out.verdict = Reversibility::kUndecided;
    out.sentence = fmt::format("released: {}: reversibility undecided", OutcomeText(released));
  }
  return out;
}

}  // namespace culprit
