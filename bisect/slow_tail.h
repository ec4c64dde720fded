#pragma once

// A move in the slow tail of the runs: an intermittent slowdown (B twice as slow in 15% of its
// runs) moves the pairs' mean and not their pseudo-median. The confirmation and a part's check
// see it (a tie needs the tails to agree, probes/verdict.h), but the search places a shift of
// the typical run, and so does the sweep: such a range or part is not searched. Its report
// says why, with both figures, and names the table that places the move
// (docs/bisect-evidence.md, "A move in the slow tail"). Pure: no I/O.

#include <string>
#include <string_view>
#include <vector>

#include "bisect/bisect_state.h"

namespace culprit {

/// Whether a segment's check moved (kSame or kOpposite) in its pairs' mean while their
/// pseudo-median did not: its Hodges–Lehmann estimate `ratio` lies inside the band
/// τ = BandEdge(`band`) and its interval [low, high] is not beyond it, so the EFFECT was
/// ClassifyWithTails' of the mean (probes/verdict.h). An intermittent slowdown moves so (B
/// twice as slow in 15% of its runs: pseudo-median ×1.00, mean ×1.15). The search places a
/// shift of the typical run, which such a part does not have: it is not searched. (A
/// pseudo-median estimated beyond the band with an interval that reaches inside it is a shift
/// near the band's edge, which the search can place: searched.)
bool MovesInTheTailOnly(const BisectSegment& segment, double band);

/// Why a part whose check moved by the mean alone (MovesInTheTailOnly) is not searched, as
/// one clause: its pseudo-median's ratio and interval against the band, its mean ratio as the
/// sitting printed it (`mean_ratio`, ComparisonDetails; "" when it has none), and why the
/// search cannot place it.
std::string TailOnlyReason(const BisectSegment& segment, std::string_view mean_ratio, double band);

/// The one command that shows which commits of [lo, hi] carry a move in the slow tail: a
/// table of a few commits of the part (its ends and up to three evenly spaced between) against
/// its good end in one sitting, whose cells read the mean as well as the pseudo-median
/// (probes/table.h). The bisect and the sweep place shifts of the typical run only.
std::string TailTableCommand(const std::vector<std::string>& commits, int lo, int hi,
                             std::string_view query);

}  // namespace culprit
