#include "probes/round_design.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace culprit {
namespace {

TEST(RoundDesignTest, EveryRoundVisitsEveryConditionOnce) {
  for (int k = 1; k <= 6; ++k) {
    auto orders = BalancedRoundOrders(k, 4 * k + 1, 42);
    ASSERT_EQ(orders.size(), static_cast<size_t>(4 * k + 1));
    for (const auto& order : orders) {
      std::vector<int> sorted = order;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int> expected(k);
      std::iota(expected.begin(), expected.end(), 0);
      EXPECT_EQ(sorted, expected);
    }
  }
}

TEST(RoundDesignTest, BalancedAfterEveryWholeBlock) {
  for (int k : {2, 3, 5}) {
    for (int blocks = 1; blocks <= 4; ++blocks) {
      auto orders = BalancedRoundOrders(k, blocks * k, 7);
      auto counts = PositionCounts(orders, k);
      for (int c = 0; c < k; ++c) {
        for (int p = 0; p < k; ++p) EXPECT_EQ(counts[c][p], blocks) << k << " " << c << " " << p;
      }
    }
  }
}

TEST(RoundDesignTest, SeededAndReproducible) {
  EXPECT_EQ(BalancedRoundOrders(5, 40, 123), BalancedRoundOrders(5, 40, 123));
  EXPECT_NE(BalancedRoundOrders(5, 40, 123), BalancedRoundOrders(5, 40, 124));
  // A longer design starts with the shorter one: later looks extend, never reshuffle.
  auto shorter = BalancedRoundOrders(4, 12, 9);
  auto longer = BalancedRoundOrders(4, 20, 9);
  EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), longer.begin()));
  // One block of three rounds is a Latin square.
  auto small = BalancedRoundOrders(3, 3, 1);
  auto counts = PositionCounts(small, 3);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(counts[c], (std::vector<int>{1, 1, 1}));
}

TEST(RoundDesignTest, NotAlwaysTheSameOrder) {
  auto orders = BalancedRoundOrders(5, 50, 3);
  int distinct = 0;
  for (size_t i = 1; i < orders.size(); ++i) distinct += orders[i] != orders[0];
  EXPECT_GT(distinct, 40);
}

TEST(RoundDesignTest, LooksAlignToWholeBlocks) {
  EXPECT_EQ(BlockAlignedLooks({10, 20, 40}, 3), (std::vector<int>{12, 21, 42}));
  EXPECT_EQ(BlockAlignedLooks({10, 20, 40, 80, 160}, 5), (std::vector<int>{10, 20, 40, 80, 160}));
  EXPECT_EQ(BlockAlignedLooks({2, 3, 4}, 4), (std::vector<int>{4}));
  EXPECT_EQ(BlockAlignedLooks({10}, 1), (std::vector<int>{10}));
}

}  // namespace
}  // namespace culprit
