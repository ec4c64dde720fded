#include "engine/metric_source.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>

#include "engine/cachegrind.h"

namespace culprit {

InstructionSourceChoice ChooseInstructionSource(std::optional<std::string_view> setting,
                                                InstructionCounterFactory& counters) {
  InstructionSourceChoice choice;
  if (setting == "cachegrind") {
    choice.forced = true;
    choice.why = fmt::format("{}=cachegrind", kInstructionsSourceVariable);
    return choice;
  }
  std::string ignored;
  if (setting && !setting->empty() && *setting != "auto") {
    ignored = fmt::format("{}='{}' is neither 'cachegrind' nor 'auto', and is ignored; ",
                          kInstructionsSourceVariable, *setting);
  }
  Status probe = counters.Probe();
  if (probe) {
    choice.source = MetricSource::kPerfEvent;
    if (!ignored.empty()) choice.warning = ignored + "instructions come from hardware counters";
    return choice;
  }
  choice.why = probe.error().message();
  choice.warning = fmt::format(
      "{}instructions come from valgrind's cachegrind (many times slower than a run alone): "
      "no hardware instruction counter opens here ({})",
      ignored, choice.why);
  return choice;
}

const InstructionSourceChoice& HostInstructionSource() {
  static const InstructionSourceChoice choice = [] {
    RealInstructionCounterFactory counters;
    const char* setting = std::getenv(kInstructionsSourceVariable);
    return ChooseInstructionSource(
        setting != nullptr ? std::optional<std::string_view>(setting) : std::nullopt, counters);
  }();
  return choice;
}

std::optional<std::string> TakeInstructionSourceWarning() {
  static std::atomic<bool> taken{false};
  const InstructionSourceChoice& choice = HostInstructionSource();
  if (choice.warning.empty() || taken.exchange(true)) return std::nullopt;
  return choice.warning;
}

std::optional<MetricSource> MetricSourceOf(MetricRule::Kind kind) {
  if (kind == MetricRule::Kind::kInstructions) return HostInstructionSource().source;
  if (IsCachegrindMetric(kind)) return MetricSource::kCachegrind;
  return std::nullopt;
}

std::string_view MetricSourceName(MetricSource source) {
  return source == MetricSource::kPerfEvent ? "perf_event" : "cachegrind";
}

std::string MetricSourceName(MetricRule::Kind kind) {
  std::optional<MetricSource> source = MetricSourceOf(kind);
  return source ? std::string(MetricSourceName(*source)) : std::string();
}

}  // namespace culprit
