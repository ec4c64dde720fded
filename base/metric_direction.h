#pragma once

// Which way a query's metric is better. Wall time and CPU time are better lower; a
// throughput (MB/s, queries per second) is better higher, and a ratio of 0.86 in MB/s is a
// 14% loss, not a win. Every layer that turns a ratio into words or into "bad" asks here, so
// that no one reads a speed metric upside down again.

#include <optional>
#include <string>
#include <string_view>

namespace culprit {

enum class MetricDirection { kLowerIsBetter, kHigherIsBetter };

/// "lower" or "higher": the spelling in culprit.toml (`better = "higher"`) and in records.
std::string_view MetricDirectionName(MetricDirection direction);
/// Inverse of MetricDirectionName (exact spelling); nullopt for anything else.
std::optional<MetricDirection> ParseMetricDirection(std::string_view name);

/// The direction a well-known unit implies, or nullopt when the unit says nothing. A rate
/// (anything per second: "MB/s", "ops/s", "rows/sec", "Hz") and the common throughput names
/// ("ops", "qps", "tps", "rps", "iops", "throughput") are better higher. Time units ("ms",
/// "s", "us", "ns"), sizes and counts say nothing: culprit's default, lower, holds for them.
std::optional<MetricDirection> DirectionImpliedByUnit(std::string_view unit);

/// Whether a ratio B/A > 1 means B is worse: for a metric better lower.
bool RatioAboveOneIsWorse(MetricDirection direction);

/// Whether B/A = `ratio` is worse than A (false for 1).
bool IsWorse(double ratio, MetricDirection direction);

/// The words for the two ways a ratio can go: "slower"/"faster" for time (better lower and
/// the unit a time unit, or no unit), "worse"/"better" for any other metric.
struct DirectionWords {
  std::string_view worse, better;
};
DirectionWords WordsFor(MetricDirection direction, std::string_view unit);

/// "B is 14.4% slower than A" (or "worse", "faster", "better"; "the same as" for 1), from
/// B/A = `ratio`, for verdict lines and reports.
std::string DescribeRatio(double ratio, MetricDirection direction, std::string_view unit,
                          std::string_view b, std::string_view a);

}  // namespace culprit
