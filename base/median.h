#pragma once

// The median, for every layer that summarises samples: the records' report
// facts as well as the statistics of probes/ (which re-export it).

#include <span>

namespace culprit {

/// Median (mean of the two middle values for even sizes). Requires non-empty values.
double Median(std::span<const double> values);

/// Median as above, computed in place: `values` is reordered (O(n), no copy). Requires
/// non-empty values.
double MedianInPlace(std::span<double> values);

}  // namespace culprit
