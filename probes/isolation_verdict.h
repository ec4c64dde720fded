#pragma once

// The isolation's verdicts, pure: from what the sitting measured (the visits'
// values by round and condition) to each condition's interval and verdict at
// a look, after the last look or an interrupt, the suspect and the
// reversibility rule. No harness, no host: tested on scripted values.

#include <optional>
#include <string>
#include <vector>

#include "probes/isolation_result.h"

namespace culprit {

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

/// The round counts at which a sitting of `conditions` conditions (the
/// baseline included) looks: one look at min_rounds for the baseline alone,
/// else the looks of the schedule aligned to whole blocks of rounds, the
/// first moved up until `condition_alpha`, spent Pocock-wise, can stop there.
std::vector<int> IsolationLooks(const IsolationOptions& options, int conditions,
                                double condition_alpha);

/// A look at `alpha`: each condition not yet `decided` gets its interval over
/// the complete rounds of `r`, and its verdict when the interval is decisive
/// against `band` (then `decided` is set for it). Returns how many conditions
/// this look decided.
int DecideAtLook(IsolationResult& r, double alpha, double band, std::vector<bool>& decided);

/// After the last look: a condition no look decided gets the verdict of its
/// last interval, INCONCLUSIVE when it never had one.
void DecideTheUndecided(IsolationResult& r, double band);

/// After an interrupt, which is not a planned look: each condition's estimate
/// at `alpha` (the next look's) once it has two rounds, an INCONCLUSIVE
/// verdict saying so, and a note.
void EstimateWithoutVerdict(IsolationResult& r, double alpha);

/// The engine broke: never a verdict built on a broken process. Every
/// verdict and interval is dropped (what was measured stays in the samples),
/// with a note saying how many rounds were complete.
void DropVerdicts(IsolationResult& r);

/// Condition `c`'s ratio to the baseline on every complete round so far (the
/// Hodges–Lehmann estimate, as the intervals use); nullopt before two rounds.
/// Not the estimate of the look that decided it: progress says what the
/// sitting knows now, and a decided condition keeps being measured while the
/// others are not decided yet.
std::optional<double> RatioNow(const IsolationResult& r, int c);

}  // namespace culprit
