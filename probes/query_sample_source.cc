#include "probes/query_sample_source.h"

#include <fmt/format.h>

#include <optional>

#include "base/strings.h"
#include "engine/cachegrind.h"

namespace culprit {

SampleOutcome QuerySampleSource::Run(int arm) {
  const ProcessArm& spec = arms_.at(static_cast<size_t>(arm));
  // Instructions and simulated cache misses: the run is the query under cachegrind, whose
  // figure is the sample's or whose failure is (never the wall time of the simulation).
  std::optional<CachegrindRun> simulated;
  if (IsCachegrindMetric(spec.metric.kind)) {
    simulated = RunUnderCachegrind(spec.process, spec.metric.kind);
  }
  ProcessResult result = simulated ? simulated->process : RunProcess(spec.process);
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
    if (simulated) {
      outcome.failure = simulated->failure;
      return outcome;
    }
    outcome.failure = result.Describe(spec.process);
    std::string tail = TailLines(result.stderr_text, 3);
    if (!tail.empty()) outcome.failure += "; stderr ends: " + tail;
    return outcome;
  }
  if (simulated) {
    outcome.ok = simulated->value.has_value();
    outcome.value = simulated->value.value_or(0);
    outcome.failure = simulated->failure;
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
