#include "probes/secondary_figures.h"

#include <fmt/format.h>

#include <cmath>

#include "base/median.h"
#include "base/strings.h"
#include "probes/log_interval.h"
#include "probes/statistics.h"

namespace culprit {
namespace {

/// A kept pair: its A run and its B run.
struct KeptRunPair {
  const Sample* a = nullptr;
  const Sample* b = nullptr;
};

bool Kept(const Sample& s) { return s.ok && !s.dropped && !s.warmup && s.pair >= 0; }

/// The pairs of `samples` whose two runs were both kept, in pair order.
std::vector<KeptRunPair> KeptPairs(std::span<const Sample> samples) {
  std::map<int, KeptRunPair> by_pair;
  for (const Sample& s : samples) {
    if (!Kept(s) || s.arm < 0 || s.arm > 1) continue;
    (s.arm == 0 ? by_pair[s.pair].a : by_pair[s.pair].b) = &s;
  }
  std::vector<KeptRunPair> pairs;
  for (const auto& [index, pair] : by_pair) {
    if (pair.a != nullptr && pair.b != nullptr) pairs.push_back(pair);
  }
  return pairs;
}

std::optional<double> Positive(double value) {
  return std::isfinite(value) && value > 0 ? std::optional<double>(value) : std::nullopt;
}

std::optional<double> PositiveCount(const std::optional<long>& count) {
  return count && *count > 0 ? std::optional<double>(static_cast<double>(*count)) : std::nullopt;
}

SecondaryFigure Figure(const std::vector<KeptRunPair>& pairs, const NamedMetric& metric,
                       double confidence) {
  SecondaryFigure figure;
  figure.kind = metric.kind;
  figure.name = std::string(metric.name);
  figure.unit = metric.unit.empty() ? "ms" : std::string(metric.unit);  // wall: ms
  figure.pairs_kept = static_cast<int>(pairs.size());
  std::vector<double> log_ratios, a_values, b_values;
  for (const KeptRunPair& pair : pairs) {
    std::optional<double> a = ResourceFigure(*pair.a, metric.kind);
    std::optional<double> b = ResourceFigure(*pair.b, metric.kind);
    if (!a || !b) continue;
    a_values.push_back(*a);
    b_values.push_back(*b);
    log_ratios.push_back(std::log(*b) - std::log(*a));
  }
  figure.pairs = static_cast<int>(log_ratios.size());
  if (!a_values.empty()) {
    figure.median_a = Median(a_values);
    figure.median_b = Median(b_values);
  }
  if (log_ratios.size() < MinPairsForSignedRank(confidence)) {
    figure.why =
        log_ratios.empty()
            ? std::string("not known in any kept pair")
            : fmt::format("known in {} of {} kept pairs, fewer than an interval needs ({})",
                          log_ratios.size(), pairs.size(), MinPairsForSignedRank(confidence));
    return figure;
  }
  Result<ShiftEstimate> shift = SignedRankEstimate(log_ratios, confidence);
  if (!shift) {
    figure.why = shift.error().message();
    return figure;
  }
  figure.estimate = RatioEstimate(*shift);
  figure.estimate->method = "paired Hodges-Lehmann (secondary)";
  return figure;
}

}  // namespace

std::optional<double> ResourceFigure(const Sample& sample, MetricRule::Kind kind) {
  switch (kind) {
    case MetricRule::Kind::kWall:
      return Positive(sample.wall_ms);
    case MetricRule::Kind::kCpu:
      return Positive(sample.user_ms + sample.system_ms);
    case MetricRule::Kind::kMaxRss:
      return Positive(static_cast<double>(sample.max_rss_kb));
    case MetricRule::Kind::kMinorFaults:
      return PositiveCount(sample.minor_faults);
    case MetricRule::Kind::kMajorFaults:
      return PositiveCount(sample.major_faults);
    case MetricRule::Kind::kCtxSwitches:
      if (!sample.voluntary_switches || !sample.involuntary_switches) return std::nullopt;
      return PositiveCount(*sample.voluntary_switches + *sample.involuntary_switches);
    case MetricRule::Kind::kRegex:
    case MetricRule::Kind::kJson:
    case MetricRule::Kind::kInstructions:  // Counted only under cachegrind: not a run's figure.
    case MetricRule::Kind::kLlMisses:
    case MetricRule::Kind::kD1Misses:
      break;
  }
  return std::nullopt;
}

std::vector<SecondaryFigure> SecondaryFigures(std::span<const Sample> samples,
                                              MetricRule::Kind primary, double confidence) {
  std::vector<SecondaryFigure> figures;
  const std::vector<KeptRunPair> pairs = KeptPairs(samples);
  if (pairs.empty()) return figures;
  for (const NamedMetric& metric : kNamedMetrics) {
    if (metric.kind == primary) continue;
    figures.push_back(Figure(pairs, metric, confidence));
  }
  return figures;
}

std::string FormatSecondaryFigure(const SecondaryFigure& figure) {
  if (!figure.estimate) return "unavailable: " + figure.why;
  const Estimate& e = *figure.estimate;
  std::string pairs = figure.pairs == figure.pairs_kept
                          ? fmt::format("{} pairs", figure.pairs)
                          : fmt::format("{} of {} pairs", figure.pairs, figure.pairs_kept);
  return fmt::format("{} (A {:.4g} {}, B {:.4g} {}; {})",
                     FormatRatioInterval(e.ratio, e.low, e.high), figure.median_a, figure.unit,
                     figure.median_b, figure.unit, pairs);
}

std::string FormatResourceMedians(std::span<const Sample> samples, int arm) {
  std::string out;
  for (const NamedMetric& metric : kNamedMetrics) {
    std::vector<double> values;
    bool any = false;
    for (const Sample& s : samples) {
      if (s.arm != arm || !s.ok || s.dropped || s.warmup) continue;
      any = true;
      // A count of 0 is known, unlike a peak RSS or a CPU time of 0.
      const std::optional<long>* count =
          metric.kind == MetricRule::Kind::kMinorFaults   ? &s.minor_faults
          : metric.kind == MetricRule::Kind::kMajorFaults ? &s.major_faults
                                                          : nullptr;
      if (count != nullptr) {
        if (*count) values.push_back(static_cast<double>(**count));
      } else if (metric.kind == MetricRule::Kind::kCtxSwitches) {
        if (s.voluntary_switches && s.involuntary_switches) {
          values.push_back(static_cast<double>(*s.voluntary_switches + *s.involuntary_switches));
        }
      } else if (std::optional<double> value = ResourceFigure(s, metric.kind)) {
        values.push_back(*value);
      }
    }
    if (!any) return "";
    const std::string unit = metric.unit.empty() ? "ms" : std::string(metric.unit);
    const bool counted = unit == "faults" || unit == "switches";
    out += (out.empty() ? "" : ", ") + std::string(metric.name) + " " +
           (values.empty() ? std::string("unavailable")
                           : fmt::format("{:.4g}{}", Median(values), counted ? "" : " " + unit));
  }
  return out;
}

std::map<std::string, std::string> SecondaryFiguresByName(
    const std::vector<SecondaryFigure>& figures) {
  std::map<std::string, std::string> texts;
  for (const SecondaryFigure& figure : figures) texts[figure.name] = FormatSecondaryFigure(figure);
  return texts;
}

}  // namespace culprit
