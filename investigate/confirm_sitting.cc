#include "investigate/confirm_sitting.h"

#include <fmt/format.h>

#include "records/record_store.h"

namespace culprit {

Result<ComparisonOutcome> RunCompareOn(const MeasureContext& context, Measurer& measurer,
                                       const CompareRequest& request) {
  const ProbeSections& config = context.config;
  if (!request.names.empty() && request.names.size() != 2) {
    return Error::Usage(fmt::format("--name was given {} time(s): name both arms or neither",
                                    request.names.size()));
  }
  Result<QueryConfig> query = SelectMeasuredQuery(config, request.query, request.flags);
  if (!query) return query.error();
  Result<SittingOptions> options = MakeSittingOptions(config.measure, *query, request.flags);
  if (!options) return options.error();
  Result<ResolvedBuild> build_a = context.builds.Resolve(request.revision_a);
  if (!build_a) return build_a.error();
  Result<ResolvedBuild> build_b = context.builds.Resolve(request.revision_b);
  if (!build_b) return build_b.error();
  Result<PairedRuns> runs = measurer.Pair(*query, *build_a, *build_b);
  if (!runs) return runs.error();

  ComparisonPlan plan;
  plan.kind = request.kind;
  plan.query = query->name;
  plan.unit = query->unit;
  plan.better = query->better;
  plan.better_note = query->better_note;
  plan.a = MakeComparisonArm("A", request.names.empty() ? request.revision_a : request.names[0],
                             runs->a, *build_a);
  plan.b = MakeComparisonArm("B", request.names.empty() ? request.revision_b : request.names[1],
                             runs->b, *build_b);
  plan.options = *options;
  plan.config_digest = config.digest;
  plan.links = request.links;
  if (build_a->commit == build_b->commit && !build_a->commit.empty()) {
    plan.notes.push_back("both revisions are the same commit: this sitting measures noise");
  }
  RecordStore store(config.records);
  return RunComparison(plan, *runs->source, context.host, store, context.progress);
}

}  // namespace culprit
