#include "probes/sequential.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <utility>

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

double PocockSpentOnRootTime(double alpha, double information_fraction) {
  return PocockSpent(alpha, std::sqrt(std::clamp(information_fraction, 0.0, 1.0)));
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
    double cumulative = k + 1 == looks.size()                     ? alpha
                        : spending == Spending::kPocock           ? PocockSpent(alpha, t)
                        : spending == Spending::kPocockOnRootTime ? PocockSpentOnRootTime(alpha, t)
                                                                  : ObrienFlemingSpent(alpha, t);
    increments.push_back(cumulative - spent);
    spent = cumulative;
  }
  return increments;
}

namespace {

// A density of Z on an evenly spaced grid, integrated by the trapezoid rule.
struct GridDensity {
  double low = 0, high = 0;
  std::vector<double> f;
  double Step() const { return (high - low) / static_cast<double>(f.size() - 1); }
  double Weight(size_t i) const { return i == 0 || i + 1 == f.size() ? Step() / 2 : Step(); }
  double Point(size_t i) const { return low + static_cast<double>(i) * Step(); }
};

// Mass below this many standard units is ignored (< 1e-15); the grid's points.
constexpr double kGridFloor = -8.5;
constexpr size_t kGridPoints = 301;  // z within 2e-4 of 801 points' on the known answers

double StandardNormalDensity(double x) {
  return std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi);
}

// P(Z_k > c, and Z_{k-1} was in `prior`'s range), Z_k = (√I₁·Z_{k-1} + √Δ·X) / √I₂.
double CrossingMass(const GridDensity& prior, double c, double i1, double i2) {
  double mass = 0;
  for (size_t i = 0; i < prior.f.size(); ++i) {
    mass += prior.Weight(i) * prior.f[i] *
            NormalCdf(-(c * std::sqrt(i2) - prior.Point(i) * std::sqrt(i1)) / std::sqrt(i2 - i1));
  }
  return mass;
}

std::vector<double> ComputeGroupSequentialAlphas(std::span<const int> looks,
                                                 std::span<const double> increments) {
  std::vector<double> nominal;
  GridDensity density;
  for (size_t k = 0; k < looks.size(); ++k) {
    assert(looks[k] > 0 && (k == 0 || looks[k] > looks[k - 1]));
    assert(increments[k] >= 0 && increments[k] < 1);
    const double one_side = increments[k] / 2;
    double c = std::numeric_limits<double>::infinity();
    if (k == 0) {
      if (one_side > 0) c = -NormalQuantile(one_side);
    } else if (one_side > 0) {
      // The boundary whose crossing mass is one_side, by bisection (the mass falls as c rises).
      double low = -2, high = 12;
      for (int iteration = 0; iteration < 80; ++iteration) {
        const double mid = (low + high) / 2;
        (CrossingMass(density, mid, looks[k - 1], looks[k]) > one_side ? low : high) = mid;
      }
      c = (low + high) / 2;
    }
    nominal.push_back(std::isfinite(c) ? 2 * NormalCdf(-c) : 0);
    // The density of the paths that have not crossed, on (kGridFloor, min(c, -kGridFloor)).
    GridDensity next;
    next.low = kGridFloor;
    next.high = std::min(c, -kGridFloor);
    next.f.resize(kGridPoints);
    for (size_t j = 0; j < kGridPoints; ++j) {
      const double z = next.Point(j);
      if (k == 0) {
        next.f[j] = StandardNormalDensity(z);
        continue;
      }
      const double i1 = looks[k - 1], i2 = looks[k], spread = std::sqrt((i2 - i1) / i2);
      double sum = 0;
      for (size_t i = 0; i < density.f.size(); ++i) {
        const double mean = density.Point(i) * std::sqrt(i1 / i2);
        sum += density.Weight(i) * density.f[i] * StandardNormalDensity((z - mean) / spread);
      }
      next.f[j] = sum / spread;
    }
    density = std::move(next);
  }
  return nominal;
}

}  // namespace

std::vector<double> GroupSequentialAlphas(std::span<const int> looks,
                                          std::span<const double> increments) {
  assert(looks.size() == increments.size());
  // A bisect plans the same few schedules over and over (every check, every verification), and
  // one computation integrates over a grid at each look: remember them.
  using Key = std::pair<std::vector<int>, std::vector<double>>;
  static std::mutex mutex;
  static std::map<Key, std::vector<double>> known;
  Key key{{looks.begin(), looks.end()}, {increments.begin(), increments.end()}};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  std::vector<double> nominal = ComputeGroupSequentialAlphas(looks, increments);
  std::lock_guard<std::mutex> lock(mutex);
  if (known.size() > 4096) known.clear();
  known.emplace(std::move(key), nominal);
  return nominal;
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
