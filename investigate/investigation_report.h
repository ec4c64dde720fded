#pragma once

// What an investigation says, pure: from the ladder's state
// (investigate/investigation_state.h) and facts fetched beforehand (the
// confirmation's record, the host's last snapshot, the relevance check) to
// each step's sentence, the conclusion, and the `investigation` record, of a
// ladder that ended or was interrupted. No I/O: tested on hand-built states.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bisect/relevance.h"
#include "investigate/investigation_state.h"
#include "probes/host.h"
#include "probes/residency_config.h"
#include "probes/slow_run_bursts.h"
#include "records/explain_payload.h"
#include "records/record.h"

namespace culprit {

/// A step's ratio and interval, "ratio 1.234 [1.100, 1.300]", or "no estimate".
std::string InvestigationRatioText(const InvestigationStepRecord& step);

/// Every record of the run, each once, in the order the ladder wrote them:
/// the confirmation, the probes, the bisect's own records and its result, the
/// explains of its changes, the isolations, then the records of steps that did not finish.
std::vector<std::string> InvestigationLinks(const InvestigationState& state);

/// The functions the ladder shows of each explain it ran (the explain record keeps every one).
inline constexpr size_t kInvestigationExplainTop = 10;

/// An explained change in one line: the move of the query's instructions and the functions
/// (up to 3) that moved most beyond the run-to-run floor (ExplainFacts::NoiseFloor), each with
/// its delta, file and place against the change, and the "impossible" culprit's fingerprint
/// when the first is on the query's path in a file the change did not touch; or that no
/// function moved beyond the floor.
std::string ExplainDetail(const ExplainFacts& facts);

/// What the ladder says of one explain, one line: "explain of C: DETAIL", "explain of C: not
/// run: WHY", "explain of C failed: WHY" (C shortened).
std::string InvestigationExplainLine(const InvestigationExplain& e);

/// Step 1's sentence from the confirmation's verdict: "confirmed: Q moved +N% between
/// GOOD and BAD in one sitting", "NOT REPRODUCIBLE: ..." (a tie) or "NOT CONFIRMED:
/// ..." (INCONCLUSIVE). An EFFECT requires the step's ratio. An INCONCLUSIVE sitting whose
/// slow runs came in bursts (`bursts`) says so: the host's noise, named as the step's.
std::string ConfirmSentence(const InvestigateRequest& request, const InvestigationStepRecord& step,
                            const std::optional<SlowRunBursts>& bursts = std::nullopt);

/// Step 2's sentence of a probe that has a verdict: "ruled out: ..." (NULL),
/// "supported: ..." (EFFECT), "not settled: ..." (otherwise), each with its ratio; a "not
/// settled" whose sitting's slow runs came in bursts (`bursts`) says so.
std::string ProbeSentence(const InvestigationStepRecord& step,
                          const std::optional<SlowRunBursts>& bursts = std::nullopt);

/// Step 4's detail for `relevance` (kOnPath, kOffPath or kUnknown), from what
/// CheckRelevance found for the query named `query` and the culprit's changed files.
std::string RelevanceDetail(CulpritRelevance relevance, const std::string& query,
                            const Relevance& found, const std::vector<std::string>& changed_files);

/// The conclusion in a few sentences: the confirmation, each override, the bisect's
/// culprit, each explain (InvestigationExplainLine), its relevance, then what follows from where
/// the ladder ended (`residency` is the configuration's plans, named when none measures the query).
std::string InvestigationConclusion(const InvestigationState& state,
                                    const std::map<std::string, ResidencyPlan>& residency);

/// The `investigation` record of a ladder that ended: linking every record of the
/// run, with the confirmation's verdict and estimate (the record `confirm` refines
/// them: its band, unit, start, host and estimate, when the store still has it), the
/// conclusion (state.conclusion), the outcome, the culprit, the relevance, each explain
/// (`explain.<short commit>`: its record id, or "not run: ..." / "failed: ...") and each
/// step's wall time. `confirm` may be null; `end` is the host's last snapshot.
Record MakeInvestigationRecord(const InvestigationState& state, const Record* confirm,
                               const std::string& config_digest,
                               const std::optional<HostState>& end);

/// The `investigation` record of a ladder interrupted during `step`: interrupted,
/// linking what was measured so far, saying that --resume continues.
Record MakeInterruptedInvestigationRecord(const InvestigationState& state, InvestigationStep step,
                                          const std::string& config_digest,
                                          const std::optional<HostState>& end);

}  // namespace culprit
