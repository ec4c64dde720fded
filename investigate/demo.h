#pragma once

// `culprit demo`: `culprit investigate` on the bundled demo engine. It creates
// the engine's history (examples/eventstore/make-history), writes its
// culprit.toml, checks the published table first (the published v1.0 table's
// queries, in the registry's order, at v1.0 and v1.3 in one table sitting of at
// most kTableBlocks blocks a row: which rows moved), and runs the ladder
// (investigate/investigation.h): the move of series.count as the registry measures it (after
// path.traverse, index resident) confirmed, the recalibrated parallelism gate probed at the bad end
// (on series.count in a fresh process: expected NULL), the bisect, the
// culprit's relevance to the scan's code path, and the "traversal index"
// residency plan on the culprit and its parent. Then it audits the engine's
// published v1.0 table (examples/eventstore/published-v1.0.json) for
// series.count at the bad end: host drift, code and order (the resident index).
// It ends with the story as it happened and how its wall time split (measured).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "investigate/audit.h"
#include "investigate/investigation.h"

namespace culprit {

struct DemoOptions {
  std::filesystem::path work_dir = "culprit-demo";
  /// culprit's examples/ directory; empty: found as investigate/demo_data.h says.
  std::filesystem::path examples_dir;
  /// Stop once the history and the demo's culprit.toml are written (nothing built or measured).
  bool stop_after_history = false;
  /// Stop once the table check is measured and shown (`--stop-after table`).
  bool stop_after_table = false;
  /// Stop once this step of the ladder is done (no story, no audit); `culprit demo` again
  /// continues where it stopped.
  std::optional<InvestigationStep> stop_after;
  int events = 0;  ///< 0: the demo config's own (1,000,000).
  /// The command line, passed down into the demo configuration's [records]: every record the
  /// demo writes says what ran (RecordsConfig::invocation).
  std::vector<std::string> invocation;
  std::string good = "v1.0", bad = "v1.3";
  /// The number that moved: series.count measured as the registry does.
  std::string query = "series.count.registry";
  /// Where the gate hypothesis is probed: the same scan in a fresh process.
  /// The gate's plan depends only on the row count, and without the resident
  /// index's background work the scan is less noisy, so a NULL settles sooner.
  std::string probe_query = "series.count";
  /// The [residency] plan isolated when the culprit is off the scan's path.
  std::string plan = "traversal index";
  /// The published number audited at the end (a query of the published table).
  std::string audit_query = "series.count";
  /// The published table's event count: with any other --events the table is not
  /// comparable, and the audit is skipped (said so).
  static constexpr int kPublishedEvents = 1000000;
  /// The table check's cap, blocks a row. A row that moves by half (series.count in the
  /// registry's order) decides at 10–12 blocks; a row near the band would need up to 160 (about
  /// four minutes for interval.join's 0.7 s runs of 3 repetitions), so the demo stops there and
  /// says which rows were left undecided and the command that decides them. Measured: the step
  /// took 20.7 s of the demo's 169.6 s (its time split, `culprit demo`, 2-core VM, 2026-12-05).
  static constexpr int kTableBlocks = 20;
};

/// Line: progress (stderr); Result: findings (stdout).
using DemoReporter = InvestigationReporter;

struct DemoReport {
  std::optional<Verdict> probe_verdict;  ///< The parallel gate probe's.
  std::string culprit_commit;            ///< Empty when the bisect named none.
  std::string culprit_subject;
  std::vector<std::string> changed_files;
  bool culprit_on_code_path = false;
  std::string isolation_conclusion;              ///< On the culprit build; empty when not isolated.
  LadderOutcome outcome = LadderOutcome::kNone;  ///< InvestigationState::outcome.
  /// The table check: its record (empty when the table was not measured in this run) and
  /// each row's verdict at the bad end (nullopt: not measured).
  std::filesystem::path table_record;
  std::vector<std::pair<std::string, std::optional<Verdict>>> table_verdicts;
  /// The audit of the published table: its factors by name ("host drift", "code",
  /// "order"), as measured; empty when it was skipped.
  std::vector<AuditFactor> audit_factors;
  std::string audit_conclusion;
  std::filesystem::path config_path;
};

/// The story's second line when the bisect named no verified culprit, from its final report
/// (`bisect_text`) and record id: its verdict line, what it said of the host (its HOST DRIFT
/// and HOST NOISE lines) and how to settle it, quoted, so that the reader sees which step was
/// left undecided and why. When the host is blamed, it says so, and how to run the demo again.
std::string UndecidedBisectStory(std::string_view bisect_text, std::string_view record,
                                 const std::filesystem::path& work_dir);

/// `--stop-after WHAT`: "history", "table" or a ladder step's name (confirm, probes, bisect,
/// relevance, isolation), into `options`. Usage error listing them.
Status ParseDemoStopAfter(std::string_view what, DemoOptions& options);

/// `build_progress` hears of every build (may be null); the demo adds up their time.
Result<DemoReport> RunDemo(const DemoOptions& options, DemoReporter& reporter,
                           BuildProgress* build_progress);

}  // namespace culprit
