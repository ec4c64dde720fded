// The typed payloads a bisect's record carries, field by field from the runner's state.

#include "bisect/segment_payloads.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace culprit {
namespace {

const std::vector<std::string> kCommits = {"c0", "c1", "c2", "c3", "c4", "c5"};

TEST(SegmentPayloads, AChangeNamesItsParentAndItsRatioAcrossIt) {
  BisectSegment c;
  c.lo = 0;
  c.hi = 5;
  c.first = 3;
  c.change = 4;  // c3 could not be built: the verified change is c3..c4
  c.log_ratio = std::log(1.2);
  c.log_low = std::log(1.1);
  c.log_high = std::log(1.3);
  c.verify_confidence = 0.99;
  c.verification_pairs = 40;
  c.probability = 0.95;
  c.check = SegmentCheck::kSame;
  const BisectChangePayload p = ChangePayload(c, kCommits);
  EXPECT_EQ(p.commit, "c4");
  EXPECT_EQ(p.first_commit, "c3");
  EXPECT_EQ(p.parent_commit, "c2");
  EXPECT_EQ(p.direction, ChangeDirection::kRange);
  ASSERT_TRUE(p.ratio && p.low && p.high);
  EXPECT_NEAR(*p.ratio, 1.2, 1e-12);
  EXPECT_NEAR(*p.low, 1.1, 1e-12);
  EXPECT_NEAR(*p.high, 1.3, 1e-12);
  EXPECT_EQ(p.confidence, 0.99);
  EXPECT_EQ(p.pairs, 40);
  EXPECT_EQ(p.probability, 0.95);
  c.check = SegmentCheck::kOpposite;  // a change the other way from the range
  EXPECT_EQ(ChangePayload(c, kCommits).direction, ChangeDirection::kOther);
}

TEST(SegmentPayloads, APartCarriesItsCheckItsHuntAndItsRecheckBySpelling) {
  BisectSegment s;
  s.lo = 1;
  s.hi = 4;
  s.check = SegmentCheck::kUndecided;
  s.outcome = SegmentOutcome::kUnsearched;
  s.ratio = 1.04;
  s.low = 0.98;
  s.high = 1.11;
  s.confidence = 0.995;
  s.pairs = 56;
  s.check_record = "r-check";
  s.reason = "the budget of changes was spent";
  s.tie_sought = false;
  s.tie_pairs_needed = 620;
  s.tie_budget = 160;
  s.alternative = 0.133;
  s.ruled_out = true;
  s.rule_out_pairs_needed = 95;
  s.small_move_suspected = true;
  s.recheck = SegmentCheck::kTie;
  s.recheck_record = "r-recheck";
  const BisectSegmentPayload p = SegmentPayload(s, kCommits);
  EXPECT_EQ(p.good_commit, "c1");
  EXPECT_EQ(p.bad_commit, "c4");
  EXPECT_EQ(p.lo, 1);
  EXPECT_EQ(p.hi, 4);
  EXPECT_EQ(p.check, "undecided");
  EXPECT_EQ(p.outcome, "unsearched");
  EXPECT_EQ(p.ratio, 1.04);
  EXPECT_EQ(p.low, 0.98);
  EXPECT_EQ(p.high, 1.11);
  EXPECT_EQ(p.confidence, 0.995);
  EXPECT_EQ(p.pairs, 56);
  EXPECT_EQ(p.check_record, "r-check");
  EXPECT_EQ(p.reason, "the budget of changes was spent");
  EXPECT_FALSE(p.tie_sought);
  EXPECT_EQ(p.tie_pairs_needed, 620);
  EXPECT_EQ(p.tie_budget, 160);
  EXPECT_EQ(p.further_move.alternative, 0.133);
  EXPECT_TRUE(p.further_move.ruled_out);
  EXPECT_EQ(p.further_move.pairs_to_rule_out, 95);
  EXPECT_TRUE(p.further_move.small_move_suspected);
  EXPECT_EQ(p.recheck, "tie");
  EXPECT_EQ(p.recheck_record, "r-recheck");
  // Not measured and not searched: the empty spellings.
  const BisectSegmentPayload empty = SegmentPayload(BisectSegment{}, kCommits);
  EXPECT_EQ(empty.check, "");
  EXPECT_EQ(empty.outcome, "");
  EXPECT_EQ(empty.recheck, "");
}

TEST(SegmentPayloads, TheDecompositionKeepsItsLogsAndNamesTheRemaindersClass) {
  Decomposition d;
  d.total.log_ratio = 0.3;
  d.total.low = 0.25;
  d.total.high = 0.35;
  d.remainder.log_ratio = 0.01;
  d.remainder.low = -0.02;
  d.remainder.high = 0.04;
  d.remainder_class = RemainderClass::kTie;
  BisectDecompositionPayload p = DecompositionPayload(d);
  EXPECT_EQ(p.total_log, 0.3);
  EXPECT_EQ(p.total_low, 0.25);
  EXPECT_EQ(p.total_high, 0.35);
  EXPECT_EQ(p.remainder_log, 0.01);
  EXPECT_EQ(p.remainder_low, -0.02);
  EXPECT_EQ(p.remainder_high, 0.04);
  EXPECT_EQ(p.remainder_class, "tie");
  d.remainder_class = RemainderClass::kBeyond;
  EXPECT_EQ(DecompositionPayload(d).remainder_class, "beyond");
  d.remainder_class = RemainderClass::kUndecided;
  EXPECT_EQ(DecompositionPayload(d).remainder_class, "undecided");
}

}  // namespace
}  // namespace culprit
