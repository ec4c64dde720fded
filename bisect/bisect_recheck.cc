// The re-check of a part's move (docs/bisect-evidence.md, "A part's move re-checked"): when
// and how a part's search measures the part's ends again on fresh pairs. Apart from the ladder
// in bisect_runner.cc, as the ending is in bisect_ending.cc.

#include <fmt/format.h>

#include <algorithm>

#include "base/strings.h"
#include "bisect/bisect_budget.h"
#include "bisect/bisect_runner.h"
#include "bisect/bisect_session.h"
#include "bisect/tie_plan.h"
#include "probes/verdict.h"

namespace culprit {

bool BisectRunner::Session::RecheckDue() const {
  if (state_.segments.empty() || state_.active_segment == 0) return false;
  const BisectSegment& segment = state_.segments[state_.active_segment];
  if (segment.outcome != SegmentOutcome::kNone || segment.recheck != SegmentCheck::kNotMeasured ||
      !search_->Wary() || PairsLeft() < options_.min_pairs) {
    return false;
  }
  // Only once the part's bad end was verified against its parent: the search of a part that
  // does not move finds every inner commit good and piles its mass on the last commit, which
  // only the check's pairs single out. A verification of an inner commit that did not hold is
  // the search's ordinary error, which its own steps undo (re-checking then cost 2-4% more
  // pairs in bisect-sim's two-change worlds at 10% noise, for no better answer).
  const int n = search_->n_commits();
  return std::any_of(search_->observations().begin(), search_->observations().end(),
                     [n](const Observation& o) { return o.verification && o.commit == n; });
}

Result<bool> BisectRunner::Session::Recheck() {
  const int k = state_.active_segment;
  BisectSegment segment = state_.segments[k];
  const SittingOptions check = SittingBudget(options_, config_.bisect, BisectStepKind::kCheck,
                                             max_pairs_given_, PairsLeft());
  const TiePlan plan = PlanCheckTie(k, check);
  reporter_.Line(fmt::format(
      "re-checking {} against {} on fresh pairs: a verification in this part did not hold, and "
      "the move its check saw (x{}, {} pairs) may be the check's error",
      ShortCommit(state_.commits[segment.hi]), ShortCommit(state_.commits[segment.lo]),
      FormatRatioInterval(segment.ratio, segment.low, segment.high), segment.pairs));
  Result<ComparisonOutcome> outcome = CheckSitting(segment, check, plan);
  if (!outcome) return outcome.error();
  BisectSegment again = segment;
  FillCheck(*outcome, state_.speedup, again);
  // Runs that kept failing are information, not the move found again: the search ends there,
  // and the part's reason says why.
  const bool reproduced = !outcome->sitting.failure && again.check == segment.check;
  BisectStepLog log = SittingLog(static_cast<int>(state_.log.size()) + 1, BisectStepKind::kCheck,
                                 segment.lo, segment.hi, state_.commits, *outcome);
  log.note = "re-check: " + std::string(SegmentCheckName(again.check));
  state_.log.push_back(log);
  // A sitting whose runs failed before any pair has no figure: FillCheck left the check's
  // own in `again`, which must not be printed as the re-check's.
  const std::string measured =
      outcome->record.estimate && again.pairs > 0
          ? fmt::format(
                "said x{}, {} ({} pairs)", FormatRatioInterval(again.ratio, again.low, again.high),
                outcome->record.verdict ? VerdictName(*outcome->record.verdict) : "-", again.pairs)
          : fmt::format("measured nothing ({} pairs)", again.pairs);
  constexpr std::string_view kEnds = "; this part's search ends here, the part unplaced";
  reporter_.Line(fmt::format(
      "step {:>2} re-check {} against {}: {}: {}", log.step,
      ShortCommit(state_.commits[segment.hi]), ShortCommit(state_.commits[segment.lo]), measured,
      reproduced                 ? std::string("the move is there again; the search goes on")
      : outcome->sitting.failure ? fmt::format("its runs kept failing{}", kEnds)
                                 : fmt::format("the move did not reproduce{}", kEnds)));
  segment.recheck = outcome->sitting.failure ? SegmentCheck::kUndecided : again.check;
  segment.recheck_record = outcome->record.id;
  if (reproduced) {
    // Fresh pairs of the part's ends: more of the endpoint observation the search started from.
    search_->AddObservation(search_->n_commits(), AsSearched(outcome->sitting.log_ratios));
  } else {
    segment.outcome = SegmentOutcome::kInconclusive;
    segment.probability = search_->Result().probability;
    segment.reason = fmt::format(
        "its check's move (x{}, {} pairs) did not reproduce: once a "
        "verification in it had not held, a re-check on fresh pairs {}{}",
        FormatRatioInterval(segment.ratio, segment.low, segment.high), segment.pairs, measured,
        outcome->sitting.failure ? ": its runs kept failing: " + outcome->sitting.failure->message()
                                 : std::string());
  }
  state_.segments[k] = segment;
  CULPRIT_TRY(Save());
  return reproduced;
}

}  // namespace culprit
