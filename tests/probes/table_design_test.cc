#include "probes/table_design.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "probes/round_design.h"
#include "probes/sequential.h"
#include "probes/statistics.h"

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
  // (The first look is StoppableLooks', moved up until it can stop.)
  EXPECT_EQ(TableLooks(10, 160, 3, TableCellAlpha(0.05, 26)),
            (std::vector<int>{15, 21, 39, 81, 162}));
  // 13 cells: 35 pairs, 36 in whole groups of 2.
  EXPECT_EQ(TableLooks(10, 160, 2, TableCellAlpha(0.05, 13)),
            (std::vector<int>{14, 20, 36, 80, 160}));
  // Never the last look: the budget is the user's.
  EXPECT_EQ(TableLooks(10, 40, 2, TableCellAlpha(0.05, 13)), (std::vector<int>{12, 20, 40}));
  // A look already at the sighting, or none between: as LookSchedule gives them.
  EXPECT_EQ(TableLooks(10, 160, 2, 0.05), (std::vector<int>{10, 20, 40, 80, 160}));
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
