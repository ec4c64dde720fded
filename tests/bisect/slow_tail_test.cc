// Known answers for a move in the slow tail: when a range or part is not searched, what its
// report says, and the table it names.

#include "bisect/slow_tail.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace culprit {
namespace {

// A check of commits 0..12 with its pseudo-median's ratio and interval.
BisectSegment Check(SegmentCheck check, double ratio, double low, double high) {
  BisectSegment s;
  s.hi = 12;
  s.check = check;
  s.ratio = ratio;
  s.low = low;
  s.high = high;
  return s;
}

// A move in the slow tail: the check's EFFECT came from the mean while the pseudo-median is
// estimated inside the band and its interval is not beyond it. Only then is the part not
// searched.
TEST(SlowTail, AMoveInTheMeanWhoseTypicalRunTiesIsAMoveInTheTailOnly) {
  // bisect-sim's "x2 in 15% intermittent", seed 31: mean 1.146 [1.089, 1.207].
  EXPECT_TRUE(MovesInTheTailOnly(Check(SegmentCheck::kSame, 1.024, 1.011, 1.046), 0.05));
  // The other way from the range, the same.
  EXPECT_TRUE(MovesInTheTailOnly(Check(SegmentCheck::kOpposite, 0.98, 0.96, 0.99), 0.05));
  // The interval may reach beyond the edge (seed 31 in a 32-commit world, mean 1.138
  // [1.052, 1.232]) ...
  EXPECT_TRUE(MovesInTheTailOnly(Check(SegmentCheck::kSame, 1.017, 0.999, 1.063), 0.05));
  // ... but an estimate beyond the band is a shift near its edge, which the search places.
  EXPECT_FALSE(MovesInTheTailOnly(Check(SegmentCheck::kSame, 1.056, 1.02, 1.09), 0.05));
  // A shift beyond the band, a tie and an undecided check are not moves in the tail.
  EXPECT_FALSE(MovesInTheTailOnly(Check(SegmentCheck::kSame, 1.2, 1.15, 1.25), 0.05));
  EXPECT_FALSE(MovesInTheTailOnly(Check(SegmentCheck::kTie, 1.01, 0.99, 1.03), 0.05));
  EXPECT_FALSE(MovesInTheTailOnly(Check(SegmentCheck::kUndecided, 1.01, 0.97, 1.06), 0.05));
  // A check without figures (its runs kept failing) is not read as one.
  EXPECT_FALSE(MovesInTheTailOnly(Check(SegmentCheck::kSame, 1.0, 0, 0), 0.05));
}

// A move in the slow tail is placed by a table of a few commits against the part's good end:
// its ends and up to three evenly spaced between.
TEST(SlowTail, AMoveInTheTailGetsATableOfTheRangesCommits) {
  std::vector<std::string> commits;
  for (int i = 0; i <= 10; ++i) commits.push_back(std::string(40, static_cast<char>('a' + i)));
  const auto id = [&](int i) { return commits[i].substr(0, 10); };
  EXPECT_EQ(TailTableCommand(commits, 0, 10, "scan"),
            fmt::format("culprit table --rev {} --rev {} --rev {} --rev {} --rev {} -q scan", id(0),
                        id(2), id(5), id(7), id(10)));
  EXPECT_EQ(TailTableCommand(commits, 3, 5, "scan"),
            fmt::format("culprit table --rev {} --rev {} --rev {} -q scan", id(3), id(4), id(5)));
  EXPECT_EQ(TailTableCommand(commits, 3, 4, ""),
            fmt::format("culprit table --rev {} --rev {}", id(3), id(4)));
  BisectSegment s;
  s.check = SegmentCheck::kSame;
  s.ratio = 1.024;
  s.low = 1.011;
  s.high = 1.046;
  EXPECT_EQ(
      TailOnlyReason(s, "1.146 [1.089, 1.207]", 0.05),
      "its move is in the slow tail of its runs, not in the typical run: the pairs' "
      "pseudo-median x1.024 [1.011, 1.046] is not beyond the ±5% band, their mean ratio "
      "1.146 [1.089, 1.207] beyond it; an intermittent slowdown moves so, and the search, which "
      "places a shift of the typical run, cannot place it, so it was not searched");
}

}  // namespace
}  // namespace culprit
