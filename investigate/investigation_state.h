#pragma once

// What the investigation ladder (investigate/investigation.h) knows: the
// steps and their spellings, the request, what each finished step found, and
// the state file that keeps it across Ctrl-C, kill -9 and --resume, with the
// lock that keeps a second investigation off it.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "bisect/bisect_config.h"
#include "engine/file_lock.h"
#include "probes/measure_commands.h"
#include "records/record.h"

namespace culprit {

inline constexpr std::string_view kInvestigationStateSchema = "culprit.investigate/v1";

/// The steps, in ladder order; a request may stop after any of them.
enum class InvestigationStep { kConfirm, kProbes, kBisect, kRelevance, kIsolation };
inline constexpr std::string_view kInvestigationStepNames[] = {"confirm", "probes", "bisect",
                                                               "relevance", "isolation"};
std::string_view InvestigationStepName(InvestigationStep step);
/// Usage error listing the names.
Result<InvestigationStep> ParseInvestigationStep(std::string_view name);

/// Where an investigation is.
enum class InvestigationStatus { kRunning, kStopped, kInterrupted, kDone };
/// Whether the culprit changes code the query runs; kNotChecked before the relevance step.
enum class CulpritRelevance { kNotChecked, kOnPath, kOffPath, kUnknown };
/// How the ladder ended; kNone while it runs.
enum class LadderOutcome {
  kNone,
  kNotReproducible,
  kNotConfirmed,
  kNoCulprit,
  kOnPath,
  kRelevanceUnknown,
  kNoPlan,
  kIsolated,
};
/// The spellings in the state file, records and output: "running", "stopped",
/// "interrupted", "done"; "" (not checked), "on path", "off path", "unknown"; "" (none),
/// "not reproducible", "not confirmed", "no culprit", "on path", "relevance unknown",
/// "no plan", "isolated".
std::string_view InvestigationStatusName(InvestigationStatus status);
std::string_view CulpritRelevanceName(CulpritRelevance relevance);
std::string_view LadderOutcomeName(LadderOutcome outcome);

struct InvestigateRequest {
  std::string good, bad, query;
  /// Where the override hypotheses are probed; empty: `query`.
  std::string probe_query;
  /// [residency] plans to isolate; empty: every plan whose query is `query`.
  std::vector<std::string> plans;
  /// Stop (state saved, no investigation record) once this step is done.
  std::optional<InvestigationStep> stop_after;
  int runs_per_visit = 3;               ///< N of `run QUERY N` in the isolations.
  MeasureFlags flags;                   ///< For the confirmation, the probes and the isolations.
  std::vector<std::string> invocation;  ///< The command line, for the record.
  /// After the bisect, `culprit explain` at each change it verified against its parent;
  /// false: --no-explain (said, never a silent skip).
  bool explain = true;
};

/// The explain (investigate/explain.h) of one change the bisect verified, against its parent,
/// as the state keeps it. It never turns the ladder's verdict: a change not explained is said.
struct InvestigationExplain {
  enum class Status { kExplained, kNotRun, kFailed };
  std::string commit, parent;  ///< Full ids.
  Status status = Status::kExplained;
  std::string record_id;  ///< The explain record; empty unless explained.
  /// One line without the commit: the functions that moved most (explained), or why it was
  /// not run or how it failed.
  std::string detail;
  std::string text;  ///< Explained: the top functions as the terminal showed them.
};

/// "explained", "not run", "failed": an explain's status in the state file.
std::string_view InvestigationExplainStatusName(InvestigationExplain::Status status);

/// One finished measuring step, as the state keeps it.
struct InvestigationStepRecord {
  std::string name;  ///< Override set, or "plan on culprit|parent", or "confirm".
  std::string record_id;
  std::optional<Verdict> verdict;  ///< The step's record's.
  std::optional<double> ratio, low, high;
  std::string sentence;  ///< What it means, one line ("ruled out", a conclusion).
};

/// The saved state: what each finished step found.
struct InvestigationState {
  std::string schema = std::string(kInvestigationStateSchema);
  std::string run_id;
  InvestigationStatus status = InvestigationStatus::kRunning;
  std::string started, updated;
  InvestigateRequest request;  ///< As started (stop_after and invocation not kept).
  std::string config_digest;

  std::optional<InvestigationStepRecord> confirm;
  bool probes_done = false;
  std::vector<InvestigationStepRecord> probes;
  bool bisect_done = false;
  std::string bisect_record;
  std::vector<std::string> bisect_records;  ///< The bisect's own records (confirm, steps).
  bool bisect_found = false;
  std::string bisect_text;  ///< The bisect's final report.
  std::string culprit, culprit_subject, parent;
  std::vector<std::string> changed_files;
  /// The bisect's other verified changes the way the range moved, besides its culprit, in
  /// its order: where the ladder goes on when the culprit is on the query's path.
  struct LaterChange {
    std::string commit, parent;
  };
  std::vector<LaterChange> later_changes;
  /// The explains of the culprit and of the later changes, in that order (InvestigationExplain);
  /// done once each verified change has one, run or not.
  bool explain_done = false;
  std::vector<InvestigationExplain> explains;
  /// Set when the culprit was on the query's path and a later change was off it: the
  /// culprit as the bisect named it and why it is on the path, while `culprit`, `parent`,
  /// `changed_files` and the relevance fields describe that later change, which the ladder
  /// isolates. Empty otherwise.
  std::string on_path_culprit, on_path_subject, on_path_detail;
  bool relevance_done = false;
  CulpritRelevance relevance = CulpritRelevance::kNotChecked;
  std::string relevance_detail;
  std::vector<std::string> on_path, off_path;
  bool isolation_done = false;
  std::vector<InvestigationStepRecord> isolations;
  LadderOutcome outcome = LadderOutcome::kNone;
  std::string conclusion;  ///< A few sentences.
  std::string result_record;
  /// Records of a step that did not finish (interrupted, broken): linked too.
  std::vector<std::string> partial_records;
  /// Measured wall time per step in milliseconds (across resumes: summed).
  std::vector<std::pair<std::string, long long>> step_wall_ms;
};

std::string InvestigationStateToJson(const InvestigationState& state);
Result<InvestigationState> InvestigationStateFromJson(std::string_view json,
                                                      std::string_view source);

/// <config dir>/.culprit/investigate.json
std::filesystem::path InvestigationStatePath(const BisectSections& config);

/// The saved state, or nullopt when there is none.
Result<std::optional<InvestigationState>> LoadInvestigationState(const BisectSections& config);

/// Removes the saved state (records stay), under the investigation lock: an
/// investigation that is running keeps its state, and this is an error.
Status DiscardInvestigationState(const BisectSections& config);

/// <config dir>/.culprit/investigate.lock
std::filesystem::path InvestigationLockPath(const BisectSections& config);

/// The lock an investigation holds while it runs, so that a second one (or a
/// `--resume` or `--restart` of the same) cannot take over its state; released
/// when the FileLock is destroyed or the process dies. Held elsewhere, also by
/// another FileLock in this process: the error "another culprit investigate
/// holds the lock (pid N)" (the pid when the holder wrote it in the lock file).
/// RunInvestigation, ResumeInvestigation and DiscardInvestigationState take it.
Result<FileLock> LockInvestigation(const BisectSections& config);

/// A finished measuring step as the state keeps it, from the step's record:
/// its id, verdict and estimate (ratio, low, high); the sentence is left empty.
InvestigationStepRecord StepFromRecord(std::string name, const Record& record);

}  // namespace culprit
