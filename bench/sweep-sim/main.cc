// sweep-sim: `culprit sweep`'s own sitting and change location — RunTableSitting with the
// tool's default [measure] (band 5%, 10..160 blocks, 95% family-wise) and
// LocateSweepChanges — on scripted histories: N + 1 commits, one change of EFFECT at a
// commit drawn uniformly from 1..N, every K-th commit measured against the start, each run
// log-normal with scale SIGMA. Prints how often the sweep places the change between the right
// two measured commits (and nothing else), how often it adds a change that is not there or
// leaves the part undecided, the builds (the points measured) and the runs.
//
//   sweep-sim [--trials 1000] [--seed 1] [--commits 100] [--every 4] [--effect 0.20]
//             [--sigma 0.05]
//
// Deterministic: the same flags print the same figures.

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bisect/sweep.h"
#include "probes/table.h"

namespace {

using namespace culprit;

// Runs of the points: slot a is the a-th measured commit, its level times log-normal noise.
class ScriptedPoints : public SampleSource {
 public:
  ScriptedPoints(std::vector<double> levels, double sigma, uint64_t seed)
      : levels_(std::move(levels)), sigma_(sigma), rng_(seed) {}
  SampleOutcome Run(int slot) override {
    SampleOutcome out;
    out.ok = true;
    out.value = 10.0 * levels_[slot] * std::exp(sigma_ * Normal());
    return out;
  }

 private:
  double Uniform() { return (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53; }
  double Normal() {  // Box-Muller, so no library's distribution decides the figures.
    return std::sqrt(-2 * std::log(Uniform())) * std::cos(2 * M_PI * Uniform());
  }
  std::vector<double> levels_;
  double sigma_;
  std::mt19937_64 rng_;
};

double Flag(int argc, char** argv, const std::string& name, double fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) return std::atof(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int trials = static_cast<int>(Flag(argc, argv, "--trials", 1000));
  const uint64_t seed = static_cast<uint64_t>(Flag(argc, argv, "--seed", 1));
  const int commits = static_cast<int>(Flag(argc, argv, "--commits", 100));
  const int every = static_cast<int>(Flag(argc, argv, "--every", 4));
  const double effect = Flag(argc, argv, "--effect", 0.20);
  const double sigma = Flag(argc, argv, "--sigma", 0.05);
  Result<std::vector<int>> points = SelectSweepPoints(commits, every, std::nullopt);
  if (!points) {
    fmt::print(stderr, "sweep-sim: {}\n", points.error().message());
    return 2;
  }
  std::mt19937_64 draw(seed);
  int right = 0, extra = 0, wrong = 0, undecided = 0, missed = 0;
  long long runs = 0;
  for (int t = 0; t < trials; ++t) {
    const int change = 1 + static_cast<int>(draw() % static_cast<uint64_t>(commits));
    std::vector<double> levels;
    int want_to = 0;
    for (size_t a = 0; a < points->size(); ++a) {
      levels.push_back((*points)[a] >= change ? 1 + effect : 1.0);
      if (want_to == 0 && (*points)[a] >= change) want_to = static_cast<int>(a);
    }
    TableSittingOptions options;
    options.rows = 1;
    options.arms = static_cast<int>(points->size());
    options.seed = seed * 1000003 + static_cast<uint64_t>(t) + 1;
    ScriptedPoints source(levels, sigma, options.seed);
    TableSittingResult sitting = RunTableSitting(source, nullptr, options, nullptr);
    runs += static_cast<long long>(sitting.samples.size());
    SweepSeries series =
        SweepSeriesOfTable(sitting, 0, options.arms, options.band, sitting.cell_alpha);
    int changes = 0, located = 0, undecided_parts = 0;
    for (const SweepFinding& f : LocateSweepChanges(series)) {
      if (f.kind == SweepFindingKind::kUndecided) ++undecided_parts;
      if (f.kind != SweepFindingKind::kChange) continue;
      ++changes;
      if (f.from == want_to - 1 && f.to == want_to) ++located;
    }
    if (located == 1 && changes == 1) {
      ++right;
    } else if (located == 1) {
      ++extra;
    } else if (changes > 0) {
      ++wrong;
    } else if (undecided_parts > 0) {
      ++undecided;
    } else {
      ++missed;
    }
  }
  fmt::print(
      "sweep-sim: {} commits, one change of {:+.0f}% at a uniform commit, run noise {:.0f}%, "
      "every {} commits measured: {} builds per sweep; {} trials, seed {}\n",
      commits, 100 * effect, 100 * sigma, every, points->size(), trials, seed);
  auto pct = [&](int n) { return 100.0 * n / trials; };
  fmt::print("  between the right two measured commits, alone  {:6.2f}% ({})\n", pct(right), right);
  fmt::print("  right, with another change that is not there  {:6.2f}% ({})\n", pct(extra), extra);
  fmt::print("  a change placed elsewhere only                {:6.2f}% ({})\n", pct(wrong), wrong);
  fmt::print("  undecided, no change placed                   {:6.2f}% ({})\n", pct(undecided),
             undecided);
  fmt::print("  nothing beyond the band                       {:6.2f}% ({})\n", pct(missed),
             missed);
  fmt::print("  runs per sweep (mean, warm-ups included)      {:.0f}\n",
             static_cast<double>(runs) / trials);
  return 0;
}
