#pragma once

// How a host is tuned for measuring (turbo, address randomization, isolated
// CPUs, SMT, hardware counters), as the host probe (probes/host_tuning.h)
// reads it and a record keeps it inside each HostState. A fact the host does
// not expose, or exposes in a form culprit does not know, is nullopt: printed
// "unavailable", never guessed. Plain data; the records library depends on
// nothing but base/.

#include <optional>
#include <string>

namespace culprit {

/// The host's tuning state at one moment. Every field is what one file of
/// /proc or /sys said, or nullopt when the file is absent or malformed.
struct HostTuning {
  /// /sys/devices/system/cpu/intel_pstate/no_turbo: true when turbo is off.
  std::optional<bool> turbo_disabled;
  /// /sys/devices/system/cpu/cpufreq/boost (acpi-cpufreq, amd-pstate): true when boost is on.
  std::optional<bool> boost;
  /// /proc/sys/kernel/randomize_va_space: 0 off, 1 stack and mmap, 2 also the heap (brk).
  std::optional<int> randomize_va_space;
  /// /sys/devices/system/cpu/isolated: the isolated CPUs as a kernel list, "" for none.
  std::optional<std::string> isolated_cpus;
  /// /sys/devices/system/cpu/nohz_full: the tickless CPUs, "" for none (the kernel's "(null)").
  std::optional<std::string> nohz_full;
  /// isolcpus= of /proc/cmdline as written (flags included), "" when the command line has none.
  std::optional<std::string> isolcpus;
  /// /sys/devices/system/cpu/smt/active: true when sibling hardware threads are online.
  std::optional<bool> smt_active;
  /// /sys/devices/system/cpu/smt/control: on, off, forceoff, notsupported or notimplemented.
  std::optional<std::string> smt_control;
  /// /proc/sys/kernel/perf_event_paranoid (-1 to 4; above 2 refuses unprivileged counting).
  std::optional<int> perf_event_paranoid;
  /// Whether perf_event_open counted user-space instructions of culprit itself; nullopt when
  /// it was not tried (a fake tree in tests, a record written before it was kept).
  std::optional<bool> counters_usable;
  /// Why not, when counters_usable is false: the errno's name and text ("ENOENT: ...").
  std::string counters_error;

  bool operator==(const HostTuning&) const = default;
};

/// One line for a record's reader: "ASLR 2, turbo off, SMT off, isolated 2-3, counters not
/// usable", each part "unavailable" where the host did not say; "not recorded" for a record
/// written before culprit kept the tuning (nullopt).
std::string FormatTuningSummary(const std::optional<HostTuning>& tuning);

}  // namespace culprit
