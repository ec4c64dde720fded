#pragma once

// Residency isolation: every condition of a plan measured in ONE engine
// process, through the harness protocol, interleaved in rounds. Each round
// visits every condition once, in the order of a balanced design
// (probes/round_design.h); a visit sets up the condition (its holds, then its
// releases), sends `run QUERY N`, and undoes what it still holds. Each
// condition is compared with the first one (the baseline, "nothing held")
// paired by round, with the statistics of `probe` (paired Hodges–Lehmann
// ratio, signed-rank interval, sequential looks with Pocock alpha spending,
// EFFECT / NULL / INCONCLUSIVE against the band); the overall error rate
// across conditions is controlled by splitting alpha equally between them
// (Bonferroni; docs/statistics.md says why not Holm).
//
// Three parts: the run here (the visits on the harness, the rounds and looks,
// the host's snapshots); the verdicts, pure, in probes/isolation_verdict.h;
// the conclusion, the look lines and the record, pure, in
// probes/isolation_report.h. The types they share are probes/isolation_result.h.

#include "engine/harness_client.h"
#include "probes/host.h"
#include "probes/isolation_report.h"
#include "probes/isolation_result.h"
#include "probes/isolation_verdict.h"
#include "probes/sitting.h"

namespace culprit {

/// Runs the sitting on an already started harness: warm-up, calibration
/// (after the warm-up, so the engine's start-up is not in it), rounds with
/// looks, calibration, then `quit`. Never throws; a broken engine ends it with
/// `failure`, Ctrl-C with `interrupted`. `host` and `progress` may be null.
IsolationResult RunIsolationSitting(HarnessSession& harness, const IsolationPlan& plan,
                                    const HostProbe* host, const IsolationOptions& options,
                                    SittingProgress* progress);

}  // namespace culprit
