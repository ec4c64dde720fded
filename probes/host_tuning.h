#pragma once

// The host's tuning state (records/host_tuning.h): reading it from /proc and
// /sys, the `culprit host` section that prints it with one line of advice per
// item, what differs between the tuning two records ran under, and the CPUs a
// [measure] cpus list may name. Reading changes nothing on the host.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/metric_source.h"
#include "engine/process.h"
#include "records/host_tuning.h"
#include "records/record.h"

namespace culprit {

/// A kernel CPU list ("0-3,5,7-8") as the CPUs it names, ascending; "" names none.
/// nullopt when malformed (a word, a reversed range, a negative number).
std::optional<std::vector<int>> ParseCpuList(std::string_view list);

/// `cpus` as a kernel CPU list, ranges folded ("0-3,5"); "" for none.
std::string FormatCpuList(std::vector<int> cpus);

/// Reads the tuning under `root` (tests point it at a fake tree holding
/// proc/sys/kernel/{randomize_va_space,perf_event_paranoid}, proc/cmdline and
/// sys/devices/system/cpu/{isolated,nohz_full,smt/active,smt/control,
/// intel_pstate/no_turbo,cpufreq/boost}). Each absent or malformed file leaves
/// its field nullopt. `try_counters`: also open an instruction counter
/// (TryInstructionCounter); the real host probe passes true only for "/".
HostTuning ReadHostTuning(const std::filesystem::path& root, bool try_counters);

/// Whether perf_event_open counts user-space instructions of this process
/// (RealInstructionCounterFactory::Probe, engine/instruction_counter.h: opens
/// PERF_COUNT_HW_INSTRUCTIONS, kernel and hypervisor excluded, on itself, disabled, and
/// closes it at once). Sets tuning->counters_usable, and counters_error to the errno's
/// name and text when it fails.
void TryInstructionCounter(HostTuning* tuning);

/// The "tuning" section of `culprit host`: governor, turbo, ASLR, isolated
/// CPUs, SMT, counters, metric sources (ProbeMetricSources, FormatMetricSources: the one
/// item that looks at the host now) and load, each with its value ("unavailable" where the
/// host does not say) and one line of advice (what to change and how). For
/// ASLR the advice is culprit's own `[measure] aslr = false`, which changes
/// nothing outside the measured runs. Ends with a newline.
std::string FormatHostTuning(const HostIdentity& identity, const HostState& snapshot);

/// Where this host's instructions and simulated cache misses come from (the metrics
/// "instructions", "ll_misses", "d1_misses"): instructions from a hardware counter when one
/// opens here (HostInstructionSource, engine/metric_source.h), else like the two others
/// from valgrind's cachegrind when valgrind is found on PATH (its path and `--version`).
struct MetricSources {
  InstructionSourceChoice instructions;  ///< perf_event or cachegrind, and why.
  std::string valgrind;                  ///< Its path; "" when not found.
  std::string valgrind_version;          ///< "valgrind-3.19.0"; "" when it did not say.
  std::string missing;                   ///< Why valgrind is unavailable, when it is.
};

/// The host's instruction source, and valgrind on PATH and its version (runs
/// `valgrind --version`).
MetricSources ProbeMetricSources();

/// The "metric sources" item of `culprit host`: the source of each of those metrics here
/// ("instructions: perf_event (hardware counter, user space)", or cachegrind with why the
/// counters are not used: their errno, or CULPRIT_INSTRUCTIONS=cachegrind), and one line
/// of advice. Pure. Ends with a newline.
std::string FormatMetricSources(const MetricSources& sources);

/// What differs between the tuning two sittings ran under (their start
/// snapshots and their records' measured-run placement), one sentence each,
/// saying which record had what; empty when nothing known differs. A fact one
/// record lacks (written before it was kept, or unavailable on its host) is
/// not a difference: it is said once, as unknown, when the other has it.
std::vector<std::string> TuningDifferences(const Record& then, const Record& now);

/// The same from two start snapshots and the placements their runs had.
std::vector<std::string> TuningDifferences(const HostState& then, const RunPlacement& then_runs,
                                           const HostState& now, const RunPlacement& now_runs);

/// Writes where the measured runs ran into `record`'s details: "cpus" (a CPU
/// list, or "any") and "aslr" ("on" or "off"). A record without them ran
/// unpinned with ASLR as the host had it: no culprit before these keys
/// changed either.
void RecordPlacement(const RunPlacement& placement, Record* record);

/// The placement a record's details say its measured runs had (RecordPlacement's
/// inverse); the default placement for a record without them.
RunPlacement PlacementOfRecord(const Record& record);

/// Checks that every CPU of a [measure] cpus list exists on this host (is in
/// /sys/devices/system/cpu/online under `root`) and that culprit may run there
/// (sched_getaffinity of this process; only with the real root). Errors say
/// which CPU and which CPUs there are; the caller adds the file position.
Status CheckCpusUsable(const std::vector<int>& cpus, const std::filesystem::path& root = "/");

}  // namespace culprit
