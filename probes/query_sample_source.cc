#include "probes/query_sample_source.h"

#include <fmt/format.h>

#include "base/strings.h"

namespace culprit {

SampleOutcome QuerySampleSource::Run(int arm) {
  const ProcessArm& spec = arms_.at(static_cast<size_t>(arm));
  ProcessResult result = RunProcess(spec.process);
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
    outcome.failure = result.Describe(spec.process);
    std::string tail = TailLines(result.stderr_text, 3);
    if (!tail.empty()) outcome.failure += "; stderr ends: " + tail;
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
