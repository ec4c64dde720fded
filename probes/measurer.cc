#include "probes/measurer.h"

#include "probes/measure_commands.h"

namespace culprit {

Result<PairedRuns> QueryMeasurer::Pair(const QueryConfig& query, const ResolvedBuild& a,
                                       const ResolvedBuild& b) {
  Result<ProcessArm> arm_a = MakeQueryArm(config_, query, a, {}, {});
  if (!arm_a) return arm_a.error();
  Result<ProcessArm> arm_b = MakeQueryArm(config_, query, b, {}, {});
  if (!arm_b) return arm_b.error();
  PairedRuns runs;
  runs.a = *arm_a;
  runs.b = *arm_b;
  runs.source = std::make_unique<QuerySampleSource>(std::vector<ProcessArm>{*arm_a, *arm_b});
  return runs;
}

}  // namespace culprit
