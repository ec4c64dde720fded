#pragma once

// `culprit bisect run`: confirm the move in one sitting, search the range with
// the noise-aware BisectSearch (building candidates through the build cache
// and measuring each against the good build in pairs), verify the culprit
// against its parent, report and archive every step. The search's decisions
// are BisectSearch's; this file only builds, measures, saves and reports.

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "bisect/bisect_config.h"
#include "bisect/bisect_report.h"
#include "bisect/bisect_state.h"
#include "bisect/search.h"
#include "bisect/step_recorder.h"
#include "engine/file_lock.h"
#include "engine/history.h"
#include "probes/build_provider.h"
#include "probes/host.h"
#include "probes/measure_commands.h"
#include "probes/measurer.h"
#include "records/record_store.h"

namespace culprit {

struct BisectRequest {
  std::string good, bad;
  std::string query;
  bool first_parent = true;
  /// band, seed (every sitting and batch then has a reproducible order); max_pairs bounds the
  /// endpoint confirmation and the checks instead of [bisect] confirm_max_pairs.
  MeasureFlags flags;
  /// The id (or a unique prefix) of an archived sitting of good against bad on this query
  /// (investigate's step 1, a `culprit compare`): its pairs are the bisect's confirmation
  /// instead of measuring the endpoints again. Used only when it is a whole sitting of
  /// exactly these commits, this query and band, without overrides, and an EFFECT;
  /// otherwise the bisect says why and confirms in a sitting of its own.
  std::string confirmed_by;
  /// Set when this bisect searches the branch a merge brought in (BisectReport::descend of
  /// the bisect that landed on the merge): the merge's id, so that what it names is said to
  /// have come in with that merge, and a branch that does not move on its own is said to move
  /// only once merged.
  std::string descended_from;
  /// `--prove-first`: the tie that shows the earliest change is the first bad commit is
  /// sought with a budget that holds the pairs it is predicted to need (bisect/tie_plan.h),
  /// as [bisect] prove_first does.
  bool prove_first = false;
};

/// Where the bisect's state and lock live: <config dir>/.culprit/.
std::filesystem::path BisectDir(const BisectSections& config);
std::filesystem::path BisectStatePath(const BisectSections& config);

/// The engine's bisect lock (one bisect per engine at a time), or an error
/// saying another bisect holds it. Creates BisectDir if missing.
Result<FileLock> LockBisect(const BisectSections& config);

/// How BisectRunner::RunOrResume took its bisect up.
enum class BisectEntry {
  kRun,       ///< Nothing of it was saved: a new bisect (Run).
  kResumed,   ///< Saved unfinished: continued where it stopped (Resume).
  kFinished,  ///< Saved finished: its result as saved, nothing measured.
};

/// What RunOrResume did, also when the bisect ended with an error.
struct BisectAttempt {
  BisectEntry entry = BisectEntry::kRun;
  /// The bisect's report or its error. kFinished: the saved state, and a text that only names
  /// the result record (the search's outcome is not kept in the state).
  Result<BisectReport> report = Error("not run");
  /// The records the bisect archived (its state's), also when it stopped with an error, for a
  /// caller that links what was measured; empty when its state could not be read.
  std::vector<std::string> records;
};

class BisectRunner {
 public:
  /// `engine`'s parts, `host` (may be null: no calibration) and `reporter`
  /// must outlive the runner.
  BisectRunner(const BisectSections& config, BisectEngine engine, const HostProbe* host,
               BisectReporter& reporter);

  /// Starts a new bisect; an existing unfinished one is an error that says to
  /// resume or reset it. One bisect per engine at a time (a lock file). When it lands on a
  /// merge (BisectReport::descend), the branch the merge brought in is bisected next, as a
  /// bisect of its own (its state replaces the finished one's; both results are archived),
  /// and so on into nested merges, at most kMaxMergeDescents deep: the report returned is
  /// the innermost one's, its text preceded by the outer ones'.
  Result<BisectReport> Run(const BisectRequest& request);
  /// Continues the saved bisect where it stopped, descending as Run does.
  Result<BisectReport> Resume();
  /// `request`'s bisect, taken up whatever became of it before (the investigation's entry:
  /// it never reads the bisect's state itself). The bisect saved here is this one when it
  /// bisects the same good, bad (as given) and query and was started at or after
  /// `not_before` (an ISO UTC time, as BisectState::started; empty: whenever). Unfinished, it
  /// is resumed (Resume); finished, its result is returned, nothing measured; otherwise a new
  /// bisect is run (Run: an unfinished bisect of something else is Run's usage error).
  /// `starting` (may be empty) is told which of the three before anything is measured.
  BisectAttempt RunOrResume(const BisectRequest& request, std::string_view not_before,
                            const std::function<void(BisectEntry)>& starting = {});

  static constexpr int kMaxMergeDescents = 4;

 private:
  class Session;
  Result<BisectReport> RunOne(const BisectRequest& request);
  /// While `report` lands on a merge: bisects the branch it brought in with `request`'s
  /// query and flags.
  Result<BisectReport> Descend(Result<BisectReport> report, BisectRequest request);
  const BisectSections& config_;
  BisectEngine engine_;
  const HostProbe* host_;
  BisectReporter& reporter_;
};

}  // namespace culprit
