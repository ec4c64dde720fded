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

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bisect/search.h"

namespace culprit {

/// One change of the world's history: from its commit on, runs take (1 + effect) times as long.
struct SimChange {
  double effect = 0.18;  ///< Ratio minus 1: 0.18 is 18% slower, -0.10 is 10% faster.
  /// 0: anywhere after the previous change (uniformly, leaving room for the changes after it);
  /// k > 0: exactly k commits after the previous change (1: adjacent commits).
  int after = 0;
  /// 0: every run from the change on carries it. In (0, 1): only this share of them does, the
  /// others run as before (an intermittent slowdown: effect 1.0 at 0.15 is twice as slow in
  /// 15% of the runs, a mean of x1.15 that the runs' median does not show).
  double intermittent = 0;
};

struct WorldOptions {
  int n_commits = 100;
  double effect = 0.18;             ///< The regression as a ratio minus 1 (0.18 = 18% slower).
  double sigma = 0.24;              ///< Per-sample log-normal noise.
  double drift_step = 0.002;        ///< Standard deviation of the drift's step per sample (log).
  double outlier_rate = 0.02;       ///< Fraction of samples multiplied by U(1.5, 3).
  double unbuildable_fraction = 0;  ///< Fraction of commits 1..N-1 that fail to build.
  /// The history's changes in commit order; empty: one change of `effect`, uniform in 1..N.
  std::vector<SimChange> changes;
  /// From the first change on, this fraction of runs time out (a change that sometimes hangs).
  double timeout_rate = 0;
  double timeout = 3.0;  ///< A timed-out run's value: the timeout, as a ratio to the good commit.
  /// The host gets (1 + host_jump) times slower after `host_jump_at` runs (0: never).
  double host_jump = 0;
  int host_jump_at = 0;
};

/// A quiet host's world of `n` commits with `changes`: 3% noise, no outliers, the default
/// drift. What the tests' scripted worlds start from (the runner's and the ladder's).
inline WorldOptions QuietWorld(std::vector<SimChange> changes, int n) {
  WorldOptions w;
  w.n_commits = n;
  w.sigma = 0.03;
  w.outlier_rate = 0;
  w.changes = std::move(changes);
  return w;
}

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
  const WorldOptions& options() const { return options_; }
  int first_bad() const { return first_bad_; }
  /// The commits of options().changes (or of the one change), in order.
  const std::vector<int>& change_commits() const { return change_commits_; }
  /// Their effects (log of the ratio), in the same order.
  const std::vector<double>& change_log_effects() const { return change_log_effects_; }
  /// The log of each change's mean multiplier over runs: its log effect, or for an
  /// intermittent one log(1 + share · effect) (x2 in 15% of runs: x1.15).
  double MeanLogEffect(size_t k) const {
    const double share = change_intermittent_[k];
    return share <= 0 ? change_log_effects_[k]
                      : std::log1p(share * std::expm1(change_log_effects_[k]));
  }
  bool Unbuildable(int commit) const { return unbuildable_[commit]; }
  int runs() const { return runs_; }
  /// From now on, a run of a commit at or after the first change (or, with `every_commit`,
  /// of any commit) times out with this probability (WorldOptions::timeout_rate): a host on
  /// which those builds start to hang mid-bisect, for a test that needs a sitting's runs to
  /// fail from a given step on.
  void SetTimeoutRate(double rate, bool every_commit = false) {
    options_.timeout_rate = rate;
    timeouts_from_ = every_commit ? 0 : first_bad_;
  }

  /// A host event that hits whole sittings, for a test that needs a check's false move (a
  /// part whose ends tie, one sitting of them saying otherwise, fresh pairs not): `shift(a, b)`
  /// is asked once as each sitting of b against a opens (SimulatedEngine::Pair), and what it
  /// returns is added to the log-time of every run of that sitting's arm A. Unset: none.
  void ShiftSittings(std::function<double(int a, int b)> shift) { shift_ = std::move(shift); }
  double SittingShift(int a, int b) const { return shift_ ? shift_(a, b) : 0; }

  /// One run of `commit` now (log-time, 0 = the good commit on the host as it started);
  /// advances time. A run that timed out sets `*timed_out` (when given) and returns the
  /// timeout's log-time.
  double Sample(int commit, bool* timed_out = nullptr);
  /// `count` pairs: d = ln(commit) - ln(baseline), each pair back to back in random order.
  std::vector<double> Pairs(int commit, int baseline, int count);

 private:
  WorldOptions options_;
  SimRandom random_;
  int first_bad_;
  int timeouts_from_ = -1;  // The first commit whose runs time out; -1: the first change.
  std::vector<int> change_commits_;
  std::vector<double> change_log_effects_;
  std::vector<double> change_intermittent_;  ///< SimChange::intermittent, per change.
  std::vector<bool> unbuildable_;
  double drift_ = 0;
  int runs_ = 0;
  std::function<double(int, int)> shift_;
};

/// How one bisect of one world ended, scored against the truth.
struct TrialResult {
  enum class Score { kExact, kRange, kWrong, kInconclusive };
  Score score = Score::kInconclusive;
  int builds = 0;  ///< Build attempts strictly between the endpoints.
  int pairs = 0;   ///< Pairs (culprit) or candidate runs compared with the baseline (naive).
  int runs = 0;    ///< Every run the strategy made (the world's runs()), endpoints included.
  /// Some of several changes named, none wrongly, not all (scored kInconclusive).
  bool partial = false;
  /// Partial, and the earliest change the range's way is one of those not named: what was
  /// named came later.
  bool missed_first = false;
};

/// The world's changes (their commits, in order) that move the way its whole history moves
/// (a regression's culprits), or with `other_way` those that move against it (a partial undo,
/// an earlier improvement): what a strategy's named changes are scored against.
std::vector<int> ChangesTheRangesWay(const SimWorld& world, bool other_way = false);

/// The score of a trial's named changes: kWrong when one of them holds no change
/// (`named_wrongly`), kInconclusive when none was named or not all of them were (a partial
/// answer: `named_any && !all_named`), else kExact when each is one commit and kRange when
/// one is a range around unbuildable commits. One ladder for every strategy.
TrialResult::Score ScoreNamed(bool named_wrongly, bool named_any, bool all_named, bool all_single);

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
  double mean_runs = 0;     ///< Every run, endpoints and baselines included.
  double partial = 0;       ///< Fraction scored partial (counted in `inconclusive` too).
  double missed_first = 0;  ///< Fraction partial with the earliest change not named.
};

/// Summaries of culprit's search, of the naive script with 1 and 5 runs per step, and of
/// Chromium Pinpoint's bisect (bisect/pinpoint_bisect.h).
struct CellResult {
  CellSummary culprit, naive_single, naive_median5, pinpoint;
};

/// The seed of trial `trial` of a cell seeded `seed`: the same trial sees the same world in
/// every strategy (RunCell, RunRunnerCell).
uint64_t TrialSeed(uint64_t seed, int trial);

/// Runs `trials` worlds (seeded from `seed`; the same trial index sees the same world, first
/// bad commit and unbuildable set for every strategy) and summarises each strategy. Pinpoint
/// seeks the world's whole move (its magnitude: exp of the changes' summed log effects,
/// minus 1), as an auto-bisect seeks its alert's.
/// `pinpoint_report_low`: the p-value at which Pinpoint's Differences() names a culprit (its
/// 0.01; the exploration's 0.05 to see what the two thresholds' mismatch costs).
CellResult RunCell(const WorldOptions& world, const SearchOptions& search, int trials,
                   uint64_t seed, double pinpoint_report_low = 0.01);

}  // namespace culprit
