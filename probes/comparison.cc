#include "probes/comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/strings.h"
#include "engine/cachegrind.h"
#include "probes/host_tuning.h"
#include "probes/log_interval.h"
#include "probes/secondary_figures.h"
#include "probes/statistics.h"
#include "records/comparison_details.h"

namespace culprit {
namespace {

Arm ToRecordArm(const ComparisonArm& arm, const SittingResult& sitting, int index) {
  Arm out;
  out.name = arm.name;
  out.label = arm.label;
  out.commit = arm.commit;
  out.tree = arm.tree;
  out.revision = arm.revision;
  out.env = arm.env;
  out.unset = arm.unset;
  out.condition = arm.condition;
  out.command = arm.process.process.argv;
  std::vector<double> values;
  for (const Sample& s : sitting.samples) {
    if (s.arm != index || s.warmup) continue;
    if (!s.ok) {
      ++out.failed_samples;
    } else if (!s.dropped) {
      values.push_back(s.value);
    }
  }
  out.ok_samples = static_cast<int>(values.size());
  if (!values.empty()) out.median = Median(values);
  return out;
}

}  // namespace

namespace {

/// Sets each arm's effective environment: both arms' view of every variable either one
/// touches, inherited values included, since a record must say exactly what ran.
void AddEffectiveEnvironments(const ComparisonPlan& plan, Record& record) {
  std::vector<std::string> touched;
  for (const ComparisonArm* arm : {&plan.a, &plan.b}) {
    for (const auto& [name, value] : arm->process.process.set_env) touched.push_back(name);
    for (const std::string& name : arm->process.process.unset_env) touched.push_back(name);
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  record.arms[0].effective_env = EffectiveEnvironment(plan.a.process.process, touched);
  record.arms[1].effective_env = EffectiveEnvironment(plan.b.process.process, touched);
}

/// Which way the metric is better, which metric decided and what counted it.
void AddMetricDetails(const ComparisonPlan& plan, Record& record) {
  // Every comparison says which way its metric is better, so that a report never reads a
  // throughput upside down; an inferred direction is said, not assumed silently.
  ComparisonDetails details;
  details.better = plan.better;
  // Which metric the sitting decided on, and what counted it when not the run itself.
  const MetricRule::Kind metric = plan.a.process.metric.kind;
  details.metric = NamedMetricName(metric).empty()
                       ? (metric == MetricRule::Kind::kRegex ? "regex" : "json")
                       : std::string(NamedMetricName(metric));
  if (IsCachegrindMetric(metric)) details.metric_source = std::string(MetricSourceName(metric));
  details.WriteTo(&record.details);
}

/// The sitting's seed, dropped pairs, failure counts and their test, and calibrations.
void AddSittingDetails(const SittingResult& sitting, Record& record) {
  ComparisonDetails details;
  details.sitting.seed = sitting.seed;
  details.pairs_dropped = sitting.pairs_dropped;
  const FailureComparison& failures = sitting.failures;
  if (failures.failed[0] + failures.failed[1] + failures.timed_out[0] + failures.timed_out[1] > 0) {
    // Failures are evidence about an arm, so the record keeps their counts
    // and the test of their difference, not only the surviving pairs.
    details.failures = fmt::format("A {}/{} failed, {} timed out; B {}/{} failed, {} timed out",
                                   failures.failed[0], failures.runs[0], failures.timed_out[0],
                                   failures.failed[1], failures.runs[1], failures.timed_out[1]);
    details.failure_test_p = failures.p_value;
    details.failures_differ = failures.differ;
    details.pairs_censored = sitting.pairs_censored;
  }
  if (sitting.calibration) details.sitting.calibration_change = sitting.calibration->change;
  if (!sitting.checkpoint_calibrations_ms.empty()) {
    // The calibrations between looks ([measure] calibrate_between_looks), for
    // the host plot of the report: start, these, end.
    details.checkpoint_calibrations_ms = sitting.checkpoint_calibrations_ms;
  }
  details.WriteTo(&record.details);
}

/// The estimate of the shift, when the sitting has one, and how it was decided: the
/// runs' ratio range for a near-deterministic sitting, else the interval with its
/// confidence, mean ratio and tails.
void AddEstimate(const SittingResult& sitting, Record& record) {
  const bool near_deterministic =
      sitting.near_deterministic &&
      sitting.near_deterministic->state == NearDeterministicLook::State::kDecided;
  ComparisonDetails details;
  if (sitting.shift && near_deterministic) {
    // The range of every ratio of a run of B to a run of A, not a confidence interval.
    record.estimate = RatioEstimate(*sitting.shift);
    record.estimate->method = "range of the runs' ratios (near-deterministic)";
    details.decided_by = DecidedBy::kNearDeterministicRule;
  } else if (sitting.shift) {
    record.estimate = RatioEstimate(*sitting.shift);
    details.nominal_confidence = sitting.nominal_confidence;
    details.sitting.alpha_spending = std::string(
        sitting.effect_spending == Spending::kPocockOnRootTime ? kEffectOnRootTimeIncrements
                                                               : kPocockIncrements);
    if (sitting.tails && sitting.tails->mean) {
      // Beside the Hodges–Lehmann ratio: the mean moves with a slow tail, the pseudo-median
      // does not, and a NULL needs both (ClassifyWithTails).
      details.mean_ratio = FormatMeanRatio(*sitting.tails->mean);
    }
    if (sitting.tails) {
      const TailBalance& t = sitting.tails->tails;
      details.tails = fmt::format("beyond x{:.3f}: B slower {}, faster {}; p = {:.4g}",
                                  std::exp(t.threshold), t.slow, t.fast, t.p_value);
    }
  }
  details.WriteTo(&record.details);
}

}  // namespace

Record MakeComparisonRecord(const ComparisonPlan& plan, const SittingResult& sitting,
                            const HostIdentity& host) {
  Record record;
  record.kind = plan.kind;
  record.query = plan.query;
  record.unit = plan.unit;
  record.hypothesis = plan.hypothesis;
  record.band = plan.options.band;
  record.arms.push_back(ToRecordArm(plan.a, sitting, 0));
  record.arms.push_back(ToRecordArm(plan.b, sitting, 1));
  AddEffectiveEnvironments(plan, record);
  record.samples = sitting.samples;
  record.start = sitting.start;
  record.end = sitting.end;
  record.host = host;
  record.culprit_version = CULPRIT_VERSION;
  record.config_digest = plan.config_digest;
  record.interrupted = sitting.interrupted;
  record.links = plan.links;
  record.details = plan.details;
  AddMetricDetails(plan, record);
  // Where the measured runs ran (pinned CPUs, ASLR): TuningDifferences compares it.
  RecordPlacement(plan.a.process.process.placement, &record);
  record.notes = plan.notes;
  if (!plan.better_note.empty()) record.notes.push_back(plan.better_note);
  record.notes.insert(record.notes.end(), sitting.notes.begin(), sitting.notes.end());
  AddSittingDetails(sitting, record);
  AddEstimate(sitting, record);
  // The figures the sitting did not decide on, from its samples once it is over: they can
  // neither stop it nor turn its verdict.
  std::vector<SecondaryFigure> secondary =
      SecondaryFigures(sitting.samples, plan.a.process.metric.kind, plan.options.confidence);
  if (!secondary.empty()) {
    ComparisonDetails details;
    details.secondary = SecondaryFiguresByName(secondary);
    details.secondary_confidence = PercentOf(plan.options.confidence);
    details.WriteTo(&record.details);
  }
  if (sitting.failure) {
    record.verdict = Verdict::kError;
    record.verdict_detail = sitting.failure->message();
  } else if (sitting.verdict) {
    record.verdict = sitting.verdict->verdict;
    record.verdict_detail = sitting.verdict->explanation;
  }
  return record;
}

void NoteSlowRunBursts(const ComparisonPlan& plan, ComparisonOutcome& outcome) {
  outcome.bursts = FindSlowRunBursts(outcome.sitting.samples, plan.options.band, plan.better);
  if (outcome.bursts) outcome.sitting.notes.push_back(DescribeSlowRunBursts(*outcome.bursts));
}

Result<ComparisonOutcome> RunComparison(const ComparisonPlan& plan, SampleSource& source,
                                        const HostProbe* host, RecordStore& store,
                                        SittingProgress* progress) {
  CULPRIT_TRY(store.CheckWritable());
  ComparisonOutcome outcome;
  outcome.sitting = RunPairedSitting(source, host, plan.options, progress);
  NoteSlowRunBursts(plan, outcome);
  HostIdentity identity;
  if (host != nullptr) identity = host->Identity();
  outcome.record = MakeComparisonRecord(plan, outcome.sitting, identity);
  RecordStore::Archived archived = store.WriteOrFallback(outcome.record);
  outcome.record_path = archived.path;
  outcome.archive_error = archived.error;
  return outcome;
}

Status OutcomeStatus(const ComparisonOutcome& outcome) {
  if (outcome.archive_error) return *outcome.archive_error;
  if (outcome.sitting.failure) {
    return outcome.sitting.failure->WithContext(fmt::format(
        "the sitting could not reach a verdict (record {})", outcome.record_path.string()));
  }
  if (outcome.sitting.interrupted) {
    return Error::Interrupted(
        fmt::format("interrupted; what was measured is in {}", outcome.record_path.string()));
  }
  return {};
}

}  // namespace culprit
