#include "probes/verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace culprit {
namespace {

ShiftEstimate Interval(double low, double estimate, double high, size_t n = 20,
                       double confidence = 0.95) {
  ShiftEstimate s;
  s.low = low;
  s.estimate = estimate;
  s.high = high;
  s.n = n;
  s.confidence = confidence;
  s.exact = true;
  return s;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(VerdictNames, RoundTripAndCase) {
  for (Verdict v : {Verdict::kEffect, Verdict::kNull, Verdict::kInconclusive}) {
    EXPECT_EQ(ParseVerdict(VerdictName(v)), v);
  }
  EXPECT_EQ(VerdictName(Verdict::kEffect), "EFFECT");
  EXPECT_EQ(VerdictName(Verdict::kNull), "NULL");
  EXPECT_EQ(VerdictName(Verdict::kInconclusive), "INCONCLUSIVE");
  EXPECT_EQ(ParseVerdict("null"), Verdict::kNull);
  EXPECT_EQ(ParseVerdict("Effect"), Verdict::kEffect);
  EXPECT_EQ(ParseVerdict(""), std::nullopt);
  EXPECT_EQ(ParseVerdict("EFFECTS"), std::nullopt);
  EXPECT_EQ(ParseVerdict("NUL"), std::nullopt);
}

TEST(Decide, BandEdgeIsSymmetricOnTheLogScale) {
  EXPECT_EQ(BandEdge(0.05), std::log(1 + 0.05));
  EXPECT_EQ(BandEdge(0), 0);
}

TEST(Decide, EffectAboveAndBelowTheBand) {
  double tau = BandEdge(0.05);
  VerdictResult up = Decide(Interval(0.08, 0.1, 0.12), 0.05);
  EXPECT_EQ(up.verdict, Verdict::kEffect);
  EXPECT_TRUE(up.excludes_zero);
  EXPECT_TRUE(Contains(up.explanation, "1.105x")) << up.explanation;
  EXPECT_TRUE(Contains(up.explanation, "+10.5% [+8.3%, +12.7%]")) << up.explanation;
  EXPECT_TRUE(Contains(up.explanation, "±5% band")) << up.explanation;
  VerdictResult down = Decide(Interval(-0.3, -0.2, -tau - 1e-9), 0.05);
  EXPECT_EQ(down.verdict, Verdict::kEffect);
  EXPECT_TRUE(Contains(down.explanation, "-18.1%")) << down.explanation;
  // Just above the edge counts; touching it does not (strict inequality).
  EXPECT_EQ(Decide(Interval(tau + 1e-12, 0.1, 0.2), 0.05).verdict, Verdict::kEffect);
  EXPECT_EQ(Decide(Interval(tau, 0.1, 0.2), 0.05).verdict, Verdict::kInconclusive);
  EXPECT_EQ(Decide(Interval(-0.2, -0.1, -tau), 0.05).verdict, Verdict::kInconclusive);
  // The lower edge is -ln(1.05) = -4.88%, not ln(0.95) = -5.13%: an interval at -5% is beyond.
  EXPECT_EQ(Decide(Interval(-0.06, -0.055, std::log(0.95)), 0.05).verdict, Verdict::kEffect);
}

TEST(Decide, NullInsideTheBand) {
  double tau = BandEdge(0.05);
  VerdictResult tie = Decide(Interval(-0.02, 0.005, 0.03), 0.05);
  EXPECT_EQ(tie.verdict, Verdict::kNull);
  EXPECT_FALSE(tie.excludes_zero);
  EXPECT_TRUE(Contains(tie.explanation, "inside the ±5% band")) << tie.explanation;
  // A significant but small shift entirely inside the band is still a NULL (a tie).
  VerdictResult small = Decide(Interval(0.01, 0.02, 0.03), 0.05);
  EXPECT_EQ(small.verdict, Verdict::kNull);
  EXPECT_TRUE(small.excludes_zero);
  EXPECT_EQ(Decide(Interval(-tau + 1e-12, 0, tau - 1e-12), 0.05).verdict, Verdict::kNull);
  EXPECT_EQ(Decide(Interval(-tau, 0, 0.01), 0.05).verdict, Verdict::kInconclusive);
  EXPECT_EQ(Decide(Interval(-0.01, 0, tau), 0.05).verdict, Verdict::kInconclusive);
  // A degenerate interval at exactly 0 is a tie for any positive band...
  EXPECT_EQ(Decide(Interval(0, 0, 0), 0.05).verdict, Verdict::kNull);
  // ... but with band 0 nothing can be a tie, and only a shift excluding 0 is an effect.
  EXPECT_EQ(Decide(Interval(0, 0, 0), 0).verdict, Verdict::kInconclusive);
  EXPECT_EQ(Decide(Interval(-0.001, 0, 0.001), 0).verdict, Verdict::kInconclusive);
  EXPECT_EQ(Decide(Interval(0.001, 0.002, 0.003), 0).verdict, Verdict::kEffect);
}

TEST(Decide, InconclusiveSaysWhetherItIsRealButSmall) {
  // [+1%, +5.1%] with tau = 4.88%: excludes no change, crosses the edge, estimate inside.
  VerdictResult small = Decide(Interval(0.01, 0.03, 0.05), 0.05);
  EXPECT_EQ(small.verdict, Verdict::kInconclusive);
  EXPECT_TRUE(small.excludes_zero);
  EXPECT_TRUE(Contains(small.explanation, "real but small")) << small.explanation;
  // Estimate beyond the edge, interval reaching back inside.
  VerdictResult big = Decide(Interval(0.02, 0.06, 0.09), 0.05);
  EXPECT_EQ(big.verdict, Verdict::kInconclusive);
  EXPECT_TRUE(big.excludes_zero);
  EXPECT_TRUE(Contains(big.explanation, "possibly beyond")) << big.explanation;
  // Below zero too.
  VerdictResult negative = Decide(Interval(-0.07, -0.03, -0.005), 0.05);
  EXPECT_EQ(negative.verdict, Verdict::kInconclusive);
  EXPECT_TRUE(negative.excludes_zero);
  // Wide interval around zero: nothing excluded.
  VerdictResult wide = Decide(Interval(-0.04, 0.01, 0.07), 0.05);
  EXPECT_EQ(wide.verdict, Verdict::kInconclusive);
  EXPECT_FALSE(wide.excludes_zero);
  EXPECT_TRUE(Contains(wide.explanation, "not settled")) << wide.explanation;
  EXPECT_TRUE(Contains(wide.explanation, "could have detected")) << wide.explanation;
}

TEST(Decide, DetectableRatioFromTheHalfWidth) {
  // w = 0.02 at 95%: e = ln 1.05 + 0.02 (1.959964 + 0.841621) / 1.959964 = 0.077378.
  VerdictResult r = Decide(Interval(-0.02, 0, 0.02), 0.05);
  EXPECT_NEAR(r.detectable_ratio, 1.080450726849359, 1e-9);
  // Twice the half-width, band 0: e = 0.04 * 1.429412.
  VerdictResult wide = Decide(Interval(-0.04, 0, 0.04), 0);
  EXPECT_NEAR(wide.detectable_ratio,
              std::exp(0.04 * (1.959963984540054 + 0.8416212335729143) / 1.959963984540054), 1e-9);
  // At 99% the same width means a smaller standard error, so a smaller detectable effect.
  VerdictResult at99 = Decide(Interval(-0.02, 0, 0.02, 20, 0.99), 0.05);
  EXPECT_LT(at99.detectable_ratio, r.detectable_ratio);
  // Achieved confidence indistinguishable from 1 still gives a finite answer.
  VerdictResult extreme = Decide(Interval(-0.02, 0, 0.02, 20, 1.0), 0.05);
  EXPECT_TRUE(std::isfinite(extreme.detectable_ratio));
  EXPECT_GT(extreme.detectable_ratio, 1.05);
}

TEST(Decide, SuggestsHowManyPairsWouldSettleIt) {
  // n = 20, w = 0.02, estimate 0.03 is 0.0188 inside the edge: needs w' = 0.0188, i.e.
  // 20 * (0.02 / 0.0188)^2 = 22.7 pairs, so the next doubling, 40.
  VerdictResult r = Decide(Interval(0.01, 0.03, 0.05, 20), 0.05);
  EXPECT_TRUE(Contains(r.explanation, "--max-pairs 40")) << r.explanation;
  // Estimate 0.04 is 0.0088 from the edge: 20 * (0.02 / 0.0088)^2 = 103 -> 160.
  VerdictResult far = Decide(Interval(0.02, 0.04, 0.06, 20), 0.05);
  EXPECT_TRUE(Contains(far.explanation, "--max-pairs 160")) << far.explanation;
  // An asymmetric interval whose half-width is already below the distance to the edge
  // (needs 152 of 160 pairs by the formula): advice is at least twice the pairs taken.
  VerdictResult close = Decide(Interval(-0.0243, 0.0109, 0.0497, 160), 0.05);
  EXPECT_TRUE(Contains(close.explanation, "--max-pairs 320")) << close.explanation;
  // Estimate right on the edge: no number of pairs is a useful suggestion.
  double tau = BandEdge(0.05);
  VerdictResult edge = Decide(Interval(tau - 0.02, tau, tau + 0.02, 20), 0.05);
  EXPECT_TRUE(Contains(edge.explanation, "band's edge")) << edge.explanation;
}

TEST(IsDecisive, MatchesDecide) {
  std::vector<ShiftEstimate> cases = {Interval(0.08, 0.1, 0.12), Interval(-0.02, 0, 0.02),
                                      Interval(0.01, 0.03, 0.05), Interval(-0.3, -0.2, -0.1),
                                      Interval(-0.04, 0.01, 0.07)};
  for (const ShiftEstimate& s : cases) {
    for (double band : {0.0, 0.02, 0.05, 0.2}) {
      Verdict v = Decide(s, band).verdict;
      EXPECT_EQ(IsDecisive(s, band), v != Verdict::kInconclusive);
    }
  }
  EXPECT_TRUE(IsDecisive(Interval(0.08, 0.1, 0.12), 0.05));
  EXPECT_TRUE(IsDecisive(Interval(-0.02, 0, 0.02), 0.05));
  EXPECT_FALSE(IsDecisive(Interval(0.01, 0.03, 0.05), 0.05));
}

TEST(ReachOfLastLook, ANoisyTieReachesNeitherVerdictAndSaysWhatATieWouldTake) {
  // se = 0.1 / 1.96 = 0.0510; the last look (160 pairs at alpha 0.01) would have
  // w = 2.576 * 0.0510 * sqrt(40 / 160) = 0.0657, wider than tau = ln 1.05 = 0.0488: no tie.
  // An effect would need the true shift beyond tau + w = 0.114, and 1.5 se grant only 0.077.
  LastLookReach reach = ReachOfLastLook(Interval(-0.1, 0, 0.1, 40), 0.05, 160, 0.01);
  EXPECT_FALSE(reach.tie_reachable);
  EXPECT_FALSE(reach.effect_reachable);
  // 40 * (2.576 * 0.0510 / 0.0488)^2
  EXPECT_NEAR(reach.pairs_for_tie, 290.2, 0.1);
}

TEST(ReachOfLastLook, AQuietTieAndAClearMoveStayWithinReach) {
  // se = 0.0153 on 10 pairs; at 160 pairs w = 0.0099: a tie fits inside 0.0488.
  LastLookReach quiet = ReachOfLastLook(Interval(-0.03, 0, 0.03, 10), 0.05, 160, 0.01);
  EXPECT_TRUE(quiet.tie_reachable);
  // The noisy case's interval, moved to +7%: 0.068 + 1.5 se - w = 0.079 > tau.
  LastLookReach move = ReachOfLastLook(Interval(-0.032, 0.068, 0.168, 40), 0.05, 160, 0.01);
  EXPECT_TRUE(move.effect_reachable);
  EXPECT_FALSE(move.tie_reachable);
  EXPECT_EQ(move.pairs_for_tie, 0);  // beyond the edge: no number of pairs makes it a tie
  // The benefit of the doubt: +4% in that noise may be a move beyond the band after all
  // (0.04 + 1.5 se - w = 0.0508 > 0.0488), so such a sitting goes on.
  LastLookReach edge = ReachOfLastLook(Interval(-0.06, 0.04, 0.14, 40), 0.05, 160, 0.01);
  EXPECT_TRUE(edge.effect_reachable);
}

TEST(ReachOfLastLook, AnIntervalOfNoWidthReachesBoth) {
  LastLookReach reach = ReachOfLastLook(Interval(0.01, 0.01, 0.01, 10), 0.05, 160, 0.01);
  EXPECT_TRUE(reach.tie_reachable);
  EXPECT_TRUE(reach.effect_reachable);
}

TEST(Decide, EndToEndFromPairedTimes) {
  // B is 20% slower than A on every pair, give or take a little noise: an EFFECT near 1.2x.
  std::vector<double> d;
  for (int i = 0; i < 20; ++i) d.push_back(std::log(1.2) + 0.01 * ((i * 7) % 5 - 2));
  Result<ShiftEstimate> r = SignedRankEstimate(d, 0.95);
  ASSERT_TRUE(r.ok());
  VerdictResult v = Decide(*r, 0.05);
  EXPECT_EQ(v.verdict, Verdict::kEffect);
  EXPECT_NEAR(std::exp(r->estimate), 1.2, 1e-9);
}

}  // namespace
}  // namespace culprit
