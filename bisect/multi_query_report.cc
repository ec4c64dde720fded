#include "bisect/multi_query_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "base/exit_codes.h"
#include "base/strings.h"
#include "bisect/range_split.h"
#include "records/multi_bisect_details.h"

namespace culprit {
namespace {

std::string OutcomeWord(SearchOutcome::Kind kind) {
  switch (kind) {
    case SearchOutcome::Kind::kCulprit:
      return "CULPRIT";
    case SearchOutcome::Kind::kRange:
      return "RANGE";
    case SearchOutcome::Kind::kInconclusive:
      return "INCONCLUSIVE";
    case SearchOutcome::Kind::kNotReproducible:
      return "NOT REPRODUCIBLE";
    case SearchOutcome::Kind::kInProgress:
      break;
  }
  return "";
}

// The range's move as its bisect confirmed it: segment 0's check, or the confirmation step
// of a bisect that stopped there.
void RangeMove(const BisectState& state, MultiBisectQueryFacts& q) {
  if (!state.segments.empty() && state.segments[0].check != SegmentCheck::kNotMeasured) {
    const BisectSegment& whole = state.segments[0];
    q.ratio = whole.ratio;
    q.low = whole.low;
    q.high = whole.high;
    return;
  }
  for (auto it = state.log.rbegin(); it != state.log.rend(); ++it) {
    if (it->kind != BisectStepKind::kConfirm || it->pairs == 0 || !it->has_interval) continue;
    q.ratio = it->ratio;
    q.low = it->low;
    q.high = it->high;
    return;
  }
}

// The commit at `index` of `state`'s range, or "" for an index it does not hold.
std::string CommitAt(const BisectState& state, int index) {
  if (index < 0 || index >= static_cast<int>(state.commits.size())) return "";
  return state.commits[index];
}

}  // namespace

MultiBisectQueryFacts QueryBisectFacts(const std::string& query, const BisectState& state,
                                       const SearchOutcome* outcome, bool found) {
  MultiBisectQueryFacts q;
  q.query = query;
  q.status = found ? MultiBisectStatus::kFound : MultiBisectStatus::kNothing;
  q.result_record = state.result_record;
  if (outcome) {
    q.outcome = OutcomeWord(outcome->kind);
    q.reason = outcome->reason;
  } else if (!found) {
    q.reason = "its bisect finished before the multi-query bisect noted it: record " +
               state.result_record + " says what it found";
  }
  RangeMove(state, q);
  for (int k : VerifiedChanges(state.segments)) {
    const BisectSegment& s = state.segments[k];
    MultiBisectChangeFacts c;
    c.first = CommitAt(state, s.first);
    c.commit = CommitAt(state, s.change);
    c.ratio = std::exp(s.log_ratio);
    c.low = std::exp(s.log_low);
    c.high = std::exp(s.log_high);
    c.pairs = s.verification_pairs;
    q.changes.push_back(std::move(c));
  }
  for (int k : UnplacedSegments(state.segments)) {
    const BisectSegment& s = state.segments[k];
    q.unplaced.push_back({CommitAt(state, s.lo), CommitAt(state, s.hi),
                          std::string(SegmentCheckName(s.check)), s.ratio, s.low, s.high});
  }
  return q;
}

MultiBisectQueryFacts FailedQueryFacts(const std::string& query, const std::string& error) {
  MultiBisectQueryFacts q;
  q.query = query;
  q.status = MultiBisectStatus::kFailed;
  q.outcome = "FAILED";
  q.reason = error;
  return q;
}

std::vector<MultiBisectCommonChange> CoincidingChanges(
    const std::vector<MultiBisectQueryFacts>& queries) {
  std::vector<MultiBisectCommonChange> out;
  for (int q = 0; q < static_cast<int>(queries.size()); ++q) {
    for (int k = 0; k < static_cast<int>(queries[q].changes.size()); ++k) {
      const MultiBisectChangeFacts& c = queries[q].changes[k];
      auto same = std::find_if(out.begin(), out.end(), [&](const MultiBisectCommonChange& o) {
        return o.commit == c.commit && o.first == c.first;
      });
      if (same == out.end()) {
        out.push_back({c.first, c.commit, {}});
        same = std::prev(out.end());
      }
      same->moved.emplace_back(q, k);
    }
  }
  return out;
}

int MultiBisectExitCode(const MultiBisectFacts& facts) {
  bool failed = false, nothing = false;
  for (const MultiBisectQueryFacts& q : facts.queries) {
    failed = failed || q.status == MultiBisectStatus::kFailed;
    nothing = nothing || q.status == MultiBisectStatus::kNothing ||
              q.status == MultiBisectStatus::kNotRun;
  }
  if (failed) return kExitFailure;
  return nothing || facts.queries.empty() ? kExitBisectNothingFound : kExitOk;
}

Record MultiBisectRecord(const MultiBisectFacts& facts, const std::string& config_digest) {
  Record record;
  record.kind = RecordKind::kMultiBisect;
  record.config_digest = config_digest;
  record.culprit_version = CULPRIT_VERSION;
  std::vector<std::string> names;
  bool found = false, all_tied = !facts.queries.empty();
  for (const MultiBisectQueryFacts& q : facts.queries) {
    names.push_back(q.query);
    if (!q.result_record.empty()) record.links.push_back(q.result_record);
    found = found || q.status == MultiBisectStatus::kFound;
    all_tied = all_tied && q.outcome == "NOT REPRODUCIBLE";
  }
  record.hypothesis = fmt::format("what moved each of {} between {} and {}", Join(names, ", "),
                                  facts.good, facts.bad);
  record.verdict = found ? Verdict::kEffect : all_tied ? Verdict::kNull : Verdict::kInconclusive;
  int several = 0;
  for (const MultiBisectCommonChange& c : facts.changes) several += c.moved.size() > 1 ? 1 : 0;
  record.verdict_detail = fmt::format(
      "{} queries bisected, {} distinct changes verified, {} of them moving several "
      "queries",
      facts.queries.size(), facts.changes.size(), several);
  MultiBisectDetails details;
  details.good = facts.good;
  details.bad = facts.bad;
  details.queries = names;
  if (!facts.from_table.empty()) details.from_table = facts.from_table;
  details.WriteTo(&record.details);
  record.details_json = MultiBisectFactsToJson(facts);
  return record;
}

}  // namespace culprit
