#include "simulation/simulation.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "simulation/pinpoint_bisect.h"

namespace culprit {
namespace {

uint64_t SplitMix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

double MedianOfRuns(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

CellSummary Summarise(const std::vector<TrialResult>& results) {
  CellSummary s;
  s.trials = static_cast<int>(results.size());
  if (results.empty()) return s;
  std::vector<int> builds;
  for (const TrialResult& r : results) {
    switch (r.score) {
      case TrialResult::Score::kExact:
        s.exact += 1;
        break;
      case TrialResult::Score::kRange:
        s.range += 1;
        break;
      case TrialResult::Score::kWrong:
        s.wrong += 1;
        break;
      case TrialResult::Score::kInconclusive:
        s.inconclusive += 1;
        break;
    }
    s.mean_builds += r.builds;
    s.mean_pairs += r.pairs;
    s.mean_runs += r.runs;
    s.partial += r.partial;
    s.missed_first += r.missed_first;
    builds.push_back(r.builds);
  }
  const double n = static_cast<double>(results.size());
  s.exact /= n;
  s.range /= n;
  s.wrong /= n;
  s.inconclusive /= n;
  s.mean_builds /= n;
  s.mean_pairs /= n;
  s.mean_runs /= n;
  s.partial /= n;
  s.missed_first /= n;
  std::sort(builds.begin(), builds.end());
  s.p95_builds = builds[static_cast<size_t>(std::ceil(0.95 * n)) - 1];
  return s;
}

TrialResult::Score ScoreRange(int first, int last, int truth) {
  if (first == last)
    return first == truth ? TrialResult::Score::kExact : TrialResult::Score::kWrong;
  return first <= truth && truth <= last ? TrialResult::Score::kRange : TrialResult::Score::kWrong;
}

}  // namespace

SimRandom::SimRandom(uint64_t seed) {
  for (uint64_t& word : s_) word = SplitMix64(seed);
}

uint64_t SimRandom::NextU64() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

double SimRandom::Uniform() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

double SimRandom::Normal() {
  const double u1 = 1.0 - Uniform();  // (0, 1]: log is finite
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

int SimRandom::UniformInt(int lo, int hi) {
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int>(NextU64() % span);
}

SimWorld::SimWorld(const WorldOptions& options, uint64_t seed)
    : options_(options), random_(seed), unbuildable_(options.n_commits + 1, false) {
  std::vector<SimChange> changes = options_.changes;
  if (changes.empty()) changes.push_back({options_.effect, 0});
  // The room each change needs after it: one commit per later change placed anywhere, its
  // gap per later change placed at a fixed distance.
  std::vector<int> room(changes.size() + 1, 0);
  for (size_t k = changes.size(); k-- > 1;) {
    room[k - 1] = room[k] + std::max(changes[k].after, 1);
  }
  int previous = 0;
  for (size_t k = 0; k < changes.size(); ++k) {
    const int at = changes[k].after > 0
                       ? previous + changes[k].after
                       : random_.UniformInt(previous + 1, options_.n_commits - room[k]);
    change_commits_.push_back(std::min(at, options_.n_commits));
    change_log_effects_.push_back(std::log1p(changes[k].effect));
    change_intermittent_.push_back(changes[k].intermittent);
    previous = change_commits_.back();
  }
  first_bad_ = change_commits_.front();
  for (int c = 1; c < options_.n_commits; ++c) {
    unbuildable_[c] = random_.Uniform() < options_.unbuildable_fraction;
  }
}

double SimWorld::Sample(int commit, bool* timed_out) {
  ++runs_;
  drift_ += options_.drift_step * random_.Normal();
  double x = drift_ + options_.sigma * random_.Normal();
  for (size_t k = 0; k < change_commits_.size(); ++k) {
    if (commit < change_commits_[k]) continue;
    // An intermittent change draws whether this run carries it; the others draw nothing, so
    // worlds without one see the same runs as before it existed.
    const double share = change_intermittent_[k];
    if (share <= 0 || random_.Uniform() < share) x += change_log_effects_[k];
  }
  if (options_.outlier_rate > 0 && random_.Uniform() < options_.outlier_rate) {
    x += std::log(1.5 + 1.5 * random_.Uniform());
  }
  if (options_.host_jump_at > 0 && runs_ > options_.host_jump_at) {
    x += std::log1p(options_.host_jump);
  }
  if (timed_out) *timed_out = false;
  if (options_.timeout_rate > 0 && commit >= (timeouts_from_ < 0 ? first_bad_ : timeouts_from_) &&
      random_.Uniform() < options_.timeout_rate) {
    if (timed_out) *timed_out = true;
    return std::log(options_.timeout);
  }
  return x;
}

std::vector<double> SimWorld::Pairs(int commit, int baseline, int count) {
  std::vector<double> d;
  d.reserve(count);
  for (int i = 0; i < count; ++i) {
    double a, b;
    if (random_.Uniform() < 0.5) {
      a = Sample(commit);
      b = Sample(baseline);
    } else {
      b = Sample(baseline);
      a = Sample(commit);
    }
    d.push_back(a - b);
  }
  return d;
}

TrialResult RunCulpritTrial(SimWorld& world, const SearchOptions& options) {
  BisectSearch search(world.n_commits(), options);
  for (;;) {
    const Action action = search.Next();
    if (action.kind == Action::Kind::kDone) break;
    if (world.Unbuildable(action.commit) || world.Unbuildable(action.baseline)) {
      search.MarkUnbuildable(world.Unbuildable(action.commit) ? action.commit : action.baseline);
      continue;
    }
    const std::vector<double> d = world.Pairs(action.commit, action.baseline, action.pairs);
    if (action.kind == Action::Kind::kVerify) {
      search.AddVerification(action.commit, action.baseline, d);
    } else {
      search.AddObservation(action.commit, d);
    }
  }
  const SearchOutcome outcome = search.Result();
  TrialResult r;
  r.builds = search.builds_used();
  r.pairs = search.pairs_used();
  r.runs = world.runs();
  if (outcome.kind == SearchOutcome::Kind::kCulprit ||
      outcome.kind == SearchOutcome::Kind::kRange) {
    r.score = ScoreRange(outcome.first, outcome.last, world.first_bad());
  }
  return r;
}

TrialResult RunNaiveTrial(SimWorld& world, int runs_per_step, double threshold) {
  TrialResult r;
  auto value = [&](int commit) {
    std::vector<double> runs;
    for (int i = 0; i < runs_per_step; ++i) runs.push_back(world.Sample(commit));
    return MedianOfRuns(std::move(runs));
  };
  const double baseline = value(0);
  r.pairs = 0;
  const double limit = std::log1p(threshold);
  const int n = world.n_commits();
  std::vector<bool> skipped(n + 1, false);
  int good = 0, bad = n;
  while (bad - good > 1) {
    // git bisect picks the midpoint; after a skip, the nearest commit not yet skipped.
    const int mid = (good + bad) / 2;
    int pick = -1;
    for (int off = 0; pick < 0 && off < bad - good; ++off) {
      for (int c : {mid - off, mid + off}) {
        if (c > good && c < bad && !skipped[c]) {
          pick = c;
          break;
        }
      }
    }
    if (pick < 0) break;  // only unbuildable commits left: git bisect names the range
    ++r.builds;
    if (world.Unbuildable(pick)) {
      skipped[pick] = true;
      continue;
    }
    r.pairs += runs_per_step;
    if (value(pick) - baseline > limit) {
      bad = pick;
    } else {
      good = pick;
    }
  }
  r.score = ScoreRange(good + 1, bad, world.first_bad());
  r.runs = world.runs();
  return r;
}

std::vector<int> ChangesTheRangesWay(const SimWorld& world, bool other_way) {
  double total = 0;
  for (double e : world.change_log_effects()) total += e;
  std::vector<int> out;
  for (size_t k = 0; k < world.change_commits().size(); ++k) {
    const double e = world.change_log_effects()[k];
    if (other_way ? e * total < 0 : e * total > 0) out.push_back(world.change_commits()[k]);
  }
  return out;
}

TrialResult::Score ScoreNamed(bool named_wrongly, bool named_any, bool all_named, bool all_single) {
  if (named_wrongly) return TrialResult::Score::kWrong;
  if (!named_any || !all_named) return TrialResult::Score::kInconclusive;
  return all_single ? TrialResult::Score::kExact : TrialResult::Score::kRange;
}

uint64_t TrialSeed(uint64_t seed, int trial) {
  uint64_t s = seed * 0x100000001b3ULL + static_cast<uint64_t>(trial);
  return SplitMix64(s);
}

CellResult RunCell(const WorldOptions& world, const SearchOptions& search, int trials,
                   uint64_t seed, double pinpoint_report_low) {
  std::vector<TrialResult> culprit, single, median5, pinpoint;
  PinpointThresholds thresholds;
  PinpointOptions pinpoint_options;
  pinpoint_options.report_low = pinpoint_report_low;
  double total = 0;
  if (world.changes.empty()) {
    total = std::log1p(world.effect);
  } else {
    for (const SimChange& change : world.changes) total += std::log1p(change.effect);
  }
  pinpoint_options.magnitude = std::expm1(total);
  for (int t = 0; t < trials; ++t) {
    const uint64_t trial_seed = TrialSeed(seed, t);
    // The same trial seed gives the same world (first bad commit and unbuildable set are
    // drawn first); each strategy then meets its own noise.
    SimWorld w1(world, trial_seed);
    culprit.push_back(RunCulpritTrial(w1, search));
    SimWorld w2(world, trial_seed);
    single.push_back(RunNaiveTrial(w2, 1));
    SimWorld w3(world, trial_seed);
    median5.push_back(RunNaiveTrial(w3, 5));
    SimWorld w4(world, trial_seed);
    pinpoint.push_back(RunPinpointTrial(w4, thresholds, pinpoint_options, trial_seed ^ 0x5eed));
  }
  return {Summarise(culprit), Summarise(single), Summarise(median5), Summarise(pinpoint)};
}

}  // namespace culprit
