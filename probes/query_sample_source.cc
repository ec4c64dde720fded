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
  if (!result.ok()) {
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
