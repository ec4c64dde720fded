#include "bisect/bisect_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>

#include "base/interrupt.h"
#include "base/strings.h"
#include "engine/file_lock.h"
#include "probes/query_sample_source.h"
#include "probes/statistics.h"
#include "probes/summary.h"
#include "base/timestamp.h"

namespace culprit {
namespace {

int CeilLog2(int n) {
  int bits = 0;
  while ((1 << bits) < n) ++bits;
  return bits;
}

std::string Short(const std::string& id) { return id.substr(0, 10); }

// A build error's first line says which step failed and how; its last lines
// are the tail of the compiler's output (often a caret line).
std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string NewRunId() {
  std::random_device entropy;
  return fmt::format("{}-{:04x}", FormatCompactUtc(std::chrono::system_clock::now()),
                     entropy() & 0xffff);
}

// Measured pairs of one step (one candidate against one baseline), across the
// batches the search asked for, kept to archive the step as one record.
struct StepSamples {
  std::string kind;  // "measure" or "verify"
  int index = -1;
  int baseline = 0;
  std::vector<Sample> samples;
  std::vector<double> d;  // as measured (not sign-flipped)
  int pairs = 0;
  bool interrupted = false;
  bool empty() const { return samples.empty(); }
};

// The outcome of measuring one batch.
struct Batch {
  enum class Kind { kMeasured, kUnbuildable, kBroken, kInterrupted } kind = Kind::kMeasured;
  std::vector<double> d;
  std::vector<Sample> samples;
  std::string reason;
};

}  // namespace

std::filesystem::path BisectDir(const BisectSections& config) {
  return config.base_dir / ".culprit";
}
std::filesystem::path BisectStatePath(const BisectSections& config) {
  return BisectDir(config) / "bisect.json";
}

// One bisect from start (or resume) to its end: owns the lock, the state and
// the search while it runs.
class BisectRunner::Session {
 public:
  Session(const BisectSections& config, EngineBuilds& builds, const HostProbe* host,
          BisectReporter& reporter, FileLock lock)
      : config_(config),
        builds_(builds),
        host_(host),
        reporter_(reporter),
        lock_(std::move(lock)),
        store_(config.records.dir) {}

  Result<BisectReport> Start(const BisectRequest& request);
  Result<BisectReport> Continue(BisectState state);

 private:
  /// Query and sitting options, `flags` applied (and validated) over [measure].
  Status Prepare(const MeasureFlags& flags);
  Status Save();
  Result<BisectReport> Confirm();
  Result<BisectReport> Search();
  Result<BisectReport> Finish(const std::string& confirm_summary);
  Batch MeasureBatch(int index, int baseline, int pairs, bool warmup);
  Status FlushStep();
  void ReportStep(const BisectStepLog& step);
  Error Interrupted();

  const BisectSections& config_;
  EngineBuilds& builds_;
  const HostProbe* host_;
  BisectReporter& reporter_;
  FileLock lock_;
  RecordStore store_;
  BisectState state_;
  const QueryConfig* query_ = nullptr;
  SittingOptions options_;
  std::optional<BisectSearch> search_;
  StepSamples step_;
  HostState start_snapshot_;
  std::string confirm_verdict_;  // The endpoint confirmation's verdict, when it was not EFFECT.
};

Status BisectRunner::Session::Save() {
  state_.updated = NowIsoUtc();
  if (search_) state_.search_json = search_->ToJson();
  Status saved = SaveBisectState(BisectStatePath(config_), state_);
  if (!saved) return saved.error().WithContext("saving the bisect state");
  return {};
}

Status BisectRunner::Session::Prepare(const MeasureFlags& flags) {
  Result<const QueryConfig*> query = SelectQuery(config_, state_.query);
  if (!query) return query.error();
  query_ = *query;
  state_.query = query_->name;
  Result<SittingOptions> options = MakeSittingOptions(config_.measure, *query_, flags);
  if (!options) return options.error();
  options_ = *options;
  if (host_) start_snapshot_ = host_->Snapshot(/*calibrate=*/true);
  return {};
}

Error BisectRunner::Session::Interrupted() {
  state_.status = "interrupted";
  (void)FlushStep();
  (void)Save();
  return Error::Interrupted(
             fmt::format("bisect interrupted after {} steps; its state is saved in {}",
                         state_.log.size(), BisectStatePath(config_).string()))
      .WithHint("`culprit bisect resume` continues where it stopped, without re-measuring");
}

Batch BisectRunner::Session::MeasureBatch(int index, int baseline, int pairs, bool warmup) {
  Batch batch;
  Result<ResolvedBuild> candidate = builds_.ResolveCommit(state_.commits[index]);
  if (!candidate) {
    if (candidate.error().kind() == ErrorKind::kInterrupted) {
      batch.kind = Batch::Kind::kInterrupted;
    } else if (builds_.cache().KnownBuildable(state_.commits[index]) == false) {
      batch.kind = Batch::Kind::kUnbuildable;
    } else {
      batch.kind = Batch::Kind::kBroken;
    }
    batch.reason = candidate.error().message();
    return batch;
  }
  Result<ResolvedBuild> base = builds_.ResolveCommit(state_.commits[baseline]);
  if (!base) {
    batch.kind = base.error().kind() == ErrorKind::kInterrupted ? Batch::Kind::kInterrupted
                                                                : Batch::Kind::kBroken;
    batch.reason = base.error().message();
    return batch;
  }
  Result<ProcessArm> arm_a = MakeQueryArm(config_, *query_, *base, {}, {});
  Result<ProcessArm> arm_b = MakeQueryArm(config_, *query_, *candidate, {}, {});
  if (!arm_a || !arm_b) {
    batch.kind = Batch::Kind::kBroken;
    batch.reason = (!arm_a ? arm_a.error() : arm_b.error()).message();
    return batch;
  }
  QuerySampleSource source({*arm_a, *arm_b});
  SittingOptions options = options_;
  options.min_pairs = options.max_pairs = pairs;
  options.warmup = warmup ? options_.warmup : 0;
  options.seed = 0;
  // A batch is a fixed number of pairs: the search, not the sitting, decides
  // when there is enough evidence. Its looks are therefore ignored.
  SittingResult sitting = RunPairedSitting(source, nullptr, options, nullptr);
  batch.samples = std::move(sitting.samples);
  if (sitting.interrupted) {
    batch.kind = Batch::Kind::kInterrupted;
    return batch;
  }
  if (sitting.failure) {
    // A candidate that keeps crashing or hanging cannot be measured; that is
    // a fact about the commit, like a failed build, never a verdict on speed.
    // But when the baseline's runs fail too, the commit is not to blame: the
    // bisect cannot go on, whatever the candidate is.
    if (FailedSamples(batch.samples, 0) > 0) {
      batch.kind = Batch::Kind::kBroken;
      batch.reason = fmt::format("the baseline {}'s runs failed: {}",
                                 Short(state_.commits[baseline]), sitting.failure->message());
    } else {
      batch.kind = Batch::Kind::kUnbuildable;
      batch.reason = "its runs kept failing: " + sitting.failure->message();
    }
    return batch;
  }
  batch.d = std::move(sitting.log_ratios);
  return batch;
}

Status BisectRunner::Session::FlushStep() {
  if (step_.empty()) return {};
  ComparisonPlan plan;
  plan.kind = "bisect-step";
  plan.query = query_->name;
  plan.unit = query_->unit;
  plan.a.name = "baseline";
  plan.a.label = Short(state_.commits[step_.baseline]);
  plan.a.commit = state_.commits[step_.baseline];
  plan.b.name = "candidate";
  plan.b.label = Short(state_.commits[step_.index]);
  plan.b.commit = state_.commits[step_.index];
  plan.options = options_;
  plan.config_digest = config_.digest;
  plan.details["bisect_run"] = state_.run_id;
  plan.details["step_kind"] = step_.kind;
  plan.details["candidate_commit"] = plan.b.commit;
  plan.details["baseline_commit"] = plan.a.commit;
  plan.details["candidate_index"] = std::to_string(step_.index);

  SittingResult sitting;
  sitting.samples = step_.samples;
  sitting.log_ratios = step_.d;
  sitting.pairs_kept = static_cast<int>(step_.d.size());
  sitting.interrupted = step_.interrupted;
  sitting.start = start_snapshot_;
  if (host_) sitting.end = host_->Snapshot(/*calibrate=*/false);
  if (Result<ShiftEstimate> shift = SignedRankEstimate(step_.d, options_.confidence)) {
    sitting.shift = *shift;
    sitting.nominal_confidence = options_.confidence;
    sitting.verdict = Decide(*shift, options_.band);
  }
  HostIdentityInfo identity;
  if (host_) identity = host_->Identity();
  Record record = MakeComparisonRecord(plan, sitting, identity);
  record.notes.push_back(
      "one step of a bisect: the search, not this record's own interval, decides; the "
      "interval is a plain 95% one over this step's pairs");
  Result<std::filesystem::path> path = store_.Write(record);
  if (!path) return path.error().WithContext("archiving a bisect step");
  state_.records.push_back(record.id);

  BisectStepLog log;
  log.step = static_cast<int>(state_.log.size()) + 1;
  log.kind = step_.kind;
  log.index = step_.index;
  log.baseline = step_.baseline;
  log.commit = state_.commits[step_.index];
  log.pairs = step_.pairs;
  if (record.estimate) {
    log.ratio = record.estimate->ratio;
    log.low = record.estimate->low;
    log.high = record.estimate->high;
  }
  std::vector<double> posterior = search_->Posterior();
  double mass = 0;
  for (int j = 1; j <= step_.index && j < static_cast<int>(posterior.size()); ++j) {
    mass += posterior[j];
  }
  log.mass_at_or_before = mass;
  auto best = std::max_element(posterior.begin(), posterior.end());
  log.best_commit = state_.commits[best - posterior.begin()];
  log.best_probability = *best;
  log.record_id = record.id;
  if (step_.interrupted) log.note = "interrupted";
  state_.log.push_back(log);
  ReportStep(log);
  step_ = StepSamples{};
  return {};
}

void BisectRunner::Session::ReportStep(const BisectStepLog& s) {
  int n = static_cast<int>(state_.commits.size()) - 1;
  // Commits left: the fewest that hold the target probability together.
  std::vector<double> posterior = search_->Posterior();
  std::sort(posterior.begin(), posterior.end(), std::greater<>());
  int left = 0;
  for (double mass = 0;
       left < static_cast<int>(posterior.size()) && mass < search_->options().target_probability;
       ++left) {
    mass += posterior[left];
  }
  reporter_.Line(fmt::format(
      "step {:>2} {:<7} {} (#{} of {})  {:>3} pairs  ratio {:.3f} [{:.3f}, {:.3f}]  "
      "P(first bad ≤ it) {:.3f}  {} left, best {} p={:.3f}  builds {} (⌈log2 N⌉={}) pairs {}{}",
      s.step, s.kind, Short(s.commit), s.index, n, s.pairs, s.ratio, s.low, s.high,
      s.mass_at_or_before, left, Short(s.best_commit), s.best_probability, search_->builds_used(),
      CeilLog2(n), search_->pairs_used(), s.note.empty() ? "" : "  " + s.note));
}

Result<BisectReport> BisectRunner::Session::Start(const BisectRequest& request) {
  Result<std::string> good = builds_.repo().Resolve(request.good);
  if (!good) return good.error().WithContext("--good");
  Result<std::string> bad = builds_.repo().Resolve(request.bad);
  if (!bad) return bad.error().WithContext("--bad");
  Result<bool> ancestor = builds_.repo().IsAncestor(*good, *bad);
  if (!ancestor) return ancestor.error();
  if (!*ancestor || *good == *bad) {
    return Error::Usage(fmt::format("--good {} is not an ancestor of --bad {}: nothing to bisect",
                                    request.good, request.bad));
  }
  Result<std::vector<CommitInfo>> range = builds_.repo().Range(*good, *bad, request.first_parent);
  if (!range) return range.error();

  state_ = BisectState{};
  state_.run_id = NewRunId();
  state_.status = "running";
  state_.started = NowIsoUtc();
  state_.good_rev = request.good;
  state_.bad_rev = request.bad;
  state_.query = request.query;
  state_.first_parent = request.first_parent;
  state_.config_digest = config_.digest;
  state_.commits.push_back(*good);
  for (const CommitInfo& commit : *range) state_.commits.push_back(commit.id);
  CULPRIT_TRY(Prepare(request.flags));
  CULPRIT_TRY(Save());
  reporter_.Line(fmt::format("bisecting {} commits between {} ({}) and {} ({}) on {}",
                             state_.commits.size() - 1, request.good, Short(*good), request.bad,
                             Short(*bad), query_->name));
  return Confirm();
}

Result<BisectReport> BisectRunner::Session::Continue(BisectState state) {
  state_ = std::move(state);
  CULPRIT_TRY(Prepare(MeasureFlags{}));
  if (state_.search_json.empty()) {
    reporter_.Line("resuming: the endpoints were not confirmed yet; confirming again");
    return Confirm();
  }
  Result<BisectSearch> search = BisectSearch::FromJson(state_.search_json);
  if (!search) return search.error().WithContext(BisectStatePath(config_).string());
  if (search->n_commits() != static_cast<int>(state_.commits.size()) - 1) {
    return Error(fmt::format("{}: damaged bisect state: its search covers {} commits but it "
                             "lists {}",
                             BisectStatePath(config_).string(), search->n_commits(),
                             state_.commits.size() - 1))
        .WithHint("`culprit bisect reset` discards it");
  }
  search_ = std::move(*search);
  // The band the search was started with (a --band given to `bisect run`).
  options_.band = search_->options().band;
  reporter_.Line(fmt::format("resuming the bisect of {} commits on {}: {} steps done, {} pairs",
                             state_.commits.size() - 1, query_->name, state_.log.size(),
                             search_->pairs_used()));
  state_.status = "running";
  return Search();
}

Result<BisectReport> BisectRunner::Session::Confirm() {
  // The endpoints in one sitting with the full sequential design: the move
  // must be an EFFECT here before any commit is searched.
  const int n = static_cast<int>(state_.commits.size()) - 1;
  reporter_.Line("confirming the move: good vs bad in one sitting");
  Result<ResolvedBuild> good = builds_.ResolveCommit(state_.commits[0]);
  if (!good) return good.error().WithContext("building the good end");
  Result<ResolvedBuild> bad = builds_.ResolveCommit(state_.commits[n]);
  if (!bad) return bad.error().WithContext("building the bad end");
  Result<ProcessArm> arm_a = MakeQueryArm(config_, *query_, *good, {}, {});
  if (!arm_a) return arm_a.error();
  Result<ProcessArm> arm_b = MakeQueryArm(config_, *query_, *bad, {}, {});
  if (!arm_b) return arm_b.error();

  ComparisonPlan plan;
  plan.kind = "bisect-step";
  plan.query = query_->name;
  plan.unit = query_->unit;
  plan.a = MakeComparisonArm("good", "good " + Short(state_.commits[0]), *arm_a, *good);
  plan.a.revision = state_.good_rev;  // as the user gave it, not the resolved id
  plan.b = MakeComparisonArm("bad", "bad " + Short(state_.commits[n]), *arm_b, *bad);
  plan.b.revision = state_.bad_rev;
  plan.options = options_;
  plan.config_digest = config_.digest;
  plan.details["bisect_run"] = state_.run_id;
  plan.details["step_kind"] = "confirm";
  QuerySampleSource source({*arm_a, *arm_b});
  Result<ComparisonOutcome> outcome = RunComparison(plan, source, host_, store_, nullptr);
  if (!outcome) return outcome.error();
  state_.records.push_back(outcome->record.id);
  std::string summary = FormatComparisonSummary(*outcome);
  reporter_.Line(summary.substr(0, summary.find('\n')));
  if (outcome->sitting.interrupted) return Interrupted();
  CULPRIT_TRY(OutcomeStatus(*outcome));

  BisectStepLog log;
  log.step = static_cast<int>(state_.log.size()) + 1;
  log.kind = "confirm";
  log.index = n;
  log.commit = state_.commits[n];
  log.pairs = outcome->sitting.pairs_kept;
  if (outcome->record.estimate) {
    log.ratio = outcome->record.estimate->ratio;
    log.low = outcome->record.estimate->low;
    log.high = outcome->record.estimate->high;
  }
  log.record_id = outcome->record.id;

  if (outcome->record.verdict != "EFFECT") {
    confirm_verdict_ = outcome->record.verdict;
    log.note = "not reproducible";
    state_.log.push_back(log);
    return Finish(summary);
  }
  state_.speedup = outcome->record.estimate && outcome->record.estimate->ratio < 1;
  SearchOptions search_options;
  // The confirmation above is this bisect's endpoint test; the search must not
  // re-judge it on its own look schedule and ask for more pairs of the bad end.
  search_options.confirm_endpoints = false;
  search_options.band = options_.band;
  search_options.confidence = options_.confidence;
  search_options.target_probability = config_.bisect.target_probability;
  if (config_.bisect.max_builds > 0) search_options.max_builds = config_.bisect.max_builds;
  if (config_.bisect.max_pairs > 0) search_options.max_pairs = config_.bisect.max_pairs;
  if (config_.bisect.pairs_per_step > 0) {
    search_options.max_pairs_per_step = config_.bisect.pairs_per_step;
  }
  search_.emplace(n, search_options);
  std::vector<double> d = outcome->sitting.log_ratios;
  if (state_.speedup) {
    for (double& x : d) x = -x;
  }
  search_->AddObservation(n, d);
  for (int i = 1; i < n; ++i) {
    std::optional<bool> known = builds_.cache().KnownBuildable(state_.commits[i]);
    if (known == true) search_->MarkCached(i);
  }
  log.mass_at_or_before = 1;
  state_.log.push_back(log);
  CULPRIT_TRY(Save());
  return Search();
}

Result<BisectReport> BisectRunner::Session::Search() {
  while (true) {
    if (InterruptRequested()) return Interrupted();
    Action action = search_->Next();
    if (action.kind == Action::Kind::kDone) break;
    std::string kind = action.kind == Action::Kind::kVerify ? "verify" : "measure";
    if (!step_.empty() &&
        (step_.index != action.commit || step_.baseline != action.baseline || step_.kind != kind)) {
      CULPRIT_TRY(FlushStep());
    }
    bool first_batch = step_.empty();
    Batch batch = MeasureBatch(action.commit, action.baseline, action.pairs, first_batch);
    switch (batch.kind) {
      case Batch::Kind::kInterrupted:
        step_.interrupted = true;
        return Interrupted();
      case Batch::Kind::kBroken:
        (void)FlushStep();
        state_.status = "interrupted";
        (void)Save();
        return Error(batch.reason)
            .WithContext(fmt::format("measuring commit {}", Short(state_.commits[action.commit])))
            .WithHint("fix the cause, then `culprit bisect resume`");
      case Batch::Kind::kUnbuildable: {
        CULPRIT_TRY(FlushStep());
        const size_t skipped_before = search_->unbuildable().size();
        search_->MarkUnbuildable(action.commit);
        if (search_->unbuildable().size() == skipped_before) {
          // An endpoint (or a commit already skipped): the search would ask
          // for it again forever. Nothing more can be learned here.
          state_.status = "interrupted";
          (void)Save();
          return Error(fmt::format("commit {} cannot be measured ({}), and the search cannot do "
                                   "without it",
                                   Short(state_.commits[action.commit]), FirstLine(batch.reason)))
              .WithHint("fix the cause, then `culprit bisect resume`, or `culprit bisect reset`");
        }
        BisectStepLog log;
        log.step = static_cast<int>(state_.log.size()) + 1;
        log.kind = kind;
        log.index = action.commit;
        log.baseline = action.baseline;
        log.commit = state_.commits[action.commit];
        log.note = "skipped: " + FirstLine(batch.reason);
        state_.log.push_back(log);
        reporter_.Line(fmt::format("step {:>2} {} is unbuildable or unmeasurable: skipped ({})",
                                   log.step, Short(log.commit), FirstLine(batch.reason)));
        CULPRIT_TRY(Save());
        continue;
      }
      case Batch::Kind::kMeasured:
        break;
    }
    // The search sees slowdowns as positive; a bisect of a speed-up flips them.
    std::vector<double> d = batch.d;
    if (state_.speedup) {
      for (double& x : d) x = -x;
    }
    if (action.kind == Action::Kind::kVerify) {
      search_->AddVerification(action.commit, action.baseline, d);
    } else {
      search_->AddObservation(action.commit, d);
      search_->MarkCached(action.commit);
    }
    step_.kind = kind;
    step_.index = action.commit;
    step_.baseline = action.baseline;
    const int offset_pairs = step_.pairs;
    const int offset_sequence = static_cast<int>(step_.samples.size());
    for (Sample s : batch.samples) {
      s.sequence += offset_sequence;
      if (s.pair >= 0) s.pair += offset_pairs;
      step_.samples.push_back(s);
    }
    step_.d.insert(step_.d.end(), batch.d.begin(), batch.d.end());
    step_.pairs += static_cast<int>(batch.d.size());
    // When this batch ends its step, the step is archived before the state
    // is saved: a process killed after the save has lost no step's record.
    Action next = search_->Next();
    std::string next_kind = next.kind == Action::Kind::kVerify ? "verify" : "measure";
    if (next.kind == Action::Kind::kDone || next.commit != step_.index ||
        next.baseline != step_.baseline || next_kind != step_.kind) {
      CULPRIT_TRY(FlushStep());
    }
    CULPRIT_TRY(Save());
  }
  CULPRIT_TRY(FlushStep());
  return Finish("");
}

Result<BisectReport> BisectRunner::Session::Finish(const std::string& confirm_summary) {
  BisectReport report;
  const int n = static_cast<int>(state_.commits.size()) - 1;
  Record record;
  record.kind = "bisect";
  record.query = query_->name;
  record.unit = query_->unit;
  record.band = options_.band;
  record.config_digest = config_.digest;
  record.culprit_version = CULPRIT_VERSION;
  record.links = state_.records;
  record.details["bisect_run"] = state_.run_id;
  record.details["good_commit"] = state_.commits[0];
  record.details["bad_commit"] = state_.commits[n];
  record.details["range_commits"] = std::to_string(n);
  record.details["log2_minimum_builds"] = std::to_string(CeilLog2(n));
  record.start = start_snapshot_;
  if (host_) {
    record.host = ToRecordHostIdentity(host_->Identity());
    record.end = host_->Snapshot(/*calibrate=*/true);
  }

  std::string text;
  if (!search_) {
    // The endpoints did not confirm the move.
    const BisectStepLog& confirm = state_.log.back();
    report.outcome.kind = SearchOutcome::Kind::kNotReproducible;
    // NULL only when the confirmation showed the endpoints the same; an
    // INCONCLUSIVE confirmation must not be archived as a proof of no move.
    record.verdict = confirm_verdict_ == "NULL" ? "NULL" : "INCONCLUSIVE";
    record.verdict_detail = fmt::format(
        "the move between {} and {} does not reproduce here as an EFFECT: ratio {:.3f} "
        "[{:.3f}, {:.3f}]; nothing was bisected",
        state_.good_rev, state_.bad_rev, confirm.ratio, confirm.low, confirm.high);
    Estimate e;
    e.ratio = confirm.ratio;
    e.low = confirm.low;
    e.high = confirm.high;
    e.pairs = confirm.pairs;
    record.estimate = e;
    text = fmt::format(
        "NOT REPRODUCIBLE: {}\n{}"
        "Either the host drifted since the number was taken, or the move was never what it was "
        "said to be. The confirmation is archived as a record.\n",
        record.verdict_detail, confirm_summary);
  } else {
    report.outcome = search_->Result();
    const SearchOutcome& o = report.outcome;
    record.details["builds_used"] = std::to_string(search_->builds_used());
    record.details["pairs_used"] = std::to_string(search_->pairs_used());
    record.details["probability"] = fmt::format("{:.4f}", o.probability);
    std::vector<std::string> credible;
    for (int j : o.credible_set) credible.push_back(Short(state_.commits[j]));
    record.details["credible_set"] = Join(credible, ",");
    for (int j : search_->unbuildable()) {
      record.notes.push_back("unbuildable or unmeasurable: " + state_.commits[j]);
    }
    // What the report plots by commit index (docs/reports.md): the range, the
    // final posterior over "first bad commit is j" and the unbuildable indexes.
    nlohmann::json payload = {{"commits", state_.commits},
                              {"posterior", search_->Posterior()},
                              {"unbuildable", search_->unbuildable()}};
    record.details_json = payload.dump();
    if (o.verification_pairs > 0) {
      double sign = state_.speedup ? -1 : 1;
      Estimate e;
      e.ratio = std::exp(sign * o.log_ratio);
      e.low = std::exp(sign * (state_.speedup ? o.log_ratio_high : o.log_ratio_low));
      e.high = std::exp(sign * (state_.speedup ? o.log_ratio_low : o.log_ratio_high));
      e.pairs = o.verification_pairs;
      e.confidence = options_.confidence;
      record.estimate = e;
    }
    const bool named =
        (o.kind == SearchOutcome::Kind::kCulprit || o.kind == SearchOutcome::Kind::kRange) &&
        o.verified;
    report.found = named;
    record.verdict = named ? "EFFECT" : "INCONCLUSIVE";
    record.verdict_detail = o.reason;
    std::string builds_line =
        fmt::format("builds {} (⌈log2 {}⌉ = {}), pairs {}", search_->builds_used(), n, CeilLog2(n),
                    search_->pairs_used());
    if (named) {
      const std::string& culprit_id = state_.commits[o.last];
      record.details["culprit_commit"] = culprit_id;
      record.details["first_commit"] = state_.commits[o.first];
      Result<CommitInfo> info = builds_.repo().Commit(culprit_id);
      Result<std::vector<std::string>> changed = builds_.repo().ChangedFiles(culprit_id);
      if (o.kind == SearchOutcome::Kind::kCulprit) {
        text += fmt::format("CULPRIT {}", culprit_id);
      } else {
        text += fmt::format("CULPRIT RANGE {}..{} (the commits before {} could not be built)",
                            Short(state_.commits[o.first]), Short(culprit_id), Short(culprit_id));
      }
      if (info) {
        record.details["culprit_subject"] = info->subject;
        text += fmt::format(
            "  {}\n  author   {} <{}>, {}\n", info->subject, info->author, info->author_email,
            FormatIsoUtc(std::chrono::system_clock::time_point(std::chrono::seconds(info->time))));
      } else {
        text += "\n";
      }
      if (changed) {
        record.details["changed_files"] = Join(*changed, ",");
        text += "  changed  " + Join(*changed, ", ") + "\n";
      }
      if (record.estimate) {
        text +=
            fmt::format("  ratio across it {} ({} fresh pairs against its parent): {}\n",
                        FormatRatio(*record.estimate), o.verification_pairs, "EFFECT, verified");
      }
      text += fmt::format("  probability {:.3f}; {}\n", o.probability, builds_line);
      Arm parent;
      parent.name = "parent";
      parent.commit = state_.commits[o.first - 1];
      Arm culprit;
      culprit.name = "culprit";
      culprit.commit = culprit_id;
      record.arms = {parent, culprit};
    } else {
      text += fmt::format("INCONCLUSIVE: {}\n  credible set ({:.0f}%): {}\n  {}\n", o.reason,
                          search_->options().target_probability * 100, Join(credible, " "),
                          builds_line);
    }
    if (state_.speedup) text += "  (the bad end is faster: this bisect searched for a speed-up)\n";
  }
  Result<std::filesystem::path> path = store_.Write(record);
  if (!path) return path.error().WithContext("archiving the bisect");
  report.record_path = *path;
  text += "record " + path->string() + "\n";
  state_.result_record = record.id;
  state_.status = "done";
  CULPRIT_TRY(Save());
  report.state = state_;
  report.text = text;
  return report;
}

BisectRunner::BisectRunner(const BisectSections& config, EngineBuilds& builds,
                           const HostProbe* host, BisectReporter& reporter)
    : config_(config), builds_(builds), host_(host), reporter_(reporter) {}

Result<FileLock> LockBisect(const BisectSections& config) {
  std::error_code ec;
  std::filesystem::create_directories(BisectDir(config), ec);
  Result<std::optional<FileLock>> lock = FileLock::TryAcquire(BisectDir(config) / "bisect.lock");
  if (!lock) return lock.error();
  if (!*lock) {
    return Error("another culprit bisect is running on this engine")
        .WithHint("wait for it, or stop it (Ctrl-C) and `culprit bisect resume` later");
  }
  return std::move(**lock);
}

Result<BisectReport> BisectRunner::Run(const BisectRequest& request) {
  std::error_code ec;
  std::filesystem::create_directories(BisectDir(config_), ec);
  Result<FileLock> lock = LockBisect(config_);
  if (!lock) return lock.error();
  if (std::filesystem::exists(BisectStatePath(config_))) {
    Result<BisectState> existing = LoadBisectState(BisectStatePath(config_));
    if (existing && existing->status != "done") {
      return Error::Usage(fmt::format("a bisect of {}..{} on {} is not finished ({} steps done)",
                                      existing->good_rev, existing->bad_rev, existing->query,
                                      existing->log.size()))
          .WithHint("`culprit bisect resume` continues it; `culprit bisect reset` discards it");
    }
  }
  Session session(config_, builds_, host_, reporter_, std::move(*lock));
  return session.Start(request);
}

Result<BisectReport> BisectRunner::Resume() {
  Result<FileLock> lock = LockBisect(config_);
  if (!lock) return lock.error();
  if (!std::filesystem::exists(BisectStatePath(config_))) {
    return Error::Usage("no bisect to resume").WithHint("start one with `culprit bisect run`");
  }
  Result<BisectState> state = LoadBisectState(BisectStatePath(config_));
  if (!state) return state.error();
  if (state->status == "done") {
    return Error::Usage(fmt::format("the bisect of {}..{} is finished (record {})", state->good_rev,
                                    state->bad_rev, state->result_record))
        .WithHint("`culprit records show " + state->result_record + "` shows its result");
  }
  Session session(config_, builds_, host_, reporter_, std::move(*lock));
  return session.Continue(std::move(*state));
}

std::string FormatBisectStatus(const BisectState& s) {
  std::string out =
      fmt::format("bisect {}..{} on {}: {}\n", s.good_rev, s.bad_rev, s.query, s.status);
  out += fmt::format("  {} commits, {} steps, started {}, updated {}\n", s.commits.size() - 1,
                     s.log.size(), s.started, s.updated);
  if (!s.log.empty()) {
    const BisectStepLog& last = s.log.back();
    if (!last.best_commit.empty()) {
      out += fmt::format("  best guess {} (p={:.3f})\n", Short(last.best_commit),
                         last.best_probability);
    }
  }
  if (!s.result_record.empty()) out += "  result record " + s.result_record + "\n";
  return out;
}

std::string FormatBisectLog(const BisectState& s) {
  std::string out =
      fmt::format("{:>4}  {:<8} {:<10} {:>5} {:>6}  {:<24} {:>8}  {}\n", "step", "kind", "commit",
                  "index", "pairs", "ratio [interval]", "P(≤ it)", "record / note");
  for (const BisectStepLog& l : s.log) {
    std::string ratio =
        l.pairs > 0 ? fmt::format("{:.3f} [{:.3f}, {:.3f}]", l.ratio, l.low, l.high) : "-";
    out += fmt::format("{:>4}  {:<8} {:<10} {:>5} {:>6}  {:<24} {:>8.3f}  {}\n", l.step, l.kind,
                       Short(l.commit), l.index, l.pairs, ratio, l.mass_at_or_before,
                       l.note.empty() ? l.record_id : l.note + "  " + l.record_id);
  }
  return out;
}

}  // namespace culprit
