#pragma once

// A query's metric: the number one run of it yields. The process wall time, a
// figure the kernel counts of every run (CPU time, peak RSS, page faults,
// context switches), or a number the engine prints (found by a regex, or a JSON
// field). [queries] metric settings are read straight into a MetricRule
// (engine/engine_config.h).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/process.h"

namespace culprit {

/// The longest stdout line a metric regex is tried on. libstdc++'s regex
/// matcher recurses once per byte a repetition consumes: on an 8 MB stack
/// /.*x=([0-9]+)/ overflowed on a line of 26 KB (-O2; 22 KB under ASan and
/// UBSan at -Og), /(.)*x=([0-9]+)/ on one of 13.5 KB (-O2). 4096 bytes stay 3x
/// below the worst of these; no metric line is near this long.
inline constexpr size_t kMaxRegexLineBytes = 4096;

/// How to take a query's metric from one run.
struct MetricRule {
  enum class Kind {
    kWall,   ///< The process wall time in ms (ProcessResult::wall_ms).
    kRegex,  ///< `pattern` is an ECMAScript regex with at least one capture group.
    kJson,   ///< `pattern` is a dotted path into a JSON object, e.g. "result.ms" or "runs.0.ms".
    // The resource figures of the run's processes (rusage, ProcessResult), in fixed units:
    kCpu,          ///< user_ms + system_ms, in ms.
    kMaxRss,       ///< max_rss_kb, in KiB (an unknown peak is a failed sample).
    kMinorFaults,  ///< minor_faults, a count.
    kMajorFaults,  ///< major_faults, a count.
    kCtxSwitches,  ///< voluntary_switches + involuntary_switches, a count.
    // Counted over the run's process tree by a run of their own (engine/metric_source.h):
    // instructions by a hardware counter where one opens (engine/instruction_counter.h),
    // else like the two others by valgrind's cachegrind (engine/cachegrind.h).
    kInstructions,  ///< Instructions executed in user space (cachegrind: Ir), a count.
    kLlMisses,      ///< Simulated last-level data-cache misses (DLmr + DLmw), a count.
    kD1Misses,      ///< Simulated first-level data-cache misses (D1mr + D1mw), a count.
  };
  Kind kind = Kind::kWall;
  std::string pattern;
  /// Wall time only: the query's unit per millisecond (1000 for "us").
  double wall_units_per_ms = 1.0;
};

/// A metric named by one word: wall time and the resource figures. `name` is its spelling in
/// culprit.toml (`metric = "cpu"`), after --metric and in records; `unit` is the unit it is
/// always in ("" for wall, whose unit is the query's: WallUnitsPerMillisecond).
struct NamedMetric {
  MetricRule::Kind kind;
  std::string_view name;
  std::string_view unit;
};
inline constexpr NamedMetric kNamedMetrics[] = {
    {MetricRule::Kind::kWall, "wall", ""},
    {MetricRule::Kind::kCpu, "cpu", "ms"},
    {MetricRule::Kind::kMaxRss, "max_rss", "KiB"},
    {MetricRule::Kind::kMinorFaults, "minor_faults", "faults"},
    {MetricRule::Kind::kMajorFaults, "major_faults", "faults"},
    {MetricRule::Kind::kCtxSwitches, "ctx_switches", "switches"},
};
/// The named metrics a run has only when it is counted on its own: under valgrind's
/// cachegrind (engine/cachegrind.h), or for instructions by a hardware counter where one
/// opens (engine/metric_source.h): not figures of every run, so never secondary figures of
/// a sitting on another metric. Named like kNamedMetrics' (ParseNamedMetric reads both tables).
inline constexpr NamedMetric kCachegrindMetrics[] = {
    {MetricRule::Kind::kInstructions, "instructions", "instructions"},
    {MetricRule::Kind::kLlMisses, "ll_misses", "misses"},
    {MetricRule::Kind::kD1Misses, "d1_misses", "misses"},
};

/// Whether a metric repeats to within a small fraction of itself from run to run of the same
/// program and input, so that the near-deterministic verdict rule may decide on it
/// (probes/verdict.h, DecideNearDeterministic): instructions only. Simulated cache misses
/// depend on where the program's data lands, which ASLR moves, so they keep the usual rules.
bool IsNearDeterministicMetric(MetricRule::Kind kind);

/// The kind named `name` (exact spelling, kNamedMetrics or kCachegrindMetrics), or nullopt.
std::optional<MetricRule::Kind> ParseNamedMetric(std::string_view name);
/// Every name of kNamedMetrics then kCachegrindMetrics, in order: for messages and
/// did-you-mean.
std::vector<std::string> NamedMetricNames();
/// The name of a named kind; "" for regex and json.
std::string_view NamedMetricName(MetricRule::Kind kind);
/// The unit a resource or cachegrind metric is always in ("ms", "KiB", "faults", "switches",
/// "instructions", "misses"); nullopt for wall, regex and json, whose unit is the query's.
std::optional<std::string_view> FixedMetricUnit(MetricRule::Kind kind);

/// For a wall-time metric in `unit`: how many of it make a millisecond.
/// Accepts "ns", "us", "µs", "ms" and "s"; anything else is an error (a wall
/// time reported as "ops/s" would be a lie), with the accepted units.
Result<double> WallUnitsPerMillisecond(std::string_view unit);

/// What makes a rule unusable, found before any run.
enum class MetricRuleProblem {
  kNone,
  kRegexInvalid,       ///< The regex does not compile (ECMAScript).
  kRegexWithoutGroup,  ///< It compiles but has no capture group around the number.
  kJsonPathInvalid,    ///< The JSON path is empty or has an empty component ("a..b", ".a").
};

/// The one rule for a metric, used by the configuration (which words the
/// problem with its file position) and by ExtractMetric. `detail`, when not
/// null, receives the regex compiler's message for kRegexInvalid.
MetricRuleProblem CheckMetricRule(const MetricRule& rule, std::string* detail = nullptr);

/// The sample's value in the query's unit:
/// - wall: result.wall_ms, converted with rule.wall_units_per_ms;
/// - cpu, max_rss, minor_faults, major_faults, ctx_switches: the figure the rule's kind names,
///   in its fixed unit. A figure of 0 is an error, not a sample: a ratio needs a positive
///   number, and a peak RSS of 0 means the kernel's figure was not the child's own (see
///   ProcessResult::max_rss_kb); the message says which;
/// - instructions, ll_misses, d1_misses: an error, always: they are counted by a run of their
///   own (RunCounted, engine/instruction_counter.h, or RunUnderCachegrind,
///   engine/cachegrind.h; engine/metric_source.h says which), not read from a run;
/// - regex: the first capture group of the first match, tried line by line over
///   stdout (so ^ and $ anchor at line ends), parsed as a double;
/// - json: stdout parsed as one JSON document, or else the last line of stdout
///   that parses as a JSON object; then the dotted path is followed (a numeric
///   component indexes an array) to a number.
/// A regex is not tried on a line longer than kMaxRegexLineBytes (libstdc++'s
/// matcher recurses per byte and would overflow the stack), and JSON nested
/// deeper than kMaxJsonDepth (base/json_text.h) is not read: when the metric is
/// then not found, the error says so, with the limit.
/// A run that did not succeed (!result.ok()) has no metric: the error says how
/// it ended and shows the tail of its stderr. A run whose output lacks the
/// metric is an error that shows the tail of its stdout, e.g.
/// "no match for /median_ms=([0-9.]+)/ in the output; last lines:\n...".
/// Such errors mean a failed sample, never a number.
Result<double> ExtractMetric(const MetricRule& rule, const ProcessResult& result);

/// "wall time", "CPU time (user + system)", "/median_ms=([0-9.]+)/", "JSON field 'result.ms'":
/// for messages.
std::string DescribeMetricRule(const MetricRule& rule);

}  // namespace culprit
