#pragma once

// How the orchestrators (the bisect runner, judge) run two builds of the engine
// against each other: the arms a record describes and the source of their
// samples. QueryMeasurer is the real one (each sample is a run of the query's
// process); the bisect simulator and the runner's tests script the samples,
// the way ninja drives its Builder with a FakeCommandRunner.

#include <memory>

#include "base/result.h"
#include "engine/engine_config.h"
#include "probes/build_provider.h"
#include "probes/query_sample_source.h"
#include "probes/sitting.h"

namespace culprit {

/// Two builds ready to be measured in one sitting: arm 0 is `a`, arm 1 is `b`.
struct PairedRuns {
  ProcessArm a, b;  ///< What each arm runs, as a record describes it.
  std::unique_ptr<SampleSource> source;
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  /// The query on build `a` (arm 0) and build `b` (arm 1), or an error saying
  /// why the query cannot run on them (a placeholder the build lacks).
  virtual Result<PairedRuns> Pair(const QueryConfig& query, const ResolvedBuild& a,
                                  const ResolvedBuild& b) = 0;
};

/// The real measurer: MakeQueryArm for each build, QuerySampleSource over both.
class QueryMeasurer : public Measurer {
 public:
  /// `config` must outlive the measurer.
  explicit QueryMeasurer(const EngineSections& config) : config_(config) {}
  Result<PairedRuns> Pair(const QueryConfig& query, const ResolvedBuild& a,
                          const ResolvedBuild& b) override;

 private:
  const EngineSections& config_;
};

}  // namespace culprit
