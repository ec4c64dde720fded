// Known answers for taking a range with several changes apart: scripted check
// verdicts and verification ratios, no measurement.

#include "bisect/range_split.h"

#include <gtest/gtest.h>

#include <cmath>

namespace culprit {
namespace {

BisectSegment Checked(int lo, int hi, SegmentCheck check, double ratio = 1) {
  BisectSegment s;
  s.lo = lo;
  s.hi = hi;
  s.check = check;
  s.ratio = ratio;
  s.low = ratio * 0.99;
  s.high = ratio * 1.01;
  return s;
}

// A searched segment whose search verified commit `change` against change - 1.
BisectSegment Found(BisectSegment s, int change, double ratio, double half_width = 0.01) {
  s.outcome = SegmentOutcome::kChange;
  s.first = s.change = change;
  s.log_ratio = std::log(ratio);
  s.log_low = s.log_ratio - half_width;
  s.log_high = s.log_ratio + half_width;
  s.search_json = s.lo == 0 && s.hi == 12 ? "" : "{}";
  return s;
}

TEST(RangeSplit, ChecksAreJudgedAgainstTheRangesDirection) {
  EXPECT_EQ(ClassifyCheck(Verdict::kEffect, 1.2, /*speedup=*/false), SegmentCheck::kSame);
  EXPECT_EQ(ClassifyCheck(Verdict::kEffect, 0.8, false), SegmentCheck::kOpposite);
  EXPECT_EQ(ClassifyCheck(Verdict::kEffect, 0.8, /*speedup=*/true), SegmentCheck::kSame);
  EXPECT_EQ(ClassifyCheck(Verdict::kEffect, 1.2, true), SegmentCheck::kOpposite);
  EXPECT_EQ(ClassifyCheck(Verdict::kNull, 1.01, false), SegmentCheck::kTie);
  EXPECT_EQ(ClassifyCheck(Verdict::kInconclusive, 1.2, false), SegmentCheck::kUndecided);
}

TEST(RangeSplit, AChangeLeavesTheCommitsBeforeItsParentAndAfterItUnexplained) {
  std::vector<BisectSegment> parts =
      UnexplainedParts(Found(Checked(0, 12, SegmentCheck::kSame), 9, 1.157));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].lo, 0);
  EXPECT_EQ(parts[0].hi, 8);  // the parent against the good end
  EXPECT_EQ(parts[1].lo, 9);
  EXPECT_EQ(parts[1].hi, 12);  // the bad end against the change
  EXPECT_TRUE(parts[0].check == SegmentCheck::kNotMeasured &&
              parts[1].check == SegmentCheck::kNotMeasured);

  // At the ends of its segment there is nothing on that side to check.
  EXPECT_EQ(UnexplainedParts(Found(Checked(0, 12, SegmentCheck::kSame), 1, 2)).size(), 1u);
  EXPECT_EQ(UnexplainedParts(Found(Checked(0, 12, SegmentCheck::kSame), 1, 2))[0].lo, 1);
  EXPECT_EQ(UnexplainedParts(Found(Checked(0, 12, SegmentCheck::kSame), 12, 2)).size(), 1u);
  EXPECT_EQ(UnexplainedParts(Found(Checked(0, 12, SegmentCheck::kSame), 12, 2))[0].hi, 11);
  EXPECT_TRUE(UnexplainedParts(Found(Checked(4, 5, SegmentCheck::kSame), 5, 2)).empty());

  // A range (first..change, the commits before change unbuildable) is verified against
  // first - 1: that is the parent the earlier part ends at.
  BisectSegment range = Found(Checked(0, 12, SegmentCheck::kSame), 7, 2);
  range.outcome = SegmentOutcome::kRange;
  range.first = 5;
  parts = UnexplainedParts(range);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].hi, 4);
  EXPECT_EQ(parts[1].lo, 7);

  // A search that verified nothing explains nothing.
  BisectSegment inconclusive = Checked(0, 12, SegmentCheck::kSame);
  inconclusive.outcome = SegmentOutcome::kInconclusive;
  EXPECT_TRUE(UnexplainedParts(inconclusive).empty());
}

// The range: commit 5 is x1.080, commit 9 a further x1.157, the endpoints x1.265.
// The search names 9 first; the parent-vs-good check finds the earlier move.
TEST(RangeSplit, TwoStepsAreBothFoundAndTheMoveIsDecomposed) {
  std::vector<BisectSegment> segments = {
      Found(Checked(0, 12, SegmentCheck::kSame, 1.265), 9, 1.157)};
  for (BisectSegment& part : UnexplainedParts(segments[0])) segments.push_back(part);
  ASSERT_EQ(NextUnchecked(segments), 1);
  // Before anything earlier is known, 9 must not be called the first bad commit.
  EXPECT_FALSE(FirstChangeIsFirst(segments));

  segments[1] = Checked(0, 8, SegmentCheck::kSame, 1.08);  // 8 vs good: an EFFECT
  EXPECT_TRUE(ShouldSearch(segments[1], SearchesMade(segments), /*max_changes=*/3));
  segments[1] = Found(segments[1], 5, 1.080);
  for (BisectSegment& part : UnexplainedParts(segments[1])) segments.push_back(part);
  segments[2] = Checked(9, 12, SegmentCheck::kTie);
  ASSERT_EQ(NextUnchecked(segments), 3);
  segments[3] = Checked(0, 4, SegmentCheck::kTie);
  segments[4] = Checked(5, 8, SegmentCheck::kTie);
  EXPECT_EQ(NextUnchecked(segments), -1);
  EXPECT_EQ(SearchesMade(segments), 2);

  std::vector<int> changes = VerifiedChanges(segments);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(segments[changes[0]].change, 5);  // ordered by commit, not by discovery
  EXPECT_EQ(segments[changes[1]].change, 9);
  EXPECT_TRUE(FirstChangeIsFirst(segments));  // (good, 4] measured a tie
  EXPECT_TRUE(UnplacedSegments(segments).empty());

  Decomposition d = DecomposeMove(segments, {"commit a", "commit b"}, 0.05);
  ASSERT_EQ(d.parts.size(), 2u);
  EXPECT_EQ(d.parts[0].name, "commit a");
  EXPECT_NEAR(std::exp(d.parts[0].log_ratio), 1.080, 1e-12);
  EXPECT_NEAR(std::exp(d.remainder.log_ratio), 1.265 / (1.080 * 1.157), 1e-12);
  EXPECT_EQ(d.remainder_class, RemainderClass::kTie);
  EXPECT_NE(FormatDecomposition(d).find("the move ×1.265"), std::string::npos)
      << FormatDecomposition(d);
}

// +10% then -10% before the culprit: the part before it ties at its ends, but a search step
// saw a commit inside it beyond the band against the good end. That move returns inside the
// part, so the culprit is not shown to be the first bad commit (issue 27).
BisectStepLog Step(int index, int baseline, double low, double high, bool has_interval = true) {
  BisectStepLog step;
  step.kind = BisectStepKind::kMeasure;
  step.index = index;
  step.baseline = baseline;
  step.ratio = std::sqrt(low * high);
  step.low = low;
  step.high = high;
  step.has_interval = has_interval;
  return step;
}

TEST(RangeSplit, AMoveSeenInsideATiedPartBeforeTheCulpritWithholdsFirstness) {
  std::vector<BisectSegment> segments = {Found(Checked(0, 12, SegmentCheck::kSame, 1.2), 9, 1.2)};
  for (BisectSegment& part : UnexplainedParts(segments[0])) segments.push_back(part);
  segments[1] = Checked(0, 8, SegmentCheck::kTie);
  segments[2] = Checked(9, 12, SegmentCheck::kTie);
  ASSERT_TRUE(FirstChangeIsFirst(segments));
  // Search steps inside (0, 8] that stayed inside the band, or had no interval, or after it.
  std::vector<BisectStepLog> log = {Step(6, 0, 0.98, 1.03), Step(4, 0, 1.08, 1.15, false),
                                    Step(10, 0, 1.15, 1.25)};
  EXPECT_EQ(MoveBeforeTheEarliestChange(segments, log, 0.05), -1);
  EXPECT_TRUE(ShownFirst(segments, log, 0.05));
  // Commit 3 measured x1.08..x1.15 against the good end: beyond the band, inside the part.
  log.push_back(Step(3, 0, 1.08, 1.15));
  EXPECT_EQ(MoveBeforeTheEarliestChange(segments, log, 0.05), 3);
  EXPECT_FALSE(ShownFirst(segments, log, 0.05));
  // The other way too (-10% then +10%), and only beyond the band: x1.04..x1.10 is not.
  log.back() = Step(3, 0, 0.85, 0.93);
  EXPECT_FALSE(ShownFirst(segments, log, 0.05));
  log.back() = Step(3, 0, 1.04, 1.10);
  EXPECT_TRUE(ShownFirst(segments, log, 0.05));
}

// A tie of (0, 8] shows commits 0 and 8, not 1..7; a tie of one commit shows every commit.
// The ties after the culprit and the parts that are not ties do not count (issue 27).
TEST(RangeSplit, TiesBeforeTheCulpritThatShowOnlyTheirEndsAreListed) {
  std::vector<BisectSegment> segments = {Found(Checked(0, 12, SegmentCheck::kSame, 1.2), 9, 1.2)};
  for (BisectSegment& part : UnexplainedParts(segments[0])) segments.push_back(part);
  segments[1] = Checked(0, 8, SegmentCheck::kTie);
  segments[2] = Checked(9, 12, SegmentCheck::kTie);
  EXPECT_EQ(TiesOfEndsOnlyBeforeTheEarliestChange(segments), std::vector<int>{1});
  segments[0] = Found(Checked(0, 12, SegmentCheck::kSame, 1.2), 2, 1.2);
  segments[1] = Checked(0, 1, SegmentCheck::kTie);
  segments[2] = Checked(2, 12, SegmentCheck::kTie);
  EXPECT_TRUE(TiesOfEndsOnlyBeforeTheEarliestChange(segments).empty());
  segments[1] = Checked(0, 1, SegmentCheck::kUndecided, 1.02);
  EXPECT_TRUE(TiesOfEndsOnlyBeforeTheEarliestChange(segments).empty());
  EXPECT_TRUE(TiesOfEndsOnlyBeforeTheEarliestChange({}).empty());
}

TEST(RangeSplit, APartWithEveryLargeMoveRuledOutIsNotUnplaced) {
  std::vector<BisectSegment> segments = {
      Found(Checked(0, 12, SegmentCheck::kSame, 1.265), 9, 1.157)};
  for (BisectSegment& part : UnexplainedParts(segments[0])) segments.push_back(part);
  segments[1] = Checked(0, 8, SegmentCheck::kUndecided, 1.02);
  segments[2] = Checked(9, 12, SegmentCheck::kTie);
  EXPECT_EQ(UnplacedSegments(segments), std::vector<int>{1});  // undecided, nothing ruled out
  segments[1].alternative = 1.127;
  segments[1].ruled_out = true;
  EXPECT_TRUE(UnplacedSegments(segments).empty());
  // Ruled out on an estimate beyond the band: a change below ×A may be there.
  segments[1].ratio = 1.07;
  segments[1].small_move_suspected = true;
  EXPECT_EQ(UnplacedSegments(segments), std::vector<int>{1});
  // Never a first bad commit from a rule-out.
  segments[1].small_move_suspected = false;
  EXPECT_FALSE(FirstChangeIsFirst(segments));
}

TEST(RangeSplit, AnEarlierMoveTheBudgetCouldNotSearchIsSaidNotDropped) {
  std::vector<BisectSegment> segments = {
      Found(Checked(0, 12, SegmentCheck::kSame, 1.265), 9, 1.157)};
  for (BisectSegment& part : UnexplainedParts(segments[0])) segments.push_back(part);
  segments[1] = Checked(0, 8, SegmentCheck::kSame, 1.08);
  EXPECT_FALSE(ShouldSearch(segments[1], SearchesMade(segments), /*max_changes=*/1));
  segments[1].outcome = SegmentOutcome::kUnsearched;
  segments[2] = Checked(9, 12, SegmentCheck::kTie);
  EXPECT_FALSE(FirstChangeIsFirst(segments));
  EXPECT_EQ(UnplacedSegments(segments), std::vector<int>{1});
  // The one change found leaves a remainder beyond the band.
  Decomposition d = DecomposeMove(segments, {"commit b"}, 0.05);
  EXPECT_EQ(d.remainder_class, RemainderClass::kBeyond);
}

TEST(RangeSplit, OnlyATieBeforeTheChangeMakesItTheFirstBadCommit) {
  std::vector<BisectSegment> segments = {Found(Checked(0, 12, SegmentCheck::kSame, 2), 9, 2)};
  for (BisectSegment& part : UnexplainedParts(segments[0])) segments.push_back(part);
  segments[2] = Checked(9, 12, SegmentCheck::kTie);
  for (SegmentCheck before :
       {SegmentCheck::kUndecided, SegmentCheck::kOpposite, SegmentCheck::kSame}) {
    segments[1] = Checked(0, 8, before);
    // A move either way is searched; here the search verified nothing.
    if (before != SegmentCheck::kUndecided) segments[1].outcome = SegmentOutcome::kInconclusive;
    EXPECT_FALSE(FirstChangeIsFirst(segments)) << SegmentCheckName(before);
    EXPECT_EQ(UnplacedSegments(segments), std::vector<int>{1}) << SegmentCheckName(before);
  }
  segments[1] = Checked(0, 8, SegmentCheck::kTie);
  EXPECT_TRUE(FirstChangeIsFirst(segments));
  // A move the other way after the change does not make it any less the first; it is
  // still reported.
  segments[2] = Checked(9, 12, SegmentCheck::kOpposite, 0.8);
  segments[2].outcome = SegmentOutcome::kInconclusive;
  EXPECT_TRUE(FirstChangeIsFirst(segments));
  EXPECT_EQ(UnplacedSegments(segments), std::vector<int>{2});
  // The first commit of the range has nothing before it to check.
  std::vector<BisectSegment> first = {Found(Checked(0, 12, SegmentCheck::kSame, 2), 1, 2)};
  EXPECT_TRUE(FirstChangeIsFirst(first));
  // Nothing verified: no first bad commit at all.
  BisectSegment none = Checked(0, 12, SegmentCheck::kSame, 2);
  none.outcome = SegmentOutcome::kInconclusive;
  EXPECT_FALSE(FirstChangeIsFirst({none}));
}

// An improvement (commit 4, x0.90) before a regression (commit 9, x1.25): the search of the
// range names 9; the commits before it move the other way, and are searched that way.
TEST(RangeSplit, AnImprovementBeforeTheRegressionIsSearchedAndNamed) {
  std::vector<BisectSegment> segments = {
      Found(Checked(0, 12, SegmentCheck::kSame, 1.125), 9, 1.25)};
  for (BisectSegment& part : UnexplainedParts(segments[0])) segments.push_back(part);
  segments[1] = Checked(0, 8, SegmentCheck::kOpposite, 0.90);
  segments[2] = Checked(9, 12, SegmentCheck::kTie);
  ASSERT_TRUE(ShouldSearch(segments[1], SearchesMade(segments), /*max_changes=*/3));
  EXPECT_TRUE(SearchesForSpeedup(segments[1], /*range_speedup=*/false));
  EXPECT_FALSE(SearchesForSpeedup(segments[0], false));
  EXPECT_FALSE(SearchesForSpeedup(segments[1], /*range_speedup=*/true));
  // While the commits before 9 move and are not placed, 9 is not the first bad commit.
  segments[1].search_json = "{}";
  EXPECT_FALSE(FirstChangeIsFirst(segments));

  segments[1] = Found(segments[1], 4, 0.90);
  for (BisectSegment& part : UnexplainedParts(segments[1])) segments.push_back(part);
  ASSERT_EQ(segments.size(), 5u);
  segments[3] = Checked(0, 3, SegmentCheck::kTie);
  segments[4] = Checked(4, 8, SegmentCheck::kUndecided);
  // The improvement is the earlier change, but the culprit is the regression.
  ASSERT_EQ(VerifiedChanges(segments), (std::vector<int>{1, 0}));
  EXPECT_EQ(EarliestChange(segments), 0);
  // (4, 8] undecided: something may move there, the regression's way.
  EXPECT_FALSE(FirstChangeIsFirst(segments));
  EXPECT_EQ(UnplacedSegments(segments), std::vector<int>{4});

  segments[4] = Checked(4, 8, SegmentCheck::kTie);
  // 1..3 in a tie, 4 the improvement, 5..8 in a tie: nothing before 9 is bad.
  EXPECT_TRUE(FirstChangeIsFirst(segments));
  EXPECT_TRUE(UnplacedSegments(segments).empty());
  Decomposition d = DecomposeMove(segments, {"commit 4", "commit 9"}, 0.05);
  EXPECT_NEAR(std::exp(d.remainder.log_ratio), 1.125 / (0.90 * 1.25), 1e-12);
  EXPECT_EQ(d.remainder_class, RemainderClass::kTie);

  // Only changes the range's way are culprits: an improvement alone names none.
  std::vector<BisectSegment> other_only = {segments[1]};
  EXPECT_EQ(EarliestChange(other_only), -1);
  EXPECT_FALSE(FirstChangeIsFirst(other_only));
}

// A regression (commit 3, x1.20) partly undone later (commit 8, x0.92): the undoing is
// searched and named, and does not take "first bad commit" from commit 3.
TEST(RangeSplit, ARegressionPartlyUndoneKeepsItsCulprit) {
  std::vector<BisectSegment> segments = {
      Found(Checked(0, 12, SegmentCheck::kSame, 1.104), 3, 1.20)};
  for (BisectSegment& part : UnexplainedParts(segments[0])) segments.push_back(part);
  segments[1] = Checked(0, 2, SegmentCheck::kTie);
  segments[2] = Found(Checked(3, 12, SegmentCheck::kOpposite, 0.92), 8, 0.92);
  for (BisectSegment& part : UnexplainedParts(segments[2])) segments.push_back(part);
  ASSERT_EQ(segments.size(), 5u);
  segments[3] = Checked(3, 7, SegmentCheck::kTie);
  segments[4] = Checked(8, 12, SegmentCheck::kTie);
  EXPECT_EQ(EarliestChange(segments), 0);
  EXPECT_TRUE(FirstChangeIsFirst(segments));
  EXPECT_TRUE(UnplacedSegments(segments).empty());
}

TEST(RangeSplit, ASegmentStillBeingSearchedIsNotALeftover) {
  std::vector<BisectSegment> segments = {
      Found(Checked(0, 12, SegmentCheck::kSame, 1.265), 9, 1.157),
      Checked(0, 8, SegmentCheck::kSame, 1.08)};
  segments[1].search_json = "{}";
  EXPECT_TRUE(UnplacedSegments(segments).empty());
  EXPECT_EQ(SearchesMade(segments), 2);
}

}  // namespace
}  // namespace culprit
