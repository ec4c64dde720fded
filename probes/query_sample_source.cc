#include "probes/query_sample_source.h"

#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "base/strings.h"
#include "engine/cachegrind.h"

namespace culprit {
namespace {

/// A run whose figure came with it (counted or simulated), or why it has none.
struct CountedFigure {
  ProcessResult process;
  std::optional<double> value;
  std::string failure;
};

}  // namespace

MetricSource QuerySampleSource::InstructionsSource() {
  if (!instructions_) {
    instructions_ = HostInstructionSource().source;
    if (std::optional<std::string> warning = TakeInstructionSourceWarning()) {
      fmt::print(stderr, "culprit: {}\n", *warning);
    }
  }
  if (*instructions_ == MetricSource::kPerfEvent && counters_ == nullptr) {
    real_counters_ = std::make_unique<RealInstructionCounterFactory>();
    counters_ = real_counters_.get();
  }
  return *instructions_;
}

SampleOutcome QuerySampleSource::Run(int arm) {
  const ProcessArm& spec = arms_.at(static_cast<size_t>(arm));
  // Instructions and simulated cache misses: the run is the query counted by a hardware
  // counter or under cachegrind, whose figure is the sample's or whose failure is (never
  // the wall time of the run).
  std::optional<CountedFigure> counted;
  if (spec.metric.kind == MetricRule::Kind::kInstructions &&
      InstructionsSource() == MetricSource::kPerfEvent) {
    CountedRun run = RunCounted(spec.process, *counters_);
    counted = CountedFigure{std::move(run.process), run.value, std::move(run.failure)};
  } else if (IsCachegrindMetric(spec.metric.kind)) {
    CachegrindRun run = RunUnderCachegrind(spec.process, spec.metric.kind);
    counted = CountedFigure{std::move(run.process), run.value, std::move(run.failure)};
  }
  ProcessResult result = counted ? counted->process : RunProcess(spec.process);
  SampleOutcome outcome;
  outcome.wall_ms = result.wall_ms;
  outcome.user_ms = result.user_ms;
  outcome.system_ms = result.system_ms;
  outcome.max_rss_kb = result.max_rss_kb;
  if (result.reaped) {
    outcome.minor_faults = result.minor_faults;
    outcome.major_faults = result.major_faults;
    outcome.voluntary_switches = result.voluntary_switches;
    outcome.involuntary_switches = result.involuntary_switches;
  }
  if (!result.ok()) {
    if (result.outcome == ProcessOutcome::kTimedOut) {
      // Censored, not lost: the run took longer than the timeout. Only a
      // wall-time metric knows the bound in its own unit; for a metric the
      // engine prints, the sitting ranks it above every completed run.
      outcome.timed_out = true;
      if (spec.metric.kind == MetricRule::Kind::kWall) {
        outcome.censor_value =
            static_cast<double>(spec.process.timeout.count()) * spec.metric.wall_units_per_ms;
      }
    }
    if (counted) {
      outcome.failure = counted->failure;
      return outcome;
    }
    outcome.failure = result.Describe(spec.process);
    std::string tail = TailLines(result.stderr_text, 3);
    if (!tail.empty()) outcome.failure += "; stderr ends: " + tail;
    return outcome;
  }
  if (counted) {
    outcome.ok = counted->value.has_value();
    outcome.value = counted->value.value_or(0);
    outcome.failure = counted->failure;
    return outcome;
  }
  Result<double> value = ExtractMetric(spec.metric, result);
  if (!value) {
    outcome.failure = value.error().message();
    return outcome;
  }
  outcome.ok = true;
  outcome.value = *value;
  return outcome;
}

}  // namespace culprit
