#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "engine/instruction_counter.h"
#include "engine/metric.h"
#include "engine/metric_source.h"
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
/// reason says which, with the tail of its output. Instructions are counted by a
/// hardware counter opened on the run (RunCounted, engine/instruction_counter.h) when
/// the host's source is perf_event (engine/metric_source.h), else like ll_misses and
/// d1_misses under valgrind (engine/cachegrind.h): a run that fails there, or whose
/// counter fails, is a failed sample with the reason, never a wall time.
class QuerySampleSource : public SampleSource {
 public:
  /// Instructions from the host's source (HostInstructionSource, asked at the first run
  /// that needs it; its warning, if any, is printed once to stderr) and real counters.
  explicit QuerySampleSource(std::vector<ProcessArm> arms) : arms_(std::move(arms)) {}
  /// Instructions from `source`, counted by `counters` (not owned; outlives this) when
  /// kPerfEvent: for tests with a fake counter.
  QuerySampleSource(std::vector<ProcessArm> arms, MetricSource source,
                    InstructionCounterFactory* counters)
      : arms_(std::move(arms)), instructions_(source), counters_(counters) {}
  SampleOutcome Run(int arm) override;

 private:
  /// Where instructions come from, decided at the first call.
  MetricSource InstructionsSource();

  std::vector<ProcessArm> arms_;
  std::optional<MetricSource> instructions_;
  InstructionCounterFactory* counters_ = nullptr;
  std::unique_ptr<InstructionCounterFactory> real_counters_;
};

}  // namespace culprit
