#include "base/median.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <vector>

namespace culprit {

double MedianInPlace(std::span<double> values) {
  assert(!values.empty());
  const size_t count = values.size();
  const auto upper = values.begin() + static_cast<std::ptrdiff_t>(count / 2);
  std::nth_element(values.begin(), upper, values.end());
  if (count % 2 == 1) return *upper;
  // After nth_element, the lower middle is the largest of the left part.
  const double lower = *std::max_element(values.begin(), upper);
  return (lower + *upper) / 2;
}

double Median(std::span<const double> values) {
  assert(!values.empty());
  std::vector<double> copy(values.begin(), values.end());
  return MedianInPlace(copy);
}

}  // namespace culprit
