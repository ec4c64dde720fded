#pragma once

// One archived result: what was asked (kind, query, hypothesis), what was
// measured (arms and every raw sample in execution order), under which host
// conditions, and what was concluded. The records library gets plain data and
// depends on nothing but base/, so every folder above it can write records.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "records/host_tuning.h"
#include "records/verdict.h"

namespace culprit {

/// The schema this culprit writes and the only one it reads.
inline constexpr std::string_view kRecordSchema = "culprit.record/v1";

/// The kinds of record culprit writes.
enum class RecordKind {
  kProbe,
  kCompare,
  kBisect,
  kBisectStep,
  kIsolate,
  kAudit,
  kRun,
  kInvestigation,
  kTable,  ///< `culprit table`: every cell of a table in one sitting (records/table_payload.h).
  kSweep,  ///< `culprit sweep`: commits of a range in one table sitting (records/sweep_payload.h).
  /// `culprit explain`: a change's per-function instruction diff (records/explain_payload.h).
  kExplain,
  /// `culprit bisect run -q A -q B ...`: several queries bisected over one range, each its own
  /// `bisect` record, linked (records/multi_bisect_payload.h).
  kMultiBisect,
};
inline constexpr RecordKind kAllRecordKinds[] = {
    RecordKind::kProbe,   RecordKind::kCompare, RecordKind::kBisect,  RecordKind::kBisectStep,
    RecordKind::kIsolate, RecordKind::kAudit,   RecordKind::kRun,     RecordKind::kInvestigation,
    RecordKind::kTable,   RecordKind::kSweep,   RecordKind::kExplain, RecordKind::kMultiBisect};

/// "probe", "compare", "bisect", "bisect-step", "isolate", "audit", "run", "investigation",
/// "table", "sweep", "explain", "multi-bisect":
/// the spelling in record files, file names and output.
std::string_view RecordKindName(RecordKind kind);
/// Inverse of RecordKindName (exact spelling); nullopt for anything else.
std::optional<RecordKind> ParseRecordKind(std::string_view name);
/// Prints RecordKindName, for GoogleTest's messages.
void PrintTo(RecordKind kind, std::ostream* out);

/// One measured value, in execution order across the whole sitting.
struct Sample {
  int sequence = 0;  ///< 0-based order of execution in the sitting.
  int arm = 0;       ///< Index into Record::arms.
  int pair = -1;     ///< Pair number; -1 for warm-up or unpaired.
  bool warmup = false;
  bool ok = true;       ///< false: a failed sample; `value` is meaningless and not written.
  double value = 0;     ///< In Record::unit.
  std::string failure;  ///< Why it failed (timed out, crashed, no metric ...).
  bool dropped =
      false;  ///< Excluded from statistics (its pair failed, or balance); kept for honesty.
  /// A timed-out run: not ok, yet in the statistics as a censored observation ("slower than
  /// `value`", the timeout in the query's unit, or 0 when the metric has no such bound).
  bool censored = false;
  double wall_ms = 0, user_ms = 0, system_ms = 0;
  long max_rss_kb = 0;  ///< 0: unknown (engine/process.h says when).
  /// Page faults (minor, major) and context switches (voluntary, involuntary) of the run's
  /// processes, as the kernel counted them (engine/process.h). nullopt: not known, for a
  /// sample with no process of its own (an in-process harness run) or a record written
  /// before they were kept; written as null, never as a made-up 0.
  std::optional<long> minor_faults, major_faults, voluntary_switches, involuntary_switches;

  bool operator==(const Sample&) const = default;
};

/// One side of a comparison: a build, an environment, a condition.
struct Arm {
  std::string name;   ///< "A"/"B", or "default"/"PARALLEL=1", or a residency condition.
  std::string label;  ///< Free text for people ("good", "culprit's parent" ...).
  std::string commit, tree, revision;      ///< Build commit id, its tree id, the revision as given.
  std::map<std::string, std::string> env;  ///< Variables set for this arm.
  std::vector<std::string> unset;          ///< Variables removed for this arm.
  /// What this arm's runs saw of every variable any arm of the sitting sets
  /// or removes (the query's env and the overrides): the value, inherited
  /// from culprit's environment where the arm did not set it; a variable
  /// absent here was unset. So `SLOW=1 culprit probe --unset SLOW` records
  /// SLOW=1 for the default arm, which ran with it.
  std::map<std::string, std::string> effective_env;
  std::string condition;             ///< Residency condition, if any.
  std::vector<std::string> command;  ///< The argv that was measured.
  double median = 0;                 ///< Of the samples the statistics used.
  int ok_samples = 0;
  int failed_samples = 0;

  bool operator==(const Arm&) const = default;
};

/// How fast and how busy the host is at one moment (the start or end of a
/// sitting), as the host probe (probes/host.h) reads it and a record keeps it.
/// Absent facts stay absent: reporters print "unavailable", never a guess.
struct HostState {
  std::optional<double> calibration_ms;  ///< Median calibration loop, when asked for.
  std::optional<double> load1;           ///< /proc/loadavg.
  /// scaling_cur_freq of cpu0, else the first "cpu MHz" of /proc/cpuinfo.
  std::optional<double> cpu_mhz;
  std::string governor;  ///< cpu0's scaling_governor, or "".
  std::string time;      ///< UTC, ISO 8601 ("2025-01-31T12:00:00Z").
  std::optional<double> load5, load15;
  std::optional<long> memory_available_kb;  ///< /proc/meminfo MemAvailable.
  std::optional<long> swap_used_kb;         ///< SwapTotal - SwapFree.
  /// Turbo, ASLR, isolated CPUs, SMT, counters (records/host_tuning.h); nullopt in a record
  /// written before culprit kept them, and from a probe that does not read them.
  std::optional<HostTuning> tuning;

  // Read for the host probe's warnings during a sitting; records do not keep
  // them (a record read back has them empty).
  /// Where cpu_mhz came from: "scaling_cur_freq", "/proc/cpuinfo" or "".
  /// /proc/cpuinfo on a virtual machine is the nominal clock, not the current one.
  std::string cpu_mhz_source;
  /// Pages swapped in and out since boot (/proc/vmstat pswpin, pswpout). Only
  /// the difference between two snapshots means anything.
  std::optional<uint64_t> swap_in_pages, swap_out_pages;

  bool operator==(const HostState&) const = default;
};

/// Which machine, as the host probe (probes/host.h) reads it and a record keeps it; does not
/// change during a sitting. Empty strings, 0 and nullopt mean unknown.
struct HostIdentity {
  std::string hostname, cpu_model, kernel;
  int logical_cores = 0;                    ///< Online logical CPUs.
  std::optional<uint64_t> memory_total_kb;  ///< /proc/meminfo MemTotal.
  /// A stable identity of the machine that survives a renamed host and tells apart two
  /// hosts of one name: MachineIdDigest of /etc/machine-id; "" when the host has none (and
  /// in records written before it was kept). Last, so that brace-initialized identities
  /// written before it still mean what they say.
  std::string machine_id;

  bool operator==(const HostIdentity&) const = default;
};

/// The ratio B/A with its confidence interval.
struct Estimate {
  double ratio = 1, low = 1, high = 1;
  double confidence = 0.95;
  int pairs = 0;
  bool exact = false;  ///< The interval came from the exact distribution.
  std::string method;  ///< E.g. "paired Hodges-Lehmann"; may be empty.

  bool operator==(const Estimate&) const = default;
};

struct Record {
  std::string schema = std::string(kRecordSchema);
  std::string id;
  RecordKind kind = RecordKind::kProbe;
  std::string time;  ///< ISO 8601 UTC, see records/timestamp.h.
  std::string query;
  std::string unit;
  std::string hypothesis;
  std::optional<Verdict> verdict;  ///< nullopt: the kind concludes nothing (run, a bisect step).
  std::string verdict_detail;
  std::optional<Estimate> estimate;
  double band = 0.05;
  std::vector<Arm> arms;
  std::vector<Sample> samples;  ///< Every raw sample, in execution order.
  HostState start, end;
  HostIdentity host;
  std::string culprit_version;
  std::string config_digest;
  std::vector<std::string> invocation;  ///< The culprit command line that produced it.
  bool interrupted = false;             ///< Ctrl-C: the samples are those taken before it.
  std::vector<std::string> notes;
  std::vector<std::string> links;              ///< Ids of related records.
  std::map<std::string, std::string> details;  ///< Kind-specific scalar facts ("culprit_commit").
  /// Kind-specific structured payload as JSON text (an object or array), may be
  /// empty. It is embedded in the file as JSON, so it reads back in compact form.
  std::string details_json;

  /// details[key], or "" when the record holds no such fact.
  std::string Detail(const std::string& key) const;

  bool operator==(const Record&) const = default;
};

/// The record as pretty JSON with a stable key order; each sample on one line
/// so that long sittings stay readable in a diff.
std::string RecordToJson(const Record& record);

/// What `culprit host --json` prints: {"schema": "culprit.host/v1", "host", "state",
/// "warnings"}, the host and state encoded as in a record.
std::string HostToJson(const HostIdentity& host, const HostState& state,
                       const std::vector<std::string>& warnings);

/// Parses a record. `source_name` (usually the file path) starts every error:
///   "FILE: schema 'culprit.record/v7' is not supported by this culprit (reads
///    culprit.record/v1); upgrade culprit"
///   "FILE: damaged record: <parse error or the field that is wrong>"
/// Unknown fields are ignored; missing optional fields take their defaults.
Result<Record> RecordFromJson(std::string_view json, std::string_view source_name);

}  // namespace culprit
