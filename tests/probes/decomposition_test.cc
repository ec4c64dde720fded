#include "probes/decomposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace culprit {
namespace {

Factor Ratio(std::string name, double ratio, double low, double high) {
  return {std::move(name), std::log(ratio), std::log(low), std::log(high)};
}

// The range: the endpoints x1.265, commit 5 x1.080, commit 9 x1.157.
TEST(Decompose, TwoChangesThatExplainTheMoveLeaveATie) {
  Factor total = Ratio("the move", 1.265, 1.250, 1.280);
  std::vector<Factor> parts = {Ratio("commit 5", 1.080, 1.070, 1.090),
                               Ratio("commit 9", 1.157, 1.150, 1.165)};
  Decomposition d = Decompose(total, parts, 0.05);
  EXPECT_NEAR(std::exp(d.remainder.log_ratio), 1.265 / (1.080 * 1.157), 1e-12);
  // Interval arithmetic: low = total.low / (highs), high = total.high / (lows).
  EXPECT_NEAR(std::exp(d.remainder.low), 1.250 / (1.090 * 1.165), 1e-12);
  EXPECT_NEAR(std::exp(d.remainder.high), 1.280 / (1.070 * 1.150), 1e-12);
  EXPECT_EQ(d.remainder_class, RemainderClass::kTie);
  EXPECT_EQ(FormatDecomposition(d),
            "the move ×1.265 [1.250, 1.280] = commit 5 ×1.080 [1.070, 1.090] · commit 9 ×1.157 "
            "[1.150, 1.165]; unexplained ×1.012 [0.984, 1.040] (tie: fully explained)");
}

TEST(Decompose, OneChangeOfTwoLeavesTheOtherBeyondTheBand) {
  Factor total = Ratio("the move", 1.265, 1.250, 1.280);
  std::vector<Factor> parts = {Ratio("commit 9", 1.157, 1.150, 1.165)};
  Decomposition d = Decompose(total, parts, 0.05);
  EXPECT_NEAR(std::exp(d.remainder.log_ratio), 1.265 / 1.157, 1e-12);
  EXPECT_EQ(d.remainder_class, RemainderClass::kBeyond);
}

TEST(Decompose, WideIntervalsAreUndecided) {
  Factor total = Ratio("the move", 1.30, 1.10, 1.50);
  std::vector<Factor> parts = {Ratio("commit 3", 1.25, 1.05, 1.45)};
  Decomposition d = Decompose(total, parts, 0.05);
  EXPECT_EQ(d.remainder_class, RemainderClass::kUndecided);
}

TEST(Decompose, NoPartsLeavesTheWholeMove) {
  Factor total = Ratio("today / published", 1.42, 1.38, 1.46);
  Decomposition d = Decompose(total, {}, 0.05);
  EXPECT_DOUBLE_EQ(d.remainder.log_ratio, total.log_ratio);
  EXPECT_EQ(d.remainder_class, RemainderClass::kBeyond);
}

}  // namespace
}  // namespace culprit
