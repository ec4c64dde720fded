#pragma once

#include <vector>

#include "engine/metric.h"
#include "engine/process.h"
#include "probes/sitting.h"

namespace culprit {

/// One arm as a process to run and a rule that reads its metric.
struct ProcessArm {
  ProcessSpec process;
  MetricRule metric;
};

/// The real SampleSource: each sample is one run of the arm's process. A run
/// that fails, crashes, hangs or lacks the metric is a failed sample whose
/// reason says which, with the tail of its output. A cachegrind metric
/// (engine/cachegrind.h) runs the process under valgrind: a run that fails
/// there is a failed sample with valgrind's reason, never a wall time.
class QuerySampleSource : public SampleSource {
 public:
  explicit QuerySampleSource(std::vector<ProcessArm> arms) : arms_(std::move(arms)) {}
  SampleOutcome Run(int arm) override;

 private:
  std::vector<ProcessArm> arms_;
};

}  // namespace culprit
