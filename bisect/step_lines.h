#pragma once

// What a bisect says step by step as it goes: the progress line of each search step, check
// and skipped commit, what a check announces and concludes about its tie and a further move,
// and a search step's record described as evidence. Pure functions of the step and the
// search; the ending (the changes, the parts, the record) is bisect/bisect_report.h.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bisect/bisect_state.h"
#include "bisect/search.h"
#include "bisect/tie_plan.h"
#include "probes/sitting.h"
#include "records/record.h"

namespace culprit {

/// A step's ratio with its 95% interval, or, for a step too short for one, with its pairs.
std::string StepRatioText(const BisectStepLog& step);

/// `files` joined by ", ", the first kChangedFilesListed listed and the rest counted.
inline constexpr size_t kChangedFilesListed = 20;
std::string ChangedFilesText(const std::vector<std::string>& files);

/// The progress line of a search step just archived: `step` in a range of `n` commits, with
/// what `search` (after the step) leaves and has spent.
std::string SearchStepLine(const BisectStepLog& step, int n, const BisectSearch& search);

/// The progress line of a check of `segment` (its step `step`, the sitting's `verdict`), ending
/// as the ending's line of the part does (CheckedPartSuffix): what it says of a further move,
/// then the sitting's runs that gave no number (`segment.check_failures`) when there were any,
/// as a tie or a rule-out read a timed-out run as censored.
std::string CheckStepLine(const BisectStepLog& step, const BisectSegment& segment,
                          const std::vector<std::string>& commits,
                          const std::optional<Verdict>& verdict);

/// The runs of a check's sitting that gave no number, arm 0 its good end `lo_commit` and arm 1
/// its bad end `hi_commit`, bad end first: "runs without a number: 160 of 640 runs of
/// 23259b0064 (all timed out), 158 of 640 runs of c7ab560025 (150 timed out); Fisher's exact
/// test p = 0.93".
/// "" when every measured run gave one.
std::string CheckFailuresText(const FailureComparison& failures, std::string_view lo_commit,
                              std::string_view hi_commit);

/// What the ending's line of a checked part `s` adds after its pairs: "; " and
/// FurtherMoveText, SightingReachText, then CheckFailuresText of its sitting (its ends
/// commits[s.lo] and commits[s.hi]), each when not empty: "" for an undecided check with no
/// alternative whose every run gave a number.
std::string CheckedPartSuffix(const BisectSegment& s, const std::vector<std::string>& commits);

/// What a tie of `s`, or its ruling out of further moves, could not have missed: "a slow tail
/// in 15% or more of the runs would have shown; a sparser one may not" (kTailSightingRate,
/// the sighting both rest on; a commit twice as slow in 7-10% of its runs passes as such a
/// tie in a few to a third of simulated bisects: docs/bisect.md, "Assumptions and limits").
/// "" for a check that states neither, or was not measured.
std::string SightingReachText(const BisectSegment& s);

/// What the check of `s` says of a further move against its alternative A: "further moves of
/// x1.130 or more ruled out", or that one was not and ≈ what ruling it out would take; "" for
/// a check with no alternative, not measured, or not undecided (a tie or a move says more).
std::string FurtherMoveText(const BisectSegment& s);

/// `pairs` as "≈ N" says it: exact below 100, to the nearest 10 below 1000, to the nearest
/// 100 from there.
int RoundedPairs(int pairs);

/// What the line announcing a check adds about its tie (`plan`; `tie_budget`, the check's own):
/// "" when the tie is sought within the check's budget, as always; else that only a further
/// move is hunted and why: its tie earns no label (plan.earns_label false), or what a tie
/// would take; or the larger budget `--prove-first` gives it;
/// and, with plan.alternative A, that a further move of ×A or more is hunted until found or
/// ruled out.
std::string CheckPlanText(const TiePlan& plan, int tie_budget);

/// The reason an undecided check of `segment` (its tie_* fields set from the plan) gives for
/// its tie, or "": not sought for its cost and what it would take (`tie_budget` the check's
/// own), or sought by `--prove-first` within a cap short of what it was predicted to need. ""
/// for a tie not sought because it earns no label (its rule-out says what was not told).
std::string UndecidedTieText(const BisectSegment& segment, int tie_budget);

/// The progress line of a commit the search skips: it could not be built or measured, for
/// `reason` (its first line is said).
std::string SkippedStepLine(const BisectStepLog& step, const std::string& reason);

/// What the ending's builds-and-pairs line adds when checks shared runs with verifications
/// (BisectStepLog::shared_runs): " (the checks' 80 runs shared with verifications counted
/// once)", or "".
std::string SharedRunsText(const std::vector<BisectStepLog>& log);

/// A search step's record described as evidence, not a verdict: its notes and details, and,
/// when it has no verdict, what it showed (`median_ratio` is its pairs' median ratio when it
/// has pairs; `baseline` the full id it was measured against).
void DescribeStepRecord(const BisectStepLog& step, const std::string& baseline,
                        std::optional<double> median_ratio, size_t pairs, Record& record);

}  // namespace culprit
