#include "bisect/claims.h"

#include <fmt/format.h>

#include <cmath>

#include "base/strings.h"

namespace culprit {

std::string DescribeUnconfirmedMove(const UnconfirmedMove& m) {
  const std::string measured = fmt::format("ratio {} at {} confidence over {} pairs",
                                           FormatRatioInterval(m.ratio, m.low, m.high),
                                           FormatProbability(m.confidence), m.pairs);
  if (m.verdict == Verdict::kNull) {
    return fmt::format(
        "NOT REPRODUCIBLE: the move between {} and {} is a tie here: {}; nothing was bisected",
        m.good, m.bad, measured);
  }
  std::string text = fmt::format(
      "INCONCLUSIVE: the move between {} and {} was neither confirmed nor ruled out: {}", m.good,
      m.bad, measured);
  if (m.detectable_ratio > 0) {
    text +=
        fmt::format("; these pairs could have seen a move of ×{:.3f} or more", m.detectable_ratio);
  }
  if (!m.advice.empty()) text += "; " + m.advice;
  return text + "; nothing was bisected";
}

int StepWithLargestDrift(const std::vector<BisectStepLog>& log, double limit) {
  int worst = -1;
  double largest = limit;
  for (size_t i = 0; i < log.size(); ++i) {
    if (!log[i].calibrated) continue;
    const double drift = std::fabs(log[i].drift);
    if (drift > largest) {
      largest = drift;
      worst = static_cast<int>(i);
    }
  }
  return worst;
}

std::string DescribeDrift(const BisectStepLog& step) {
  return fmt::format(
      "HOST DRIFT: the calibration loop ran {:+.1f}% {} during step {} ({} of {}): the host "
      "changed speed while it was measured, so its ratios are suspect; re-run on a quiet host",
      step.drift * 100, step.drift > 0 ? "slower" : "faster", step.step,
      BisectStepKindName(step.kind), step.commit.substr(0, 10));
}

std::string DescribeBurstSteps(const std::vector<BisectStepLog>& log) {
  std::vector<std::string> steps;
  for (const BisectStepLog& step : log) {
    if (!step.bursts) continue;
    steps.push_back(fmt::format("step {} ({} of {}: {} of {} runs far slower, x{:.2f})", step.step,
                                BisectStepKindName(step.kind), step.commit.substr(0, 10),
                                step.bursts->SlowRuns(), step.bursts->Runs(), step.bursts->factor));
  }
  if (steps.empty()) return "";
  return fmt::format(
      "HOST NOISE: the runs of {} came in bursts, in both arms alike and bunched in time (each "
      "step's record says more): the host stalled some runs, which widens a sitting's mean "
      "and costs it pairs, since a tie must agree with the mean; re-run on a quiet host",
      Join(steps, ", "));
}

std::string BurstsEnding(const std::vector<BisectStepLog>& log, Record& record) {
  const std::string bursts = DescribeBurstSteps(log);
  if (bursts.empty()) return "";
  record.notes.push_back(bursts);
  return bursts + "\n";
}

}  // namespace culprit
