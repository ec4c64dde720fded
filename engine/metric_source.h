#pragma once

// Where `metric = "instructions"` is counted on this host, decided once per culprit
// process: by the hardware (perf_event_open, engine/instruction_counter.h) when a user-space
// instructions counter opens here, else by valgrind's cachegrind (engine/cachegrind.h).
// ll_misses and d1_misses are simulated and always come from cachegrind. The environment
// variable CULPRIT_INSTRUCTIONS=cachegrind forces cachegrind (no counter is tried), e.g. to
// compare with a record that cachegrind counted; "auto" (or unset) chooses as above.

#include <optional>
#include <string>
#include <string_view>

#include "engine/instruction_counter.h"
#include "engine/metric.h"

namespace culprit {

/// What counts a metric that is not a figure of every run.
enum class MetricSource {
  kPerfEvent,   ///< A hardware counter (instructions only).
  kCachegrind,  ///< valgrind's cachegrind.
};

/// The environment variable that forces instructions to cachegrind ("cachegrind"), or lets
/// culprit choose ("auto", the same as unset).
inline constexpr const char* kInstructionsSourceVariable = "CULPRIT_INSTRUCTIONS";

/// Where instructions come from here, and why when not from counters.
struct InstructionSourceChoice {
  MetricSource source = MetricSource::kCachegrind;
  bool forced = false;  ///< CULPRIT_INSTRUCTIONS=cachegrind: counters were not tried.
  /// Why cachegrind: the counter's errno ("ENOENT: No such file or directory") or the
  /// setting; "" for counters.
  std::string why;
  /// A line the user should see once when instructions are measured: that counters did not
  /// open here, or that the setting is not understood (and ignored). "" when nothing is odd
  /// (counters chosen, or cachegrind forced on purpose).
  std::string warning;
};

/// Chooses from `setting` (CULPRIT_INSTRUCTIONS's value; nullopt when unset) and whether a
/// counter of `counters` opens (Probe, tried only when not forced). Pure but for Probe.
InstructionSourceChoice ChooseInstructionSource(std::optional<std::string_view> setting,
                                                InstructionCounterFactory& counters);

/// ChooseInstructionSource with the real counters and culprit's environment, on the first
/// call; the same answer after it (thread-safe).
const InstructionSourceChoice& HostInstructionSource();

/// The choice's warning the first time it is asked for in this culprit process, nullopt
/// after that and when there is none: for the sample source to print once.
std::optional<std::string> TakeInstructionSourceWarning();

/// What counts `kind` on this host: HostInstructionSource() for instructions, cachegrind
/// for ll_misses and d1_misses; nullopt for every metric a run has itself.
std::optional<MetricSource> MetricSourceOf(MetricRule::Kind kind);

/// "perf_event" or "cachegrind": the value of a record's `metric_source` detail.
std::string_view MetricSourceName(MetricSource source);

/// MetricSourceName(*MetricSourceOf(kind)), "" for a metric a run has itself.
std::string MetricSourceName(MetricRule::Kind kind);

}  // namespace culprit
