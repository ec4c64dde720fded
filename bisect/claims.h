#pragma once

// What a bisect's result may say, beyond the changes it found: whether an
// endpoint confirmation that is not an EFFECT means "not reproducible" (only a
// NULL does) or "could not tell", and whether the host drifted or stalled during a step.
// Pure text and arithmetic over what was measured; no I/O.

#include <string>
#include <vector>

#include "bisect/bisect_state.h"
#include "probes/verdict.h"

namespace culprit {

/// The confirmation of good vs bad, when it was not an EFFECT.
struct UnconfirmedMove {
  std::string good, bad;  ///< As the user named them.
  Verdict verdict = Verdict::kInconclusive;
  double ratio = 1, low = 1, high = 1;
  double confidence = 0;  ///< Of [low, high].
  int pairs = 0;
  double detectable_ratio = 0;  ///< The smallest ratio these pairs could have called EFFECT.
  std::string advice;           ///< The sitting's explanation: what would settle it.
};

/// "NOT REPRODUCIBLE: ..." for a NULL (the endpoints are equal within the band); for an
/// INCONCLUSIVE "INCONCLUSIVE: ..." with the effect the budget could have seen and what it
/// would take. Never calls an underpowered confirmation a proof of no move. One line.
std::string DescribeUnconfirmedMove(const UnconfirmedMove& move);

/// Host drift allowed over one step before the result says so: 10%.
inline constexpr double kStepDriftLimit = 0.10;

/// The index in `log` of the step whose calibration moved most, if that is more than
/// `limit` (as |end / start - 1|); -1 when every step stayed within it or none was
/// calibrated.
int StepWithLargestDrift(const std::vector<BisectStepLog>& log, double limit = kStepDriftLimit);

/// "HOST DRIFT: ..." naming the step and the drift, for the result.
std::string DescribeDrift(const BisectStepLog& step);

/// "HOST NOISE: ..." naming every step of `log` whose sitting had slow runs in bursts in both
/// arms (BisectStepLog::bursts), with their counts: the host's noise, which widens a sitting's
/// mean and costs it pairs (a tie must agree with the mean); "" when no step had any.
std::string DescribeBurstSteps(const std::vector<BisectStepLog>& log);

/// "HOST NOISE: ..." and a line break when steps of `log` had slow runs in bursts
/// (DescribeBurstSteps; noted in `record` too); "" otherwise.
std::string BurstsEnding(const std::vector<BisectStepLog>& log, Record& record);

}  // namespace culprit
