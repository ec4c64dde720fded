#pragma once

// One step of a bisect's search at a time: measures a batch of pairs of a candidate against
// its baseline, adds it to the step in flight, and archives the step as one bisect-step
// record when it ends, logged in the state and reported as a line. Between batches the state
// keeps the step in flight (BisectPendingStep), so that a process killed before the step's
// record is written loses none of its pairs.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "bisect/bisect_config.h"
#include "bisect/bisect_state.h"
#include "bisect/run_reuse.h"
#include "bisect/search.h"
#include "engine/history.h"
#include "probes/build_provider.h"
#include "probes/comparison.h"
#include "probes/host.h"
#include "probes/measure_commands.h"
#include "probes/measurer.h"
#include "records/record_store.h"

namespace culprit {

/// Lines of progress and the final report, for the user.
class BisectReporter {
 public:
  virtual ~BisectReporter() = default;
  virtual void Line(const std::string& text) = 0;
  /// Before each sitting or batch of pairs: where the progress of its pairs goes (a live
  /// line on a terminal, as `probe` shows), or nullptr for none. `label` says what it
  /// measures ("verify 1a2b3c4d5e vs 9f8e7d6c5b").
  virtual SittingProgress* StartSitting(const std::string& label) { return nullptr; }
};

/// What a bisect works on: the engine's history, its builds and runs of two
/// builds. The command line passes the real ones (the git repository, the build
/// cache, the query's processes); the simulator and the tests script all three.
struct BisectEngine {
  const History& history;
  BuildProvider& builds;
  Measurer& measurer;
};

/// The outcome of measuring one batch.
struct Batch {
  enum class Kind { kMeasured, kUnbuildable, kBroken, kInterrupted } kind = Kind::kMeasured;
  std::vector<double> d;        ///< The kept pairs' log ratios, as measured.
  std::vector<Sample> samples;  ///< Every run, also of an interrupted batch.
  std::string reason;           ///< Why it is not kMeasured.
  /// The runs it took from earlier steps (RunReuse), numbered as in `samples`.
  Reuse reuse;
};

/// The measured runs of each arm of a batch (arm 0 the baseline, arm 1 the candidate; warm-ups
/// and dropped runs left out), for the near-deterministic rule; none when a measured run failed
/// or timed out, since failures are evidence that needs the sequential test.
std::optional<ArmRuns> KeptRuns(const std::vector<Sample>& samples);

/// What a full sitting leaves in the state (not a search step: no posterior). The log entry
/// numbered `step` of a sitting of commits[b] against commits[a], from its archived `record`
/// and the pairs it kept, with the drift the record's calibrations show.
BisectStepLog SittingLog(int step, BisectStepKind kind, int a, int b,
                         const std::vector<std::string>& commits, const Record& record,
                         int pairs_kept);
/// The same from a sitting just measured: its drift is the sitting's calibration check.
BisectStepLog SittingLog(int step, BisectStepKind kind, int a, int b,
                         const std::vector<std::string>& commits, const ComparisonOutcome& outcome);
/// A sitting's check of `segment` (a confirmation's of the whole range): its verdict
/// classified against the range's direction (ClassifyCheck; `speedup`: the bad end is lower),
/// its ratio, interval and record.
void FillCheck(const Record& record, int pairs_kept, bool speedup, BisectSegment& segment);
void FillCheck(const ComparisonOutcome& outcome, bool speedup, BisectSegment& segment);

/// A sitting's source as another source over it (SharedRuns::Source).
using SourceWrap = std::function<std::unique_ptr<SampleSource>(SampleSource&)>;

/// A sitting taking its runs in turn with others (SharedRuns): its source's wrap, and the note
/// its record gets once it has ended (which of its runs served the others too).
struct SharedSitting {
  SourceWrap wrap;
  std::function<std::string()> note;
  /// Where the sitting's progress goes (a HandoverProgress the runner shows while it waits for
  /// the sitting); null: nowhere.
  SittingProgress* progress = nullptr;
};

/// The step of the search in flight, and how it is measured and archived.
class StepRecorder {
 public:
  /// `engine`'s parts, `host` (may be null), `reporter` and `store` must outlive the recorder.
  StepRecorder(const BisectSections& config, BisectEngine engine, const HostProbe* host,
               BisectReporter& reporter, RecordStore& store);

  /// The query and options every batch is measured with (`query` must outlive the recorder),
  /// and `start`, the host when the bisect (or this process's part of it) began: the start of
  /// a step continued from a previous process, whose own start is gone with it.
  void Prepare(const QueryConfig& query, const SittingOptions& options, const HostState& start);

  /// No step in flight (no pairs measured since the last record).
  bool empty() const { return step_.samples.empty(); }
  /// Whether a batch of `kind`, commits[index] against commits[baseline], continues the step
  /// in flight.
  bool Holds(BisectStepKind kind, int index, int baseline) const;
  /// The step in flight as the state keeps it, or none when empty.
  std::optional<BisectPendingStep> Pending() const;
  /// Continues the step a previous process had in flight.
  void Resume(const BisectPendingStep& pending);
  /// The runs kept for re-use (RunReuse::ToJson), for the state; and the same restored in a
  /// resumed bisect, after Prepare (which says whether the metric re-uses runs at all).
  std::string ReuseJson() const { return reuse_.ToJson(); }
  Status RestoreReuse(const std::string& json);

  /// Measures `pairs` pairs of commits[index] against commits[baseline] in one batch: the
  /// warm-up runs and the host's calibrated snapshot only at a step's first batch. With
  /// --seed, the batch's order is seeded by `pairs_used`, the search's pairs so far. On a
  /// counted near-deterministic metric, runs kept from earlier steps stand in for the first
  /// measured runs of either arm (RunReuse; the batch's `reuse` says which).
  Batch Measure(const std::vector<std::string>& commits, BisectStepKind kind, int index,
                int baseline, int pairs, int pairs_used);
  /// Adds a measured batch to the step in flight, starting it when empty.
  void Add(BisectStepKind kind, int index, int baseline, const Batch& batch);
  /// The step in flight was interrupted: its record and log line say so.
  void MarkInterrupted() { step_.interrupted = true; }
  /// A note for the step in flight's record (a verification whose runs served the checks
  /// measured beside it). Not kept in the state: a resumed step's record lacks it.
  void AddNote(std::string note) { step_.notes.push_back(std::move(note)); }

  /// Logs in `state` that the search skips commits[index] (measured against
  /// commits[baseline] in a step of `kind`): it could not be built or measured, for `reason`.
  void Skip(BisectState& state, BisectStepKind kind, int index, int baseline,
            const std::string& reason);

  /// One sitting of commits[a] (arm A) against commits[b] (arm B) with `options`' full
  /// sequential design, archived as a bisect-step record of kind `kind` (a confirmation's arms
  /// are the good and bad ends, named as the user gave them). Not a step of the search: the
  /// step in flight is left as it is. On a counted near-deterministic metric, runs kept from
  /// earlier steps stand in for its first measured runs (RunReuse): its record's details and a
  /// line say which (`reused_runs`), and its own runs are kept as those of step
  /// state.log.size() + 1, the number its log entry gets.
  /// `share`, when it has a wrap, wraps the sitting's source (SharedRuns::Source: its runs
  /// taken in turn with other sittings'), adds its note to the record, and the sitting's
  /// progress goes to share.progress, not to a live line of its own.
  Result<ComparisonOutcome> RunSitting(const BisectState& state, int a, int b, BisectStepKind kind,
                                       const SittingOptions& options,
                                       const SharedSitting& share = {});
  /// Wraps the source of every verification batch from now on (`{}`: none), for a
  /// verification whose runs its checks share (SharedRuns).
  void ShareVerificationRuns(SourceWrap share) { share_verification_ = std::move(share); }

  /// Archives the step in flight (its samples so far) as a bisect-step record, logs it in
  /// `state` with what `search` (numbering commits from `seg_lo`) believes after it, and
  /// reports its line. Nothing to do when empty.
  Status Flush(BisectState& state, const BisectSearch& search, int seg_lo);

 private:
  // Measured pairs of one step (one candidate against one baseline), across the batches the
  // search asked for.
  struct Step : BisectPendingStep {
    bool interrupted = false;
    // The host at the step's first batch, with the calibration loop timed: the step's drift
    // is its calibration at the end against this one.
    HostState start;
    bool started = false;
    std::vector<std::string> notes;  // AddNote's, for its record.
  };
  Batch MeasureBatch(const std::vector<std::string>& commits, BisectStepKind kind, int index,
                     int baseline, int pairs, bool warmup, int pairs_used);
  /// The reporter's line for runs a step or sitting re-used: "measure 1a2b3c4d5e vs 6ccd24eff5:
  /// re-used 2 runs of 6ccd24eff5 from step 1".
  void ReportReuse(BisectStepKind kind, const std::string& candidate, const std::string& baseline,
                   const Reuse& reuse) const;
  /// Flush's parts: the step's plan (commits, details), its sitting (samples, host at both
  /// ends, a plain interval), and its log line (the search's posterior after it).
  ComparisonPlan Plan(const BisectState& state) const;
  SittingResult Sitting() const;
  /// A verification step's record says what the near-deterministic rule read of it (`rule`
  /// and `decided`, BisectSearch::VerificationRule): when it decided, `decided_by` and the
  /// range of the step's runs as the estimate; when not, why.
  void DescribeRule(const std::optional<NearDeterministicLook>& rule, bool decided,
                    ComparisonPlan& plan, SittingResult& sitting) const;
  BisectStepLog Log(const BisectState& state, const BisectSearch& search, int seg_lo,
                    const SittingResult& sitting, std::optional<double> median_ratio) const;

  const BisectSections& config_;
  BisectEngine engine_;
  const HostProbe* host_;
  BisectReporter& reporter_;
  RecordStore& store_;
  const QueryConfig* query_ = nullptr;
  SittingOptions options_;
  HostState start_snapshot_;
  Step step_;
  RunReuse reuse_;
  SourceWrap share_verification_;
};

}  // namespace culprit
