// The sweep's pure parts on scripted series: which commits it measures, and where a series of
// ratios to the range's start moved (one change, two, a move and its return, a change next to
// a point not measured, none, a move spread over steps, and noise that decides nothing).

#include "bisect/sweep.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "bisect/sweep_runner.h"

namespace culprit {
namespace {

// Deterministic noise in [-1, 1): a 64-bit LCG, so every platform scripts the same samples.
class Noise {
 public:
  explicit Noise(uint64_t seed) : state_(seed) {}
  double Next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state_ >> 11) / static_cast<double>(1ULL << 52) - 1.0;
  }

 private:
  uint64_t state_;
};

// A series whose point i sits at levels[i] (ratio to the start), each block's log-ratio off by
// up to ±noise (in log units); a level <= 0 is a point not measured.
SweepSeries Scripted(const std::vector<double>& levels, double noise, int blocks,
                     uint64_t seed = 7) {
  Noise n(seed);
  SweepSeries series;
  series.band = 0.05;
  series.alpha = 0.05 / static_cast<double>(levels.size() - 1);
  for (size_t i = 0; i < levels.size(); ++i) {
    SweepPoint p;
    p.measured = levels[i] > 0;
    for (int b = 0; b < blocks; ++b) {
      if (i == 0) {
        p.blocks.push_back(0.0);
      } else if (p.measured) {
        p.blocks.push_back(std::log(levels[i]) + noise * n.Next());
      } else {
        p.blocks.push_back(std::nullopt);
      }
    }
    series.points.push_back(std::move(p));
  }
  return series;
}

std::vector<SweepFinding> Changes(const std::vector<SweepFinding>& findings) {
  std::vector<SweepFinding> out;
  for (const SweepFinding& f : findings) {
    if (f.kind == SweepFindingKind::kChange) out.push_back(f);
  }
  return out;
}

TEST(SweepSelection, EveryKthFromTheStartAndTheEnd) {
  Result<std::vector<int>> every4 = SelectSweepPoints(100, 4, std::nullopt);
  ASSERT_TRUE(every4);
  EXPECT_EQ(every4->size(), 26u);
  EXPECT_EQ(every4->front(), 0);
  EXPECT_EQ(every4->back(), 100);
  EXPECT_EQ((*every4)[1], 4);
  EXPECT_EQ(*SelectSweepPoints(10, 3, std::nullopt), (std::vector<int>{0, 3, 6, 9, 10}));
  EXPECT_EQ(*SelectSweepPoints(3, 1, std::nullopt), (std::vector<int>{0, 1, 2, 3}));
}

TEST(SweepSelection, EvenlySpacedPointsBothEndsEachOnce) {
  EXPECT_EQ(*SelectSweepPoints(8, std::nullopt, 5), (std::vector<int>{0, 2, 4, 6, 8}));
  EXPECT_EQ(*SelectSweepPoints(5, std::nullopt, 20), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(*SelectSweepPoints(1, std::nullopt, 2), (std::vector<int>{0, 1}));
  Result<std::vector<int>> standard = SelectSweepPoints(90, std::nullopt, std::nullopt);
  ASSERT_TRUE(standard);
  EXPECT_EQ(standard->size(), 10u);
  EXPECT_EQ(standard->back(), 90);
}

TEST(SweepSelection, BadInputIsAUsageError) {
  EXPECT_FALSE(SelectSweepPoints(0, 1, std::nullopt));
  EXPECT_FALSE(SelectSweepPoints(10, 0, std::nullopt));
  EXPECT_FALSE(SelectSweepPoints(10, -2, std::nullopt));
  EXPECT_FALSE(SelectSweepPoints(10, std::nullopt, 1));
  EXPECT_FALSE(SelectSweepPoints(10, 2, 5));
  EXPECT_EQ(SelectSweepPoints(10, 0, std::nullopt).error().kind(), ErrorKind::kUsage);
}

TEST(SweepLocate, OneChangeBetweenTheRightTwoPointsAndTiesAroundIt) {
  SweepSeries s = Scripted({1, 1, 1, 1, 1, 1, 1.3, 1.3, 1.3, 1.3, 1.3}, 0.02, 40);
  std::vector<SweepFinding> findings = LocateSweepChanges(s);
  std::vector<SweepFinding> changes = Changes(findings);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].from, 5);
  EXPECT_EQ(changes[0].to, 6);
  ASSERT_TRUE(changes[0].log_ratio);
  EXPECT_NEAR(std::exp(*changes[0].log_ratio), 1.3, 0.02);
  EXPECT_GT(changes[0].mass, 0.95);
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].kind, SweepFindingKind::kTie);
  EXPECT_EQ(findings[0].from, 0);
  EXPECT_EQ(findings[0].to, 5);
  EXPECT_EQ(findings[2].kind, SweepFindingKind::kTie);
  EXPECT_EQ(findings[2].from, 6);
  EXPECT_EQ(findings[2].to, 10);
}

TEST(SweepLocate, TwoChangesEachBetweenItsPoints) {
  SweepSeries s = Scripted({1, 1, 1, 1.3, 1.3, 1.3, 1.3, 1.6, 1.6, 1.6}, 0.02, 40);
  std::vector<SweepFinding> changes = Changes(LocateSweepChanges(s));
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].from, 2);
  EXPECT_EQ(changes[0].to, 3);
  EXPECT_EQ(changes[1].from, 6);
  EXPECT_EQ(changes[1].to, 7);
  EXPECT_NEAR(std::exp(*changes[1].log_ratio), 1.6 / 1.3, 0.03);
}

TEST(SweepLocate, AMoveAndItsReturnBetweenEndsThatTie) {
  // +30% at 3, back at 6: the ends tie, the points between them do not.
  SweepSeries s = Scripted({1, 1, 1, 1.3, 1.3, 1.3, 1, 1, 1}, 0.02, 40);
  std::vector<SweepFinding> changes = Changes(LocateSweepChanges(s));
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].from, 2);
  EXPECT_EQ(changes[0].to, 3);
  EXPECT_GT(*changes[0].log_ratio, 0);
  EXPECT_EQ(changes[1].from, 5);
  EXPECT_EQ(changes[1].to, 6);
  EXPECT_LT(*changes[1].log_ratio, 0);
}

TEST(SweepLocate, AChangeNextToAPointNotMeasuredSpansIt) {
  // Point 4 did not build; the change came in at 4 or 5: it lies between 3 and 5.
  SweepSeries s = Scripted({1, 1, 1, 1, 0, 1.5, 1.5}, 0.02, 40);
  std::vector<SweepFinding> findings = LocateSweepChanges(s);
  std::vector<SweepFinding> changes = Changes(findings);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].from, 3);
  EXPECT_EQ(changes[0].to, 5);
  for (const SweepFinding& f : findings) {
    EXPECT_NE(f.from, 4);
    EXPECT_NE(f.to, 4);
  }
}

TEST(SweepLocate, NoChangeIsOneTieOverTheWholeRange) {
  SweepSeries s = Scripted({1, 1, 1, 1, 1, 1, 1, 1}, 0.02, 40);
  std::vector<SweepFinding> findings = LocateSweepChanges(s);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, SweepFindingKind::kTie);
  EXPECT_EQ(findings[0].from, 0);
  EXPECT_EQ(findings[0].to, 7);
}

TEST(SweepLocate, NoiseThatDecidesNothingIsUndecidedNotAChange) {
  // An 8% move under ±40% noise and 12 blocks: no interval is narrow enough to place it.
  SweepSeries s = Scripted({1, 1, 1, 1.08, 1.08, 1.08}, 0.4, 12);
  std::vector<SweepFinding> findings = LocateSweepChanges(s);
  EXPECT_TRUE(Changes(findings).empty());
  bool undecided = false;
  for (const SweepFinding& f : findings) undecided |= f.kind == SweepFindingKind::kUndecided;
  EXPECT_TRUE(undecided);
}

TEST(SweepLocate, AMoveSpreadOverStepsNoneBeyondTheBandIsUndecided) {
  // +3% a step, 30% in all: the range moved, yet no step between two points is beyond 5%.
  std::vector<double> levels;
  for (int i = 0; i <= 9; ++i) levels.push_back(std::pow(1.03, i));
  SweepSeries s = Scripted(levels, 0.005, 40);
  std::vector<SweepFinding> findings = LocateSweepChanges(s);
  EXPECT_TRUE(Changes(findings).empty());
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, SweepFindingKind::kUndecided);
  EXPECT_LT(findings[0].from, findings[0].to);
}

TEST(SweepLocate, FewerThanTwoMeasuredPointsFindNothing) {
  SweepSeries s = Scripted({1, 0, 0}, 0.02, 20);
  EXPECT_TRUE(LocateSweepChanges(s).empty());
}

TEST(SweepLocate, TheBisectCommandOfASubRange) {
  EXPECT_EQ(SweepBisectCommand("a1b2c3", "d4e5f6", "q1"),
            "culprit bisect run --good a1b2c3 --bad d4e5f6 -q q1");
}

TEST(SweepRange, GoodDotDotBadAndNothingElse) {
  Result<std::pair<std::string, std::string>> range = ParseSweepRange("v1.0..HEAD~2");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->first, "v1.0");
  EXPECT_EQ(range->second, "HEAD~2");
  for (const char* bad : {"v1.0", "..v1.3", "v1.0..", "v1.0...v1.3", "a..b..c", ""}) {
    Result<std::pair<std::string, std::string>> refused = ParseSweepRange(bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().kind(), ErrorKind::kUsage) << bad;
  }
}

}  // namespace
}  // namespace culprit
