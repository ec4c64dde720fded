#include "bisect/step_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/strings.h"
#include "bisect/bisect_report.h"
#include "bisect/range_split.h"
#include "probes/calibration.h"
#include "probes/query_sample_source.h"
#include "probes/sitting.h"
#include "probes/statistics.h"
#include "probes/summary.h"
#include "records/bisect_step_details.h"
#include "records/comparison_details.h"

namespace culprit {
namespace {

// What a record's details say of the runs its step re-used (none: nothing written).
void WriteReuse(const Reuse& reuse, DetailMap* details) {
  if (reuse.empty()) return;
  BisectStepDetails d;
  d.reused_runs = DescribeReuse(reuse);
  d.reused_runs_a = reuse.RunsOf(0);
  d.reused_runs_b = reuse.RunsOf(1);
  d.reused_samples = reuse.samples;
  std::sort(d.reused_samples->begin(), d.reused_samples->end());
  d.WriteTo(details);
}

}  // namespace

// The log entry of a sitting of commits[b] against commits[a], from its record and the
// pairs it kept.
BisectStepLog SittingLog(int step, BisectStepKind kind, int a, int b,
                         const std::vector<std::string>& commits, const Record& record,
                         int pairs_kept) {
  BisectStepLog log;
  log.step = step;
  log.kind = kind;
  log.index = b;
  log.baseline = a;
  log.commit = commits[b];
  log.pairs = pairs_kept;
  log.has_interval = record.estimate.has_value();
  if (record.estimate) {
    log.ratio = record.estimate->ratio;
    log.low = record.estimate->low;
    log.high = record.estimate->high;
  }
  log.record_id = record.id;
  if (record.start.calibration_ms && record.end.calibration_ms &&
      *record.start.calibration_ms > 0) {
    log.calibrated = true;
    log.drift = *record.end.calibration_ms / *record.start.calibration_ms - 1;
  }
  return log;
}

BisectStepLog SittingLog(int step, BisectStepKind kind, int a, int b,
                         const std::vector<std::string>& commits,
                         const ComparisonOutcome& outcome) {
  BisectStepLog log =
      SittingLog(step, kind, a, b, commits, outcome.record, outcome.sitting.pairs_kept);
  log.calibrated = false;
  log.drift = 0;
  if (outcome.sitting.calibration && outcome.sitting.calibration->valid) {
    log.calibrated = true;
    log.drift = outcome.sitting.calibration->change;
  }
  log.bursts = outcome.bursts;
  return log;
}

std::optional<ArmRuns> KeptRuns(const std::vector<Sample>& samples) {
  ArmRuns runs;
  for (const Sample& s : samples) {
    if (s.warmup) continue;
    if (!s.ok) return std::nullopt;
    if (s.dropped) continue;
    (s.arm == 0 ? runs.baseline : runs.commit).push_back(s.value);
  }
  return runs;
}

// A sitting's check of a segment: its verdict, ratio and interval.
void FillCheck(const Record& record, int pairs_kept, bool speedup, BisectSegment& segment) {
  Verdict verdict = record.verdict.value_or(Verdict::kInconclusive);
  double ratio = record.estimate ? record.estimate->ratio : 1;
  segment.check = ClassifyCheck(verdict, ratio, speedup);
  if (record.estimate) {
    segment.ratio = record.estimate->ratio;
    segment.low = record.estimate->low;
    segment.high = record.estimate->high;
    segment.confidence = record.estimate->confidence;
  }
  segment.pairs = pairs_kept;
  segment.check_record = record.id;
}

void FillCheck(const ComparisonOutcome& outcome, bool speedup, BisectSegment& segment) {
  FillCheck(outcome.record, outcome.sitting.pairs_kept, speedup, segment);
}

StepRecorder::StepRecorder(const BisectSections& config, BisectEngine engine, const HostProbe* host,
                           BisectReporter& reporter, RecordStore& store)
    : config_(config), engine_(engine), host_(host), reporter_(reporter), store_(store) {}

void StepRecorder::Prepare(const QueryConfig& query, const SittingOptions& options,
                           const HostState& start) {
  query_ = &query;
  options_ = options;
  start_snapshot_ = start;
  // Only a counted metric that repeats: its runs are the same whenever they ran. A timed
  // one's pairs must share a sitting's host state, so its runs are never carried over.
  reuse_.Enable(options.near_deterministic);
}

Status StepRecorder::RestoreReuse(const std::string& json) {
  Result<RunReuse> restored = RunReuse::FromJson(json);
  if (!restored) return restored.error();
  restored->Enable(reuse_.enabled());
  reuse_ = std::move(*restored);
  return {};
}

void StepRecorder::ReportReuse(BisectStepKind kind, const std::string& candidate,
                               const std::string& baseline, const Reuse& reuse) const {
  if (reuse.empty()) return;
  std::vector<std::string> parts;
  for (const ReusedRuns& r : reuse.runs) {
    parts.push_back(fmt::format("re-used {} of {} from step {}", CountOf(r.runs, "run"),
                                ShortCommit(r.commit), r.step));
  }
  reporter_.Line(fmt::format("  {} {} vs {}: {} (not run again)", BisectStepKindName(kind),
                             ShortCommit(candidate), ShortCommit(baseline), Join(parts, "; ")));
}

bool StepRecorder::Holds(BisectStepKind kind, int index, int baseline) const {
  return step_.index == index && step_.baseline == baseline && step_.kind == kind;
}

std::optional<BisectPendingStep> StepRecorder::Pending() const {
  if (empty()) return std::nullopt;
  return static_cast<const BisectPendingStep&>(step_);
}

void StepRecorder::Resume(const BisectPendingStep& pending) {
  static_cast<BisectPendingStep&>(step_) = pending;
}

Batch StepRecorder::Measure(const std::vector<std::string>& commits, BisectStepKind kind, int index,
                            int baseline, int pairs, int pairs_used) {
  const bool first_batch = empty();
  if (first_batch && host_) {
    step_.start = host_->Snapshot(/*calibrate=*/true);
    step_.started = true;
  }
  return MeasureBatch(commits, kind, index, baseline, pairs, first_batch, pairs_used);
}

Batch StepRecorder::MeasureBatch(const std::vector<std::string>& commits, BisectStepKind kind,
                                 int index, int baseline, int pairs, bool warmup, int pairs_used) {
  Batch batch;
  Result<ResolvedBuild> candidate = engine_.builds.Resolve(commits[index]);
  if (!candidate) {
    if (candidate.error().kind() == ErrorKind::kInterrupted) {
      batch.kind = Batch::Kind::kInterrupted;
    } else if (engine_.builds.KnownBuildable(commits[index]) == false) {
      batch.kind = Batch::Kind::kUnbuildable;
    } else {
      batch.kind = Batch::Kind::kBroken;
    }
    batch.reason = candidate.error().message();
    return batch;
  }
  Result<ResolvedBuild> base = engine_.builds.Resolve(commits[baseline]);
  if (!base) {
    batch.kind = base.error().kind() == ErrorKind::kInterrupted ? Batch::Kind::kInterrupted
                                                                : Batch::Kind::kBroken;
    batch.reason = base.error().message();
    return batch;
  }
  Result<PairedRuns> runs = engine_.measurer.Pair(*query_, *base, *candidate);
  if (!runs) {
    batch.kind = Batch::Kind::kBroken;
    batch.reason = runs.error().message();
    return batch;
  }
  SittingOptions options = options_;
  options.min_pairs = options.max_pairs = pairs;
  // Nor does the near-deterministic rule: it would end a batch at its first 4 pairs, whatever
  // the search asked for (the search reads the rule over a verification's runs itself).
  options.near_deterministic = false;
  options.warmup = warmup ? options_.warmup : 0;
  // With --seed every batch's order is reproducible (each batch its own); without, random.
  options.seed = options_.seed == 0 ? 0 : options_.seed + 1 + static_cast<uint64_t>(pairs_used);
  // A batch is a fixed number of pairs: the search, not the sitting, decides
  // when there is enough evidence. Its looks are therefore ignored.
  SittingProgress* progress = reporter_.StartSitting(
      fmt::format("{} {} vs {}", BisectStepKindName(kind), ShortCommit(commits[index]),
                  ShortCommit(commits[baseline])));
  std::unique_ptr<SampleSource> shared;
  if (kind == BisectStepKind::kVerify && share_verification_) {
    shared = share_verification_(*runs->source);
  }
  std::unique_ptr<ReusingSource> source =
      reuse_.Wrap(shared ? *shared : *runs->source, commits[baseline], commits[index],
                  options.warmup, options.warmup_retries, /*in_step=*/true);
  SittingResult sitting = RunPairedSitting(*source, nullptr, options, progress);
  // Only a batch the step keeps (measured in full) keeps its runs for later steps; a failed
  // run closes its commit to re-use either way.
  batch.reuse = reuse_.Settle(*source, commits[baseline], commits[index], sitting.samples,
                              /*keep_fresh=*/!sitting.interrupted && !sitting.failure, 0);
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
                                 ShortCommit(commits[baseline]), sitting.failure->message());
    } else {
      batch.kind = Batch::Kind::kUnbuildable;
      batch.reason = "its runs kept failing: " + sitting.failure->message();
    }
    return batch;
  }
  batch.d = std::move(sitting.log_ratios);
  return batch;
}

ComparisonPlan StepRecorder::Plan(const BisectState& state) const {
  ComparisonPlan plan;
  plan.kind = RecordKind::kBisectStep;
  plan.query = query_->name;
  plan.unit = query_->unit;
  plan.better = query_->better;
  plan.better_note = query_->better_note;
  plan.a.process.metric = query_->metric;  // The record says which metric decided.
  // The record says where the runs ran (cpus, ASLR): the batch's runs start with
  // [measure]'s placement, as every arm made by MakeQueryArm does.
  plan.a.process.process.placement = config_.measured_runs;
  plan.a.name = "baseline";
  plan.a.label = ShortCommit(state.commits[step_.baseline]);
  plan.a.commit = state.commits[step_.baseline];
  plan.b.name = "candidate";
  plan.b.label = ShortCommit(state.commits[step_.index]);
  plan.b.commit = state.commits[step_.index];
  plan.options = options_;
  plan.config_digest = config_.digest;
  BisectStepDetails details;
  details.bisect_run = state.run_id;
  details.step_kind = step_.kind;
  details.candidate_commit = plan.b.commit;
  details.baseline_commit = plan.a.commit;
  details.candidate_index = step_.index;
  details.WriteTo(&plan.details);
  return plan;
}

SittingResult StepRecorder::Sitting() const {
  SittingResult sitting;
  sitting.samples = step_.samples;
  sitting.log_ratios = step_.d;
  sitting.pairs_kept = static_cast<int>(step_.d.size());
  sitting.interrupted = step_.interrupted;
  sitting.notes = step_.notes;
  sitting.start = step_.started ? step_.start : start_snapshot_;
  // Calibrated at both ends of every step (not on Ctrl-C: the user is waiting).
  if (host_) sitting.end = host_->Snapshot(/*calibrate=*/!step_.interrupted);
  if (sitting.start.calibration_ms && sitting.end.calibration_ms) {
    sitting.calibration =
        CheckCalibration(*sitting.start.calibration_ms, *sitting.end.calibration_ms);
  }
  // A plain interval over the step's pairs, and no verdict: a step is evidence for the
  // search, not a controlled test, and an EFFECT or NULL here would be listed by `records
  // list --verdict` beside real sittings.
  if (Result<ShiftEstimate> shift = SignedRankEstimate(step_.d, options_.confidence)) {
    sitting.shift = *shift;
    sitting.nominal_confidence = options_.confidence;
  }
  return sitting;
}

void StepRecorder::DescribeRule(const std::optional<NearDeterministicLook>& rule, bool decided,
                                ComparisonPlan& plan, SittingResult& sitting) const {
  if (!rule) return;
  BisectStepDetails details;
  if (!decided) {
    details.near_deterministic =
        rule->state == NearDeterministicLook::State::kDecided
            ? "a sequential look decided first; the near-deterministic rule: " + rule->explanation
            : "the near-deterministic rule did not decide: " + rule->explanation;
    details.WriteTo(&plan.details);
    return;
  }
  // The search read the rule in its own direction, over every batch of the verification;
  // the record shows the range of this step's runs as measured (A the baseline), as a
  // sitting's record does (MakeComparisonRecord: decided_by, the range as the estimate).
  ComparisonDetails sitting_details;
  sitting_details.decided_by = DecidedBy::kNearDeterministicRule;
  sitting_details.WriteTo(&plan.details);
  details.near_deterministic = rule->explanation;
  details.WriteTo(&plan.details);
  const std::optional<ArmRuns> runs = KeptRuns(step_.samples);
  if (!runs) return;
  const NearDeterministicLook own =
      LookNearDeterministic(runs->baseline, runs->commit, plan.options.band);
  if (own.state != NearDeterministicLook::State::kDecided) return;
  sitting.near_deterministic = own;
  sitting.shift = own.range;
  sitting.nominal_confidence = 1;
}

BisectStepLog StepRecorder::Log(const BisectState& state, const BisectSearch& search, int seg_lo,
                                const SittingResult& sitting,
                                std::optional<double> median_ratio) const {
  BisectStepLog log;
  log.step = static_cast<int>(state.log.size()) + 1;
  log.kind = step_.kind;
  log.index = step_.index;
  log.baseline = step_.baseline;
  log.commit = state.commits[step_.index];
  log.pairs = step_.pairs;
  log.has_interval = false;
  if (median_ratio) log.ratio = *median_ratio;
  if (sitting.calibration && sitting.calibration->valid) {
    log.calibrated = true;
    log.drift = sitting.calibration->change;
  }
  std::vector<double> posterior = search.Posterior();
  double mass = 0;
  for (int j = 1; j <= step_.index - seg_lo && j < static_cast<int>(posterior.size()); ++j) {
    mass += posterior[j];
  }
  log.mass_at_or_before = mass;
  auto best = std::max_element(posterior.begin(), posterior.end());
  log.best_commit = state.commits[seg_lo + (best - posterior.begin())];
  log.best_probability = *best;
  return log;
}

Status StepRecorder::Flush(BisectState& state, const BisectSearch& search, int seg_lo) {
  if (empty()) return {};
  ComparisonPlan plan = Plan(state);
  // The stopping rule the step ran under, and a verification's looks (issue 27).
  // The rule in force when the step ended: the wary one once a verification lost its candidate.
  BisectStepDetails details;
  details.step_odds = search.StepOdds();
  details.target_probability = search.TargetProbability();
  if (step_.kind == BisectStepKind::kVerify) {
    const VerificationPlan looks = search.PlanFor(step_.index - seg_lo, step_.baseline - seg_lo);
    details.verify_looks = looks.looks;
    details.verify_look_alphas = looks.alphas;
    details.verify_plan =
        looks.planned ? fmt::format("planned from the search's fit: effect {:.4f}, noise {:.4f}",
                                    looks.effect, looks.noise)
                      : std::string("fixed looks");
  }
  details.WriteTo(&plan.details);
  SittingResult sitting = Sitting();
  if (step_.kind == BisectStepKind::kVerify) {
    bool decided = false;
    const std::optional<NearDeterministicLook> rule =
        search.VerificationRule(step_.index - seg_lo, step_.baseline - seg_lo, &decided);
    DescribeRule(rule, decided, plan, sitting);
  }
  // A step of fewer pairs than a 95% interval needs (6; a quiet host's batch is 2) has a
  // ratio, the median of its pairs, and no interval: it is said so, never given a made-up one.
  const std::optional<double> median_ratio =
      step_.d.empty() ? std::nullopt : std::optional<double>(std::exp(Median(step_.d)));
  BisectStepLog log = Log(state, search, seg_lo, sitting, median_ratio);

  HostIdentity identity;
  if (host_) identity = host_->Identity();
  Record record = MakeComparisonRecord(plan, sitting, identity);
  // The step's kept runs get its number; the runs it re-used are said in its record.
  const Reuse reused = reuse_.EndStep(log.step);
  WriteReuse(reused, &record.details);
  if (!reused.empty() && step_.kind == BisectStepKind::kVerify) {
    // Runs the search measured stand among the verification's: the rule's range is over all
    // of each arm's runs, the re-used and the fresh, which it asks to lie within 0.1%.
    record.notes.push_back(
        fmt::format("{} of this step's runs are runs of earlier steps, not run again ({}); the "
                    "near-deterministic rule reads them with the fresh ones",
                    reused.RunsOf(0) + reused.RunsOf(1), DescribeReuse(reused)));
  }
  DescribeStepRecord(log, plan.a.commit, median_ratio, step_.d.size(), record);
  Result<std::filesystem::path> path = store_.Write(record);
  if (!path) return path.error().WithContext("archiving a bisect step");
  state.records.push_back(record.id);
  if (record.estimate) {
    log.ratio = record.estimate->ratio;
    log.low = record.estimate->low;
    log.high = record.estimate->high;
    log.has_interval = true;
  }
  log.record_id = record.id;
  if (step_.interrupted) log.note = "interrupted";
  state.log.push_back(log);
  reporter_.Line(SearchStepLine(log, static_cast<int>(state.commits.size()) - 1, search));
  ReportReuse(step_.kind, plan.b.commit, plan.a.commit, reused);
  step_ = Step{};
  return {};
}

Result<ComparisonOutcome> StepRecorder::RunSitting(const BisectState& state, int a, int b,
                                                   BisectStepKind kind,
                                                   const SittingOptions& options,
                                                   const SharedSitting& share) {
  const bool confirm = kind == BisectStepKind::kConfirm;
  Result<ResolvedBuild> build_a = engine_.builds.Resolve(state.commits[a]);
  if (!build_a) {
    return build_a.error().WithContext(confirm ? "building the good end"
                                               : "building " + ShortCommit(state.commits[a]));
  }
  Result<ResolvedBuild> build_b = engine_.builds.Resolve(state.commits[b]);
  if (!build_b) {
    return build_b.error().WithContext(confirm ? "building the bad end"
                                               : "building " + ShortCommit(state.commits[b]));
  }
  Result<PairedRuns> runs = engine_.measurer.Pair(*query_, *build_a, *build_b);
  if (!runs) return runs.error();

  ComparisonPlan plan;
  plan.kind = RecordKind::kBisectStep;
  plan.query = query_->name;
  plan.unit = query_->unit;
  plan.better = query_->better;
  plan.better_note = query_->better_note;
  if (confirm) {
    plan.a = MakeComparisonArm("good", "good " + ShortCommit(state.commits[a]), runs->a, *build_a);
    plan.a.revision = state.good_rev;  // as the user gave it, not the resolved id
    plan.b = MakeComparisonArm("bad", "bad " + ShortCommit(state.commits[b]), runs->b, *build_b);
    plan.b.revision = state.bad_rev;
  } else {
    plan.a = MakeComparisonArm("baseline", ShortCommit(state.commits[a]), runs->a, *build_a);
    plan.b = MakeComparisonArm("candidate", ShortCommit(state.commits[b]), runs->b, *build_b);
  }
  BisectStepDetails details;
  if (!confirm) {
    details.candidate_commit = state.commits[b];
    details.baseline_commit = state.commits[a];
    details.candidate_index = b;
    details.baseline_index = a;
  }
  plan.options = options;
  plan.config_digest = config_.digest;
  details.bisect_run = state.run_id;
  details.step_kind = kind;
  details.WriteTo(&plan.details);
  // A sitting taking turns with others (SharedRuns) would fight them for one live line: its
  // progress goes where the runner hands it (SharedSitting::progress).
  SittingProgress* progress =
      share.wrap ? share.progress
                 : reporter_.StartSitting(fmt::format("{} {} vs {}", BisectStepKindName(kind),
                                                      ShortCommit(state.commits[b]),
                                                      ShortCommit(state.commits[a])));
  // RunComparison's steps, with the runs re-used said in the record once the sitting knows
  // which it took.
  CULPRIT_TRY(store_.CheckWritable());
  std::unique_ptr<SampleSource> shared = share.wrap ? share.wrap(*runs->source) : nullptr;
  std::unique_ptr<ReusingSource> source =
      reuse_.Wrap(shared ? *shared : *runs->source, state.commits[a], state.commits[b],
                  options.warmup, options.warmup_retries, /*in_step=*/false);
  ComparisonOutcome outcome;
  outcome.sitting = RunPairedSitting(*source, host_, options, progress);
  // Its own runs are kept as those of the step its log entry will be: the runner logs a
  // sitting that ended (not interrupted, not failed) as the next step.
  const Reuse reused =
      reuse_.Settle(*source, state.commits[a], state.commits[b], outcome.sitting.samples,
                    /*keep_fresh=*/!outcome.sitting.interrupted && !outcome.sitting.failure,
                    static_cast<int>(state.log.size()) + 1);
  WriteReuse(reused, &plan.details);
  NoteSlowRunBursts(plan, outcome);
  HostIdentity identity;
  if (host_) identity = host_->Identity();
  if (share.note) outcome.sitting.notes.push_back(share.note());
  outcome.record = MakeComparisonRecord(plan, outcome.sitting, identity);
  RecordStore::Archived archived = store_.WriteOrFallback(outcome.record);
  outcome.record_path = archived.path;
  outcome.archive_error = archived.error;
  ReportReuse(kind, state.commits[b], state.commits[a], reused);
  return outcome;
}

void StepRecorder::Skip(BisectState& state, BisectStepKind kind, int index, int baseline,
                        const std::string& reason) {
  BisectStepLog log;
  log.step = static_cast<int>(state.log.size()) + 1;
  log.kind = kind;
  log.index = index;
  log.baseline = baseline;
  log.commit = state.commits[index];
  // A build error's first line says which step failed and how; its last lines are the tail
  // of the compiler's output (often a caret line).
  log.note = "skipped: " + FirstLine(reason);
  state.log.push_back(log);
  reporter_.Line(SkippedStepLine(log, reason));
}

void StepRecorder::Add(BisectStepKind kind, int index, int baseline, const Batch& batch) {
  step_.kind = kind;
  step_.index = index;
  step_.baseline = baseline;
  const int offset_pairs = step_.pairs;
  const int offset_sequence = static_cast<int>(step_.samples.size());
  for (Sample s : batch.samples) {
    s.sequence += offset_sequence;
    if (s.pair >= 0) s.pair += offset_pairs;
    step_.samples.push_back(s);
  }
  reuse_.AddToStep(batch.reuse, offset_sequence);
  step_.d.insert(step_.d.end(), batch.d.begin(), batch.d.end());
  step_.pairs += static_cast<int>(batch.d.size());
}

}  // namespace culprit
