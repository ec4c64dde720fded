#pragma once

// Host state: who the host is (identity) and how it is doing right now
// (a HostState, records/record.h), recorded with every sitting and printed by
// `culprit host`.
// Everything is read from /proc, /sys and uname. A source the host does not
// expose is std::nullopt, "" or 0, printed "unavailable" — never a guess and
// never an error: a host without cpufreq can still be measured.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "records/record.h"

namespace culprit {

/// Reads host state. An interface so tests (and callers' tests) can fake it.
class HostProbe {
 public:
  virtual ~HostProbe() = default;
  virtual HostIdentity Identity() const = 0;
  /// Reads load, frequency, governor and memory before calibrating, so the
  /// calibration loop's own CPU use is not in the load it reports.
  /// `calibrate`: also run RunCalibrationLoop (about 150 ms).
  virtual HostState Snapshot(bool calibrate) const = 0;
};

/// The machine identity a record keeps: "m-" and 16 hex digits of a 64-bit FNV-1a digest
/// of `machine_id` (the content of /etc/machine-id) with a culprit-specific prefix, so that
/// records never carry the id itself (systemd asks applications not to expose it); "" for
/// an empty id.
std::string MachineIdDigest(std::string_view machine_id);

/// Reads the real host. `root` lets tests point it at a fake tree containing
/// etc/machine-id (else var/lib/dbus/machine-id),
/// proc/loadavg, proc/cpuinfo, proc/meminfo, proc/vmstat, proc/sys/kernel/{hostname,
/// ostype,osrelease}, sys/devices/system/cpu/online and
/// sys/devices/system/cpu/cpu0/cpufreq/{scaling_cur_freq,scaling_governor}, and
/// the tuning files of ReadHostTuning (probes/host_tuning.h), into each snapshot.
/// Only with the real root ("/") does it fall back to uname() and the C++
/// runtime's core count, so a fake tree never mixes in the real host.
std::unique_ptr<HostProbe> MakeRealHostProbe(std::filesystem::path root = "/");

/// Warnings about one snapshot, each saying what to do: load above the core
/// count, a frequency governor other than "performance", little available
/// memory, swap in use while memory is short. A host that does not expose
/// frequency gets no warning (FormatHostReport says "unavailable").
std::vector<std::string> HostWarnings(const HostIdentity& identity, const HostState& snapshot);

/// The warning a sitting gives as it starts when the load is already at or above the core
/// count (every core has a runnable task: each run waits for one), or nullopt.
std::optional<std::string> LoadAtStartWarning(const HostIdentity& identity, const HostState& start);

/// Warnings about what changed between a sitting's start and end snapshots:
/// swapping during the sitting, a governor change, a scaling_cur_freq change
/// of more than 10%, a tuning change (TuningDifferences of probes/host_tuning.h), load at or
/// above the core count at the start (LoadAtStartWarning) or, failing that, at the end.
std::vector<std::string> HostChangeWarnings(const HostIdentity& identity, const HostState& start,
                                            const HostState& end);

/// The `culprit host` report as text lines (identity, snapshot, warnings),
/// "unavailable" for anything missing. Ends with a newline.
std::string FormatHostReport(const HostIdentity& identity, const HostState& snapshot,
                             const std::vector<std::string>& warnings);

}  // namespace culprit
