// BisectRunner::Session's checks measured beside a verification (SharedRuns): the parts a
// candidate would leave unexplained, checked while the candidate is verified, their runs of the
// candidate and of its parent shared with the verification's.

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "base/strings.h"
#include "bisect/bisect_budget.h"
#include "bisect/bisect_runner.h"
#include "bisect/bisect_session.h"
#include "bisect/range_split.h"
#include "bisect/step_lines.h"
#include "bisect/tie_plan.h"

namespace culprit {

void BisectRunner::Session::StartSharedChecks(int commit, int baseline) {
  if (commit == shared_commit_ && baseline == shared_baseline_) return;
  // A counted metric's checks take their runs from earlier steps (RunReuse) and measure almost
  // nothing of their own: nothing to share, and runs measured beside the verification would
  // not be there to re-use yet.
  if (options_.near_deterministic) return;
  // Under [bisect] max_total_pairs the pairs are spent in order, the verification's first:
  // checks measured beside it would spend what it may need.
  if (config_.bisect.max_total_pairs > 0) return;
  // The search may pause a verification to measure other commits and come back to it: its
  // checks waited meanwhile, and share its runs again.
  if (std::any_of(shared_checks_.begin(), shared_checks_.end(), [&](const auto& c) {
        return c->candidate == commit && c->baseline == baseline;
      })) {
    ShareVerification(commit, baseline);
    return;
  }
  // Another candidate's checks, which no part waits for, are stopped: the search went on.
  if (Status dropped =
          DropSharedChecks(/*keep_awaited=*/true, "the search went on to verify another candidate");
      !dropped) {
    reporter_.Line(dropped.error().message());
  }
  // The parts SegmentDone would add were the candidate verified, numbered as it would.
  std::vector<BisectSegment> segments =
      state_.segments.empty() ? std::vector<BisectSegment>{WholeRange()} : state_.segments;
  const int active = state_.segments.empty() ? 0 : state_.active_segment;
  BisectSegment searched = segments[active];
  searched.outcome = SegmentOutcome::kChange;
  searched.first = baseline + 1;
  searched.change = commit;
  segments[active] = searched;
  std::vector<BisectSegment> parts = UnexplainedParts(searched);
  if (parts.empty() || PairsLeft() < options_.min_pairs) return;
  if (!shared_) shared_ = std::make_unique<SharedRuns>();
  ShareVerification(commit, baseline);
  for (const BisectSegment& part : parts) {
    const int k = static_cast<int>(segments.size());
    segments.push_back(part);
    SharedCheck& c = *shared_checks_.emplace_back(std::make_unique<SharedCheck>());
    c.lo = part.lo;
    c.hi = part.hi;
    c.candidate = commit;
    c.baseline = baseline;
    c.check = SittingBudget(options_, config_.bisect, BisectStepKind::kCheck, max_pairs_given_,
                            PairsLeft());
    c.plan = PlanCheckTie(segments, k, c.check);
    c.participant = shared_->Add(part.lo, part.hi);
    reporter_.Line(fmt::format(
        "checking what {} would leave unexplained, beside its verification: {} against {}{}",
        ShortCommit(state_.commits[commit]), ShortCommit(state_.commits[part.hi]),
        ShortCommit(state_.commits[part.lo]), CheckPlanText(c.plan, TieBudget(c.check))));
    SittingOptions options = CheckSittingBudget(c.check, c.plan);
    const int id = c.participant;
    options.stop_requested = [this, id] { return shared_->CancelRequested(id); };
    SharedSitting share;
    share.wrap = [this, id](SampleSource& own) { return shared_->Source(id, own); };
    // Which build's runs were shared: the part before's newer end is the candidate's parent,
    // the part after's older end the candidate.
    const std::string arm = ShortCommit(state_.commits[part.lo == commit ? commit : baseline]);
    const std::string verified = ShortCommit(state_.commits[commit]);
    share.note = [this, id, arm, verified] {
      return fmt::format(
          "measured beside the verification of {} in one sitting: {} of its runs were runs of "
          "{} that served that verification too (taken once for both)",
          verified, shared_->SharedRunsOf(id), arm);
    };
    share.progress = &c.progress;
    SharedCheck* slot = &c;
    shared_->Start(id, [this, slot, options, share] {
      slot->outcome =
          recorder_.RunSitting(state_, slot->lo, slot->hi, BisectStepKind::kCheck, options, share);
    });
  }
}

void BisectRunner::Session::ShareVerification(int commit, int baseline) {
  shared_commit_ = commit;
  shared_baseline_ = baseline;
  shared_runs_before_ = shared_->SharedRunsOf(0);
  shared_->SetBuilds(0, baseline, commit);
  recorder_.ShareVerificationRuns([this](SampleSource& own) { return shared_->Source(0, own); });
}

void BisectRunner::Session::NoteSharedVerification() {
  if (shared_commit_ < 0) return;
  const int runs = shared_->SharedRunsOf(0) - shared_runs_before_;
  if (runs == 0) return;
  recorder_.AddNote(fmt::format(
      "{} of its runs (of {} and {}) served the checks measured beside it in one sitting too, "
      "taken once for both; each check's record says how many of its own",
      runs, ShortCommit(state_.commits[shared_baseline_]),
      ShortCommit(state_.commits[shared_commit_])));
}

void BisectRunner::Session::EndSharedVerification() {
  if (shared_commit_ < 0) return;
  shared_->SetBuilds(0, -1, -1);
  recorder_.ShareVerificationRuns({});
  shared_commit_ = shared_baseline_ = -1;
}

std::optional<Result<ComparisonOutcome>> BisectRunner::Session::TakeSharedCheck(
    const BisectSegment& segment, SittingOptions& check, TiePlan& plan) {
  for (auto it = shared_checks_.begin(); it != shared_checks_.end(); ++it) {
    SharedCheck& c = **it;
    if (c.lo != segment.lo || c.hi != segment.hi) continue;
    // The check may go on alone for hundreds of pairs once the verification has ended: the
    // live line shows it while the bisect waits, not a silent pause.
    c.progress.ShowOn(reporter_.StartSitting(
        fmt::format("check {} vs {} (begun beside the verification)",
                    ShortCommit(state_.commits[c.hi]), ShortCommit(state_.commits[c.lo]))));
    shared_->WaitUntilDone(c.participant);
    c.progress.ShowOn(nullptr);
    check = c.check;
    plan = c.plan;
    // A participant that has left has run its body, which sets the outcome.
    assert(c.outcome.has_value());
    Result<ComparisonOutcome> outcome = std::move(*c.outcome);
    last_shared_runs_ = shared_->SharedRunsOf(c.participant);
    shared_checks_.erase(it);
    if (!outcome) return outcome;
    state_.records.push_back(outcome->record.id);
    if (outcome->sitting.interrupted) return Result<ComparisonOutcome>(Interrupted());
    if (outcome->archive_error) return Result<ComparisonOutcome>(*outcome->archive_error);
    return outcome;
  }
  last_shared_runs_ = 0;
  return std::nullopt;
}

Status BisectRunner::Session::DropSharedChecks(bool keep_awaited, std::string_view why) {
  for (size_t i = 0; i < shared_checks_.size();) {
    SharedCheck& c = *shared_checks_[i];
    const bool awaited =
        std::any_of(state_.segments.begin(), state_.segments.end(), [&](const BisectSegment& s) {
          return s.check == SegmentCheck::kNotMeasured && s.lo == c.lo && s.hi == c.hi;
        });
    if (keep_awaited && awaited) {
      ++i;
      continue;
    }
    shared_->Cancel(c.participant);
    shared_->WaitUntilDone(c.participant);
    const int shared_runs = shared_->SharedRunsOf(c.participant);
    assert(c.outcome.has_value());
    Result<ComparisonOutcome> outcome = std::move(*c.outcome);
    const int lo = c.lo, hi = c.hi;
    shared_checks_.erase(shared_checks_.begin() + static_cast<long>(i));
    if (!outcome) continue;
    state_.records.push_back(outcome->record.id);
    BisectStepLog log = SittingLog(static_cast<int>(state_.log.size()) + 1, BisectStepKind::kCheck,
                                   lo, hi, state_.commits, *outcome);
    log.shared_runs = shared_runs;
    log.note = fmt::format("stopped: {}", why);
    state_.log.push_back(log);
    reporter_.Line(fmt::format("step {:>2} check   {} against {}: {} ({} pairs)", log.step,
                               ShortCommit(state_.commits[hi]), ShortCommit(state_.commits[lo]),
                               log.note, log.pairs));
  }
  return {};
}

void BisectRunner::Session::SettleSharedChecks() {
  if (shared_) shared_->SetBuilds(0, -1, -1);
  for (const std::unique_ptr<SharedCheck>& c : shared_checks_) {
    shared_->Cancel(c->participant);
    shared_->WaitUntilDone(c->participant);
    if (c->outcome && *c->outcome) state_.records.push_back((*c->outcome)->record.id);
  }
  shared_checks_.clear();
}

}  // namespace culprit
