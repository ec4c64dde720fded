#pragma once

// Runs of a commit measured once and re-used by every later step of the bisect that asks for
// that commit, on a counted near-deterministic metric (instructions: a count that a host's
// drift does not move, SittingOptions::near_deterministic). Up to kMaxReusableRuns runs of
// each commit are kept, the runs the near-deterministic rule needs (4 pairs); a later batch
// or sitting of that commit takes its first measured runs from them instead of running the
// query again, and runs only what they lack. So no commit runs more than 4 times in a bisect
// whose runs repeat (docs/bisect.md, "A real regression on instructions").
//
// Only runs that repeat are re-used: a commit's runs are served only while there are at least
// two and they lie within the rule's ε of each other (kNearDeterministicSpread); once they
// spread, or once a run of the commit failed or timed out, the commit is measured fresh in
// every later step, as without re-use. A step never takes the same run twice: a step of
// several batches (a verification) takes each kept run once, and its own runs never. Timed
// metrics keep nothing (the reuse is off): their pairs must share a sitting's host state.

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "probes/sitting.h"
#include "records/record.h"

namespace culprit {

/// How many runs of one commit are kept for re-use: the near-deterministic rule's 4 pairs.
inline constexpr int kMaxReusableRuns = 4;

/// Runs of one arm a batch or a step took from one earlier step.
struct ReusedRuns {
  int arm = 0;         ///< 0 the baseline (A), 1 the candidate (B).
  std::string commit;  ///< Full id.
  int step = 0;        ///< The step (BisectStepLog::step) that measured them.
  int runs = 0;
  bool operator==(const ReusedRuns&) const = default;
};

/// What a batch, a sitting or a whole step re-used: the runs by arm and source step, and the
/// sequence numbers of the samples that are those runs (copies of the source step's).
struct Reuse {
  std::vector<ReusedRuns> runs;
  std::vector<int> samples;
  bool empty() const { return runs.empty(); }
  /// Runs of arm `arm` re-used, from every step.
  int RunsOf(int arm) const;
  /// Adds `other`, its sample numbers shifted by `sequence_offset`.
  void Append(const Reuse& other, int sequence_offset);
};

/// "A 6ccd24eff5: 4 runs of step 1; B f5df7f91f7: 2 runs of step 5, 2 of step 8": what a
/// record's details say of `reuse`.
std::string DescribeReuse(const Reuse& reuse);

/// Kept runs of one commit handed to a batch or sitting, in order, and the step of each.
struct ServedRuns {
  std::vector<SampleOutcome> runs;
  std::vector<int> steps;
};

/// The source a batch or sitting is measured through: its measured runs of an arm come first
/// from the commit's kept runs, then from `inner`; warm-ups always from `inner`.
class ReusingSource : public SampleSource {
 public:
  /// `served[arm]`: the kept runs to hand out for that arm, in order. `warmup` and
  /// `warmup_retries` are the sitting's (SittingOptions): its first runs of each arm are its
  /// warm-ups (PairedSitting::WarmUp, retried while none succeeded), never served from kept
  /// runs.
  ReusingSource(SampleSource& inner, std::array<ServedRuns, 2> served, int warmup,
                int warmup_retries);
  SampleOutcome Run(int arm) override;

  /// For each call (the sitting's sample sequence number) that was served from kept runs, the
  /// step that measured the run.
  const std::map<int, int>& served() const { return served_; }

 private:
  SampleSource& inner_;
  std::array<ServedRuns, 2> served_runs_;
  size_t next_[2] = {0, 0};
  int warmup_, warmup_retries_;
  int warmups_taken_[2] = {0, 0}, warmups_ok_[2] = {0, 0};
  int calls_ = 0;
  std::map<int, int> served_;
};

/// The kept runs of one bisect, and what the step in flight took of them.
class RunReuse {
 public:
  /// Whether runs are kept and re-used at all: a counted near-deterministic metric only.
  void Enable(bool enabled) { enabled_ = enabled; }
  bool enabled() const { return enabled_; }

  /// The source for a batch (`in_step`: of the step in flight, which must not take a run
  /// twice) or a sitting of commit `a` (arm 0) against `b` (arm 1) over `inner`.
  std::unique_ptr<ReusingSource> Wrap(SampleSource& inner, const std::string& a,
                                      const std::string& b, int warmup, int warmup_retries,
                                      bool in_step) const;

  /// After the batch or sitting measured through `source`, `samples` its samples in execution
  /// order: what it re-used, and, when `keep_fresh` (the batch is part of the step's record;
  /// the sitting was archived as a step of the log), its own measured runs kept for later
  /// steps as runs of step `step` (0: the step in flight, numbered by EndStep). A commit with a
  /// failed or timed-out run, or whose kept runs spread beyond ε, is closed: never re-used.
  Reuse Settle(const ReusingSource& source, const std::string& a, const std::string& b,
               const std::vector<Sample>& samples, bool keep_fresh, int step);
  /// Adds a batch's `reuse` to the step in flight's, its sample numbers shifted by
  /// `sequence_offset` (the step's samples before the batch).
  void AddToStep(const Reuse& reuse, int sequence_offset) { step_.Append(reuse, sequence_offset); }
  /// The step in flight is archived as step `step`: its runs are numbered, and what it re-used
  /// is returned and forgotten.
  Reuse EndStep(int step);
  /// What the step in flight re-used so far.
  const Reuse& StepReuse() const { return step_; }

  /// Kept runs of `commit` (for tests and reports).
  int KeptRuns(const std::string& commit) const;

  /// The state a resumed bisect needs (kept runs, the step in flight's use of them), as JSON
  /// text; "" when nothing is kept. FromJson("") is an empty RunReuse.
  std::string ToJson() const;
  static Result<RunReuse> FromJson(const std::string& text);

 private:
  struct Kept {
    std::vector<SampleOutcome> runs;
    std::vector<int> steps;  ///< 0: the step in flight.
    bool closed = false;
  };
  /// Whether `kept`'s runs may be served: open, at least two, within ε of each other.
  static bool Repeats(const Kept& kept);

  bool enabled_ = false;
  std::map<std::string, Kept> kept_;
  /// Per commit, how many kept runs the step in flight has taken or added: it is served from
  /// there on only.
  std::map<std::string, int> step_used_;
  Reuse step_;
};

}  // namespace culprit
