#pragma once

// Instructions of a query's process tree counted by the hardware, where the host has a
// counter: the source of `metric = "instructions"` when one opens here (metric_source.h
// decides). One counted run is the query started by SpawnHeld (engine/spawn.h): the child
// waits on a pipe before exec while culprit opens a counter on its pid with
// perf_event_open (PERF_COUNT_HW_INSTRUCTIONS, user space only: exclude_kernel and
// exclude_hv; inherit, so that the processes it starts count too; enable_on_exec, so that
// nothing of culprit's own, before the exec, counts), then lets it exec; the count is read
// once the child is reaped, when every descendant that exited has folded its count in.
// Behind a narrow interface (InstructionCounterFactory) so that tests run the
// synchronisation with a fake counter on hosts without one.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "engine/process.h"

namespace culprit {

/// What one read() of a counter gave: the count and the read format's two times
/// (PERF_FORMAT_TOTAL_TIME_ENABLED, PERF_FORMAT_TOTAL_TIME_RUNNING), in ns.
struct CounterReading {
  uint64_t value = 0;
  uint64_t time_enabled = 0;
  uint64_t time_running = 0;
  size_t bytes = 0;  ///< How many bytes read() returned: kCounterReadingBytes when whole.
};

/// The size of a whole reading: three 64-bit numbers.
inline constexpr size_t kCounterReadingBytes = 3 * sizeof(uint64_t);

/// The instructions a reading says, or why it says none (a failed sample, never a guess):
/// a short read; a counter never enabled (time_enabled 0: the program never exec'd); a
/// counter that was multiplexed (time_running != time_enabled: it counted only part of the
/// run, and a scaled estimate is not a count); a count of 0 (a ratio needs a positive one).
Result<double> InstructionsOfReading(const CounterReading& reading);

/// One counter opened on one child.
class InstructionCounter {
 public:
  virtual ~InstructionCounter() = default;
  /// Reads the count so far (after the child and its descendants are reaped: all of it).
  virtual Result<CounterReading> Read() = 0;
};

/// Opens counters: the real one (perf_event_open) or a test's fake.
class InstructionCounterFactory {
 public:
  virtual ~InstructionCounterFactory() = default;
  /// Whether a counter opens on this host: opens one on culprit itself, disabled, and
  /// closes it. The error is the errno's name and text ("ENOENT: No such file or
  /// directory"), nothing else.
  virtual Status Probe() = 0;
  /// Opens a counter on `pid`, a child that has not exec'd yet (SpawnHeld's gate holds it).
  virtual Result<std::unique_ptr<InstructionCounter>> OpenOnChild(int pid) = 0;
};

/// perf_event_open: PERF_TYPE_HARDWARE / PERF_COUNT_HW_INSTRUCTIONS, exclude_kernel,
/// exclude_hv; on a child also inherit and enable_on_exec (disabled until its exec).
class RealInstructionCounterFactory final : public InstructionCounterFactory {
 public:
  Status Probe() override;
  Result<std::unique_ptr<InstructionCounter>> OpenOnChild(int pid) override;
};

/// The errno's name ("ENOENT", "EACCES", ...: glibc's strerrorname_np); "errno N" when glibc has
/// none.
std::string ErrnoName(int error);

/// One counted run of a query.
struct CountedRun {
  /// The run itself (started by SpawnHeld): its exit status, output, wall time, rusage.
  ProcessResult process;
  std::optional<double> value;  ///< The instructions, when the run succeeded and had them.
  /// Why there is no value: how the run ended with the tail of its stderr, that the counter
  /// did not open, or what was wrong with its reading. "" when there is a value.
  std::string failure;
};

/// Runs `spec` with a counter from `counters` opened on it before its exec (SpawnHeld), and
/// reads the count after it is reaped. Never falls back to another figure: a run whose
/// counter fails to open, reads short or was multiplexed has no value.
CountedRun RunCounted(const ProcessSpec& spec, InstructionCounterFactory& counters);

}  // namespace culprit
