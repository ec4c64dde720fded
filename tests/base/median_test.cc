#include "base/median.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace culprit {
namespace {

TEST(Median, OddAndEvenSizes) {
  EXPECT_EQ(Median(std::vector<double>{3}), 3);
  EXPECT_EQ(Median(std::vector<double>{5, 1, 3}), 3);
  EXPECT_EQ(Median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median(std::vector<double>{7, 7, 1, 9, 7, 2}), 7);
  EXPECT_EQ(Median(std::vector<double>{-1, -3}), -2);
}

TEST(Median, InPlaceGivesTheSameAndKeepsTheValues) {
  std::vector<double> values = {9, 2, 8, 1, 5, 6};
  EXPECT_EQ(MedianInPlace(values), 5.5);
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, (std::vector<double>{1, 2, 5, 6, 8, 9}));
}

}  // namespace
}  // namespace culprit
