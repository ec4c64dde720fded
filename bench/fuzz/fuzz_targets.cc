#include "fuzz_targets.h"

#include <array>
#include <string>

#include "engine/harness_client.h"
#include "engine/metric.h"
#include "engine/process.h"
#include "investigate/config.h"
#include "records/record.h"

namespace culprit::fuzz {

void Config(std::string_view data) {
  // Relative paths resolve against the file's directory; nothing is read or
  // written there by loading.
  (void)ParseConfig(data, "/fuzz/culprit.toml");
}

void HarnessReply(std::string_view data) {
  (void)ParseOkReply("hold index", data, /*allow_bytes=*/true);
  (void)ParseOkReply("release index", data, /*allow_bytes=*/false);
  (void)ParseRunReply("run q 1", data, 1);
  (void)ParseRunReply("run q 3", data, 3);
  (void)QuoteReply(data);
}

void RecordJson(std::string_view data) {
  Result<Record> record = RecordFromJson(data, "fuzz.json");
  if (!record) return;
  // What was read must write back, and read again.
  std::string json = RecordToJson(*record);
  (void)RecordFromJson(json, "fuzz-again.json");
}

void Metric(std::string_view data) {
  if (data.empty()) return;
  static const std::array<MetricRule, 4> kRules = [] {
    std::array<MetricRule, 4> rules;
    rules[0].kind = MetricRule::Kind::kRegex;
    rules[0].pattern = "median_ms=([0-9.]+)";
    rules[1].kind = MetricRule::Kind::kRegex;
    rules[1].pattern = "^time: ([0-9.eE+-]+) ms$";
    rules[2].kind = MetricRule::Kind::kJson;
    rules[2].pattern = "result.ms";
    rules[3].kind = MetricRule::Kind::kJson;
    rules[3].pattern = "runs.0.ms";
    return rules;
  }();
  const MetricRule& rule = kRules[static_cast<unsigned char>(data[0]) % kRules.size()];
  ProcessResult result;
  result.outcome = ProcessOutcome::kExited;
  result.exit_code = 0;
  result.stdout_text = std::string(data.substr(1));
  result.stdout_bytes = result.stdout_text.size();
  (void)ExtractMetric(rule, result);
}

std::span<const Target> Targets() {
  static constexpr Target kTargets[] = {
      {"config", Config},
      {"harness_reply", HarnessReply},
      {"record_json", RecordJson},
      {"metric", Metric},
  };
  return kTargets;
}

}  // namespace culprit::fuzz
