// The labels of a published table's claims (probes/table_check.h) over scripted cells:
// holds, tie, reversed, undecided, not published, not checked, and the sittings of the
// published ratio.

#include "probes/table_check.h"

#include <gtest/gtest.h>

#include <cmath>

namespace culprit {
namespace {

PublishedCell Value(double v, std::string sitting = "") {
  PublishedCell cell;
  cell.value = v;
  cell.sitting = std::move(sitting);
  return cell;
}

// A measured cell whose ratio is `ratio` with the interval [low, high] and `verdict`.
TableCell Cell(Verdict verdict, double ratio, double low, double high,
               std::string explanation = "") {
  TableCell cell;
  cell.status = CellStatus::kMeasured;
  ShiftEstimate shift;
  shift.estimate = std::log(ratio);
  shift.low = std::log(low);
  shift.high = std::log(high);
  shift.confidence = 0.99;
  shift.n = 20;
  cell.shift = shift;
  VerdictResult v;
  v.verdict = verdict;
  v.explanation = std::move(explanation);
  cell.verdict = v;
  cell.decided_blocks = verdict == Verdict::kInconclusive ? 0 : 20;
  return cell;
}

TEST(TableCheck, AnEffectInThePublishedDirectionHolds) {
  // Published: the column is 3× the baseline; measured 2.9× [2.7, 3.1].
  Claim up = LabelClaim(Value(4), Value(12), Cell(Verdict::kEffect, 2.9, 2.7, 3.1));
  EXPECT_EQ(up.label, ClaimLabel::kHolds);
  EXPECT_EQ(up.explanation.find("its size is not"), std::string::npos) << up.explanation;
  ASSERT_TRUE(up.published_ratio);
  EXPECT_DOUBLE_EQ(*up.published_ratio, 3.0);
  // Published faster, measured faster: holds too, whatever the size.
  Claim down = LabelClaim(Value(10), Value(9.87), Cell(Verdict::kEffect, 0.5, 0.45, 0.55));
  EXPECT_EQ(down.label, ClaimLabel::kHolds);
  EXPECT_NE(down.explanation.find("its size is not: ×0.987 is outside the interval"),
            std::string::npos)
      << down.explanation;
  EXPECT_FALSE(AnyClaimFails({up, down}));
}

TEST(TableCheck, AWinInsideTheBandIsATie) {
  // The 1.3% "win" of the published table: the re-measured interval is inside the band.
  Claim claim = LabelClaim(Value(100), Value(98.7), Cell(Verdict::kNull, 1.002, 0.99, 1.01));
  EXPECT_EQ(claim.label, ClaimLabel::kTie);
  EXPECT_NE(claim.explanation.find("published ×0.987"), std::string::npos) << claim.explanation;
  EXPECT_NE(claim.explanation.find("a tie to relabel"), std::string::npos) << claim.explanation;
  EXPECT_TRUE(AnyClaimFails({claim}));
}

TEST(TableCheck, AnEffectTheOtherWayIsReversed) {
  // Published: the column is 3× faster; measured 3× slower.
  Claim claim = LabelClaim(Value(12), Value(4), Cell(Verdict::kEffect, 3.0, 2.8, 3.2));
  EXPECT_EQ(claim.label, ClaimLabel::kReversed);
  EXPECT_NE(claim.explanation.find("the other way"), std::string::npos) << claim.explanation;
  EXPECT_TRUE(AnyClaimFails({claim}));
}

TEST(TableCheck, AnEffectOfTheMeanAloneTakesTheMeansDirection) {
  // The Hodges–Lehmann interval straddles 1, the mean's is below: an EFFECT downwards.
  TableCell cell = Cell(Verdict::kEffect, 1.01, 0.98, 1.03);
  TailEvidence tails;
  ShiftEstimate mean;
  mean.estimate = std::log(0.8);
  mean.low = std::log(0.75);
  mean.high = std::log(0.85);
  tails.mean = mean;
  cell.tails = tails;
  EXPECT_EQ(LabelClaim(Value(10), Value(8), cell).label, ClaimLabel::kHolds);
  EXPECT_EQ(LabelClaim(Value(10), Value(12), cell).label, ClaimLabel::kReversed);
}

TEST(TableCheck, AnInconclusiveCellIsUndecidedAndSaysWhatItTakes) {
  Claim claim = LabelClaim(
      Value(10), Value(11),
      Cell(Verdict::kInconclusive, 1.04, 0.99, 1.09, "collect more pairs (--max-pairs 320)"));
  EXPECT_EQ(claim.label, ClaimLabel::kUndecided);
  EXPECT_NE(claim.explanation.find("--max-pairs 320"), std::string::npos) << claim.explanation;
  EXPECT_FALSE(AnyClaimFails({claim}));
}

TEST(TableCheck, APublishedEqualityHoldsOnATieAndNotOnAnEffect) {
  EXPECT_EQ(LabelClaim(Value(5), Value(5), Cell(Verdict::kNull, 1.0, 0.99, 1.01)).label,
            ClaimLabel::kHolds);
  EXPECT_EQ(LabelClaim(Value(5), Value(5), Cell(Verdict::kEffect, 2.0, 1.9, 2.1)).label,
            ClaimLabel::kReversed);
}

TEST(TableCheck, TwoHostsAreACrossHostRatio) {
  const TableCell effect = Cell(Verdict::kEffect, 2.0, 1.9, 2.1);
  PublishedCell here = Value(4, "record a"), there = Value(8, "record b");
  here.host = "m-1";
  there.host = "m-2";
  Claim cross = LabelClaim(here, there, effect);
  EXPECT_EQ(cross.sittings, ClaimSittings::kCrossHost);
  EXPECT_EQ(ClaimSittingsName(cross.sittings), "cross-host: two hosts' numbers divided");
  EXPECT_EQ(cross.label, ClaimLabel::kHolds);  // the re-measurement's, on one host
  // Named on both sides even without sittings.
  PublishedCell bare_here = Value(4), bare_there = Value(8);
  bare_here.host = "m-1";
  bare_there.host = "m-2";
  EXPECT_EQ(LabelClaim(bare_here, bare_there, effect).sittings, ClaimSittings::kCrossHost);
  // One host, two sittings: unrelated numbers, not cross-host; one side silent: as before.
  there.host = "m-1";
  EXPECT_EQ(LabelClaim(here, there, effect).sittings, ClaimSittings::kDifferent);
  there.host = "";
  EXPECT_EQ(LabelClaim(here, there, effect).sittings, ClaimSittings::kDifferent);
}

TEST(TableCheck, TwoSittingsAreTwoUnrelatedNumbersDivided) {
  const TableCell effect = Cell(Verdict::kEffect, 2.0, 1.9, 2.1);
  Claim two = LabelClaim(Value(4, "record a"), Value(8, "record b"), effect);
  EXPECT_EQ(two.sittings, ClaimSittings::kDifferent);
  EXPECT_EQ(ClaimSittingsName(two.sittings), "two unrelated numbers divided");
  // The label is the re-measurement's: the flag says where the published ratio came from.
  EXPECT_EQ(two.label, ClaimLabel::kHolds);
  EXPECT_EQ(LabelClaim(Value(4, "t1"), Value(8, "t1"), effect).sittings, ClaimSittings::kSame);
  EXPECT_EQ(LabelClaim(Value(4, "t1"), Value(8), effect).sittings, ClaimSittings::kUnknown);
  EXPECT_EQ(LabelClaim(Value(4), Value(8), effect).sittings, ClaimSittings::kUnknown);
}

TEST(TableCheck, AMissingValueIsNotPublishedAndAnUnmeasuredCellNotChecked) {
  const TableCell effect = Cell(Verdict::kEffect, 2.0, 1.9, 2.1);
  Claim missing = LabelClaim(Value(4), PublishedCell{}, effect);
  EXPECT_EQ(missing.label, ClaimLabel::kNotPublished);
  EXPECT_FALSE(missing.published_ratio);
  Claim no_baseline = LabelClaim(PublishedCell{}, Value(4), effect);
  EXPECT_EQ(no_baseline.label, ClaimLabel::kNotPublished);
  EXPECT_NE(no_baseline.explanation.find("baseline"), std::string::npos);

  TableCell failed;
  failed.status = CellStatus::kNotMeasured;
  failed.error = "12 of 40 runs failed, the limit";
  Claim unchecked = LabelClaim(Value(4), Value(8), failed);
  EXPECT_EQ(unchecked.label, ClaimLabel::kNotChecked);
  EXPECT_NE(unchecked.explanation.find("12 of 40 runs failed"), std::string::npos);
  EXPECT_FALSE(AnyClaimFails({missing, no_baseline, unchecked}));
}

TEST(TableCheck, ClaimsAreEveryColumnAgainstTheFirstForTheMeasuredRows) {
  PublishedGrid grid;
  grid.columns = {"ours", "theirs", "old"};
  grid.rows = {"q1", "q2", "q3"};
  grid.cells = {{Value(4), Value(12), Value(4)},
                {Value(4), PublishedCell{}, Value(3.9)},
                {Value(1), Value(1), Value(1)}};
  TableCell baseline;
  baseline.status = CellStatus::kBaseline;
  const TableCell slower = Cell(Verdict::kEffect, 3.0, 2.8, 3.2);
  const TableCell tie = Cell(Verdict::kNull, 1.0, 0.99, 1.01);
  // The table measured q2 then q1 (-q q2 -q q1): claims follow the table's rows by name.
  std::vector<std::vector<TableCell>> cells = {{baseline, tie, slower}, {baseline, slower, tie}};
  std::vector<Claim> claims = CheckClaims(grid, {"q2", "q1"}, cells);
  ASSERT_EQ(claims.size(), 4u);
  EXPECT_EQ(claims[0].row, 0);
  EXPECT_EQ(claims[0].arm, 1);
  EXPECT_EQ(claims[0].label, ClaimLabel::kNotPublished);  // q2 × theirs
  EXPECT_EQ(claims[1].label, ClaimLabel::kReversed);      // q2 × old: published ×0.975
  EXPECT_EQ(claims[2].label, ClaimLabel::kHolds);         // q1 × theirs: ×3
  EXPECT_EQ(claims[3].label, ClaimLabel::kHolds);         // q1 × old: equal, a tie
  EXPECT_EQ(grid.Row("q3"), 2);
  EXPECT_EQ(grid.Row("q4"), -1);
}

}  // namespace
}  // namespace culprit
