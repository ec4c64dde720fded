#include "fuzz_targets.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/harness_client.h"
#include "engine/line_process.h"
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

namespace {

/// Every byte as a three-digit octal escape: printf's format turns it back
/// into the byte, whatever it is ('%', '\\', NUL, newline), and the request
/// line holds no newline.
std::string OctalEscaped(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 4);
  for (char c : bytes) out += fmt::format("\\{:03o}", static_cast<unsigned char>(c));
  return out;
}

/// The child that writes what it is asked to: each request line is a printf
/// format. One is kept for every input, and replaced once killed (a reply
/// over the cap kills it, as it must).
std::unique_ptr<LineProcess>& KeptHarness() {
  // Never destroyed (no exit-time teardown of a supervised child): when the
  // fuzzer exits, the child reads end of file and ends.
  static auto* harness = new std::unique_ptr<LineProcess>();
  return *harness;
}

LineProcess& EchoHarness() {
  std::unique_ptr<LineProcess>& harness = KeptHarness();
  if (harness == nullptr || !harness->running()) {
    harness.reset();
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", "while IFS= read -r l; do printf \"$l\"; done"};
    Result<std::unique_ptr<LineProcess>> started = LineProcess::Start(spec);
    if (!started) {
      std::fprintf(stderr, "fuzz harness_line: cannot start /bin/sh: %s\n",
                   started.error().message().c_str());
      std::abort();
    }
    harness = std::move(*started);
  }
  return *harness;
}

}  // namespace

void StopChildren() { KeptHarness().reset(); }

void HarnessLine(std::string_view data) {
  if (data.size() < 2) return;
  const size_t max_reply = 1 + static_cast<unsigned char>(data[0]) % 64;
  const size_t lines_per_request = 1 + static_cast<unsigned char>(data[1]) % 4;
  // Every line ends, so that each request has a line to return: the k-th
  // request has had at least k lines written by then.
  std::string stream(data.substr(2));
  if (stream.empty() || stream.back() != '\n') stream += '\n';
  std::vector<std::string> lines;
  for (size_t start = 0; start < stream.size();) {
    size_t newline = stream.find('\n', start);
    lines.push_back(stream.substr(start, newline - start));
    start = newline + 1;
  }
  LineProcess& harness = EchoHarness();
  for (size_t k = 0; k < lines.size(); ++k) {
    // Request k writes lines [k * L, (k + 1) * L) when k * L is still below
    // the count, so pending replies pile up while new ones arrive.
    std::string segment;
    if (k * lines_per_request < lines.size()) {
      for (size_t i = k * lines_per_request;
           i < std::min(lines.size(), (k + 1) * lines_per_request); ++i) {
        segment += lines[i] + '\n';
      }
    }
    Result<std::string> reply =
        harness.Request(OctalEscaped(segment), std::chrono::seconds(10), max_reply);
    std::string expected = lines[k];
    if (expected.size() > max_reply) {
      Require(
          !reply && reply.error().message().find("harness reply longer than") != std::string::npos,
          "a line over the cap is refused, at its turn", data);
      Require(!harness.running(), "the harness is killed after a line over the cap", data);
      return;
    }
    if (!expected.empty() && expected.back() == '\r') expected.pop_back();
    if (!reply) {
      std::fprintf(stderr, "fuzz harness_line: request %zu failed: %s\n", k,
                   reply.error().message().c_str());
    }
    Require(reply && *reply == expected, "each reply is the next line, without its \\r", data);
  }
}

std::span<const Target> Targets() {
  // One a line, in the order bench/fuzz/run runs them.
  // clang-format off
  static constexpr Target kTargets[] = {
      {"config", Config},
      {"harness_reply", HarnessReply},
      {"record_json", RecordJson},
      {"metric", Metric},
      {"tree_path", TreePath},
      {"harness_line", HarnessLine, /*spawns_processes=*/true},
  };
  // clang-format on
  return kTargets;
}

}  // namespace culprit::fuzz
