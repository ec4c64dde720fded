#pragma once

// The investigation's step 1 on the measurer the bisect runs on: good against
// bad in one sitting, the sitting and record `culprit compare` makes
// (probes/measure_commands.h's RunCompare) with the samples drawn from a
// Measurer, so that the ladder runs on a scripted world as the bisect does.

#include "base/result.h"
#include "probes/comparison.h"
#include "probes/measure_commands.h"
#include "probes/measurer.h"

namespace culprit {

/// `request.revision_b` against `request.revision_a` on `request.query` in one sitting, each
/// arm built by `context.builds` and run by `measurer`, archived in the configured records
/// as RunCompare archives it: the same kind, arm names, labels, links and notes, so that the
/// bisect can adopt it as its confirmation (BisectRequest::confirmed_by). With the real
/// QueryMeasurer the samples are RunCompare's.
Result<ComparisonOutcome> RunCompareOn(const MeasureContext& context, Measurer& measurer,
                                       const CompareRequest& request);

}  // namespace culprit
