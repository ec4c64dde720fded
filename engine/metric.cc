#include "engine/metric.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string_view>
#include <vector>

#include "base/json_text.h"
#include "base/numbers.h"
#include "base/strings.h"

namespace culprit {
namespace {

constexpr size_t kTailLines = 5;
/// A non-number JSON field is shown in the error up to this many bytes.
constexpr size_t kMaxShownJsonBytes = 200;

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    size_t end = path.find('.', begin);
    parts.emplace_back(path.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  return parts;
}

/// The error for a run whose output lacks the metric: what was looked for and
/// the last lines of what was there, so the user sees the mismatch at once.
Error MissingMetric(std::string_view what, const ProcessResult& result) {
  std::string tail = TailLines(result.stdout_text, kTailLines);
  std::string message = tail.empty() ? fmt::format("{}; the run printed nothing on stdout", what)
                                     : fmt::format("{}; last lines:\n{}", what, tail);
  Error error(message);
  if (result.stdout_bytes > result.stdout_text.size()) {
    return error.WithHint(fmt::format(
        "only the first {} of {} bytes of stdout were kept; print the metric earlier or "
        "raise the output limit",
        result.stdout_text.size(), result.stdout_bytes));
  }
  return error;
}

// libstdc++'s regex compiler reads the number of a back-reference (\N) and
// the counts of a brace quantifier ({m,n}) into a long without checking for
// overflow: undefined behaviour, found by the config fuzz target. Such a
// number of more than nine digits (no regex a metric needs has one) is
// returned, with what surrounds it, so that it is refused before std::regex
// sees it; digits anywhere else are characters to match.
std::optional<std::string_view> OverlongRegexNumber(std::string_view pattern) {
  constexpr size_t kMaxDigits = 9;
  auto digits_from = [&](size_t at) {
    size_t end = at;
    while (end < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[end]))) ++end;
    return end;
  };
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      size_t end = digits_from(i + 1);
      if (end - (i + 1) > kMaxDigits) return pattern.substr(i, end - i);
      i = std::max(i + 1, end - 1);  // past the escaped character or the number
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '{') {
      size_t end = i + 1;
      while (end < pattern.size() && pattern[end] != '}') {
        size_t run = digits_from(end);
        if (run - end > kMaxDigits) return pattern.substr(i, run - i);
        end = run > end ? run : end + 1;
      }
    }
  }
  return std::nullopt;
}

// The regex rule: ECMAScript, at least one capture group.
MetricRuleProblem CompileMetricRegex(const std::string& pattern, std::regex* out,
                                     std::string* detail) {
  if (std::optional<std::string_view> number = OverlongRegexNumber(pattern)) {
    if (detail != nullptr) {
      *detail =
          fmt::format("the number in '{}' is too large (at most 9 digits)", number->substr(0, 24));
    }
    return MetricRuleProblem::kRegexInvalid;
  }
  try {
    std::regex regex(pattern, std::regex::ECMAScript);
    if (regex.mark_count() < 1) return MetricRuleProblem::kRegexWithoutGroup;
    if (out != nullptr) *out = std::move(regex);
    return MetricRuleProblem::kNone;
  } catch (const std::regex_error& e) {
    if (detail != nullptr) *detail = e.what();
    return MetricRuleProblem::kRegexInvalid;
  }
}

Result<std::regex> CompileRegex(const std::string& pattern) {
  std::regex regex;
  std::string detail;
  switch (CompileMetricRegex(pattern, &regex, &detail)) {
    case MetricRuleProblem::kRegexWithoutGroup:
      return Error::Usage(fmt::format("the metric regex /{}/ has no capture group", pattern))
          .WithHint("put the number in parentheses, e.g. 'median_ms=([0-9.]+)'");
    case MetricRuleProblem::kRegexInvalid:
      return Error::Usage(fmt::format("the metric regex /{}/ is not valid: {}", pattern, detail));
    default:
      break;
  }
  return regex;
}

Result<double> FromRegex(const std::string& pattern, const ProcessResult& result) {
  Result<std::regex> regex = CompileRegex(pattern);
  if (!regex) return regex.error();
  // Line by line: anchors mean what users expect, and libstdc++'s recursive
  // matcher never sees a megabyte-long subject. Even one line can overflow
  // the stack (".*" recurses once per byte: a 50 KB line did), so a line
  // longer than kMaxRegexLineBytes is not searched; a metric on another line
  // is still found, and when none is, the error says which line was skipped.
  size_t longest_skipped = 0;
  for (std::string_view line : SplitLines(result.stdout_text)) {
    if (line.size() > kMaxRegexLineBytes) {
      longest_skipped = std::max(longest_skipped, line.size());
      continue;
    }
    std::match_results<std::string_view::const_iterator> match;
    if (!std::regex_search(line.begin(), line.end(), match, *regex)) continue;
    std::string group = match[1].str();
    // One reader of numbers for everything culprit parses (base/numbers.h): the
    // C locale's spelling whatever LC_NUMERIC says, finite, nothing after it.
    std::optional<double> value = ParseFiniteNumber(group);
    if (!value) {
      return Error(fmt::format("the metric /{}/ matched the line '{}', but '{}' is not a number",
                               pattern, EscapeControlChars(line),
                               EscapeControlChars(TrimBlanks(group))));
    }
    return *value;
  }
  if (longest_skipped > 0) {
    return MissingMetric(fmt::format("no match for /{}/ in the output, which has a line of {} "
                                     "bytes, longer than the regex limit of {} bytes: it was "
                                     "not searched",
                                     pattern, longest_skipped, kMaxRegexLineBytes),
                         result);
  }
  return MissingMetric(fmt::format("no match for /{}/ in the output", pattern), result);
}

/// The whole stdout as JSON, or else its last line that is a JSON object.
/// Text nested deeper than kMaxJsonDepth is never parsed (dump() and copies
/// of such a value recurse past the stack); `too_deep` is set when some was
/// passed over for that.
std::optional<nlohmann::json> FindJson(const std::string& text, bool* too_deep) {
  auto parse = [&](std::string_view candidate) {
    if (JsonNestsDeeperThan(candidate)) {
      *too_deep = true;
      return nlohmann::json(nlohmann::json::value_t::discarded);
    }
    return nlohmann::json::parse(candidate, nullptr, /*allow_exceptions=*/false);
  };
  nlohmann::json whole = parse(text);
  if (!whole.is_discarded() && whole.is_structured()) return whole;
  std::vector<std::string_view> lines = SplitLines(text);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    std::string_view line = *it;
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] != '{') continue;
    nlohmann::json json = parse(line);
    if (!json.is_discarded() && json.is_object()) return json;
  }
  return std::nullopt;
}

Result<double> FromJson(const std::string& path, const ProcessResult& result) {
  bool too_deep = false;
  std::optional<nlohmann::json> json = FindJson(result.stdout_text, &too_deep);
  if (!json) {
    return MissingMetric(
        fmt::format("no JSON object in the output to take field '{}' from{}", path,
                    too_deep ? fmt::format(" (what was there is {})", JsonTooDeepMessage()) : ""),
        result);
  }
  const nlohmann::json* node = &*json;
  std::string walked;
  for (const std::string& part : SplitPath(path)) {
    const nlohmann::json* next = nullptr;
    if (node->is_object()) {
      auto it = node->find(part);
      if (it != node->end()) next = &*it;
    } else if (node->is_array() && !part.empty() && part.size() < 10 &&
               part.find_first_not_of("0123456789") == std::string::npos) {
      size_t index = std::stoul(part);
      if (index < node->size()) next = &(*node)[index];
    }
    if (next == nullptr) {
      std::string where = walked.empty() ? "the JSON output" : fmt::format("'{}'", walked);
      return MissingMetric(fmt::format("no JSON field '{}' in the output ({} is {} without '{}')",
                                       path, where, node->type_name(), part),
                           result);
    }
    node = next;
    walked += walked.empty() ? part : "." + part;
  }
  if (!node->is_number()) {
    std::string text = ToJsonText(*node);
    if (text.size() > kMaxShownJsonBytes) text = text.substr(0, kMaxShownJsonBytes) + "...";
    return Error(fmt::format("the JSON field '{}' is not a number: it is {} {}", path,
                             node->type_name(), EscapeControlChars(text)));
  }
  double value = node->get<double>();
  if (!std::isfinite(value)) {
    return Error(fmt::format("the JSON field '{}' is not a finite number", path));
  }
  return value;
}

/// A resource figure as a sample, or why this run's figure cannot be one.
Result<double> FromResources(MetricRule::Kind kind, const ProcessResult& result) {
  switch (kind) {
    case MetricRule::Kind::kCpu:
      if (result.user_ms + result.system_ms > 0) return result.user_ms + result.system_ms;
      return Error("the run used no measurable CPU time (0 ms user + system)");
    case MetricRule::Kind::kMaxRss:
      if (result.max_rss_kb > 0) return static_cast<double>(result.max_rss_kb);
      return Error(
                 "the run's peak RSS is unknown: it stayed below culprit's own, which Linux "
                 "reports instead for a child started from culprit")
          .WithHint("max_rss measures runs whose peak is above culprit's own (about 12 MB)");
    case MetricRule::Kind::kMinorFaults:
      if (result.minor_faults > 0) return static_cast<double>(result.minor_faults);
      return Error("the run had no minor page faults; a ratio needs a count above 0");
    case MetricRule::Kind::kMajorFaults:
      if (result.major_faults > 0) return static_cast<double>(result.major_faults);
      return Error(
                 "the run had no major page faults (none waited for the disk); a ratio needs a "
                 "count above 0")
          .WithHint(
              "major_faults measures a run that reads from disk in every run, e.g. "
              "after dropping the page cache; minor_faults counts the faults served "
              "from memory");
    case MetricRule::Kind::kCtxSwitches: {
      const long switches = result.voluntary_switches + result.involuntary_switches;
      if (switches > 0) return static_cast<double>(switches);
      return Error("the run had no context switches; a ratio needs a count above 0");
    }
    default:
      break;
  }
  return Error("not a resource metric");
}

/// The named metric of `kind` in either table, or null.
const NamedMetric* FindNamedMetric(MetricRule::Kind kind) {
  for (const NamedMetric& metric : kNamedMetrics) {
    if (metric.kind == kind) return &metric;
  }
  for (const NamedMetric& metric : kCachegrindMetrics) {
    if (metric.kind == kind) return &metric;
  }
  return nullptr;
}

}  // namespace

std::optional<MetricRule::Kind> ParseNamedMetric(std::string_view name) {
  for (const NamedMetric& metric : kNamedMetrics) {
    if (metric.name == name) return metric.kind;
  }
  for (const NamedMetric& metric : kCachegrindMetrics) {
    if (metric.name == name) return metric.kind;
  }
  return std::nullopt;
}

std::vector<std::string> NamedMetricNames() {
  std::vector<std::string> names;
  for (const NamedMetric& metric : kNamedMetrics) names.emplace_back(metric.name);
  for (const NamedMetric& metric : kCachegrindMetrics) names.emplace_back(metric.name);
  return names;
}

std::string_view NamedMetricName(MetricRule::Kind kind) {
  const NamedMetric* metric = FindNamedMetric(kind);
  return metric != nullptr ? metric->name : std::string_view();
}

std::optional<std::string_view> FixedMetricUnit(MetricRule::Kind kind) {
  const NamedMetric* metric = FindNamedMetric(kind);
  if (metric == nullptr || metric->unit.empty()) return std::nullopt;
  return metric->unit;
}

bool IsNearDeterministicMetric(MetricRule::Kind kind) {
  return kind == MetricRule::Kind::kInstructions;
}

MetricRuleProblem CheckMetricRule(const MetricRule& rule, std::string* detail) {
  switch (rule.kind) {
    case MetricRule::Kind::kWall:
    case MetricRule::Kind::kCpu:
    case MetricRule::Kind::kMaxRss:
    case MetricRule::Kind::kMinorFaults:
    case MetricRule::Kind::kMajorFaults:
    case MetricRule::Kind::kCtxSwitches:
    case MetricRule::Kind::kInstructions:
    case MetricRule::Kind::kLlMisses:
    case MetricRule::Kind::kD1Misses:
      return MetricRuleProblem::kNone;
    case MetricRule::Kind::kRegex:
      return CompileMetricRegex(rule.pattern, nullptr, detail);
    case MetricRule::Kind::kJson:
      for (const std::string& part : SplitPath(rule.pattern)) {
        if (part.empty()) return MetricRuleProblem::kJsonPathInvalid;
      }
      return MetricRuleProblem::kNone;
  }
  return MetricRuleProblem::kNone;
}

Result<double> WallUnitsPerMillisecond(std::string_view unit) {
  if (unit == "ns") return 1e6;
  if (unit == "us" || unit == "µs") return 1e3;
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1e-3;
  return Error::Usage(fmt::format(
      "a wall-time metric is a time: unit must be one of ns, us, ms, s, not '{}' (or take the "
      "number from the output with a regex or json metric)",
      unit));
}

Result<double> ExtractMetric(const MetricRule& rule, const ProcessResult& result) {
  if (!result.ok()) {
    std::string tail = TailLines(result.stderr_text, kTailLines);
    std::string message = fmt::format("the run {}, so it has no metric", result.Describe({}));
    if (!tail.empty()) message += fmt::format("; last lines of its stderr:\n{}", tail);
    return Error(message);
  }
  switch (rule.kind) {
    case MetricRule::Kind::kWall:
      return result.wall_ms * rule.wall_units_per_ms;
    case MetricRule::Kind::kRegex:
      return FromRegex(rule.pattern, result);
    case MetricRule::Kind::kJson:
      return FromJson(rule.pattern, result);
    case MetricRule::Kind::kCpu:
    case MetricRule::Kind::kMaxRss:
    case MetricRule::Kind::kMinorFaults:
    case MetricRule::Kind::kMajorFaults:
    case MetricRule::Kind::kCtxSwitches:
      return FromResources(rule.kind, result);
    case MetricRule::Kind::kInstructions:
    case MetricRule::Kind::kLlMisses:
    case MetricRule::Kind::kD1Misses:
      return Error(fmt::format(
          "{} are counted by a run of their own (by a hardware counter or under valgrind's "
          "cachegrind: engine/metric_source.h), not read from a run's output",
          NamedMetricName(rule.kind)));
  }
  return Error("unknown metric kind");
}

std::string DescribeMetricRule(const MetricRule& rule) {
  switch (rule.kind) {
    case MetricRule::Kind::kWall:
      return "wall time";
    case MetricRule::Kind::kRegex:
      return fmt::format("/{}/", rule.pattern);
    case MetricRule::Kind::kJson:
      return fmt::format("JSON field '{}'", rule.pattern);
    case MetricRule::Kind::kCpu:
      return "CPU time (user + system)";
    case MetricRule::Kind::kMaxRss:
      return "peak RSS";
    case MetricRule::Kind::kMinorFaults:
      return "minor page faults";
    case MetricRule::Kind::kMajorFaults:
      return "major page faults";
    case MetricRule::Kind::kCtxSwitches:
      return "context switches (voluntary + involuntary)";
    case MetricRule::Kind::kInstructions:
      return "instructions (user space)";
    case MetricRule::Kind::kLlMisses:
      return "simulated last-level data-cache misses (cachegrind)";
    case MetricRule::Kind::kD1Misses:
      return "simulated first-level data-cache misses (cachegrind)";
  }
  return "unknown metric";
}

}  // namespace culprit
