#include "base/metric_direction.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace culprit {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool EndsWith(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

bool IsTimeUnit(std::string_view unit) {
  static constexpr std::array<std::string_view, 10> kTime = {
      "", "ms", "s", "sec", "us", "µs", "ns", "min", "seconds", "milliseconds"};
  const std::string lower = Lower(unit);
  return std::find(kTime.begin(), kTime.end(), lower) != kTime.end();
}

}  // namespace

std::string_view MetricDirectionName(MetricDirection direction) {
  return direction == MetricDirection::kHigherIsBetter ? "higher" : "lower";
}

std::optional<MetricDirection> ParseMetricDirection(std::string_view name) {
  if (name == "lower") return MetricDirection::kLowerIsBetter;
  if (name == "higher") return MetricDirection::kHigherIsBetter;
  return std::nullopt;
}

std::optional<MetricDirection> DirectionImpliedByUnit(std::string_view unit) {
  static constexpr std::array<std::string_view, 10> kThroughput = {
      "ops", "qps", "tps", "rps", "iops", "fps", "hz", "khz", "mhz", "throughput"};
  const std::string u = Lower(unit);
  const bool rate = EndsWith(u, "/s") || EndsWith(u, "/sec") || EndsWith(u, "/second") ||
                    EndsWith(u, "per second");
  if (rate || std::find(kThroughput.begin(), kThroughput.end(), u) != kThroughput.end()) {
    return MetricDirection::kHigherIsBetter;
  }
  return std::nullopt;
}

bool RatioAboveOneIsWorse(MetricDirection direction) {
  return direction == MetricDirection::kLowerIsBetter;
}

bool IsWorse(double ratio, MetricDirection direction) {
  return RatioAboveOneIsWorse(direction) ? ratio > 1 : ratio < 1;
}

DirectionWords WordsFor(MetricDirection direction, std::string_view unit) {
  if (direction == MetricDirection::kLowerIsBetter && IsTimeUnit(unit)) return {"slower", "faster"};
  return {"worse", "better"};
}

std::string DescribeRatio(double ratio, MetricDirection direction, std::string_view unit,
                          std::string_view b, std::string_view a) {
  if (ratio == 1 || !std::isfinite(ratio)) return fmt::format("{} is the same as {}", b, a);
  const DirectionWords words = WordsFor(direction, unit);
  return fmt::format("{} is {:.1f}% {} than {}", b, std::fabs(ratio - 1) * 100,
                     IsWorse(ratio, direction) ? words.worse : words.better, a);
}

}  // namespace culprit
