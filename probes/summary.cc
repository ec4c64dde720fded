#include "probes/summary.h"

#include <fmt/format.h>

#include "base/metric_direction.h"
#include "base/strings.h"
#include "engine/metric.h"
#include "records/comparison_details.h"

namespace culprit {
namespace {

std::string FormatValue(double value, const std::string& unit) {
  return fmt::format("{:.4g} {}", value, unit);
}

std::string OptionalMs(const std::optional<double>& ms) {
  return ms ? fmt::format("{:.1f} ms", *ms) : std::string("unavailable");
}

std::string OptionalLoad(const std::optional<double>& load) {
  return load ? fmt::format("{:.2f}", *load) : std::string("unavailable");
}

std::string BandPercent(double band) { return "±" + PercentOf(band); }

}  // namespace

std::string FormatRatio(const Estimate& e) { return FormatRatioInterval(e.ratio, e.low, e.high); }

std::string FormatHostDrift(const HostState& start, const HostState& end) {
  std::string out = fmt::format("calibration {} -> {}", OptionalMs(start.calibration_ms),
                                OptionalMs(end.calibration_ms));
  if (start.calibration_ms && end.calibration_ms && *start.calibration_ms > 0) {
    out += fmt::format(" ({:+.1f}%)", (*end.calibration_ms / *start.calibration_ms - 1) * 100);
  }
  out += fmt::format(", load {} -> {}", OptionalLoad(start.load1), OptionalLoad(end.load1));
  return out;
}

std::string FormatComparisonSummary(const ComparisonOutcome& outcome) {
  const Record& r = outcome.record;
  std::string out = r.query.empty() ? std::string() : r.query + "  ";
  for (const Arm& arm : r.arms) {
    out += fmt::format("{} {}  ", arm.label.empty() ? arm.name : arm.label,
                       arm.ok_samples > 0 ? FormatValue(arm.median, r.unit) : "no samples");
  }
  // The medians are this sitting's, each arm alone; the ratio is the pairs' own estimate (the
  // Hodges-Lehmann shift of B/A over the pairs), which need not equal their quotient.
  if (r.estimate) out += "(medians)  paired ratio " + FormatRatio(*r.estimate) + "  ";
  // The mean of the pairs' log-ratios beside it: a slow tail moves this one, not the other.
  const ComparisonDetails details = ComparisonDetails::FromRecord(r);
  if (r.estimate && !details.mean_ratio.value_or("").empty()) {
    out += "mean ratio " + *details.mean_ratio + "  ";
  }
  out += fmt::format("{} (band {})\n", r.verdict ? VerdictName(*r.verdict) : "NO VERDICT",
                     BandPercent(r.band));
  if (!r.verdict_detail.empty()) out += "  " + r.verdict_detail + "\n";
  if (r.estimate && r.verdict == Verdict::kEffect && r.arms.size() == 2) {
    // The ratio in words, the metric's way up: a drop in MB/s is worse, not faster.
    const MetricDirection better = details.better.value_or(MetricDirection::kLowerIsBetter);
    const auto label = [](const Arm& arm) { return arm.label.empty() ? arm.name : arm.label; };
    out += fmt::format(
        "  {} ({} {} is better)\n",
        DescribeRatio(r.estimate->ratio, better, r.unit, label(r.arms[1]), label(r.arms[0])),
        MetricDirectionName(better), r.unit.empty() ? "value" : r.unit);
  }
  if (r.estimate && details.decided_by == DecidedBy::kNearDeterministicRule) {
    out += fmt::format(
        "  {} pairs kept, {} dropped; the interval is the range of every ratio of a run of B "
        "to a run of A (near-deterministic rule)\n",
        outcome.sitting.pairs_kept, outcome.sitting.pairs_dropped);
  } else if (r.estimate) {
    out += fmt::format("  {} pairs kept, {} dropped; interval at {} confidence{}\n",
                       outcome.sitting.pairs_kept, outcome.sitting.pairs_dropped,
                       FormatProbability(r.estimate->confidence),
                       r.estimate->exact ? " (exact)" : " (normal approximation)");
  }
  out += FormatSecondaryFigures(r);
  out += FormatHostDrift(r.start, r.end) + "\n";
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  out += "record " + outcome.record_path.string() + "\n";
  return out;
}

std::string FormatSecondaryFigures(const Record& r) {
  const ComparisonDetails details = ComparisonDetails::FromRecord(r);
  std::string lines, unavailable;
  for (const NamedMetric& metric : kNamedMetrics) {
    auto it = details.secondary.find(std::string(metric.name));
    if (it == details.secondary.end() || it->second.empty()) continue;
    const std::string& figure = it->second;
    if (figure.starts_with("unavailable")) {
      unavailable += (unavailable.empty() ? "" : ", ") + std::string(metric.name);
    } else {
      lines += fmt::format("    {:<13}{}\n", metric.name, figure);
    }
  }
  if (lines.empty() && unavailable.empty()) return "";
  const std::string confidence = details.secondary_confidence.value_or("");
  std::string out = fmt::format("  secondary figures, B/A{} (shown, never deciding):\n",
                                confidence.empty() ? "" : " at " + confidence + " confidence");
  out += lines;
  if (!unavailable.empty()) out += "    unavailable: " + unavailable + "\n";
  return out;
}

}  // namespace culprit
