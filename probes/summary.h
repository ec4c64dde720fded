#pragma once

// The few lines a measuring command prints when it is done: what was compared,
// the ratio with its interval and the verdict, the host's calibration and load,
// and where the record is. Shared by probe, compare, bisect and judge so they
// all speak the same way.

#include <string>

#include "probes/comparison.h"

namespace culprit {

/// "series.count  default 84.4 ms  PARALLEL=1 83.1 ms  (medians)  paired ratio 0.985 [0.962, 1.009]
/// mean ratio 0.987 [0.960, 1.015]  NULL (band ±5%)" (the mean ratio when the record has one)
/// then the verdict's explanation, the secondary figures (FormatSecondaryFigures), calibration
/// and load start -> end, notes, and "record PATH". Ends with a newline.
std::string FormatComparisonSummary(const ComparisonOutcome& outcome);

/// The record's secondary figures (details "secondary.NAME", probes/secondary_figures.h), one
/// line each under "  secondary figures, B/A at 95% confidence (shown, never deciding):", the
/// unavailable ones named on one line; "" when the record has none.
std::string FormatSecondaryFigures(const Record& record);

/// "calibration 41.2 ms -> 41.5 ms (+0.7%), load 0.31 -> 0.35"; "unavailable" for what is missing.
std::string FormatHostDrift(const HostState& start, const HostState& end);

/// A ratio with its interval: "0.985 [0.962, 1.009]".
std::string FormatRatio(const Estimate& estimate);

}  // namespace culprit
