#pragma once

// What an isolation says, pure: from the result (probes/isolation_result.h)
// to the conclusion sentence, the line printed at each look, and the
// `isolate` record. No harness, no host: tested on hand-built results.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "probes/isolation_result.h"
#include "records/record.h"

namespace culprit {

/// A condition's interval and verdict word, e.g. "+1.0% [-1.0%, +3.0%] (tie)",
/// or "no estimate".
std::string OutcomeText(const ConditionOutcome& c);

/// The conclusion sentence: the suspect's cost with its interval and size,
/// each control's, the released condition's, then what follows, e.g.
/// "holding `traversal_index` (64.0 MiB) costs series.count +29.0% [+22.0%, +35.0%];
///  `plain_columns` (64.0 MiB) +1.0% [-1.0%, +3.0%] (tie); released: tie
///  → a residency effect of `traversal_index` itself, not of memory held in general".
/// When a control costs too and the suspect's interval lies beyond every costly control's
/// by more than `band` (low end over high end), it says the suspect's own share, at least that
/// factor, instead of "memory held in general, not ... alone".
std::string IsolationConclusion(const IsolationResult& result, const std::string& query,
                                double band);

/// What the sitting knows at a look, per condition: each one's ratio to the
/// baseline on every complete round so far (decided or not), with its
/// verdict once a look decided it, e.g. "look at 40 rounds: ballast held
/// +1.0%, index held +48.8% (effect), index released +0.2% (tie)". The
/// sitting passes it to SittingProgress::OnPhase after each look.
std::string DescribeLook(const IsolationResult& result);

/// "64.0 MiB", "512.0 KiB", "100 B".
std::string FormatBytes(uint64_t bytes);

/// Where the measured engine came from, for the record.
struct IsolationProvenance {
  std::string revision, commit, tree;
  std::vector<std::string> command;  ///< The harness argv.
  std::string config_digest;
  std::vector<std::string> notes;
};

/// The `isolate` record (pure): one arm per condition, every raw value in
/// execution order tagged with its condition (arm) and round (pair), the
/// suspect's estimate and verdict (ERROR when the engine broke, with
/// details.partial = "true"), and in details_json the design, each
/// condition's verdict, the reversibility verdict and the calibrations.
Record MakeIsolationRecord(const IsolationPlan& plan, const IsolationOptions& options,
                           const IsolationResult& result, const IsolationProvenance& provenance,
                           const HostIdentity& host);

}  // namespace culprit
