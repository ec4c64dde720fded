#include "simulation/pinpoint_bisect.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "probes/statistics.h"

namespace culprit {
namespace {

// One IQR of a normal distribution in its standard deviations: Φ⁻¹(0.75) - Φ⁻¹(0.25).
constexpr double kStddevsPerIqr = 1.3489795003921634;
// The share of simulated p-values above the high threshold (thresholds_performance.py).
constexpr double kFalseNegativeRate = 0.01;

// Fractional ranks of x then y together: tied values share the mean of their ranks.
std::vector<double> Ranks(std::span<const double> x, std::span<const double> y) {
  std::vector<double> all(x.begin(), x.end());
  all.insert(all.end(), y.begin(), y.end());
  std::vector<size_t> order(all.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return all[a] < all[b]; });
  std::vector<double> ranks(all.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && all[order[j + 1]] == all[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = mean_rank;
    i = j + 1;
  }
  return ranks;
}

// The U test's p-value for n values a side with `u` pairs ordered one way and no ties.
double UntiedPValue(double u, int n) {
  const double nn = static_cast<double>(n) * n;
  const double sd = std::sqrt(nn * (2.0 * n + 1) / 12);
  const double big_u = std::max(u, nn - u);
  return 2 * (1 - NormalCdf(std::abs(big_u - (nn / 2 + 0.5)) / sd));
}

// numpy.percentile's default: linear between the closest ranks of sorted values.
double LinearPercentile(std::vector<double>& values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const size_t low = static_cast<size_t>(std::floor(position));
  const size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (values[high] - values[low]) * (position - static_cast<double>(low));
}

double Mean(std::span<const double> values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// The runs of one change: the values of the attempts that gave one, and which failed.
struct ChangeRuns {
  std::vector<double> values;
  std::vector<double> failed;  ///< 1 for an attempt that failed, 0 for one that gave a value.
  int attempts = 0;
};

}  // namespace

double MannWhitneyPValue(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) return 1;
  const double n1 = static_cast<double>(x.size()), n2 = static_cast<double>(y.size());
  const std::vector<double> ranks = Ranks(x, y);
  const double rank_x = std::accumulate(ranks.begin(), ranks.begin() + x.size(), 0.0);
  const double u1 = n1 * n2 + n1 * (n1 + 1) / 2 - rank_x;
  const double u2 = n1 * n2 - u1;
  // Tie correction: 1 - Σ(t³ - t) / (N³ - N) over the groups of tied ranks.
  std::vector<double> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  const double size = static_cast<double>(sorted.size());
  double ties = 0;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    i = j;
  }
  const double correction = size < 2 ? 1 : 1 - ties / (size * size * size - size);
  if (correction == 0) return 1;
  const double sd = std::sqrt(correction * n1 * n2 * (n1 + n2 + 1) / 12);
  const double z = (std::max(u1, u2) - (n1 * n2 / 2 + 0.5)) / sd;
  return 2 * (1 - NormalCdf(std::abs(z)));
}

double KolmogorovSurvival(double lambda) {
  if (lambda < 1.1e-16) return 1;
  const double x = -2 * lambda * lambda;
  double sign = 1, p = 0;
  for (double r = 1;; r += 1) {
    const double t = std::exp(x * r * r);
    p += sign * t;
    if (t == 0 || t / p <= 1.1e-16) break;
    sign = -sign;
  }
  return 2 * p;
}

double KolmogorovSmirnovPValue(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) return 1;
  std::vector<double> sx(x.begin(), x.end()), sy(y.begin(), y.end());
  std::sort(sx.begin(), sx.end());
  std::sort(sy.begin(), sy.end());
  const double n1 = static_cast<double>(sx.size()), n2 = static_cast<double>(sy.size());
  double d = 0;
  for (const std::vector<double>* side : {&sx, &sy}) {
    for (double v : *side) {
      // The empirical CDFs at v: the share of each sample at or below it.
      const double cdf1 =
          static_cast<double>(std::upper_bound(sx.begin(), sx.end(), v) - sx.begin()) / n1;
      const double cdf2 =
          static_cast<double>(std::upper_bound(sy.begin(), sy.end(), v) - sy.begin()) / n2;
      d = std::max(d, std::abs(cdf1 - cdf2));
    }
  }
  const double en = std::sqrt(n1 * n2 / (n1 + n2));
  return KolmogorovSurvival((en + 0.12 + 0.11 / en) * d);
}

double PinpointIqr(std::span<const double> values) {
  if (values.empty()) return 0;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  auto percentile = [&](double q) {
    const double index = static_cast<double>(sorted.size()) * q - 0.5;
    const double floor = std::max(std::floor(index), 0.0);
    const double ceil = std::min(std::ceil(index), static_cast<double>(sorted.size() - 1));
    if (floor == ceil) return sorted[static_cast<size_t>(std::max(index, 0.0))];
    return sorted[static_cast<size_t>(floor)] * (ceil - index) +
           sorted[static_cast<size_t>(ceil)] * (index - floor);
  };
  return percentile(0.75) - percentile(0.25);
}

PinpointVerdict PinpointDecide(double p_value, double low, double high) {
  if (p_value <= low) return PinpointVerdict::kDifferent;
  if (p_value > high) return PinpointVerdict::kSame;
  return PinpointVerdict::kUnknown;
}

PinpointVerdict PinpointCompareValues(std::span<const double> a, std::span<const double> b,
                                      double magnitude, double low, double high_floor,
                                      bool lower_is_better, PinpointThresholds& thresholds) {
  if (a.empty() || b.empty()) return PinpointVerdict::kUnknown;
  const double mean_diff = Mean(b) - Mean(a);
  if (lower_is_better ? mean_diff < 0 : mean_diff > 0) return PinpointVerdict::kSame;
  double magnitude_iqr = 1.0;
  if (magnitude != 0) {
    const double iqr = std::max({PinpointIqr(a), PinpointIqr(b), 0.001});
    magnitude_iqr = std::abs(magnitude / iqr);
  }
  const int sample_count = static_cast<int>((a.size() + b.size()) / 2);
  const double high = std::max(thresholds.High(magnitude_iqr, sample_count), high_floor);
  const double p = std::min(KolmogorovSmirnovPValue(a, b), MannWhitneyPValue(a, b));
  return PinpointDecide(p, low, high);
}

PinpointThresholds::PinpointThresholds(int simulations) : simulations_(simulations), rows_(kRows) {}

double PinpointThresholds::High(double magnitude_iqr, int sample_size) {
  // As thresholds.HighThreshold: int(m * 10) - 3, clamped to the table.
  const int row = std::clamp(static_cast<int>(magnitude_iqr * 10) - 3, 0, kRows - 1);
  const int n = std::clamp(sample_size, 1, kMaxSampleSize);
  std::vector<double>& thresholds = rows_[row];
  if (thresholds.empty()) {
    // thresholds_performance.py's simulation: a ~ N(0, 1), b ~ N(distance, 1), the U test's
    // p-value after each new value on both sides, and per size the p-value that 1% exceed.
    const double distance = (0.3 + 0.1 * row) * kStddevsPerIqr;
    SimRandom random(0x9196a1ULL + static_cast<uint64_t>(row));
    std::vector<std::vector<double>> p_values(kMaxSampleSize);
    for (std::vector<double>& p : p_values) p.reserve(simulations_);
    std::vector<double> a, b;
    for (int s = 0; s < simulations_; ++s) {
      a.clear();
      b.clear();
      double u = 0;  // pairs with b above a
      for (int k = 0; k < kMaxSampleSize; ++k) {
        const double new_a = random.Normal();
        const double new_b = distance + random.Normal();
        u += static_cast<double>(b.end() - std::upper_bound(b.begin(), b.end(), new_a));
        a.insert(std::upper_bound(a.begin(), a.end(), new_a), new_a);
        u += static_cast<double>(std::lower_bound(a.begin(), a.end(), new_b) - a.begin());
        b.insert(std::upper_bound(b.begin(), b.end(), new_b), new_b);
        p_values[k].push_back(UntiedPValue(u, k + 1));
      }
    }
    thresholds.resize(kMaxSampleSize);
    for (int k = 0; k < kMaxSampleSize; ++k) {
      thresholds[k] = LinearPercentile(p_values[k], 1 - kFalseNegativeRate);
    }
  }
  return thresholds[n - 1];
}

namespace {

/// Runs every pending attempt (one entry per attempt) in a random order, as a round of
/// Pinpoint's jobs does, adding each value or failure to its commit's runs.
void RunPendingAttempts(SimWorld& world, SimRandom& order, std::vector<int>& pending,
                        std::vector<ChangeRuns>& runs) {
  // Fisher–Yates: the round's attempts in a random order, one after another.
  for (size_t i = pending.size(); i > 1; --i) {
    std::swap(pending[i - 1], pending[order.UniformInt(0, static_cast<int>(i) - 1)]);
  }
  for (int commit : pending) {
    ChangeRuns& r = runs[commit];
    ++r.attempts;
    bool timed_out = false;
    if (!world.Unbuildable(commit)) {
      const double log_time = world.Sample(commit, &timed_out);
      if (!timed_out) r.values.push_back(std::exp(log_time));
    }
    r.failed.push_back(world.Unbuildable(commit) || timed_out ? 1.0 : 0.0);
  }
  pending.clear();
}

/// job_state._Compare for one quest: the attempts' failures first, then the values.
PinpointVerdict CompareRuns(const ChangeRuns& ra, const ChangeRuns& rb, double low,
                            double high_floor, const PinpointOptions& options,
                            PinpointThresholds& thresholds) {
  bool unknown = false;
  {
    // Failures compare as 'functional' at magnitude 1.0, whose high thresholds are under
    // 0.01 from 5 attempts on: only the floor leaves room for UNKNOWN.
    const double p = std::min(KolmogorovSmirnovPValue(ra.failed, rb.failed),
                              MannWhitneyPValue(ra.failed, rb.failed));
    const PinpointVerdict v = PinpointDecide(p, low, high_floor);
    if (v == PinpointVerdict::kDifferent) return v;
    unknown = v == PinpointVerdict::kUnknown;
  }
  if (!ra.values.empty() && !rb.values.empty()) {
    const PinpointVerdict v =
        PinpointCompareValues(ra.values, rb.values, options.magnitude, low, high_floor,
                              options.lower_is_better, thresholds);
    if (v == PinpointVerdict::kDifferent) return v;
    unknown = unknown || v == PinpointVerdict::kUnknown;
  }
  return unknown ? PinpointVerdict::kUnknown : PinpointVerdict::kSame;
}

/// Scores the ranges Pinpoint named (each the commits after a pair's first up to its second)
/// against the world's changes that move the way the whole range moves.
void ScoreNamedRanges(const SimWorld& world, const std::vector<std::pair<int, int>>& named,
                      TrialResult& r) {
  const std::vector<int> truth = ChangesTheRangesWay(world);
  auto holds = [&](const std::pair<int, int>& range, int t) {
    return range.first <= t && t <= range.second;
  };
  const bool wrong = std::any_of(named.begin(), named.end(), [&](const std::pair<int, int>& x) {
    return std::none_of(truth.begin(), truth.end(), [&](int t) { return holds(x, t); });
  });
  const bool all_named = std::all_of(truth.begin(), truth.end(), [&](int t) {
    return std::any_of(named.begin(), named.end(),
                       [&](const std::pair<int, int>& x) { return holds(x, t); });
  });
  const bool all_single = std::all_of(
      named.begin(), named.end(), [](const std::pair<int, int>& x) { return x.first == x.second; });
  r.score = ScoreNamed(wrong, !named.empty(), all_named, all_single);
  if (!wrong && !named.empty() && !all_named) {
    r.partial = true;
    r.missed_first = std::none_of(named.begin(), named.end(), [&](const std::pair<int, int>& x) {
      return holds(x, truth.front());
    });
  }
}

}  // namespace

TrialResult RunPinpointTrial(SimWorld& world, PinpointThresholds& thresholds,
                             const PinpointOptions& options, uint64_t seed) {
  const int n_commits = world.n_commits();
  SimRandom order(seed);
  std::vector<int> changes = {0, n_commits};
  std::vector<ChangeRuns> runs(n_commits + 1);
  std::vector<int> pending;  // one entry per attempt scheduled and not yet run
  auto schedule = [&](int commit, int count) { pending.insert(pending.end(), count, commit); };
  auto run_pending = [&] { RunPendingAttempts(world, order, pending, runs); };
  auto compare = [&](int a, int b, double low, double high_floor) {
    return CompareRuns(runs[a], runs[b], low, high_floor, options, thresholds);
  };

  TrialResult r;
  for (int commit : changes) schedule(commit, options.min_attempts);
  run_pending();
  bool failed = false;
  for (;;) {
    // Explore: every neighbouring pair, with the exploration's thresholds.
    std::set<int> refine;
    std::vector<int> midpoints;
    for (size_t k = 0; k + 1 < changes.size(); ++k) {
      const int a = changes[k], b = changes[k + 1];
      const PinpointVerdict v = compare(a, b, options.explore_low, options.explore_high_floor);
      if (v == PinpointVerdict::kUnknown) {
        const int na = runs[a].attempts, nb = runs[b].attempts;
        if (na <= nb && na < options.max_attempts) refine.insert(a);
        if (nb <= na && nb < options.max_attempts) refine.insert(b);
      } else if (v == PinpointVerdict::kDifferent && b - a > 1) {
        midpoints.push_back(a + (b - a) / 2);
      }
    }
    if (refine.empty() && midpoints.empty()) break;
    for (int commit : refine) {
      schedule(commit, std::max(runs[commit].attempts, options.min_attempts));
    }
    for (int m : midpoints) {
      changes.insert(std::upper_bound(changes.begin(), changes.end(), m), m);
      schedule(m, options.min_attempts);
      ++r.builds;
    }
    if (static_cast<int>(changes.size()) > options.max_builds) {
      failed = true;  // errors.BuildNumberExceeded: the job ends without culprits
      break;
    }
    run_pending();
  }
  r.runs = world.runs();
  if (failed) return r;

  // Differences(): the neighbouring pairs DIFFERENT at the report's thresholds; each names
  // the commits after the pair's first up to its second.
  std::vector<std::pair<int, int>> named;
  for (size_t k = 0; k + 1 < changes.size(); ++k) {
    const int a = changes[k], b = changes[k + 1];
    if (compare(a, b, options.report_low, 0) == PinpointVerdict::kDifferent) {
      named.emplace_back(a + 1, b);
    }
  }
  ScoreNamedRanges(world, named, r);
  return r;
}

}  // namespace culprit
