#include "bisect/step_lines.h"

#include <fmt/format.h>

#include <cmath>

#include "base/numbers.h"
#include "base/strings.h"
#include "bisect/bisect_budget.h"
#include "probes/summary.h"
#include "probes/verdict.h"
#include "records/bisect_step_details.h"
#include "records/comparison_details.h"

namespace culprit {

std::string StepRatioText(const BisectStepLog& s) {
  if (s.has_interval) return FormatRatioInterval(s.ratio, s.low, s.high);
  return fmt::format("{:.3f} (median, {} pairs: no interval)", s.ratio, s.pairs);
}

std::string ChangedFilesText(const std::vector<std::string>& files) {
  if (files.size() <= kChangedFilesListed) return Join(files, ", ");
  std::vector<std::string> head(files.begin(), files.begin() + kChangedFilesListed);
  return fmt::format("{} … and {} more", Join(head, ", "), files.size() - kChangedFilesListed);
}

std::string SearchStepLine(const BisectStepLog& s, int n, const BisectSearch& search) {
  // Commits left: the fewest that hold the target probability together.
  std::vector<double> posterior = search.Posterior();
  std::sort(posterior.begin(), posterior.end(), std::greater<>());
  int left = 0;
  for (double mass = 0;
       left < static_cast<int>(posterior.size()) && mass < search.TargetProbability(); ++left) {
    mass += posterior[left];
  }
  return fmt::format(
      "step {:>2} {:<7} {} (#{} of {})  {:>3} pairs  ratio {}  "
      "P(first bad ≤ it) {:.3f}  {} left (roughly {} more), best {} p={:.3f}  builds {} "
      "(⌈log2 N⌉={}) pairs {}{}",
      s.step, BisectStepKindName(s.kind), ShortCommit(s.commit), s.index, n, s.pairs,
      StepRatioText(s),
      // Like git's "roughly k steps": halving what is left, one build at a time.
      s.mass_at_or_before, left, CountOf(CeilLog2(left), "build"), ShortCommit(s.best_commit),
      s.best_probability, search.builds_used(), CeilLog2(n), search.pairs_used(),
      s.note.empty() ? "" : "  " + s.note);
}

std::string SharedRunsText(const std::vector<BisectStepLog>& log) {
  const int runs = SharedRunCount(log);
  if (runs == 0) return "";
  return fmt::format(" (the checks' {} shared with verifications counted once)",
                     CountOf(runs, "run"));
}

std::string CheckStepLine(const BisectStepLog& log, const BisectSegment& segment,
                          const std::vector<std::string>& commits,
                          const std::optional<Verdict>& verdict) {
  // A step line, like the search's: what changes from run to run comes after the commit.
  return fmt::format(
             "step {:>2} check   {} (#{} of {})  {:>3} pairs  ratio {} against {} (#{}): {} ({}){}",
             log.step, ShortCommit(log.commit), segment.hi, commits.size() - 1, log.pairs,
             FormatRatioInterval(log.ratio, log.low, log.high), ShortCommit(commits[segment.lo]),
             segment.lo, verdict ? VerdictName(*verdict) : "-", SegmentCheckName(segment.check),
             CheckedPartSuffix(segment, commits)) +
         (log.shared_runs > 0 ? fmt::format("; measured beside the verification, {} shared with it",
                                            CountOf(log.shared_runs, "run"))
                              : "");
}

std::string CheckFailuresText(const FailureComparison& failures, std::string_view lo_commit,
                              std::string_view hi_commit) {
  if (failures.Unmeasured(0) + failures.Unmeasured(1) == 0) return "";
  auto arm = [&](int i, std::string_view commit) {
    const int unmeasured = failures.Unmeasured(i);
    std::string text =
        fmt::format("{} of {} of {}", unmeasured, CountOf(failures.runs[i], "run"), commit);
    if (failures.timed_out[i] > 0) {
      text += failures.timed_out[i] < unmeasured
                  ? fmt::format(" ({} timed out)", failures.timed_out[i])
              : unmeasured == 1 ? std::string(" (timed out)")
                                : std::string(" (all timed out)");
    }
    return text;
  };
  std::string text =
      fmt::format("runs without a number: {}, {}", arm(1, hi_commit), arm(0, lo_commit));
  if (failures.p_value < 1)
    text += fmt::format("; Fisher's exact test p = {:.2g}", failures.p_value);
  return text;
}

std::string CheckedPartSuffix(const BisectSegment& s, const std::vector<std::string>& commits) {
  std::string text;
  for (const std::string& part : {FurtherMoveText(s), SightingReachText(s),
                                  CheckFailuresText(s.check_failures, ShortCommit(commits[s.lo]),
                                                    ShortCommit(commits[s.hi]))}) {
    if (!part.empty()) text += "; " + part;
  }
  return text;
}

std::string SightingReachText(const BisectSegment& s) {
  const bool ruled_out = s.check == SegmentCheck::kUndecided && s.ruled_out;
  if ((s.check != SegmentCheck::kTie && !ruled_out) || s.check_record.empty()) return "";
  return fmt::format(
      "a slow tail in {:g}% or more of the runs would have shown; a sparser one may not",
      kTailSightingRate * 100);
}

std::string FurtherMoveText(const BisectSegment& s) {
  if (!(s.alternative > 1) || s.check != SegmentCheck::kUndecided || s.check_record.empty()) {
    return "";
  }
  if (s.ruled_out && s.small_move_suspected) {
    return fmt::format(
        "further moves of x{0:.3f} or more ruled out, but its estimate x{1:.3f} is beyond the "
        "band: a change below x{0:.3f} may be there",
        s.alternative, s.ratio);
  }
  if (s.ruled_out) return fmt::format("further moves of x{:.3f} or more ruled out", s.alternative);
  if (s.low > 0 && s.high > 0 &&
      Classify(std::log(s.low), std::log(s.high), std::log(s.alternative)) == Verdict::kNull) {
    // Not for want of pairs: the sitting's rule-out asks more than this interval (the mean and
    // the tails inside ±ln A too, at the rule-out's own confidence: RulesOutMove), and a
    // projection of the interval alone would say fewer pairs than were measured.
    return fmt::format(
        "a further move of x{:.3f} or more not ruled out, though its pseudo-median's interval "
        "is inside it: ruling it out needs the pairs' mean and tails inside it too, at the "
        "rule-out's confidence (a slow tail may be there)",
        s.alternative);
  }
  if (s.rule_out_pairs_needed > 0) {
    return fmt::format(
        "a further move of x{:.3f} or more not ruled out (ruling it out would take ≈ {} pairs)",
        s.alternative, RoundedPairs(s.rule_out_pairs_needed));
  }
  return fmt::format(
      "a further move of x{:.3f} or more not ruled out (its estimate is that far from a tie)",
      s.alternative);
}

int RoundedPairs(int pairs) {
  if (pairs < 100) return pairs;
  const int unit = pairs < 1000 ? 10 : 100;
  return static_cast<int>(std::lround(static_cast<double>(pairs) / unit)) * unit;
}

std::string CheckPlanText(const TiePlan& plan, int tie_budget) {
  const std::string against =
      plan.alternative > 1
          ? fmt::format(" of x{:.3f} or more, until found or ruled out", plan.alternative)
          : "";
  if (!plan.seek) {
    // Only a further move is hunted: say why no tie is, a label it would not earn or its cost.
    // A rule-out whose spending starts later (TiePlan::null_from_pairs) says so, as a tie's
    // does: an interval inside ±ln A before that look goes on.
    const std::string from =
        plan.null_from_pairs > 0
            ? fmt::format(
                  ", not before the last look at or under ≈ {} pairs, where it is ruled "
                  "out half the time",
                  RoundedPairs(plan.null_from_pairs))
            : "";
    const std::string hunt =
        plan.alternative > 1
            ? fmt::format(" (x{:.3f} or more, until found or ruled out{})", plan.alternative, from)
            : "";
    if (!plan.earns_label) {
      return fmt::format(
          "; a further move only{}: no tie sought, as only the part before the earliest change "
          "shows a first bad commit",
          hunt);
    }
    return fmt::format(
        "; a further move only{}: a tie would take ≈ {} pairs at this noise ({:.3f} per pair), "
        "more than its {}",
        hunt, RoundedPairs(plan.pairs_needed), plan.noise, tie_budget);
  }
  std::string then = against.empty() ? "" : "; then a further move" + against;
  if (plan.budget <= tie_budget) return then;
  if (plan.widened) {
    return fmt::format(
        "; a tie sought within {} pairs, beyond the check's {}, as it shows the first bad "
        "commit (≈ {} needed at this noise, {:.3f} per pair){}",
        plan.budget, tie_budget, RoundedPairs(plan.pairs_needed), plan.noise, then);
  }
  // A tie whose NULL spends from a later look (TiePlan::null_from_pairs) is not stated before
  // it, however it reads: the line says so, so an early-looking tie that goes on is explained.
  const std::string from =
      plan.null_from_pairs > 0
          ? fmt::format(
                "; no tie stated before the last look at or under ≈ {} pairs, where it is "
                "shown half the time",
                RoundedPairs(plan.null_from_pairs))
          : "";
  return fmt::format("; a tie sought within {} pairs (--prove-first: ≈ {} needed{}{}){}",
                     plan.budget, RoundedPairs(plan.pairs_to_prove),
                     plan.short_of_proof ? ", more than the check may spend" : "", from, then);
}

std::string UndecidedTieText(const BisectSegment& segment, int tie_budget) {
  // A tie that earns no label was not sought for that reason: the rule-out's text says what
  // the part could not tell.
  if (!segment.tie_sought && !segment.tie_earns_label) return "";
  if (!segment.tie_sought) {
    return fmt::format(
        "a tie was not sought: showing one would take ≈ {} pairs at this noise, more than the "
        "check's {} ([bisect] check_max_pairs)",
        RoundedPairs(segment.tie_pairs_needed), tie_budget);
  }
  if (segment.tie_short) {
    return fmt::format(
        "a tie would take ≈ {} pairs at this noise, more than the {} it was sought within (the "
        "check's cap, [bisect] confirm_max_pairs)",
        RoundedPairs(segment.tie_pairs_needed), segment.tie_budget);
  }
  return "";
}

std::string SkippedStepLine(const BisectStepLog& step, const std::string& reason) {
  return fmt::format("step {:>2} {} is unbuildable or unmeasurable: skipped ({})", step.step,
                     ShortCommit(step.commit), FirstLine(reason));
}

void DescribeStepRecord(const BisectStepLog& log, const std::string& baseline,
                        std::optional<double> median_ratio, size_t pairs, Record& record) {
  // A verification the near-deterministic rule decided carries the runs' observed range as
  // its interval (StepRecorder::DescribeRule), not a 95% one: the note says which it is.
  const bool by_rule =
      ComparisonDetails::FromRecord(record).decided_by == DecidedBy::kNearDeterministicRule;
  record.notes.push_back(fmt::format(
      "one step of a bisect: evidence for the search, not a controlled test; the search, not "
      "this record's own interval, decides; the interval is {}",
      by_rule ? "the observed range of every ratio of this step's runs (the near-deterministic "
                "rule decided), not a coverage interval"
              : "a plain 95% one over this step's pairs"));
  ComparisonDetails sitting_details;
  sitting_details.sitting.alpha_spending = by_rule
                                               ? "none: the near-deterministic rule's range"
                                               : "none: a plain interval, not a sequential test";
  sitting_details.WriteTo(&record.details);
  BisectStepDetails details;
  details.evidence = "bisect search";
  details.posterior_at_or_before = log.mass_at_or_before;
  details.best_commit = log.best_commit;
  details.best_probability = log.best_probability;
  details.pairs = static_cast<int>(pairs);
  details.WriteTo(&record.details);
  if (record.verdict) return;
  std::string ratio;
  if (record.estimate) {
    ratio = fmt::format(" ratio {} over {} pairs", FormatRatio(*record.estimate),
                        record.estimate->pairs);
  } else if (median_ratio) {
    ratio = fmt::format(" ratio {:.3f} (median of {} pairs: too few for a 95% interval)",
                        *median_ratio, pairs);
  }
  record.verdict_detail = fmt::format(
      "evidence for the search: {} vs {}{}; after it P(first bad ≤ {}) = {:.3f}, best guess "
      "{} (p = {:.3f})",
      ShortCommit(log.commit), ShortCommit(baseline), ratio, ShortCommit(log.commit),
      log.mass_at_or_before, ShortCommit(log.best_commit), log.best_probability);
}

}  // namespace culprit
