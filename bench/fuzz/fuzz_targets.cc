#include "fuzz_targets.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/harness_client.h"
#include "engine/metric.h"
#include "engine/process.h"
#include "engine/tree_path.h"
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

namespace {

/// An invariant of a target: a violation is a crash, so that libFuzzer keeps
/// the input (and the corpus replay fails on it).
void Require(bool holds, const char* invariant, std::string_view data) {
  if (holds) return;
  std::fprintf(stderr, "fuzz invariant broken: %s, input \"%s\"\n", invariant,
               PrintableTreePath(data).c_str());
  std::abort();
}

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// What NTFS makes of one backslash-separated part: trailing dots and spaces
/// dropped, an alternate data stream (":...") cut off, case folded. Written
/// apart from tree_path.cc's scan, as a second opinion.
std::string NtfsName(std::string_view part) {
  std::string name(part.substr(0, part.find(':')));
  while (!name.empty() && (name.back() == '.' || name.back() == ' ')) name.pop_back();
  for (char& c : name) c = Lower(c);
  return name;
}

}  // namespace

void TreePath(std::string_view data) {
  std::optional<std::string_view> unsafe = UnsafeTreeEntryReason(data);
  std::string printable = PrintableTreePath(data);
  for (char c : printable) {
    auto byte = static_cast<unsigned char>(c);
    Require(byte >= 0x20 && byte != 0x7f, "a printable path holds no control byte", data);
  }
  if (unsafe) {
    Require(!unsafe->empty(), "a refusal says why", data);
    return;
  }
  Require(!data.empty(), "an accepted name is not empty", data);
  Require(data.find('/') == std::string_view::npos, "an accepted name holds no '/'", data);
  Require(data.find('\0') == std::string_view::npos, "an accepted name holds no NUL", data);
  Require(data != "." && data != "..", "an accepted name is not '.' or '..'", data);
  std::string folded(data);
  for (char& c : folded) c = Lower(c);
  Require(folded != ".git", "an accepted name is not .git in any case", data);
  for (size_t start = 0; start <= data.size();) {
    size_t end = std::min(data.find('\\', start), data.size());
    std::string ntfs = NtfsName(data.substr(start, end - start));
    Require(ntfs != ".git" && ntfs != "git~1", "an accepted name is not .git to NTFS", data);
    start = end + 1;
  }
  // One component, inside: joined to a directory, it is a child of it.
  std::filesystem::path joined = std::filesystem::path("/checkout") / std::string(data);
  Require(joined.parent_path() == "/checkout" && joined.filename() == std::string(data),
          "an accepted name joins as one child of the directory", data);
}

std::span<const Target> Targets() {
  static constexpr Target kTargets[] = {
      {"config", Config}, {"harness_reply", HarnessReply}, {"record_json", RecordJson},
      {"metric", Metric}, {"tree_path", TreePath},
  };
  return kTargets;
}

}  // namespace culprit::fuzz
