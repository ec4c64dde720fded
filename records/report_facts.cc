#include "records/report_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/median.h"
#include "base/strings.h"
#include "records/bisect_details.h"
#include "records/comparison_details.h"
#include "records/table_payload.h"

namespace culprit {

ArmFacts SummarizeArm(const Record& record, int arm) {
  ArmFacts facts;
  std::vector<double> values;
  for (const Sample& sample : record.samples) {
    if (sample.arm != arm) continue;
    if (!sample.ok) {
      ++facts.failed;
    } else if (sample.warmup) {
      ++facts.warmups;
    } else if (sample.dropped) {
      ++facts.dropped;
    } else {
      values.push_back(sample.value);
    }
  }
  facts.ok = static_cast<int>(values.size());
  if (!values.empty()) {
    facts.median = MedianInPlace(values);
  }
  return facts;
}

std::string FormatValue(double value) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return "0";
  double magnitude = std::fabs(value);
  if (magnitude >= 1e4) return fmt::format("{:.0f}", value);
  int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(magnitude))));
  return fmt::format("{:.{}f}", value, decimals);
}

std::string FormatChange(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); }

std::string FormatEstimate(const Estimate& e) {
  return fmt::format("{:.3f} ({}), {} CI {}, {} pairs{}", e.ratio, FormatChange(e.ratio),
                     FormatProbability(e.confidence), FormatInterval(e.low, e.high), e.pairs,
                     e.exact ? ", exact" : "");
}

std::string FormatBand(double band) { return fmt::format("±{:.1f}%", band * 100); }

std::optional<double> CalibrationDrift(const Record& record) {
  if (!record.start.calibration_ms || !record.end.calibration_ms) return std::nullopt;
  if (*record.start.calibration_ms <= 0) return std::nullopt;
  return *record.end.calibration_ms / *record.start.calibration_ms - 1;
}

bool BeyondThreshold(double change, double threshold) {
  return std::fabs(change) > threshold + 1e-9 * std::max(1.0, std::fabs(threshold));
}

std::string FormatCalibration(const Record& record) {
  auto side = [](const std::optional<double>& ms) {
    return ms ? FormatValue(*ms) + " ms" : std::string("unavailable");
  };
  std::string out =
      fmt::format("{} → {}", side(record.start.calibration_ms), side(record.end.calibration_ms));
  if (auto drift = CalibrationDrift(record)) {
    out += fmt::format(" (drift {:+.1f}%)", *drift * 100);
    if (BeyondThreshold(*drift)) {
      out += fmt::format(" WARNING: beyond ±{:.0f}%, the host changed speed during the sitting",
                         kCalibrationDriftLimit * 100);
    }
  }
  return out;
}

std::string FormatStartEnd(const std::optional<double>& start, const std::optional<double>& end,
                           std::string_view unit) {
  auto side = [&](const std::optional<double>& v) {
    if (!v) return std::string("unavailable");
    return unit.empty() ? FormatValue(*v) : fmt::format("{} {}", FormatValue(*v), unit);
  };
  return fmt::format("{} → {}", side(start), side(end));
}

std::string FormatLongerLoads(const HostState& start, const HostState& end) {
  auto side = [](const HostState& s) {
    if (!s.load5 && !s.load15) return std::string("unavailable");
    auto one = [](const std::optional<double>& v) {
      return v ? FormatValue(*v) : std::string("?");
    };
    return fmt::format("{} / {}", one(s.load5), one(s.load15));
  };
  return fmt::format("{} → {}", side(start), side(end));
}

std::string FormatMemoryAvailable(const HostState& start, const HostState& end) {
  auto mib = [](const std::optional<long>& kb) -> std::optional<double> {
    if (!kb) return std::nullopt;
    return std::round(static_cast<double>(*kb) / 1024.0);
  };
  return FormatStartEnd(mib(start.memory_available_kb), mib(end.memory_available_kb), "MiB");
}

std::string OrUnavailable(std::string_view text) {
  return text.empty() ? "unavailable" : std::string(text);
}

std::string VerdictText(const Record& record) {
  std::string out = record.verdict ? std::string(VerdictName(*record.verdict)) : "-";
  if (record.interrupted) out += " (interrupted)";
  return out;
}

std::string ArmSetup(const Arm& arm) {
  std::vector<std::string> parts;
  if (!arm.commit.empty()) parts.push_back("commit " + ShortCommit(arm.commit));
  for (const auto& [key, value] : arm.env) parts.push_back(fmt::format("{}={}", key, value));
  for (const std::string& name : arm.unset) parts.push_back("unset " + name);
  if (!arm.condition.empty()) parts.push_back(fmt::format("condition '{}'", arm.condition));
  if (parts.empty()) return "-";
  std::string out = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) out += " · " + parts[i];
  return out;
}

std::string ArmName(const Record& record, int index) {
  if (index >= 0 && static_cast<size_t>(index) < record.arms.size() &&
      !record.arms[index].name.empty()) {
    return record.arms[index].name;
  }
  return fmt::format("arm {}", index);
}

std::string RatioLabel(const Record& record) {
  if (record.arms.size() == 2) {
    return fmt::format("ratio {}/{}", ArmName(record, 1), ArmName(record, 0));
  }
  return "ratio";
}

std::string FormatHost(const HostIdentity& host) {
  return fmt::format("{}, cpu {}, {} logical cores, kernel {}", OrUnavailable(host.hostname),
                     OrUnavailable(host.cpu_model),
                     host.logical_cores > 0 ? std::to_string(host.logical_cores) : "unavailable",
                     OrUnavailable(host.kernel));
}

}  // namespace culprit

namespace culprit {

BandReading ReadAgainstBand(double low, double high, double band) {
  if (!(low > 0) || !(high > 0)) return BandReading::kUndecided;
  double tau = std::log1p(band);
  double l = std::log(low), h = std::log(high);
  if (l > tau || h < -tau) return BandReading::kEffect;
  if (-tau < l && h < tau) return BandReading::kTie;
  return BandReading::kUndecided;
}

std::string BandWord(double low, double high, double band) {
  switch (ReadAgainstBand(low, high, band)) {
    case BandReading::kTie:
      return "tie";
    case BandReading::kEffect:
      return "effect";
    case BandReading::kUndecided:
      return "undecided";
  }
  return "undecided";
}

std::string ArmsSummary(const Record& record, size_t width) {
  std::string out;
  if (record.kind == RecordKind::kBisect) {
    const BisectDetails details = BisectDetails::FromRecord(record);
    const std::string culprit = details.culprit_commit.value_or("");
    const std::string merge = details.merge.commit.value_or("");
    out = !culprit.empty() ? "culprit " + ShortCommit(culprit)
          : !merge.empty() ? "merge " + ShortCommit(merge)
                           : std::string("none named");
  } else if (std::optional<TableFacts> table =
                 record.kind == RecordKind::kTable ? ReadTableFacts(record) : std::nullopt) {
    // A table's arms are its cells: say its shape and its columns instead.
    std::vector<std::string> columns;
    for (const TableArmFacts& arm : table->arms) columns.push_back(arm.name);
    out = fmt::format("{} quer{} × {}", table->rows.size(), table->rows.size() == 1 ? "y" : "ies",
                      Join(columns, ", "));
  } else {
    for (size_t i = 0; i < record.arms.size(); ++i) {
      const Arm& arm = record.arms[i];
      // The label first: a name the user gave (compare --name), an override set, or the
      // revision as given.
      std::string name = !arm.label.empty()      ? arm.label
                         : !arm.revision.empty() ? arm.revision
                                                 : ArmName(record, static_cast<int>(i));
      if (name.size() == 40 && name.find_first_not_of("0123456789abcdef") == std::string::npos) {
        name = ShortCommit(name);
      }
      std::string median = arm.ok_samples > 0 ? " " + FormatValue(arm.median) +
                                                    (record.unit.empty() ? "" : " " + record.unit)
                                              : "";
      out += (i == 0 ? "" : " → ") + name + median;
    }
  }
  if (out.empty()) return "-";
  // Cut on a character boundary: the names may be UTF-8.
  if (out.size() > width) {
    size_t cut = width - 3;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;
    out = out.substr(0, cut) + "...";
  }
  return out;
}

MetricDirection DirectionOf(const Record& record) {
  return ComparisonDetails::FromRecord(record).better.value_or(MetricDirection::kLowerIsBetter);
}

std::string BandSentence(double ratio, double low, double high, double band, MetricDirection better,
                         std::string_view unit) {
  // In words the metric's way up: a ratio below 1 is faster for a time, worse for a
  // throughput (once "a 14.4% win" for a 14.4% drop in MB/s).
  const DirectionWords words = WordsFor(better, unit);
  const std::string change = ratio == 1
                                 ? std::string("no change")
                                 : fmt::format("{:.1f}% {}", std::fabs(ratio - 1) * 100,
                                               IsWorse(ratio, better) ? words.worse : words.better);
  switch (ReadAgainstBand(low, high, band)) {
    case BandReading::kTie:
      return fmt::format("{}, inside {}: a tie", change, FormatBand(band));
    case BandReading::kEffect:
      return fmt::format("{}, beyond {}: an effect", change, FormatBand(band));
    case BandReading::kUndecided:
      break;
  }
  return fmt::format("{}, its interval across the {} band edge: undecided", change,
                     FormatBand(band));
}

}  // namespace culprit
