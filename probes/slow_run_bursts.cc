#include "probes/slow_run_bursts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "base/median.h"
#include "probes/statistics.h"
#include "probes/verdict.h"

namespace culprit {
namespace {

// A measured run: its arm and its log value, signed so that larger is worse.
struct Run {
  int arm = 0;
  double worse = 0;
};

std::vector<Run> MeasuredRuns(std::span<const Sample> samples, MetricDirection better) {
  std::vector<const Sample*> ordered;
  for (const Sample& s : samples) {
    if (!s.warmup && s.ok && !s.censored && s.value > 0 && (s.arm == 0 || s.arm == 1)) {
      ordered.push_back(&s);
    }
  }
  std::ranges::sort(ordered, {}, &Sample::sequence);
  const double sign = RatioAboveOneIsWorse(better) ? 1 : -1;
  std::vector<Run> runs;
  runs.reserve(ordered.size());
  for (const Sample* s : ordered) runs.push_back({s->arm, sign * std::log(s->value)});
  return runs;
}

// The block sizes of the time test: kBurstBlockRuns each, a last short block of fewer than
// half that joined to the one before it.
std::vector<int> Blocks(int n) {
  std::vector<int> blocks(n / kBurstBlockRuns, kBurstBlockRuns);
  const int rest = n % kBurstBlockRuns;
  if (rest * 2 >= kBurstBlockRuns || blocks.empty()) {
    blocks.push_back(rest);
  } else {
    blocks.back() += rest;
  }
  return blocks;
}

// Σ c_j² / b_j: with the number of slow runs fixed, the chi-square statistic of their counts
// c_j over blocks of b_j runs up to constants.
double BunchingStatistic(const std::vector<char>& slow, const std::vector<int>& blocks) {
  double t = 0;
  size_t i = 0;
  for (int b : blocks) {
    int c = 0;
    for (int k = 0; k < b; ++k) c += slow[i++];
    t += static_cast<double>(c) * c / b;
  }
  return t;
}

// The permutation p of BunchingStatistic: (1 + shuffles at least as bunched) / (1 + shuffles),
// exact when it is at most kBurstTimeP. Past that it stops early and returns the p of the
// shuffles so far, already above kBurstTimeP (the count only grows): a sitting whose slow runs
// are not bunched, the usual case, costs a few dozen shuffles instead of kBurstPermutations
// (paying for all of them in every sitting with enough slow runs, bisect-sim's 18%/24% cell,
// whose simulated outliers give many sittings six, took 31 s instead of 20 s).
// Fisher–Yates with std::mt19937_64 draws taken modulo by hand, so that the same samples give
// the same p on every standard library (std::shuffle's algorithm is unspecified).
double TimeP(const std::vector<char>& slow, const std::vector<int>& blocks) {
  const double observed = BunchingStatistic(slow, blocks);
  const int most = static_cast<int>(kBurstTimeP * (1.0 + kBurstPermutations)) - 1;
  std::mt19937_64 rng(0x5eed'b0a5'7u);
  std::vector<char> shuffled = slow;
  int as_bunched = 0;
  for (int p = 0; p < kBurstPermutations; ++p) {
    for (size_t i = shuffled.size() - 1; i > 0; --i) {
      std::swap(shuffled[i], shuffled[rng() % (i + 1)]);
    }
    // A relative tolerance: equal statistics computed in another order must count as equal.
    if (BunchingStatistic(shuffled, blocks) >= observed * (1 - 1e-12) && ++as_bunched > most) {
      return (1.0 + as_bunched) / (1.0 + kBurstPermutations);
    }
  }
  return (1.0 + as_bunched) / (1.0 + kBurstPermutations);
}

// The shortest stretch of runs holding ⌈kBurstWindowShare · slow⌉ of the slow runs.
void FindWindow(const std::vector<char>& slow, SlowRunBursts& out) {
  std::vector<int> at;
  for (size_t i = 0; i < slow.size(); ++i) {
    if (slow[i]) at.push_back(static_cast<int>(i));
  }
  const int need = static_cast<int>(std::ceil(kBurstWindowShare * at.size()));
  int best = -1;
  for (size_t i = 0; i + need <= at.size(); ++i) {
    if (best < 0 || at[i + need - 1] - at[i] < at[best + need - 1] - at[best]) {
      best = static_cast<int>(i);
    }
  }
  out.window_first = at[best] + 1;
  out.window_last = at[best + need - 1] + 1;
  out.in_window = need;
}

}  // namespace

std::optional<SlowRunBursts> FindSlowRunBursts(std::span<const Sample> samples, double band,
                                               MetricDirection better) {
  assert(band > 0);
  const std::vector<Run> runs = MeasuredRuns(samples, better);
  const int n = static_cast<int>(runs.size());
  if (n < kBurstBlockRuns * kMinBurstBlocks) return std::nullopt;
  SlowRunBursts out;
  double median[2] = {0, 0}, threshold[2] = {0, 0};
  for (int arm : {0, 1}) {
    std::vector<double> values;
    for (const Run& r : runs) {
      if (r.arm == arm) values.push_back(r.worse);
    }
    out.runs[arm] = static_cast<int>(values.size());
    if (values.empty()) return std::nullopt;
    median[arm] = Median(values);
    threshold[arm] =
        std::max(kTailScales * 1.4826 * MedianAbsoluteDeviation(values), std::log1p(band));
  }
  std::vector<char> slow(runs.size(), 0);
  std::vector<double> distances;
  for (size_t i = 0; i < runs.size(); ++i) {
    const double distance = runs[i].worse - median[runs[i].arm];
    if (distance > threshold[runs[i].arm]) {
      slow[i] = 1;
      ++out.slow[runs[i].arm];
      distances.push_back(distance);
    }
  }
  if (out.SlowRuns() < kMinSlowRuns || out.slow[0] == 0 || out.slow[1] == 0) return std::nullopt;
  out.arm_p = FisherExactTwoSided(out.slow[0], out.runs[0], out.slow[1], out.runs[1]);
  if (out.arm_p <= kBurstArmsDifferP) return std::nullopt;
  out.time_p = TimeP(slow, Blocks(n));
  if (out.time_p > kBurstTimeP) return std::nullopt;
  out.factor = std::exp(Median(distances));
  FindWindow(slow, out);
  return out;
}

std::string DescribeSlowRunBursts(const SlowRunBursts& b) {
  return fmt::format(
      "slow runs came in bursts: {} of {} runs were far slower than their arm's typical run "
      "(x{:.2f} at the median), in both arms alike (A {} of {}, B {} of {}; Fisher's exact "
      "test p = {:.2g}) and bunched in time ({} of them within runs {} to {}; their rate "
      "differs between blocks of {} runs beyond chance, permutation test p = {:.2g}): "
      "something on the host slowed runs in part of the sitting. A pair with one run in a burst "
      "is a wild pair, and such pairs widen the mean without telling the arms apart; rerun on "
      "a quiet host",
      b.SlowRuns(), b.Runs(), b.factor, b.slow[0], b.runs[0], b.slow[1], b.runs[1], b.arm_p,
      b.in_window, b.window_first, b.window_last, kBurstBlockRuns, b.time_p);
}

}  // namespace culprit
