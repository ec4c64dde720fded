#include "probes/table_design.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "probes/round_design.h"
#include "probes/sequential.h"
#include "probes/statistics.h"
#include "probes/verdict.h"

namespace culprit {
namespace {

TEST(TableDesignTest, EveryBlockRunsEveryArmOnce) {
  for (int arms = 2; arms <= 5; ++arms) {
    auto orders = RowBlockOrders(arms, 7 * arms + 1, 99, 3);
    ASSERT_EQ(orders.size(), static_cast<size_t>(7 * arms + 1));
    for (const auto& order : orders) {
      std::vector<int> sorted = order;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int> expected(arms);
      std::iota(expected.begin(), expected.end(), 0);
      EXPECT_EQ(sorted, expected);
    }
  }
}

TEST(TableDesignTest, OrdersAreBalancedAfterEveryWholeGroupOfBlocks) {
  // After every group of `arms` blocks, each arm has run in each position equally often, in
  // every row: a drift inside the group reaches each arm of the row alike.
  for (int arms : {2, 3, 4}) {
    for (int row = 0; row < 5; ++row) {
      for (int groups = 1; groups <= 6; ++groups) {
        auto orders = RowBlockOrders(arms, groups * arms, 2026, row);
        auto counts = PositionCounts(orders, arms);
        for (int arm = 0; arm < arms; ++arm) {
          for (int position = 0; position < arms; ++position) {
            EXPECT_EQ(counts[arm][position], groups)
                << "arms " << arms << " row " << row << " arm " << arm << " position " << position;
          }
        }
      }
    }
  }
}

TEST(TableDesignTest, RowsGetTheirOwnOrdersAndTheSeedRepeatsThem) {
  auto row0 = RowBlockOrders(3, 30, 7, 0);
  auto row1 = RowBlockOrders(3, 30, 7, 1);
  EXPECT_NE(row0, row1);
  EXPECT_EQ(row0, RowBlockOrders(3, 30, 7, 0));
  EXPECT_NE(row0, RowBlockOrders(3, 30, 8, 0));
}

TEST(TableDesignTest, RoundRowOrderIsASeededPermutation) {
  std::vector<int> rows = {0, 2, 5, 7, 9};
  bool any_reordered = false;
  for (int round = 0; round < 20; ++round) {
    std::vector<int> order = RoundRowOrder(rows, 11, round);
    EXPECT_EQ(order, RoundRowOrder(rows, 11, round));
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, rows);
    any_reordered = any_reordered || order != rows;
  }
  EXPECT_TRUE(any_reordered);
  EXPECT_TRUE(RoundRowOrder({}, 1, 0).empty());
}

TEST(TableDesignTest, EachCellSpendsItsBonferroniShare) {
  EXPECT_DOUBLE_EQ(TableCellAlpha(0.05, 1), 0.05);
  EXPECT_DOUBLE_EQ(TableCellAlpha(0.05, 13), 0.05 / 13);
  EXPECT_DOUBLE_EQ(TableCellAlpha(0.05, 26), 0.05 / 26);
  EXPECT_DOUBLE_EQ(TableCellAlpha(0.05, 0), 0.05);
}

TEST(TableDesignTest, LooksAreWholeGroupsAndTheFirstCanStop) {
  for (int arms : {2, 3, 4}) {
    for (int cells : {1, 6, 26}) {
      const double alpha = TableCellAlpha(0.05, cells);
      std::vector<int> looks = TableLooks(10, 160, arms, alpha);
      ASSERT_FALSE(looks.empty());
      EXPECT_TRUE(std::is_sorted(looks.begin(), looks.end()));
      for (int look : looks) EXPECT_EQ(look % arms, 0) << look;
      EXPECT_GE(looks.back(), 160);
      const double first = SpendAlpha(alpha, looks, Spending::kPocock).front();
      EXPECT_LE(MinPairsForSignedRank(1 - first), static_cast<size_t>(looks.front()))
          << "arms " << arms << " cells " << cells;
    }
  }
}

TEST(TableDesignTest, TheLookThatCanFirstStateATieFallsWhereTheTailIsSighted) {
  // 26 cells: a tie needs 39 pairs (PairsToSightTail(0.05 / 26)); the look at 42 moves to 39.
  // (The first look is StoppableLooks', moved up until it can stop; 66 is the look where one
  // pair may be set aside, AWildPairIsSetAsideWhereTheSightingHasPaidForIt.)
  EXPECT_EQ(TableLooks(10, 160, 3, TableCellAlpha(0.05, 26)),
            (std::vector<int>{15, 21, 39, 66, 81, 162}));
  // 13 cells: 35 pairs, 36 in whole groups of 2.
  EXPECT_EQ(TableLooks(10, 160, 2, TableCellAlpha(0.05, 13)),
            (std::vector<int>{14, 20, 36, 60, 80, 160}));
  // Never the last look: the budget is the user's.
  EXPECT_EQ(TableLooks(10, 40, 2, TableCellAlpha(0.05, 13)), (std::vector<int>{12, 20, 40}));
  // A look already at the sighting: as LookSchedule gives them, and the trimming look (41,
  // 42 in whole groups) added.
  EXPECT_EQ(TableLooks(10, 160, 2, 0.05), (std::vector<int>{10, 20, 40, 42, 80, 160}));
}

TEST(TableDesignTest, AWildPairIsSetAsideWhereTheSightingHasPaidForIt) {
  // 26 cells: the tie's look at 39, a look added at 66 (PairsToTrimTail(0.05 / 26)) where the
  // mean may set aside one pair at each end, then LookSchedule's 81 and 162.
  EXPECT_EQ(PairsToTrimTail(TableCellAlpha(0.05, 26)), 66);
  EXPECT_EQ(PairsToTrimTail(TableCellAlpha(0.05, 13)), 59);
  EXPECT_EQ(PairsToTrimTail(0.05), 41);
  EXPECT_EQ(TableLooks(10, 160, 3, TableCellAlpha(0.05, 26)),
            (std::vector<int>{15, 21, 39, 66, 81, 162}));
  EXPECT_EQ(TableLooks(10, 160, 2, TableCellAlpha(0.05, 13)),
            (std::vector<int>{14, 20, 36, 60, 80, 160}));
  // Past the last look: no look is added.
  EXPECT_EQ(TableLooks(10, 40, 2, TableCellAlpha(0.05, 13)), (std::vector<int>{12, 20, 40}));
}

// The chance that a tail in 15% of the runs hides from every look that may state a tie on
// `looks` (pairs), each setting aside `trims[k]` pairs at each end: no more tail runs among
// the look's pairs than it sets aside. Exact, by the distribution of the tail runs so far.
double ChanceATailHides(const std::vector<int>& looks, const std::vector<int>& trims) {
  const double r = kTailSightingRate;
  std::vector<double> runs = {1, 0, 0};  // P(0, 1, 2 or more tail runs so far, not hidden)
  double hidden = 0;
  int n = 0;
  for (size_t k = 0; k < looks.size(); ++k) {
    for (; n < looks[k]; ++n) {
      runs = {runs[0] * (1 - r), runs[1] * (1 - r) + runs[0] * r, runs[2] + runs[1] * r};
    }
    for (int t = 0; t <= trims[k]; ++t) {
      hidden += runs[t];
      runs[t] = 0;
    }
  }
  return hidden;
}

TEST(TableDesignTest, SettingAPairAsideKeepsTheSightingAtTheCellsAlpha) {
  // The 13 x 3 table's looks that may state a tie: 39 untrimmed, 66, 81 and 162 trimmed. The
  // tail hides from all of them together no oftener than the cell's alpha, as it hid from the
  // untrimmed looks alone (0.85^39); trimming from the look before, 63, would not.
  const double alpha = TableCellAlpha(0.05, 26);
  const double trimmed = ChanceATailHides({39, 66, 81, 162}, {0, 1, 1, 1});
  EXPECT_LE(trimmed, alpha);
  EXPECT_GT(trimmed, std::pow(1 - kTailSightingRate, 39));
  EXPECT_GT(ChanceATailHides({39, 63, 81, 162}, {0, 1, 1, 1}), alpha);
  // A look past 39 untrimmed adds nothing: fewer tail runs in more pairs means none in fewer.
  EXPECT_DOUBLE_EQ(ChanceATailHides({39, 81, 162}, {0, 0, 0}), std::pow(1 - kTailSightingRate, 39));
  // 13 x 2: 35 (the sighting) and 59.
  EXPECT_LE(ChanceATailHides({35, 59, 80, 160}, {0, 1, 1, 1}), TableCellAlpha(0.05, 13));
  EXPECT_GT(ChanceATailHides({35, 58, 80, 160}, {0, 1, 1, 1}), TableCellAlpha(0.05, 13));
}

TEST(TableDesignTest, ATrimmedMeanSetsAsideOnePairAtEachEnd) {
  // 16 scripted log-ratios, one of them a wild run (0.74, B about twice as slow once).
  const std::vector<double> d = {0.012, -0.020, 0.031, 0.004, -0.007, 0.018, -0.025, 0.009,
                                 0.002, -0.011, 0.74,  0.015, -0.003, 0.006, -0.016, 0.021};
  const TailEvidence plain = GatherTailEvidence(d, 0.0, 0.99, 0.05);
  ASSERT_TRUE(plain.mean);
  EXPECT_EQ(plain.trimmed, 0);
  EXPECT_NEAR(plain.mean->estimate, 0.0485, 1e-12);
  const TailEvidence trimmed = GatherTailEvidence(d, 0.0, 0.99, 0.05, 1);
  ASSERT_TRUE(trimmed.mean);
  EXPECT_EQ(trimmed.trimmed, 1);
  EXPECT_EQ(trimmed.mean->n, 16u);
  // Yuen: the mean of the 14 kept, se = sqrt(sum of squares of the winsorized 16 about their
  // mean / (14 * 13)), t on 13 degrees of freedom (values from the formula in Python).
  EXPECT_NEAR(trimmed.mean->estimate, 0.004357142857142857, 1e-12);
  const double t = StudentTQuantile(0.995, 13);
  EXPECT_NEAR((trimmed.mean->high - trimmed.mean->low) / 2 / t, 0.004748626174953188, 1e-12);
  // The plain mean's interval reaches outside a 5% band, the trimmed one does not.
  const double tau = BandEdge(0.05);
  EXPECT_GT(plain.mean->high, tau);
  EXPECT_LT(trimmed.mean->high, tau);
  // Too few pairs for anything to be kept: no mean.
  EXPECT_FALSE(GatherTailEvidence(std::vector<double>{0.1, 0.2, 0.3}, 0.0, 0.99, 0.05, 1).mean);
}

TEST(TableDesignTest, GeometricMeanOfCellsAveragesLogsAndPoolsTheirErrors) {
  const double z95 = NormalQuantile(0.975);
  // Two cells, ratios 2 and 0.5: the geometric mean is 1. Each se 0.1.
  std::vector<CellInterval> cells = {
      {{std::log(2.0), std::log(2.0) - 0.1 * z95, std::log(2.0) + 0.1 * z95}, 0.95},
      {{std::log(0.5), std::log(0.5) - 0.1 * z95, std::log(0.5) + 0.1 * z95}, 0.95}};
  std::optional<GeometricMean> mean = GeometricMeanOfCells(cells, 0.95);
  ASSERT_TRUE(mean);
  EXPECT_NEAR(mean->shift.estimate, 0, 1e-12);
  EXPECT_EQ(mean->cells, 2);
  // se of the mean = sqrt(0.01 + 0.01) / 2.
  EXPECT_NEAR(mean->shift.high, z95 * std::sqrt(0.02) / 2, 1e-9);
  EXPECT_NEAR(mean->shift.low, -z95 * std::sqrt(0.02) / 2, 1e-9);
  EXPECT_FALSE(GeometricMeanOfCells({}, 0.95));
}

TEST(TableDesignTest, GeometricMeanReadsEachCellAtItsOwnConfidence) {
  // A 99% interval of half-width z99 * 0.2 is an se of 0.2, not of 0.2 * z99 / z95.
  const double z99 = NormalQuantile(0.995);
  std::vector<CellInterval> cells = {{{0.3, 0.3 - 0.2 * z99, 0.3 + 0.2 * z99}, 0.99}};
  std::optional<GeometricMean> mean = GeometricMeanOfCells(cells, 0.95);
  ASSERT_TRUE(mean);
  EXPECT_NEAR(mean->shift.estimate, 0.3, 1e-12);
  EXPECT_NEAR(mean->shift.high - mean->shift.estimate, NormalQuantile(0.975) * 0.2, 1e-9);
}

}  // namespace
}  // namespace culprit
