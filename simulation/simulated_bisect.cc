#include "simulation/simulated_bisect.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

#include "bisect/bisect_runner.h"
#include "bisect/range_split.h"

namespace culprit {
namespace {

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Each sample is one run the world draws, in the order the sitting asks for them, so the
// world's drift and host jump fall between runs exactly as a real host's would.
class SimulatedRuns : public SampleSource {
 public:
  SimulatedRuns(SimWorld& world, int a, int b, double base_ms)
      : world_(world), commits_{a, b}, base_ms_(base_ms), a_shift_(world.SittingShift(a, b)) {}

  SampleOutcome Run(int arm) override {
    bool timed_out = false;
    double log_ms = world_.Sample(commits_[arm], &timed_out);
    if (arm == 0 && !timed_out) log_ms += a_shift_;
    const double ms = base_ms_ * std::exp(log_ms);
    SampleOutcome outcome;
    outcome.wall_ms = ms;
    if (timed_out) {
      outcome.timed_out = true;
      outcome.censor_value = ms;
      outcome.failure = fmt::format("timed out after {:.0f} ms (simulated)", ms);
      return outcome;
    }
    outcome.ok = true;
    outcome.value = ms;
    return outcome;
  }

 private:
  SimWorld& world_;
  int commits_[2];
  double base_ms_;
  double a_shift_;  // SimWorld::SittingShift, asked as the sitting opened
};

class SilentReporter : public BisectReporter {
 public:
  void Line(const std::string&) override {}
};

Error UnknownRevision(std::string_view revision) {
  return Error::Usage(fmt::format("unknown revision '{}' in the simulated engine", revision));
}

// Whether some commit of `commits` lies in [first, last].
bool Holds(const std::vector<int>& commits, int first, int last) {
  return std::any_of(commits.begin(), commits.end(),
                     [&](int c) { return first <= c && c <= last; });
}

}  // namespace

SimulatedEngine::SimulatedEngine(SimWorld& world, double base_ms)
    : world_(world), base_ms_(base_ms), attempted_(world.n_commits() + 1, false) {}

std::string SimulatedEngine::Id(int index) {
  // The first 10 digits (what reports print) hold the index, so short ids never collide.
  const uint64_t h = Mix(static_cast<uint64_t>(index));
  return fmt::format("{:06x}{:04x}{:016x}{:014x}", h >> 40, index, Mix(h), Mix(h + 1) >> 8);
}

std::optional<int> SimulatedEngine::IndexOf(std::string_view revision) const {
  const int n = world_.n_commits();
  if (revision == "good") return 0;
  if (revision == "bad") return n;
  int index = -1;
  if (revision.size() == 40) {
    std::from_chars(revision.data() + 6, revision.data() + 10, index, 16);
    if (index >= 0 && index <= n && Id(index) != revision) index = -1;
  } else if (revision.size() > 1 && revision[0] == 'c') {
    std::from_chars(revision.data() + 1, revision.data() + revision.size(), index);
  }
  if (index < 0 || index > n) return std::nullopt;
  return index;
}

int SimulatedEngine::builds_attempted() const {
  return static_cast<int>(std::count(attempted_.begin() + 1, attempted_.end() - 1, true));
}

Result<std::string> SimulatedEngine::Resolve(std::string_view revision) const {
  std::optional<int> index = IndexOf(revision);
  if (!index) return UnknownRevision(revision);
  return Id(*index);
}

Result<CommitInfo> SimulatedEngine::Commit(std::string_view revision) const {
  std::optional<int> index = IndexOf(revision);
  if (!index) return UnknownRevision(revision);
  CommitInfo info;
  info.id = Id(*index);
  info.short_id = info.id.substr(0, 10);
  info.tree_id = Id(*index + world_.n_commits() + 1);
  if (*index > 0) info.parents.push_back(Id(*index - 1));
  info.subject = fmt::format("simulated commit c{}", *index);
  info.author = "bisect-sim";
  info.author_email = "bisect-sim@localhost";
  info.time = 1'700'000'000 + 600 * static_cast<int64_t>(*index);
  return info;
}

Result<std::vector<CommitInfo>> SimulatedEngine::Range(std::string_view good, std::string_view bad,
                                                       bool) const {
  std::optional<int> lo = IndexOf(good), hi = IndexOf(bad);
  if (!lo) return UnknownRevision(good);
  if (!hi) return UnknownRevision(bad);
  std::vector<CommitInfo> range;
  for (int i = *lo + 1; i <= *hi; ++i) range.push_back(*Commit(Id(i)));
  return range;
}

Result<bool> SimulatedEngine::IsAncestor(std::string_view ancestor,
                                         std::string_view descendant) const {
  std::optional<int> a = IndexOf(ancestor), d = IndexOf(descendant);
  if (!a) return UnknownRevision(ancestor);
  if (!d) return UnknownRevision(descendant);
  return *a <= *d;
}

Result<std::vector<std::string>> SimulatedEngine::ChangedFiles(std::string_view revision) const {
  std::optional<int> index = IndexOf(revision);
  if (!index) return UnknownRevision(revision);
  return std::vector<std::string>{fmt::format("src/module{}.cc", *index % 7)};
}

Result<ResolvedBuild> SimulatedEngine::Resolve(const std::optional<std::string>& revision) {
  if (!revision) return Error::Usage("the simulated engine has no working tree");
  std::optional<int> index = IndexOf(*revision);
  if (!index) return UnknownRevision(*revision);
  attempted_[*index] = true;
  if (world_.Unbuildable(*index)) {
    return Error(fmt::format("commit c{} does not build (simulated)", *index));
  }
  ResolvedBuild build;
  build.revision = *revision;
  build.commit = Id(*index);
  build.tree = Id(*index + world_.n_commits() + 1);
  build.context.rev = *revision;
  build.context.commit = build.commit;
  return build;
}

std::optional<bool> SimulatedEngine::KnownBuildable(const std::string& revision) const {
  std::optional<int> index = IndexOf(revision);
  if (!index || !attempted_[*index]) return std::nullopt;
  return !world_.Unbuildable(*index);
}

Result<PairedRuns> SimulatedEngine::Pair(const QueryConfig& query, const ResolvedBuild& a,
                                         const ResolvedBuild& b) {
  std::optional<int> ia = IndexOf(a.commit), ib = IndexOf(b.commit);
  if (!ia) return UnknownRevision(a.commit);
  if (!ib) return UnknownRevision(b.commit);
  if (on_pair_) on_pair_(++pairs_);
  PairedRuns runs;
  runs.a.process.argv = {"simulated-engine", fmt::format("c{}", *ia)};
  runs.b.process.argv = {"simulated-engine", fmt::format("c{}", *ib)};
  runs.a.process.timeout = runs.b.process.timeout = query.timeout;
  runs.a.metric = runs.b.metric = query.metric;
  runs.source = std::make_unique<SimulatedRuns>(world_, *ia, *ib, base_ms_);
  return runs;
}

BisectSections SimulatedBisectConfig(const std::filesystem::path& dir, const BisectConfig& bisect) {
  BisectSections config;
  config.bisect = bisect;
  config.file = dir / "culprit.toml";
  config.base_dir = dir;
  config.digest = "simulated";
  config.records.dir = dir / "records";
  config.cache.dir = dir / "cache";
  QueryConfig query;
  query.name = "q";
  query.command = {"simulated-engine"};
  config.queries[query.name] = query;
  return config;
}

Result<BisectReport> RunSimulatedBisect(SimulatedEngine& engine, const std::filesystem::path& dir,
                                        uint64_t seed, BisectReporter& reporter,
                                        const BisectConfig& bisect) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  const BisectSections config = SimulatedBisectConfig(dir, bisect);
  BisectRunner runner(config, {engine, engine, engine}, /*host=*/nullptr, reporter);
  BisectRequest request;
  request.good = "good";
  request.bad = "bad";
  request.query = "q";
  request.flags.seed = seed;
  Result<BisectReport> report = runner.Run(request);
  std::filesystem::remove_all(dir, ec);
  return report;
}

double NetMeanLogMove(const SimWorld& world, int lo, int hi) {
  double net = 0;
  for (size_t k = 0; k < world.change_commits().size(); ++k) {
    const int c = world.change_commits()[k];
    if (lo < c && c <= hi) net += world.MeanLogEffect(k);
  }
  return net;
}

std::string WrongSettledClaim(const SimWorld& world, const std::vector<BisectSegment>& segments,
                              double log_band) {
  for (const BisectSegment& s : segments) {
    const double net = NetMeanLogMove(world, s.lo, s.hi);
    if (s.check == SegmentCheck::kTie && std::abs(net) > log_band) {
      return fmt::format("c{}..c{}, measured a tie, moves x{:.3f}", s.lo, s.hi, std::exp(net));
    }
    // ×(1 + A) itself is not ruled out either: a check that rules it out errs at the rate a
    // NULL at the band's edge does.
    if (s.ruled_out && s.alternative > 0 && std::abs(net) >= std::log1p(s.alternative) - 1e-12) {
      return fmt::format("c{}..c{}, moves of x{:.3f} or more ruled out, moves x{:.3f}", s.lo, s.hi,
                         1 + s.alternative, std::exp(net));
    }
  }
  return "";
}

namespace {

// What is wrong in a CULPRIT's claim, or "". It claims what its ties show: each part before
// it ties at its ends (a part measured a tie whose changes move it beyond the band `log_band`
// between its ends is wrong). "The first bad commit" in the literal sense (`literally_first`:
// those ties measured every commit) is wrong when any change the range's way comes before
// it (issue 27: +10% undone before the culprit leaves the ends tied).
std::string WrongCulpritClaim(const SimWorld& world, const std::vector<BisectSegment>& segments,
                              const std::vector<int>& truth, bool literally_first,
                              double log_band) {
  const BisectSegment& first = segments[EarliestChange(segments)];
  for (const BisectSegment& s : segments) {
    if (s.check != SegmentCheck::kTie || s.hi >= first.first) continue;
    const double net = NetMeanLogMove(world, s.lo, s.hi);
    if (std::abs(net) > log_band) {
      return fmt::format("called c{} CULPRIT; c{}..c{} before it, measured a tie, moves x{:.3f}",
                         first.change, s.lo, s.hi, std::exp(net));
    }
  }
  if (literally_first && !truth.empty() && first.first > truth.front()) {
    return fmt::format("called c{} the first bad commit; c{} moves before it", first.change,
                       truth.front());
  }
  return "";
}

}  // namespace

Result<RunnerTrialResult> RunRunnerTrial(SimWorld& world, const std::filesystem::path& dir,
                                         uint64_t seed, const BisectConfig& bisect) {
  SimulatedEngine engine(world);
  SilentReporter reporter;
  Result<BisectReport> report = RunSimulatedBisect(engine, dir, seed, reporter, bisect);
  RunnerTrialResult r;
  r.builds = engine.builds_attempted();
  r.runs = world.runs();
  if (!report) {
    r.error = report.error().message();
    return r;
  }
  r.report = report->text;
  // The runner keeps the confirmation's verdict only in its report (DescribeUnconfirmedMove).
  r.not_reproducible = r.report.find("NOT REPRODUCIBLE") != std::string::npos;
  for (const BisectStepLog& step : report->state.log) {
    // A check measured beside a verification took half a pair for each run it shared.
    const int own = step.pairs - step.shared_runs / 2;
    r.pairs += own;
    (step.kind == BisectStepKind::kConfirm  ? r.confirm_pairs
     : step.kind == BisectStepKind::kVerify ? r.verify_pairs
     : step.kind == BisectStepKind::kCheck  ? r.check_pairs
                                            : r.search_pairs) += own;
  }

  // The truth the answer is held to: the changes that move the way the range does, and
  // those that move the other way (a change named in a part that moves the other way must
  // be one of these).
  const std::vector<int> truth = ChangesTheRangesWay(world);
  const std::vector<int> other_truth = ChangesTheRangesWay(world, /*other_way=*/true);
  const std::vector<BisectSegment>& segments = report->state.segments;
  const std::vector<int> changes = VerifiedChanges(segments);
  r.changes_named = static_cast<int>(changes.size());
  // As the report labels it: the band the simulated bisect's sittings used.
  r.claimed_first = !changes.empty() && ShownFirst(segments, report->state.log,
                                                   SimulatedBisectConfig(dir).measure.band);
  bool all_single = true;
  for (int k : changes) {
    const BisectSegment& s = segments[k];
    const bool other_way = s.check == SegmentCheck::kOpposite;
    if (!Holds(other_way ? other_truth : truth, s.first, s.change)) {
      r.wrong = fmt::format("named c{}..c{}, which holds no change {}", s.first, s.change,
                            other_way ? "the other way" : "the way the range moved");
    }
    all_single = all_single && s.first == s.change;
  }
  r.literally_first = r.claimed_first && TiesOfEndsOnlyBeforeTheEarliestChange(segments).empty();
  const std::vector<int> unplaced = UnplacedSegments(segments);
  r.later_settled = !changes.empty() && std::none_of(unplaced.begin(), unplaced.end(), [&](int k) {
    return !TieEarnsFirst(segments, k);
  });
  const double log_band = std::log1p(SimulatedBisectConfig(dir).measure.band);
  if (r.wrong.empty() && r.claimed_first) {
    r.wrong = WrongCulpritClaim(world, segments, truth, r.literally_first, log_band);
  }
  if (r.wrong.empty()) r.wrong = WrongSettledClaim(world, segments, log_band);
  const bool all_named = std::all_of(truth.begin(), truth.end(), [&](int t) {
    return std::any_of(changes.begin(), changes.end(),
                       [&](int k) { return segments[k].first <= t && t <= segments[k].change; });
  });
  r.others_named =
      !other_truth.empty() && std::all_of(other_truth.begin(), other_truth.end(), [&](int t) {
        return std::any_of(changes.begin(), changes.end(), [&](int k) {
          return segments[k].check == SegmentCheck::kOpposite && segments[k].first <= t &&
                 t <= segments[k].change;
        });
      });
  r.score = ScoreNamed(!r.wrong.empty(), !changes.empty(), all_named, all_single);
  r.partial = r.wrong.empty() && !changes.empty() && !all_named;
  return r;
}

Result<RunnerCellSummary> RunRunnerCell(const WorldOptions& world, int trials, uint64_t seed,
                                        const std::filesystem::path& dir,
                                        const BisectConfig& bisect) {
  RunnerCellSummary s;
  s.trials = trials;
  std::vector<int> builds;
  for (int t = 0; t < trials; ++t) {
    const uint64_t trial_seed = TrialSeed(seed, t);
    SimWorld w(world, trial_seed);
    Result<RunnerTrialResult> r = RunRunnerTrial(w, dir, trial_seed | 1, bisect);
    if (!r) return r.error().WithContext(fmt::format("trial {}", t));
    if (!r->error.empty()) {
      s.errors += 1;
      if (s.error_example.empty()) s.error_example = fmt::format("trial {}: {}", t, r->error);
      continue;
    }
    switch (r->score) {
      case TrialResult::Score::kExact:
        s.exact += 1;
        break;
      case TrialResult::Score::kRange:
        s.range += 1;
        break;
      case TrialResult::Score::kWrong:
        s.wrong += 1;
        if (s.wrong_examples.size() < 3) {
          s.wrong_examples.push_back(fmt::format("trial {}: {}", t, r->wrong));
        }
        break;
      case TrialResult::Score::kInconclusive:
        (r->partial ? s.partial : s.inconclusive) += 1;
        if (s.inconclusive_example.empty()) s.inconclusive_example = r->report;
        break;
    }
    s.not_reproducible += r->not_reproducible;
    s.claimed_first += r->claimed_first;
    s.literally_first += r->literally_first;
    s.later_settled += r->later_settled;
    s.others_named += r->others_named;
    s.mean_builds += r->builds;
    s.mean_pairs += r->pairs;
    s.mean_confirm_pairs += r->confirm_pairs;
    s.mean_search_pairs += r->search_pairs;
    s.mean_verify_pairs += r->verify_pairs;
    s.mean_check_pairs += r->check_pairs;
    s.mean_runs += r->runs;
    s.max_pairs = std::max(s.max_pairs, r->pairs);
    builds.push_back(r->builds);
  }
  if (trials == 0) return s;
  const double n = trials;
  s.exact /= n;
  s.range /= n;
  s.partial /= n;
  s.wrong /= n;
  s.inconclusive /= n;
  s.not_reproducible /= n;
  s.errors /= n;
  s.claimed_first /= n;
  s.literally_first /= n;
  s.later_settled /= n;
  s.others_named /= n;
  s.mean_builds /= n;
  s.mean_pairs /= n;
  s.mean_confirm_pairs /= n;
  s.mean_search_pairs /= n;
  s.mean_verify_pairs /= n;
  s.mean_check_pairs /= n;
  s.mean_runs /= n;
  std::sort(builds.begin(), builds.end());
  if (!builds.empty()) {
    s.p95_builds = builds[static_cast<size_t>(std::ceil(0.95 * builds.size())) - 1];
  }
  return s;
}

}  // namespace culprit
