#pragma once

// A synthetic benchmarking world for judging bisect strategies, and the
// strategies it judges: culprit's BisectSearch (the very code the real bisect
// runs, driven through the same Next/Add loop) and the naive `git bisect run`
// threshold script. Pure arithmetic with a seeded generator: the same options
// and seed give the same figures on every machine with the same compiler.
//
// The world: commits 0..N, first bad commit F uniform in 1..N. A sample of
// commit i at time t has log-time μ_i + drift(t) + ε with μ_i = ln(1 + effect)
// for i >= F, 0 before; ε ~ N(0, σ²); drift a random walk that moves at every
// sample; optionally an outlier (the sample multiplied by 1.5–3) and unbuildable
// commits (never the endpoints). A pair is two samples back to back in random
// order, so drift nearly cancels within a pair but not between steps.

#include <cstdint>
#include <string>
#include <vector>

#include "bisect/search.h"

namespace culprit {

struct WorldOptions {
  int n_commits = 100;
  double effect = 0.18;             ///< The regression as a ratio minus 1 (0.18 = 18% slower).
  double sigma = 0.24;              ///< Per-sample log-normal noise.
  double drift_step = 0.002;        ///< Standard deviation of the drift's step per sample (log).
  double outlier_rate = 0.02;       ///< Fraction of samples multiplied by U(1.5, 3).
  double unbuildable_fraction = 0;  ///< Fraction of commits 1..N-1 that fail to build.
};

/// A small, portable generator (splitmix64 seeding a xoshiro256**), so that figures do not
/// depend on the standard library's distributions.
class SimRandom {
 public:
  explicit SimRandom(uint64_t seed);
  uint64_t NextU64();
  double Uniform();                ///< In [0, 1).
  double Normal();                 ///< Standard normal (Box–Muller, no cached second value).
  int UniformInt(int lo, int hi);  ///< In [lo, hi].

 private:
  uint64_t s_[4];
};

/// One synthetic engine history with a host that drifts.
class SimWorld {
 public:
  SimWorld(const WorldOptions& options, uint64_t seed);

  int n_commits() const { return options_.n_commits; }
  int first_bad() const { return first_bad_; }
  bool Unbuildable(int commit) const { return unbuildable_[commit]; }

  /// One run of `commit` now (log-time); advances time.
  double Sample(int commit);
  /// `count` pairs: d = ln(commit) - ln(baseline), each pair back to back in random order.
  std::vector<double> Pairs(int commit, int baseline, int count);

 private:
  WorldOptions options_;
  SimRandom random_;
  int first_bad_;
  std::vector<bool> unbuildable_;
  double drift_ = 0;
};

/// How one bisect of one world ended, scored against the truth.
struct TrialResult {
  enum class Score { kExact, kRange, kWrong, kInconclusive };
  Score score = Score::kInconclusive;
  int builds = 0;  ///< Build attempts strictly between the endpoints.
  int pairs = 0;   ///< Pairs (culprit) or candidate runs compared with the baseline (naive).
};

/// Runs BisectSearch on the world to the end. A culprit is exact when it is the first bad
/// commit; a range scores kRange when it contains it; anything else reported is kWrong;
/// kInconclusive and kNotReproducible are kInconclusive.
TrialResult RunCulpritTrial(SimWorld& world, const SearchOptions& options);

/// The `git bisect run` threshold script: one good-baseline value at the start (a single run
/// or the median of `runs_per_step` runs), then classic bisection where a commit is bad when
/// its value (same number of runs, median) exceeds the baseline by more than `threshold`
/// (0.10). Unbuildable commits are skipped as `git bisect skip` does; when only unbuildable
/// commits are left it reports the range.
TrialResult RunNaiveTrial(SimWorld& world, int runs_per_step, double threshold = 0.10);

/// Aggregate over trials.
struct CellSummary {
  int trials = 0;
  double exact = 0, range = 0, wrong = 0, inconclusive = 0;  ///< Fractions.
  double mean_builds = 0;
  int p95_builds = 0;
  double mean_pairs = 0;
};

/// Summaries of culprit's search and of the naive script with 1 and 5 runs per step.
struct CellResult {
  CellSummary culprit, naive_single, naive_median5;
};

/// Runs `trials` worlds (seeded from `seed`; the same trial index sees the same world, first
/// bad commit and unbuildable set for every strategy) and summarises each strategy.
CellResult RunCell(const WorldOptions& world, const SearchOptions& search, int trials,
                   uint64_t seed);

}  // namespace culprit
