#pragma once

// The typed payloads (records/bisect_payload.h) a bisect's final record carries of its verified
// changes, its parts and the decomposition of its move, taken field by field from the runner's
// state: what `judge`, the reports and later readers read instead of the report's text.

#include <string>
#include <vector>

#include "bisect/bisect_state.h"
#include "probes/decomposition.h"
#include "records/bisect_payload.h"

namespace culprit {

/// Verified change `c` of the range whose commits are `commits`: its commit, its first commit
/// and that one's parent, its direction, its ratio across it at the verification's confidence,
/// the verification's pairs and the model's posterior.
BisectChangePayload ChangePayload(const BisectSegment& c, const std::vector<std::string>& commits);

/// Part `s` of the range: its ends, its check and outcome with their figures, what its tie and
/// its further-move hunt needed and found, and its re-check.
BisectSegmentPayload SegmentPayload(const BisectSegment& s,
                                    const std::vector<std::string>& commits);

/// The move's decomposition: the total, the remainder and the remainder's class.
BisectDecompositionPayload DecompositionPayload(const Decomposition& d);

}  // namespace culprit
