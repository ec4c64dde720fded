#include "bisect/judge.h"

#include <fmt/format.h>

#include "base/strings.h"
#include "records/comparison_details.h"
#include "records/record_store.h"

namespace culprit {
namespace {

/// What `git bisect run` is told of a finished sitting, as `result`'s exit code and reason
/// (good, bad or skip); an error when it must stop instead (Ctrl-C, a reference that fails).
Status JudgeSitting(const ComparisonOutcome& outcome, const ComparisonPlan& plan,
                    JudgeResult& result) {
  const Record& record = outcome.record;
  if (outcome.sitting.interrupted) {
    return Error::Interrupted(fmt::format("interrupted (record {})", outcome.record_path.string()));
  }
  if (outcome.sitting.failure) {
    if (FailedSamples(outcome.sitting.samples, 0) > 0) {
      // Every commit would be skipped against a reference that cannot run.
      return Error::Usage("the reference's runs fail: " + outcome.sitting.failure->message())
          .WithHint("judge needs a reference that runs; check --reference and the query");
    }
    result.reason = "skip: the runs kept failing (a hang or a crash is never 'bad'): " +
                    outcome.sitting.failure->message();
    return {};
  }
  const FailureComparison& failures = outcome.sitting.failures;
  const bool candidate_fails_more =
      failures.differ && failures.WorseArm() == 1 &&
      failures.Unmeasured(1) * failures.runs[0] > failures.Unmeasured(0) * failures.runs[1];
  if (candidate_fails_more) {
    // Never "good": the runs that succeeded may tie, but this commit breaks
    // where the reference does not. Like any crash it is not "bad" either.
    result.reason =
        "skip: the candidate fails more often than the reference: " + failures.Describe();
  } else if (record.verdict == Verdict::kEffect && record.estimate &&
             IsWorse(record.estimate->ratio, plan.better)) {
    // "Bad" is worse the metric's way up: for a throughput, a drop.
    result.exit_code = kJudgeBad;
    result.reason = fmt::format("bad: {:.3f}x the reference, {} beyond the band",
                                record.estimate->ratio, WordsFor(plan.better, plan.unit).worse);
  } else if (record.verdict == Verdict::kEffect || record.verdict == Verdict::kNull) {
    result.exit_code = kJudgeGood;
    result.reason = record.verdict == Verdict::kNull
                        ? "good: same as the reference within the band"
                        : fmt::format("good: {} than the reference ({:.3f}x)",
                                      WordsFor(plan.better, plan.unit).better,
                                      record.estimate ? record.estimate->ratio : 0.0);
  } else {
    result.reason = "skip: INCONCLUSIVE: " + record.verdict_detail;
  }
  return {};
}

}  // namespace

Result<JudgeResult> RunJudge(const MeasureContext& context, Measurer& measurer,
                             const JudgeRequest& request) {
  BuildProvider& builds = context.builds;
  JudgeResult result;
  Result<const QueryConfig*> query = SelectQuery(context.config, request.query);
  if (!query) return query.error();
  Result<SittingOptions> options =
      MakeSittingOptions(context.config.measure, **query, request.flags);
  if (!options) return options.error();

  Result<ResolvedBuild> reference = builds.Resolve(request.reference);
  if (!reference) return reference.error().WithContext("building the reference");
  Result<ResolvedBuild> candidate = builds.Resolve(request.candidate);
  if (!candidate) {
    // Skip only a commit the cache knows does not build. A revision that does
    // not exist (a usage error) or a build step that cannot start says nothing
    // about the commit: skipping it would let `git bisect run` skip every
    // commit, so those abort the bisect.
    if (candidate.error().kind() != ErrorKind::kFailure ||
        builds.KnownBuildable(request.candidate) != std::optional<bool>(false)) {
      return candidate.error().WithContext("building the candidate");
    }
    result.reason =
        "skip: the checked-out commit does not build: " + FirstLine(candidate.error().message());
    return result;
  }
  Result<PairedRuns> runs = measurer.Pair(**query, *reference, *candidate);
  if (!runs) return runs.error();

  ComparisonPlan plan;
  plan.kind = RecordKind::kCompare;
  plan.query = (*query)->name;
  plan.unit = (*query)->unit;
  plan.better = (*query)->better;
  plan.better_note = (*query)->better_note;
  plan.a = MakeComparisonArm("reference", request.reference, runs->a, *reference);
  plan.b = MakeComparisonArm("candidate", request.candidate, runs->b, *candidate);
  plan.options = *options;
  plan.config_digest = context.config.digest;
  ComparisonDetails details;
  details.judge = "git bisect run";
  details.WriteTo(&plan.details);
  RecordStore store(context.config.records);
  Result<ComparisonOutcome> outcome =
      RunComparison(plan, *runs->source, context.host, store, context.progress);
  if (!outcome) return outcome.error();
  result.outcome = *outcome;
  CULPRIT_TRY(JudgeSitting(*outcome, plan, result));
  return result;
}

}  // namespace culprit
