#include "probes/log_interval.h"

#include <gtest/gtest.h>

#include <cmath>

namespace culprit {
namespace {

TEST(LogInterval, OfShiftKeepsTheThreeNumbers) {
  ShiftEstimate s;
  s.estimate = 0.1;
  s.low = 0.05;
  s.high = 0.2;
  s.confidence = 0.99;
  s.n = 12;
  EXPECT_EQ(LogInterval::Of(s), (LogInterval{0.1, 0.05, 0.2}));
}

TEST(LogInterval, FlippedNegatesAndSwapsTheEnds) {
  const LogInterval slow{0.1, 0.05, 0.2};
  EXPECT_EQ(slow.Flipped(), (LogInterval{-0.1, -0.2, -0.05}));
  EXPECT_EQ(slow.Flipped().Flipped(), slow);
  EXPECT_LE(slow.Flipped().low, slow.Flipped().estimate);
  EXPECT_LE(slow.Flipped().estimate, slow.Flipped().high);
  EXPECT_EQ(slow.FlippedIf(true), slow.Flipped());
  EXPECT_EQ(slow.FlippedIf(false), slow);
}

TEST(LogInterval, RatioEstimateIsExpOfEachEnd) {
  const LogInterval i{std::log(1.25), std::log(1.1), std::log(1.5)};
  EXPECT_DOUBLE_EQ(i.Ratio(), 1.25);
  const Estimate e = i.ToRatioEstimate();
  EXPECT_DOUBLE_EQ(e.ratio, 1.25);
  EXPECT_DOUBLE_EQ(e.low, 1.1);
  EXPECT_DOUBLE_EQ(e.high, 1.5);
  // The rest is the caller's: Estimate's defaults.
  EXPECT_EQ(e.pairs, Estimate{}.pairs);
  EXPECT_TRUE(e.method.empty());
  // A speed-up of 20% read the other way round is a slowdown of 25%.
  const Estimate back =
      LogInterval{std::log(0.8), std::log(0.5), std::log(0.9)}.Flipped().ToRatioEstimate();
  EXPECT_DOUBLE_EQ(back.ratio, 1.25);
  EXPECT_DOUBLE_EQ(back.low, 1 / 0.9);
  EXPECT_DOUBLE_EQ(back.high, 2.0);
}

TEST(LogInterval, OfRatioIsTheInverseOfToRatioEstimate) {
  Estimate e;
  e.ratio = 2;
  e.low = 1;
  e.high = 4;
  const LogInterval i = LogInterval::OfRatio(e);
  EXPECT_DOUBLE_EQ(i.estimate, std::log(2.0));
  EXPECT_DOUBLE_EQ(i.low, 0.0);
  EXPECT_DOUBLE_EQ(i.high, std::log(4.0));
  const Estimate round_trip = i.ToRatioEstimate();
  EXPECT_DOUBLE_EQ(round_trip.ratio, 2);
  EXPECT_DOUBLE_EQ(round_trip.low, 1);
  EXPECT_DOUBLE_EQ(round_trip.high, 4);
}

TEST(LogInterval, RatioEstimateOfAShiftKeepsItsConfidencePairsAndExactness) {
  ShiftEstimate s;
  s.estimate = 0;
  s.low = -std::log(2.0);
  s.high = std::log(2.0);
  s.confidence = 0.953;
  s.n = 10;
  s.exact = true;
  const Estimate e = RatioEstimate(s);
  EXPECT_DOUBLE_EQ(e.ratio, 1);
  EXPECT_DOUBLE_EQ(e.low, 0.5);
  EXPECT_DOUBLE_EQ(e.high, 2);
  EXPECT_DOUBLE_EQ(e.confidence, 0.953);
  EXPECT_EQ(e.pairs, 10);
  EXPECT_TRUE(e.exact);
  EXPECT_TRUE(e.method.empty());
}

}  // namespace
}  // namespace culprit
