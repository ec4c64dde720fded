#include "bisect/bisect_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

#include "base/metric_direction.h"
#include "base/numbers.h"
#include "base/strings.h"
#include "base/timestamp.h"
#include "bisect/bisect_budget.h"
#include "bisect/range_split.h"
#include "bisect/run_reuse.h"
#include "bisect/segment_payloads.h"
#include "bisect/slow_tail.h"
#include "bisect/step_lines.h"
#include "probes/log_interval.h"
#include "probes/summary.h"
#include "records/bisect_details.h"
#include "records/bisect_payload.h"

namespace culprit {
namespace {

// What every search and check of the range spent, and the commits they could not build.
struct RangeSpending {
  int builds = 0, pairs = 0;
  std::vector<int> unbuildable;  ///< Range indexes.
};

RangeSpending SpendingOf(const BisectSearch& main, const std::vector<BisectSegment>& segments) {
  RangeSpending r;
  for (size_t k = 0; k < segments.size(); ++k) {
    const BisectSegment& g = segments[k];
    std::optional<BisectSearch> sub;
    if (k == 0) {
      sub = main;
    } else if (!g.search_json.empty()) {
      if (Result<BisectSearch> restored = BisectSearch::FromJson(g.search_json)) sub = *restored;
    }
    if (!sub) {
      r.pairs += g.pairs;  // a check that started no search
      continue;
    }
    r.builds += sub->builds_used();
    r.pairs += sub->pairs_used();
    for (int j : sub->unbuildable()) r.unbuildable.push_back(g.lo + j);
  }
  return r;
}

const char* CheckMeaning(const BisectSegment& s) {
  if (s.check == SegmentCheck::kTie) return "a tie";
  if (s.check == SegmentCheck::kSame) return "moves the way the range does";
  if (s.check == SegmentCheck::kOpposite) return "moves the other way";
  // A part past the earliest change seeks no tie (PlanTie): "neither a tie" would read as a
  // tie looked for and missed, where its interval may lie well inside the band.
  if (!s.tie_sought && !s.tie_earns_label) {
    return "no move beyond the band found; a tie not sought (no label rides on it past the "
           "earliest "
           "change)";
  }
  return "neither a tie nor a move beyond the band (undecided)";
}

// Whether a sitting measured the segment's check: one the pair cap left unmeasured has an
// undecided check, a reason, and no figures to print.
bool CheckMeasured(const BisectSegment& s) { return !s.check_record.empty(); }

// "1a2b3c4d5e..9f8e7d6c5b": commits[lo]..commits[hi].
std::string Span(const std::vector<std::string>& commits, int lo, int hi) {
  return fmt::format("{}..{}", ShortCommit(commits[lo]), ShortCommit(commits[hi]));
}

// The single-culprit fields of the report (what `judge` and older readers use): the
// earliest verified change, in the range's direction (a speed-up's sign flipped back).
SearchOutcome EarliestChangeOutcome(const BisectSegment& earliest, bool speedup) {
  SearchOutcome o;
  o.kind = earliest.outcome == SegmentOutcome::kRange ? SearchOutcome::Kind::kRange
                                                      : SearchOutcome::Kind::kCulprit;
  o.first = earliest.first;
  o.last = earliest.change;
  o.probability = earliest.probability;
  o.verified = true;
  const LogInterval ranged =
      LogInterval{earliest.log_ratio, earliest.log_low, earliest.log_high}.FlippedIf(speedup);
  o.log_ratio = ranged.estimate;
  o.log_ratio_low = ranged.low;
  o.log_ratio_high = ranged.high;
  o.verification_pairs = earliest.verification_pairs;
  o.interval_confidence = earliest.verify_confidence;
  o.reason = earliest.reason;
  return o;
}

// "at 99% confidence", or for an interval the near-deterministic rule decided (confidence 1:
// the observed range of every run's ratio, not a coverage; docs/statistics.md) what it is.
std::string AtConfidence(double confidence) {
  if (confidence >= 1) return "the runs' observed range (near-deterministic rule)";
  return fmt::format("at {} confidence", FormatProbability(confidence));
}

// The line that withholds "first bad commit" from the earliest change: what is known of the
// commits before it (checked, and how; or not checked).
std::string NotShownFirstLine(const std::vector<BisectSegment>& segments,
                              const BisectSegment& earliest,
                              const std::vector<std::string>& commits) {
  std::string before = fmt::format("{} was not checked", Span(commits, 0, earliest.first - 1));
  // The most pairs a tie before it was predicted to need where a check did not seek it, or
  // sought it with --prove-first's cap short of them.
  int not_sought = 0, short_of = 0, sought_within = 0;
  double smaller_than = 0;  // The part before it ruled out moves of this much or more.
  for (const BisectSegment& s : segments) {
    const bool before_it = s.hi < earliest.first && CheckMeasured(s) &&
                           s.check == SegmentCheck::kUndecided && s.tie_pairs_needed > 0;
    if (before_it && !s.tie_sought) not_sought = std::max(not_sought, s.tie_pairs_needed);
    if (before_it && s.tie_sought && s.tie_short) {
      short_of = std::max(short_of, s.tie_pairs_needed);
      sought_within = std::max(sought_within, s.tie_budget);
    }
    if (s.lo != 0 || s.hi != earliest.first - 1) continue;
    if (!CheckMeasured(s) && !s.reason.empty()) before += " (" + s.reason + ")";
    if (CheckMeasured(s)) {
      before = fmt::format("{} against {} {}{} ({} {}, {} pairs)", ShortCommit(commits[s.hi]),
                           ShortCommit(commits[0]),
                           s.tie_sought ? "" : "checked for a further move only: ", CheckMeaning(s),
                           FormatRatioInterval(s.ratio, s.low, s.high), AtConfidence(s.confidence),
                           s.pairs);
      before += CheckedPartSuffix(s, commits);
      if (s.ruled_out && !s.small_move_suspected) smaller_than = s.alternative;
    }
  }
  std::string take;
  if (not_sought > 0) {
    take = fmt::format("showing it would take ≈ {} pairs (`--prove-first`); ",
                       RoundedPairs(not_sought));
  } else if (short_of > 0) {
    take = fmt::format(
        "showing it would take ≈ {} pairs, more than the {} a check may spend ([bisect] "
        "confirm_max_pairs), which did not show it; ",
        RoundedPairs(short_of), sought_within);
  }
  return fmt::format("NOT SHOWN TO BE THE FIRST BAD COMMIT: {}: {}{}; {}\n",
                     ShortCommit(commits[earliest.change]), take, before,
                     smaller_than > 0
                         ? fmt::format("a smaller change before it (within x{:.3f}) is not "
                                       "ruled out",
                                       smaller_than)
                         : std::string("a change before it is not ruled out"));
}

// Why an unplaced segment holds a move no change was named for.
std::string UnplacedReason(const BisectSegment& s) {
  if (!CheckMeasured(s)) return "not checked: " + s.reason;
  const bool moves = s.check == SegmentCheck::kSame || s.check == SegmentCheck::kOpposite;
  // Unsearched, or its search ended on a re-check that did not find the move again: the
  // reason says it whole.
  const bool not_reproduced = s.recheck != SegmentCheck::kNotMeasured && s.recheck != s.check;
  if (moves && (s.outcome == SegmentOutcome::kUnsearched || not_reproduced)) return s.reason;
  if (moves) return "its search verified no change: " + s.reason;
  const std::string further = FurtherMoveText(s);
  if (!further.empty()) {
    return fmt::format(
        "its check {}: {}{}",
        s.tie_sought ? "could not tell a tie from a change" : "hunted a further move only", further,
        s.reason.empty() ? std::string() : "; " + s.reason);
  }
  if (!s.tie_sought) {
    return "its check hunted a further move only, and found none within reach" +
           (s.reason.empty() ? std::string() : "; " + s.reason);
  }
  if (!s.reason.empty()) return "its check could not tell a tie from a change: " + s.reason;
  return "its check could not tell a tie from a change";
}

// The facts the runner fetched of commit `id`, or none.
const CommitFacts& FactsOf(const SearchedFacts& in, const std::string& id) {
  static const CommitFacts kNone;
  auto it = in.commits.find(id);
  return it == in.commits.end() ? kNone : it->second;
}

// The branch a verified change brought in, when it is a merge: a range is never one.
std::optional<MergeDescent> MergeOf(const BisectSegment& change, const CommitFacts& facts) {
  return change.outcome == SegmentOutcome::kChange ? facts.merge : std::nullopt;
}

// A verified change's ratio across it, as measured.
Estimate ChangeEstimate(const BisectSegment& change) {
  Estimate e = LogInterval{change.log_ratio, change.log_low, change.log_high}.ToRatioEstimate();
  e.pairs = change.verification_pairs;
  e.confidence = change.verify_confidence;
  return e;
}

// What the earliest change sets in the final record: the culprit's fields, or a merge's.
void FirstChangeFields(const BisectSegment& change, const std::vector<std::string>& commits,
                       const CommitFacts& facts, Record& record) {
  const std::string& id = commits[change.change];
  record.estimate = ChangeEstimate(change);
  BisectDetails details;
  if (const std::optional<MergeDescent> merge = MergeOf(change, facts)) {
    // Not a culprit: `investigate` and `judge` read culprit_commit, and a merge is not one.
    details.merge.commit = id;
    details.merge.branch_good = merge->good;
    details.merge.branch_bad = merge->bad;
    details.merge.brought_in = merge->brought_in;
    if (facts.info) details.merge.subject = facts.info->subject;
    details.WriteTo(&record.details);
    return;
  }
  details.culprit_commit = id;
  details.first_commit = commits[change.first];
  if (facts.info) details.culprit_subject = facts.info->subject;
  details.changed_files = facts.changed_files;
  details.WriteTo(&record.details);
  Arm parent_arm;
  parent_arm.name = "parent";
  parent_arm.commit = commits[change.first - 1];
  Arm culprit;
  culprit.name = "culprit";
  culprit.commit = id;
  record.arms = {parent_arm, culprit};
}

// "CULPRIT <id>"/"CHANGE <id>"/"MERGE <id>" and what follows: one verified change. The
// earliest (`first`) also sets the record's culprit (FirstChangeFields).
std::string ChangeText(const BisectSegment& change, const std::string& head,
                       const SearchedFacts& in, Record& record, bool first) {
  const std::vector<std::string>& commits = in.state->commits;
  const std::string& id = commits[change.change];
  const CommitFacts& facts = FactsOf(in, id);
  const int parent = change.first - 1;
  std::string text;
  if (change.outcome == SegmentOutcome::kRange) {
    text += fmt::format("{} RANGE {}..{} (the commits before {} could not be built)", head,
                        ShortCommit(commits[change.first]), ShortCommit(id), ShortCommit(id));
    if (head == "CHANGE") text += fmt::format("\nCHANGE {}", id);
  } else {
    text += fmt::format("{} {}", head, id);
  }
  if (facts.info) {
    text += fmt::format("  {}\n  author   {} <{}>, {}\n", facts.info->subject, facts.info->author,
                        facts.info->author_email,
                        FormatIsoUtc(std::chrono::system_clock::time_point(
                            std::chrono::seconds(facts.info->time))));
  } else {
    text += "\n";
  }
  if (!in.state->descended_from.empty()) {
    text += fmt::format("  brought in by merge {}\n", ShortCommit(in.state->descended_from));
  }
  if (facts.changed_files) text += "  changed  " + ChangedFilesText(*facts.changed_files) + "\n";
  // The verification is a sequential test: its interval is at the confidence of the look
  // it stopped at, not at the test's overall 95%.
  const Estimate e = ChangeEstimate(change);
  const std::optional<MergeDescent> merge = MergeOf(change, facts);
  // The search runs on the first-parent chain: the commit before it in the range is its
  // first parent, which is what it was verified against (checked, not assumed, for a merge).
  // "Fresh" only when it is: on a count that repeats the verification may hold runs an
  // earlier step measured (run_reuse.h), and then its pairs are not independent of the search's.
  const auto reused = in.reused.verifications.find(id);
  const std::string pairs = reused == in.reused.verifications.end()
                                ? fmt::format("{} fresh pairs", e.pairs)
                                : fmt::format("{} pairs, re-using {},", e.pairs, reused->second);
  text += fmt::format(
      "  ratio across it {} {} ({} against its {}parent {}): {}\n", FormatRatio(e),
      AtConfidence(e.confidence), pairs, merge ? "first " : "", ShortCommit(commits[parent]),
      change.check == SegmentCheck::kOpposite ? "EFFECT the other way from the range, verified"
                                              : "EFFECT, verified");
  if (merge) {
    text += fmt::format(
        "  a merge: it brought in {} from {}; a merge is not named as the culprit: "
        "the commit inside it is searched on the branch {}..{}\n",
        CountOf(merge->brought_in, "commit"), ShortCommit(merge->bad), ShortCommit(merge->good),
        ShortCommit(merge->bad));
  }
  // The search's model's posterior, not a calibrated certainty (docs/statistics.md): past
  // 99.99% the model's own assumptions, not the data, set the digits.
  text += fmt::format(
      "  model posterior {} (one change in {}..{})\n",
      change.probability > 0.9999 ? std::string("> 99.99%") : FormatProbability(change.probability),
      ShortCommit(commits[change.lo]), ShortCommit(commits[change.hi]));
  if (first) FirstChangeFields(change, commits, facts, record);
  return text;
}

// Every verified change's lines, and what the decomposition and the record name them by.
struct ChangeList {
  std::string text;
  std::vector<std::string> names, ids;
  std::vector<BisectChangePayload> payloads;
};

ChangeList ListChanges(const SearchedFacts& in, const std::vector<int>& changes, int earliest_k,
                       Record& record) {
  const std::vector<BisectSegment>& segments = in.state->segments;
  const std::vector<std::string>& commits = in.state->commits;
  const bool first_is_first = ShownFirst(segments, in.state->log, in.band);
  const bool single = changes.size() == 1;
  ChangeList list;
  for (int k : changes) {
    const BisectSegment& c = segments[k];
    // CULPRIT (the first bad commit) only when nothing before it moves, checked; a merge is
    // never either: the move came in with one of the commits it brought.
    const bool merge = MergeOf(c, FactsOf(in, commits[c.change])).has_value();
    const std::string head = merge ? "MERGE" : single && first_is_first ? "CULPRIT" : "CHANGE";
    list.text += ChangeText(c, head, in, record, k == earliest_k);
    list.names.push_back("commit " + ShortCommit(commits[c.change]));
    list.ids.push_back(commits[c.change]);
    list.payloads.push_back(ChangePayload(c, commits));
  }
  return list;
}

// The line that withholds "first bad commit" from the earliest change although the part before
// it ties: a search step saw a commit inside that part beyond the band (a move that returns),
// and the sweep of the part is what would locate it.
std::string MoveBeforeLine(const BisectStepLog& step, const BisectSegment& earliest,
                           const std::vector<std::string>& commits, std::string_view query) {
  const int parent = earliest.first - 1;
  return fmt::format(
      "NOT SHOWN TO BE THE FIRST BAD COMMIT: {}: the search measured {} at {} against {}, "
      "beyond the band, though the part before it ties: a move that returns lies in {}; "
      "next: culprit sweep {}..{}{}\n",
      ShortCommit(commits[earliest.change]), ShortCommit(step.commit), StepRatioText(step),
      ShortCommit(commits[step.baseline]), Span(commits, 0, parent), ShortCommit(commits[0]),
      ShortCommit(commits[parent]), query.empty() ? "" : fmt::format(" -q {}", query));
}

// What the CULPRIT label rests on when a tie before it shows only its ends: the commits inside
// were not measured, so "first bad commit" holds for the ends, not for each commit (issue 27:
// +10% undone four commits later leaves the ends tied). One line per such part, with the one
// command that measures every commit of it.
std::string EndsOnlyLines(const std::vector<BisectSegment>& segments,
                          const std::vector<std::string>& commits, std::string_view query) {
  std::string text;
  for (int k : TiesOfEndsOnlyBeforeTheEarliestChange(segments)) {
    const BisectSegment& s = segments[k];
    const int inside = s.hi - s.lo - 1;
    text += fmt::format(
        "  shown at the ends only: {} ties at its ends; {} measured, so a move there that "
        "returns (+10% then -10%) is not ruled out; to measure each: culprit sweep {}..{} "
        "--every 1{}\n",
        Span(commits, s.lo, s.hi),
        inside == 1 ? std::string("the commit inside was not")
                    : fmt::format("the {} commits inside were not each", inside),
        ShortCommit(commits[s.lo]), ShortCommit(commits[s.hi]),
        query.empty() ? "" : fmt::format(" -q {}", query));
  }
  return text;
}

// What follows the changes about the earliest: the merge searched next, the culprit among
// several changes, or why it is not shown to be the first bad commit.
std::string EarliestLines(const SearchedFacts& in, const std::vector<int>& changes,
                          const BisectSegment& earliest, const std::optional<MergeDescent>& merge) {
  const std::vector<BisectSegment>& segments = in.state->segments;
  const std::vector<std::string>& commits = in.state->commits;
  const bool first_is_first = ShownFirst(segments, in.state->log, in.band);
  if (merge) {
    return fmt::format(
        "MERGE {}  the earliest change the way the range moved is a merge; next, the {} it "
        "brought in, searched on the branch's first-parent chain: culprit bisect run --good {} "
        "--bad {} -q {}\n",
        commits[earliest.change], CountOf(merge->brought_in, "commit"), ShortCommit(merge->good),
        ShortCommit(merge->bad), in.query->name);
  }
  if (const int moved = MoveBeforeTheEarliestChange(segments, in.state->log, in.band);
      moved >= 0 && FirstChangeIsFirst(segments)) {
    return MoveBeforeLine(in.state->log[moved], earliest, commits, in.query->name);
  }
  if (!first_is_first) return NotShownFirstLine(segments, earliest, commits);
  const std::string ends_only =
      EndsOnlyLines(segments, commits, in.query != nullptr ? in.query->name : in.state->query);
  if (changes.size() == 1) return ends_only;
  const int parent = earliest.first - 1;
  const bool other_way_before = std::any_of(changes.begin(), changes.end(), [&](int k) {
    return segments[k].check == SegmentCheck::kOpposite && segments[k].change <= parent;
  });
  const std::string before = parent == 0 ? std::string("nothing precedes it")
                             : other_way_before
                                 ? fmt::format(
                                       "every commit of {} is in a part measured a tie or is "
                                       "a verified change the other way",
                                       Span(commits, 0, parent))
                                 : Span(commits, 0, parent) + " measured a tie";
  return fmt::format(
      "CULPRIT {}  the first change the way the range moved ({} changes in all): "
      "{}\n{}",
      commits[earliest.change], changes.size(), before, ends_only);
}

// The parts checked (or not) beyond the whole range, and the moves no change was placed for
// (noted in `record` too); `payloads` gets every segment.
std::string SegmentLines(const std::vector<BisectSegment>& segments,
                         const std::vector<std::string>& commits, std::string_view query,
                         double band, Record& record, std::vector<BisectSegmentPayload>& payloads) {
  std::string text;
  for (size_t k = 0; k < segments.size(); ++k) {
    const BisectSegment& s = segments[k];
    payloads.push_back(SegmentPayload(s, commits));
    if (k == 0) continue;
    if (!CheckMeasured(s)) {
      text += fmt::format("  not checked {} ({}): {}\n", Span(commits, s.lo, s.hi),
                          CountOf(s.hi - s.lo, "commit"), s.reason);
      continue;
    }
    text += fmt::format("  checked {} ({}): {} {} {}, {} pairs{}\n", Span(commits, s.lo, s.hi),
                        CountOf(s.hi - s.lo, "commit"), CheckMeaning(s),
                        FormatRatioInterval(s.ratio, s.low, s.high), AtConfidence(s.confidence),
                        s.pairs, CheckedPartSuffix(s, commits));
  }
  for (int k : UnplacedSegments(segments)) {
    const BisectSegment& s = segments[k];
    const std::string figures =
        CheckMeasured(s) ? " ×" + FormatRatioInterval(s.ratio, s.low, s.high) : "";
    const std::string line = fmt::format(
        "UNPLACED: {}{} (commits after {} up to {}): {}", Span(commits, s.lo, s.hi), figures,
        ShortCommit(commits[s.lo]), ShortCommit(commits[s.hi]), UnplacedReason(s));
    text += line + "\n";
    record.notes.push_back(line);
    // A part of several commits whose ends tie or barely move may still hide a change beyond
    // the band (+7% then -4%): its sweep measures the commits inside it (bisect/sweep.h).
    if (s.outcome == SegmentOutcome::kUnsearched && MovesInTheTailOnly(s, band)) {
      // The sweep places shifts of the typical run too: the table reads the mean.
      text += "  next: " + TailTableCommand(commits, s.lo, s.hi, query) + "\n";
    } else if (s.hi - s.lo >= 2) {
      text += fmt::format("  next: culprit sweep {}..{}{}\n", ShortCommit(commits[s.lo]),
                          ShortCommit(commits[s.hi]),
                          query.empty() ? "" : fmt::format(" -q {}", query));
    }
  }
  return text;
}

// The report of a bisect that verified at least one change.
std::string ChangesText(const SearchedFacts& in, Record& record, BisectReport& report,
                        BisectPayload& payload) {
  const std::vector<BisectSegment>& segments = in.state->segments;
  const std::vector<std::string>& commits = in.state->commits;
  const std::vector<int> changes = VerifiedChanges(segments);
  const bool first_is_first = ShownFirst(segments, in.state->log, in.band);
  const bool single = changes.size() == 1;
  // The culprit candidate is the earliest change the way the range moved; one the other
  // way (an improvement before a regression) is reported, never called bad. A search only
  // starts inside a verified change's segment, and the first is the range's, so one exists.
  const int earliest_k = EarliestChange(segments) >= 0 ? EarliestChange(segments) : changes.front();
  const BisectSegment& earliest = segments[earliest_k];
  report.outcome = EarliestChangeOutcome(earliest, in.state->speedup);

  const ChangeList list = ListChanges(in, changes, earliest_k, record);
  const std::optional<MergeDescent> merge =
      MergeOf(earliest, FactsOf(in, commits[earliest.change]));
  if (merge) {
    report.found = false;
    report.descend = merge;
  }
  std::string text = list.text + EarliestLines(in, changes, earliest, merge);
  Decomposition d = DecomposeMove(segments, list.names, in.band);
  const std::string decomposition = FormatDecomposition(d);
  text += decomposition + "\n";
  text += SegmentLines(segments, commits, in.query != nullptr ? in.query->name : in.state->query,
                       in.band, record, payload.segments);

  BisectDetails details;
  details.changes = list.ids;
  // "yes": every commit before it was measured; "ends": the ties before it show their ends only.
  details.culprit_is_first = merge             ? CulpritIsFirst::kMerge
                             : !first_is_first ? CulpritIsFirst::kNo
                             : TiesOfEndsOnlyBeforeTheEarliestChange(segments).empty()
                                 ? CulpritIsFirst::kYes
                                 : CulpritIsFirst::kEnds;
  details.decomposition = decomposition;
  details.WriteTo(&record.details);
  record.verdict_detail =
      single && first_is_first
          ? earliest.reason
          : fmt::format("{}; {}", CountOf(changes.size(), "verified change"), decomposition);
  payload.changes = list.payloads;
  payload.decomposition = DecompositionPayload(d);
  record.verdict = Verdict::kEffect;
  return text;
}

}  // namespace

std::string ConfirmationMismatch(const Record& record, const std::string& good,
                                 const std::string& bad, const std::string& query, double band) {
  if (record.kind != RecordKind::kCompare && record.kind != RecordKind::kBisectStep) {
    return fmt::format("it is a {} record, not a comparison", RecordKindName(record.kind));
  }
  if (record.arms.size() != 2) return "it is not a sitting of two arms";
  if (record.arms[0].commit != good || record.arms[1].commit != bad) {
    return fmt::format("it measured {} against {}, not the bisect's endpoints",
                       ShortCommit(record.arms[1].commit), ShortCommit(record.arms[0].commit));
  }
  if (!record.arms[0].env.empty() || !record.arms[1].env.empty() || !record.arms[0].unset.empty() ||
      !record.arms[1].unset.empty()) {
    return "its arms ran with overrides";
  }
  if (record.query != query) return fmt::format("it measured query '{}'", record.query);
  if (std::abs(record.band - band) > 1e-12) {
    return fmt::format("its band is ±{:.1f}%, the bisect's ±{:.1f}%", record.band * 100,
                       band * 100);
  }
  if (record.interrupted) return "it was interrupted";
  if (record.verdict != Verdict::kEffect) {
    return fmt::format("its verdict is {}, not EFFECT",
                       record.verdict ? VerdictName(*record.verdict) : "none");
  }
  if (!record.estimate) return "it has no estimate";
  return "";
}

Record BisectResultRecord(const BisectState& state, const QueryConfig& query, double band,
                          const std::string& config_digest) {
  const int n = static_cast<int>(state.commits.size()) - 1;
  Record record;
  record.kind = RecordKind::kBisect;
  record.query = query.name;
  record.unit = query.unit;
  record.band = band;
  record.config_digest = config_digest;
  record.culprit_version = CULPRIT_VERSION;
  record.links = state.records;
  BisectDetails details;
  details.bisect_run = state.run_id;
  details.good_commit = state.commits[0];
  details.bad_commit = state.commits[n];
  details.range_commits = n;
  details.log2_minimum_builds = CeilLog2(n);
  details.WriteTo(&record.details);
  return record;
}

std::string UnconfirmedEnding(const BisectState& state, const UnconfirmedMove& move,
                              const std::string& confirm_summary, Record& record,
                              BisectReport& report) {
  const BisectStepLog& confirm = state.log.back();
  // NOT REPRODUCIBLE only when the confirmation showed the endpoints the same; an
  // INCONCLUSIVE confirmation is not a proof of no move, and says what it could see.
  const bool tie = move.verdict == Verdict::kNull;
  report.outcome.kind =
      tie ? SearchOutcome::Kind::kNotReproducible : SearchOutcome::Kind::kInconclusive;
  record.verdict = tie ? Verdict::kNull : Verdict::kInconclusive;
  const std::string line = DescribeUnconfirmedMove(move);
  record.verdict_detail = line.substr(line.find(": ") + 2);
  report.outcome.reason = record.verdict_detail;
  Estimate e;
  e.ratio = confirm.ratio;
  e.low = confirm.low;
  e.high = confirm.high;
  e.pairs = confirm.pairs;
  e.confidence = move.confidence;
  record.estimate = e;
  std::string text = line + "\n" + confirm_summary;
  if (!state.descended_from.empty() && tie) {
    // The merge moved the number against its first parent, yet the branch it brought in does
    // not move on its own: the move needs both sides.
    text += fmt::format(
        "The branch merge {} brought in does not move on its own: the move appears only once it "
        "is merged (the branch and the line it was merged into together). The merge is where "
        "it happens; no commit inside the branch is to blame alone.\n",
        ShortCommit(state.descended_from));
  }
  if (!state.descended_from.empty() && tie) {
    text += "The confirmation is archived as a record.\n";
  } else {
    text += tie ? "Either the host drifted since the number was taken, or the move was never "
                  "what it was said to be. The confirmation is archived as a record.\n"
                : "Nothing is concluded either way. The confirmation is archived as a record.\n";
  }
  return text;
}

std::string SettleCommand(const std::vector<int>& credible_set,
                          const std::vector<std::string>& commits, std::string_view query) {
  const int n = static_cast<int>(commits.size()) - 1;
  if (credible_set.empty() || n < 1) return "";
  const int first = credible_set.front();
  const int last = credible_set.back();
  if (first < 1 || last > n || (first == 1 && last == n)) return "";
  const int count = last - first + 1;
  return fmt::format(
      "to settle it: culprit bisect run --good {} --bad {} -q {}  ({}, about {}); or raise "
      "[bisect] max_builds and max_pairs and run this range again",
      ShortCommit(commits[first - 1]), ShortCommit(commits[last]), query, CountOf(count, "commit"),
      CountOf(std::max(1, CeilLog2(count)), "build"));
}

namespace {

// The whole range confirmed by its mean alone (MovesInTheTailOnly): no search was run, so no
// posterior or credible set speaks; the reason and the table that places the move do.
std::string TailOnlyEnding(const BisectState& state, std::string_view query,
                           const std::string& builds_line, Record& record) {
  const BisectSegment& range = state.segments.front();
  record.verdict = Verdict::kInconclusive;
  record.verdict_detail = range.reason;
  const int n = static_cast<int>(state.commits.size()) - 1;
  const std::string next = TailTableCommand(state.commits, 0, n, query);
  record.notes.push_back("next: " + next);
  return fmt::format(
      "INCONCLUSIVE: {}\n  {}\n  next: {}  (each commit against {} in one sitting, read by the "
      "mean as well: the cells that move hold the slow tail)\n",
      range.reason, builds_line, next, ShortCommit(state.commits.front()));
}

}  // namespace

Result<std::string> SearchedEnding(const SearchedFacts& in, Record& record, BisectReport& report) {
  const BisectState& state = *in.state;
  const int n = static_cast<int>(state.commits.size()) - 1;
  // The whole range's search: its posterior is what the report plots.
  Result<BisectSearch> main = BisectSearch::FromJson(state.search_json);
  if (!main) return main.error();
  const SearchOutcome whole = main->Result();
  RangeSpending spent = SpendingOf(*main, state.segments);
  spent.pairs -= SharedPairs(state.log);  // a run two sittings shared counts once
  std::vector<std::string> credible;
  for (int j : whole.credible_set) credible.push_back(ShortCommit(state.commits[j]));
  BisectDetails details;
  details.builds_used = spent.builds;
  details.pairs_used = spent.pairs;
  details.probability = whole.probability;
  details.credible_set = credible;
  details.WriteTo(&record.details);
  for (int j : spent.unbuildable) {
    record.notes.push_back("unbuildable or unmeasurable: " + state.commits[j]);
  }
  // What the report plots by commit index (docs/reports.md): the range, the
  // final posterior over "first bad commit is j" and the unbuildable indexes.
  BisectPayload payload;
  payload.commits = state.commits;
  payload.posterior = main->Posterior();
  payload.unbuildable = main->unbuildable();
  std::string builds_line = fmt::format("builds {} (⌈log2 {}⌉ = {}), pairs {}{}", spent.builds, n,
                                        CeilLog2(n), spent.pairs, SharedRunsText(state.log));
  if (in.max_total_pairs > 0) {
    builds_line += fmt::format(" (measured {} of [bisect] max_total_pairs = {})",
                               PairsMeasured(state.log), in.max_total_pairs);
  }
  std::string text;
  report.found = !VerifiedChanges(state.segments).empty();
  const BisectSegment* range = state.segments.empty() ? nullptr : &state.segments.front();
  if (!report.found && range != nullptr && range->outcome == SegmentOutcome::kUnsearched &&
      MovesInTheTailOnly(*range, in.band)) {
    report.outcome = whole;
    report.outcome.reason = range->reason;
    text += TailOnlyEnding(state, in.query != nullptr ? in.query->name : state.query, builds_line,
                           record);
  } else if (!report.found) {
    report.outcome = whole;
    if (whole.verification_pairs > 0) {
      Estimate e = LogInterval{whole.log_ratio, whole.log_ratio_low, whole.log_ratio_high}
                       .FlippedIf(state.speedup)
                       .ToRatioEstimate();
      e.pairs = whole.verification_pairs;
      e.confidence = whole.interval_confidence;
      record.estimate = e;
    }
    record.verdict = Verdict::kInconclusive;
    record.verdict_detail = whole.reason;
    text += fmt::format("INCONCLUSIVE: {}\n  credible set ({:.0f}%): {}\n  {}\n", whole.reason,
                        main->TargetProbability() * 100, Join(credible, " "), builds_line);
    // What it would take, as one command: the set is the part of the range left to search.
    if (std::string settle = SettleCommand(whole.credible_set, state.commits, in.query->name);
        !settle.empty()) {
      text += "  " + settle + "\n";
      record.notes.push_back(settle);
    }
  } else {
    text += ChangesText(in, record, report, payload);
    text += "  " + builds_line + "\n";
  }
  record.details_json = BisectPayloadToJson(payload);
  // `speedup` is "the bad end's metric is lower": a speed-up for a time, a regression for a
  // throughput. Said the metric's way up.
  const DirectionWords words = WordsFor(in.query->better, in.query->unit);
  if (state.speedup == RatioAboveOneIsWorse(in.query->better)) {
    // The searched move is the better way: said, so that it is not read as a regression.
    text +=
        fmt::format("  (the bad end is {}: this bisect searched for the change that made it {})\n",
                    words.better, words.better);
  }
  if (!in.query->better_note.empty()) text += "  note: " + in.query->better_note + "\n";
  return text;
}

std::string DriftEnding(const std::vector<BisectStepLog>& log, Record& record) {
  const int worst = StepWithLargestDrift(log);
  if (worst < 0) return "";
  const std::string drift = DescribeDrift(log[worst]);
  record.notes.push_back(drift);
  BisectDetails details;
  details.largest_step_drift = log[worst].drift;
  details.WriteTo(&record.details);
  return drift + "\n";
}

std::string FormatBisectStatus(const BisectState& s) {
  std::string out = fmt::format("bisect {}..{} on {}: {}\n", s.good_rev, s.bad_rev, s.query,
                                BisectStatusName(s.status));
  out += fmt::format("  {} commits, {} steps, started {}, updated {}\n", s.commits.size() - 1,
                     s.log.size(), s.started, s.updated);
  if (!s.log.empty()) {
    const BisectStepLog& last = s.log.back();
    if (!last.best_commit.empty()) {
      out += fmt::format("  best guess {} (p={:.3f})\n", ShortCommit(last.best_commit),
                         last.best_probability);
    }
  }
  if (!s.result_record.empty()) out += "  result record " + s.result_record + "\n";
  return out;
}

std::string FormatBisectLog(const BisectState& s) {
  std::string out =
      fmt::format("{:>4}  {:<8} {:<10} {:>5} {:>6}  {:<24} {:>8}  {}\n", "step", "kind", "commit",
                  "index", "pairs", "ratio [interval]", "P(≤ it)", "record / note");
  for (const BisectStepLog& l : s.log) {
    std::string ratio = l.pairs > 0 ? StepRatioText(l) : "-";
    out += fmt::format("{:>4}  {:<8} {:<10} {:>5} {:>6}  {:<24} {:>8.3f}  {}\n", l.step,
                       BisectStepKindName(l.kind), ShortCommit(l.commit), l.index, l.pairs, ratio,
                       l.mass_at_or_before,
                       l.note.empty() ? l.record_id : l.note + "  " + l.record_id);
  }
  return out;
}

std::string ReusedRunsText(const ReusedRunFacts& reused) {
  if (reused.reused == 0) return "";
  std::string text = fmt::format(
      "runs re-used from earlier steps: {} of the {} in the step records (a count that repeats "
      "is measured once, at most {} runs a commit; each record's reused_runs says which)\n",
      reused.reused, reused.runs, kMaxReusableRuns);
  for (const auto& [id, what] : reused.verifications) {
    text += fmt::format("  the verification of {} re-used {}\n", ShortCommit(id), what);
  }
  return text;
}

}  // namespace culprit
