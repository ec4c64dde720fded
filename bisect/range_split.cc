#include "bisect/range_split.h"

#include <algorithm>
#include <cmath>

namespace culprit {
namespace {

bool Verified(const BisectSegment& s) {
  return s.outcome == SegmentOutcome::kChange || s.outcome == SegmentOutcome::kRange;
}

}  // namespace

SegmentCheck ClassifyCheck(Verdict verdict, double ratio, bool speedup) {
  switch (verdict) {
    case Verdict::kNull:
      return SegmentCheck::kTie;
    case Verdict::kInconclusive:
    case Verdict::kError:
      return SegmentCheck::kUndecided;
    case Verdict::kEffect:
      return (ratio < 1) == speedup ? SegmentCheck::kSame : SegmentCheck::kOpposite;
  }
  return SegmentCheck::kUndecided;
}

std::vector<BisectSegment> UnexplainedParts(const BisectSegment& searched) {
  std::vector<BisectSegment> parts;
  if (!Verified(searched)) return parts;
  const int parent = searched.first - 1;
  if (parent > searched.lo) {
    BisectSegment before;
    before.lo = searched.lo;
    before.hi = parent;
    parts.push_back(before);
  }
  if (searched.hi > searched.change) {
    BisectSegment after;
    after.lo = searched.change;
    after.hi = searched.hi;
    parts.push_back(after);
  }
  return parts;
}

int SearchesMade(const std::vector<BisectSegment>& segments) {
  int made = 0;
  for (const BisectSegment& s : segments) {
    // Segment 0's search lives in BisectState::search_json; it is always made.
    if (&s == &segments.front() || !s.search_json.empty()) ++made;
  }
  return made;
}

bool ShouldSearch(const BisectSegment& segment, int searches_made, int max_changes) {
  return (segment.check == SegmentCheck::kSame || segment.check == SegmentCheck::kOpposite) &&
         searches_made < max_changes;
}

bool SearchesForSpeedup(const BisectSegment& segment, bool range_speedup) {
  return segment.check == SegmentCheck::kOpposite ? !range_speedup : range_speedup;
}

int NextUnchecked(const std::vector<BisectSegment>& segments) {
  for (size_t k = 0; k < segments.size(); ++k) {
    if (segments[k].check == SegmentCheck::kNotMeasured) return static_cast<int>(k);
  }
  return -1;
}

std::vector<int> VerifiedChanges(const std::vector<BisectSegment>& segments) {
  std::vector<int> out;
  for (size_t k = 0; k < segments.size(); ++k) {
    if (Verified(segments[k])) out.push_back(static_cast<int>(k));
  }
  std::sort(out.begin(), out.end(),
            [&](int a, int b) { return segments[a].change < segments[b].change; });
  return out;
}

int EarliestChange(const std::vector<BisectSegment>& segments) {
  // A change's direction is its segment's: a part checked "opposite" is searched the other
  // way, and a part of that part checked "same" the range's way again.
  for (int k : VerifiedChanges(segments)) {
    if (segments[k].check != SegmentCheck::kOpposite) return k;
  }
  return -1;
}

bool FirstChangeIsFirst(const std::vector<BisectSegment>& segments) {
  const int earliest = EarliestChange(segments);
  if (earliest < 0) return false;
  const int parent = segments[earliest].first - 1;
  // Commit i is accounted for by a tie over (lo, hi] that holds it, or by a verified
  // change the other way that is it.
  for (int i = 1; i <= parent; ++i) {
    const bool accounted =
        std::any_of(segments.begin(), segments.end(), [&](const BisectSegment& s) {
          if (s.check == SegmentCheck::kTie && s.lo < i && i <= s.hi) return true;
          return Verified(s) && s.check == SegmentCheck::kOpposite && s.first <= i && i <= s.change;
        });
    if (!accounted) return false;
  }
  return true;
}

int MoveBeforeTheEarliestChange(const std::vector<BisectSegment>& segments,
                                const std::vector<BisectStepLog>& log, double band) {
  const int earliest = EarliestChange(segments);
  if (earliest < 0) return -1;
  const int parent = segments[earliest].first - 1;
  for (size_t k = 0; k < log.size(); ++k) {
    const BisectStepLog& step = log[k];
    if (step.kind != BisectStepKind::kMeasure || !step.has_interval) continue;
    if (step.index > parent || step.baseline >= step.index) continue;
    // The ends of the part may tie while this commit sat beyond the band: a move that returns.
    if (step.low > 1 + band || step.high < 1 / (1 + band)) return static_cast<int>(k);
  }
  return -1;
}

bool ShownFirst(const std::vector<BisectSegment>& segments, const std::vector<BisectStepLog>& log,
                double band) {
  return FirstChangeIsFirst(segments) && MoveBeforeTheEarliestChange(segments, log, band) < 0;
}

std::vector<int> TiesOfEndsOnlyBeforeTheEarliestChange(const std::vector<BisectSegment>& segments) {
  std::vector<int> out;
  const int earliest = EarliestChange(segments);
  if (earliest < 0) return out;
  for (size_t k = 0; k < segments.size(); ++k) {
    const BisectSegment& s = segments[k];
    if (s.check == SegmentCheck::kTie && s.hi < segments[earliest].first && s.hi - s.lo >= 2) {
      out.push_back(static_cast<int>(k));
    }
  }
  std::sort(out.begin(), out.end(), [&](int a, int b) { return segments[a].lo < segments[b].lo; });
  return out;
}

bool TieEarnsFirst(const std::vector<BisectSegment>& segments, int k) {
  const int earliest = EarliestChange(segments);
  if (earliest < 0 || k < 0 || k >= static_cast<int>(segments.size())) return false;
  return segments[k].hi < segments[earliest].first;
}

std::vector<int> UnplacedSegments(const std::vector<BisectSegment>& segments) {
  std::vector<int> out;
  for (size_t k = 0; k < segments.size(); ++k) {
    const BisectSegment& s = segments[k];
    if (s.check == SegmentCheck::kTie || s.check == SegmentCheck::kNotMeasured || Verified(s))
      continue;
    // Every move of ×A or more ruled out: placed as far as the check can say. One ruled out
    // on an estimate beyond the band may still hold a smaller change: left unplaced.
    if (s.ruled_out && !s.small_move_suspected) continue;
    // A segment still being searched has no outcome yet; it is not a leftover.
    const bool moves = s.check == SegmentCheck::kSame || s.check == SegmentCheck::kOpposite;
    if (moves && s.outcome == SegmentOutcome::kNone) continue;
    out.push_back(static_cast<int>(k));
  }
  std::sort(out.begin(), out.end(), [&](int a, int b) { return segments[a].lo < segments[b].lo; });
  return out;
}

Decomposition DecomposeMove(const std::vector<BisectSegment>& segments,
                            const std::vector<std::string>& names, double band) {
  Factor total;
  total.name = "the move";
  if (!segments.empty()) {
    const BisectSegment& whole = segments.front();
    total.log_ratio = std::log(whole.ratio);
    total.low = std::log(whole.low);
    total.high = std::log(whole.high);
  }
  std::vector<Factor> parts;
  std::vector<int> changes = VerifiedChanges(segments);
  for (size_t i = 0; i < changes.size(); ++i) {
    const BisectSegment& s = segments[changes[i]];
    Factor f;
    f.name = i < names.size() ? names[i] : "change " + std::to_string(s.change);
    f.log_ratio = s.log_ratio;
    f.low = s.log_low;
    f.high = s.log_high;
    parts.push_back(f);
  }
  return Decompose(total, parts, band);
}

}  // namespace culprit
