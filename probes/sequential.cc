#include "probes/sequential.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

#include "probes/statistics.h"

namespace culprit {

std::vector<int> LookSchedule(int min_pairs, int max_pairs) {
  assert(min_pairs >= 1 && max_pairs >= 1);
  std::vector<int> looks;
  // Doubling in 64 bits so that a huge max_pairs cannot overflow the loop.
  for (long long n = min_pairs; n < max_pairs && 3 * n <= 2LL * max_pairs; n *= 2) {
    looks.push_back(static_cast<int>(n));
  }
  looks.push_back(max_pairs);
  return looks;
}

double ObrienFlemingSpent(double alpha, double information_fraction) {
  assert(alpha > 0 && alpha < 1);
  if (information_fraction <= 0) return 0;
  if (information_fraction >= 1) return alpha;
  double z = NormalQuantile(1 - alpha / 2);
  // 2 Φ(-x) rather than 2 (1 - Φ(x)): early looks spend ~1e-15, below what 1 - Φ resolves.
  return 2 * NormalCdf(-z / std::sqrt(information_fraction));
}

double PocockSpent(double alpha, double information_fraction) {
  assert(alpha > 0 && alpha < 1);
  if (information_fraction <= 0) return 0;
  if (information_fraction >= 1) return alpha;
  return alpha * std::log1p((std::numbers::e - 1) * information_fraction);
}

std::vector<double> SpendAlpha(double alpha, std::span<const int> looks, Spending spending) {
  assert(alpha > 0 && alpha < 1);
  std::vector<double> increments;
  if (looks.empty()) return increments;
  assert(looks.front() > 0);
  assert(std::is_sorted(looks.begin(), looks.end()) &&
         std::adjacent_find(looks.begin(), looks.end()) == looks.end());
  double total = looks.back();
  double spent = 0;
  for (size_t k = 0; k < looks.size(); ++k) {
    // The last look takes exactly what is left, so the sum is alpha to the bit.
    double t = looks[k] / total;
    double cumulative = k + 1 == looks.size()           ? alpha
                        : spending == Spending::kPocock ? PocockSpent(alpha, t)
                                                        : ObrienFlemingSpent(alpha, t);
    increments.push_back(cumulative - spent);
    spent = cumulative;
  }
  return increments;
}

std::vector<int> StoppableLooks(std::vector<int> looks, double alpha, Spending spending, int step) {
  assert(step >= 1);
  auto stoppable = [&](const std::vector<int>& candidate) {
    const double first = SpendAlpha(alpha, candidate, spending).front();
    return MinPairsForSignedRank(1 - first) <= static_cast<size_t>(candidate.front());
  };
  if (looks.empty() || stoppable(looks)) return looks;
  std::vector<int> moved = looks;
  while (moved.size() > 1 && moved[0] + step < moved[1]) {
    moved[0] += step;
    if (stoppable(moved)) return moved;
  }
  return looks;
}

}  // namespace culprit
