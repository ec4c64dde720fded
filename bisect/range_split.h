#pragma once

// A range with more than one change, taken apart (Pinpoint-style segment
// recursion). The search names one change C and verifies it against its parent
// P; what C does not explain is then checked: P against the range's good end
// (a tie, or an earlier change in (G, P]) and the bad end against C (a tie, or a
// later change in (C, B]). A part that moves is searched like the whole range
// (one that moves the other way, in its own direction), within [bisect]
// max_changes searches; every other outcome is said as it is. Pure decisions over the saved
// segments: no I/O.

#include <string>
#include <string_view>
#include <vector>

#include "bisect/bisect_state.h"
#include "probes/decomposition.h"
#include "probes/verdict.h"

namespace culprit {

/// A check's verdict and ratio, as measured, against the range's direction (`speedup`:
/// the bad end was faster).
SegmentCheck ClassifyCheck(Verdict verdict, double ratio, bool speedup);

/// The parts of [lo, hi] that a change first..change (verified against first - 1) does
/// not explain, as new unchecked segments: [lo, first - 1] and [change, hi], each only
/// when it holds at least one commit.
std::vector<BisectSegment> UnexplainedParts(const BisectSegment& searched);

/// Whether a checked segment is to be searched: it moves (either way) and fewer than
/// `max_changes` searches were made.
bool ShouldSearch(const BisectSegment& segment, int searches_made, int max_changes);
/// Whether a segment's search looks for a speed-up: a part that moves the other way from
/// the range (`range_speedup`: the range's bad end is faster) is searched in its own
/// direction, so an improvement before a regression is named, not left unplaced.
bool SearchesForSpeedup(const BisectSegment& segment, bool range_speedup);
/// Searches made (segments whose search started), the whole range included.
int SearchesMade(const std::vector<BisectSegment>& segments);
/// The first segment whose check is not measured yet, or -1.
int NextUnchecked(const std::vector<BisectSegment>& segments);

/// Indexes of the segments holding a verified change, ordered by the change's commit.
std::vector<int> VerifiedChanges(const std::vector<BisectSegment>& segments);

/// The index into `segments` of the earliest verified change that moves the way the range
/// does (the culprit candidate; a change the other way is never "bad"), or -1.
int EarliestChange(const std::vector<BisectSegment>& segments);

/// Whether EarliestChange may be called the first bad commit (the CULPRIT line): every
/// commit before it lies in a part checked a tie, or is a verified change the other way
/// (an improvement before a regression). Undecided or unplaced moves before it, or a part
/// not checked, never allow it.
bool FirstChangeIsFirst(const std::vector<BisectSegment>& segments);

/// A search step that measured a commit before EarliestChange against a baseline before it
/// too, with its 95% interval wholly beyond the band `band` either way: evidence of a move
/// inside a part whose ends tie (+10% then -10%: issue 27). The step's index into `log`, or -1.
int MoveBeforeTheEarliestChange(const std::vector<BisectSegment>& segments,
                                const std::vector<BisectStepLog>& log, double band);

/// FirstChangeIsFirst, and no search step saw a move before it (MoveBeforeTheEarliestChange):
/// what the CULPRIT label needs.
bool ShownFirst(const std::vector<BisectSegment>& segments, const std::vector<BisectStepLog>& log,
                double band);

/// The parts before EarliestChange whose tie shows only their ends: a tie over (lo, hi] with
/// hi - lo >= 2 holds commits lo+1..hi-1 that no sitting measured, and a move that returns
/// inside it (+10% then -10%) leaves its ends tied. Indexes into `segments`, ordered by lo;
/// empty when no change is verified, nothing precedes it, or every tie before it is of one
/// commit (then each commit before it was measured: the first bad commit is shown literally).
std::vector<int> TiesOfEndsOnlyBeforeTheEarliestChange(const std::vector<BisectSegment>& segments);

/// Whether a tie of segment `k` is one FirstChangeIsFirst would count for the earliest
/// change found so far: the segment lies wholly before it. A tie of any other part (after a
/// change, or before a later one) shows no change to be the first bad commit.
bool TieEarnsFirst(const std::vector<BisectSegment>& segments, int k);

/// Segments that hold a move nothing placed: checked "same" or "opposite" but unsearched or
/// searched without a verified change, or "undecided" without every move of ×A or more
/// ruled out (BisectSegment::ruled_out; one ruled out on an estimate beyond the band,
/// small_move_suspected, stays). Ordered by lo.
std::vector<int> UnplacedSegments(const std::vector<BisectSegment>& segments);

/// The endpoint move (segment 0's check) taken apart into the verified changes (named by
/// `names`, one per VerifiedChanges entry), judged against `band`.
Decomposition DecomposeMove(const std::vector<BisectSegment>& segments,
                            const std::vector<std::string>& names, double band);

}  // namespace culprit
