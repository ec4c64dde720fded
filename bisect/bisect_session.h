#pragma once

// BisectRunner::Session: one bisect from start (or resume) to its end, the ladder's state
// while it runs. Declared here so that bisect_runner.cc holds the ladder's steps alone;
// internal to bisect/ (only bisect_runner.cc includes it).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bisect/bisect_budget.h"
#include "bisect/bisect_report.h"
#include "bisect/bisect_runner.h"
#include "bisect/bisect_state.h"
#include "bisect/handover_progress.h"
#include "bisect/search.h"
#include "bisect/step_recorder.h"
#include "bisect/tie_plan.h"
#include "engine/file_lock.h"
#include "probes/comparison.h"
#include "probes/shared_runs.h"

namespace culprit {

// One bisect from start (or resume) to its end: owns the lock, the state and
// the search while it runs.
class BisectRunner::Session {
 public:
  Session(const BisectSections& config, BisectEngine engine, const HostProbe* host,
          BisectReporter& reporter, FileLock lock)
      : config_(config),
        engine_(engine),
        host_(host),
        reporter_(reporter),
        lock_(std::move(lock)),
        store_(config.records),
        recorder_(config, engine, host, reporter, store_) {}

  Result<BisectReport> Start(const BisectRequest& request);
  Result<BisectReport> Continue(BisectState state);

 private:
  /// Query and sitting options, `flags` applied (and validated) over [measure].
  Status Prepare(const MeasureFlags& flags);
  Status Save();
  Result<BisectReport> Confirm();
  /// The archived sitting `record` as the confirmation, when it is one of the endpoints that
  /// found the move (ConfirmationMismatch); otherwise says why and confirms in a sitting.
  Result<BisectReport> AdoptConfirmation(const Record& record);
  /// The endpoints moved (`record`, its kept pairs' log ratios `d`): segment 0 and the
  /// whole range's search, seeded with `d`.
  Result<BisectReport> Confirmed(const Record& record, int pairs_kept, std::vector<double> d,
                                 BisectStepLog log);
  Result<BisectReport> Search();
  /// Gives the search a measured batch of `action`: its pairs as the search sees them
  /// (AsSearched), as a verification or as an observation of the commit.
  void FeedSearch(const Action& action, const Batch& batch);
  /// `d` (log ratios as measured) as the active search sees them: a slowdown positive, the
  /// sign flipped for a search that looks for a speed-up (ActiveSearchesForSpeedup).
  std::vector<double> AsSearched(std::vector<double> d) const;
  /// The active segment's search is done: its outcome is kept, and the parts of its
  /// segment a verified change leaves unexplained are added, unchecked.
  Result<BisectReport> SegmentDone();
  /// Checks the unchecked segments one by one; searches one that moves, either way (while
  /// the budget of changes lasts); finishes when nothing is left.
  Result<BisectReport> Advance();
  Result<BisectReport> StartSegmentSearch(int k, std::vector<double> d);
  /// Whether the active part's move is to be measured again (Recheck) before its search goes
  /// on: a part a check found moving (not the whole range, which the user's endpoints and the
  /// confirmation vouch for), not re-checked yet, whose search has turned wary
  /// (BisectSearch::Wary: a verification did not hold), with pairs left for a sitting.
  bool RecheckDue() const;
  /// The active part's ends in one sitting of fresh pairs, planned as its check was. When it
  /// finds the move the check found, its pairs join the search's endpoint observation and
  /// true is returned; otherwise the part's search ends (kInconclusive: the part stays
  /// unplaced, its reason saying both sittings) and false is returned.
  Result<bool> Recheck();
  /// One sitting of commits[a] (arm A) against commits[b] (arm B) with the full sequential
  /// design of [measure], archived as a bisect-step record of kind `kind`.
  Result<ComparisonOutcome> Sitting(int a, int b, BisectStepKind kind);
  Result<ComparisonOutcome> Sitting(int a, int b, BisectStepKind kind,
                                    const SittingOptions& options);
  /// The sitting of a check of `segment` (or of its re-check): its ends under `check`'s
  /// budget as `plan` shapes it, its record linked to the bisect. An interruption or a record
  /// that could not be archived is the error.
  Result<ComparisonOutcome> CheckSitting(const BisectSegment& segment, const SittingOptions& check,
                                         const TiePlan& plan);
  /// What the check of segments[k] does about a tie (PlanTie): predicted from the noise of
  /// the last search's pairs, none of which the check will measure.
  TiePlan PlanCheckTie(const std::vector<BisectSegment>& segments, int k,
                       const SittingOptions& check) const;
  TiePlan PlanCheckTie(int k, const SittingOptions& check) const {
    return PlanCheckTie(state_.segments, k, check);
  }
  /// A check's sitting and what shaped it.
  struct MeasuredCheck {
    ComparisonOutcome outcome;
    SittingOptions check;
    TiePlan plan;
    int shared_runs = 0;  // Its runs that were its verification's too.
  };
  /// The check of segments[k] (`segment`, the copy Advance fills): taken from the sitting
  /// measured beside its verification (SharedChecks) when there was one, else measured now.
  Result<MeasuredCheck> MeasureCheck(int k, BisectSegment& segment);

  // The checks measured beside a verification (bisect_shared_checks.cc): while the search
  // verifies a candidate, the parts its verification would leave unexplained are checked in
  // the same sitting, their runs of the candidate and its parent shared with it (SharedRuns).
  struct SharedCheck {
    int lo = 0, hi = 0;
    int candidate = 0, baseline = 0;  // The verification it was started beside.
    SittingOptions check;
    TiePlan plan;
    int participant = 0;
    std::optional<Result<ComparisonOutcome>> outcome;
    /// Its progress, shown on the live line while the bisect waits for it (TakeSharedCheck).
    HandoverProgress progress;
  };
  /// Starts the checks of the parts a verified commits[commit] (against commits[baseline])
  /// would leave, beside its verification; when they were started already (the search paused
  /// the verification and came back), shares its runs with them again. Stops another
  /// candidate's checks that no part waits for.
  void StartSharedChecks(int commit, int baseline);
  /// The verification batches of commits[commit] against commits[baseline] share their runs.
  void ShareVerification(int commit, int baseline);
  /// The verification's record says which of its runs served its checks too (before it is
  /// archived); nothing when none did.
  void NoteSharedVerification();
  /// The verification's step has ended (the search is done, or measures something else and
  /// may come back to it): its checks go on alone whenever the bisect waits for one of them,
  /// and wait otherwise. They are stopped when another candidate's verification starts or
  /// the search names something else (DropSharedChecks).
  void EndSharedVerification();
  /// The check of `segment` measured beside a verification, waited for, archived and linked;
  /// nullopt when there is none.
  std::optional<Result<ComparisonOutcome>> TakeSharedCheck(const BisectSegment& segment,
                                                           SittingOptions& check, TiePlan& plan);
  /// Stops the shared checks of a bisect that stops: their records are linked, not logged (a
  /// resume measures the checks again, as it does a check interrupted alone).
  void SettleSharedChecks();
  /// Stops the shared checks (`keep_awaited`: but those an unchecked part is waiting for)
  /// and logs what they measured, with `why` in their step's note ("stopped: why").
  Status DropSharedChecks(bool keep_awaited, std::string_view why);
  int last_shared_runs_ = 0;  // Of the check TakeSharedCheck took last.
  /// The search's options for a range of `n` commits whose endpoint sitting (the
  /// confirmation or a check) took `endpoint_pairs` pairs (MakeSearchOptions).
  SearchOptions SearchBudget(int n, int endpoint_pairs) const;
  /// What [bisect] max_total_pairs leaves to measure (INT_MAX when there is no cap).
  int PairsLeft() const { return culprit::PairsLeft(config_.bisect, state_.log); }
  /// Where the active segment's search is saved.
  std::string& ActiveSearchJson();
  /// Whether the active segment's search looks for a speed-up (its d's sign is flipped):
  /// the range's direction, or the other for a part that moves the other way.
  bool ActiveSearchesForSpeedup() const;
  /// The whole range as segment 0, from the confirmation (states saved before segments).
  BisectSegment WholeRange() const;
  Result<BisectReport> Finish(const std::string& confirm_summary);
  /// The runs the bisect's steps re-used (RunReuse), read from its step records: how many of
  /// their runs are copies, and what each verification re-used.
  ReusedRunFacts GatherReusedRuns() const;
  /// The final record's fields every ending shares: the range, the query, the host.
  Record ResultRecord() const;
  /// What the report of a bisect that searched says of its verified changes' commits, asked
  /// of the history before any text is written (SearchedEnding).
  std::map<std::string, CommitFacts> ChangeFacts() const;
  /// When commit `id` is a merge that brought commits in: the branch to search next.
  std::optional<MergeDescent> MergeBranch(const std::string& id) const;
  /// Archives the step in flight (StepRecorder::Flush).
  Status FlushStep();
  Error Interrupted();
  /// Ends this process's part of the bisect with `error`: archives the step in flight and
  /// saves the state as interrupted. `when_saved` is appended to the message when both were
  /// done; when either could not be, the message says what was not kept instead, so it never
  /// claims a state that was not saved.
  Error Stop(const Error& error, std::string_view when_saved = "");

  const BisectSections& config_;
  BisectEngine engine_;
  const HostProbe* host_;
  BisectReporter& reporter_;
  FileLock lock_;
  RecordStore store_;
  BisectState state_;
  const QueryConfig* query_ = nullptr;
  SittingOptions options_;
  std::optional<BisectSearch> search_;
  StepRecorder recorder_;
  HostState start_snapshot_;
  UnconfirmedMove unconfirmed_;  // What that confirmation measured.
  // Each on the heap, so that erasing one moves no other: a check's thread writes its
  // outcome (and its progress) through a pointer to it until it ends. A SharedCheck holds a
  // mutex (HandoverProgress) and cannot move, so a container that moves its elements would
  // not compile. Declared before shared_, so destroyed after it: those threads are joined as
  // shared_ goes.
  std::vector<std::unique_ptr<SharedCheck>> shared_checks_;
  std::unique_ptr<SharedRuns> shared_;
  int shared_commit_ = -1, shared_baseline_ = -1;  // The verification they run beside.
  int shared_runs_before_ = 0;    // Participant 0's shared runs when that verification began.
  int seg_lo_ = 0;                // The active segment's good end: its search's commit 0.
  bool max_pairs_given_ = false;  // --max-pairs: it, not [bisect] confirm_max_pairs, bounds
                                  // the confirmation.
};

}  // namespace culprit
