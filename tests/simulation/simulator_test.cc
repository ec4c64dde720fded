#include <gtest/gtest.h>

#include <cmath>

#include "simulation/simulation.h"

namespace culprit {
namespace {

// The trimmed grid of bench/bisect-sim: fixed seeds, so these figures are exact
// repeatable numbers; the thresholds leave a margin below what docs/bisect-evidence.md
// reports for the full benchmark.

TEST(BisectSimulatorTest, NoisyHostLargeEffectFindsTheCulprit) {
  WorldOptions world;  // drift and 2% outliers on
  world.n_commits = 100;
  world.effect = 0.18;
  world.sigma = 0.24;
  const CellResult cell = RunCell(world, SearchOptions{}, 120, 7);
  EXPECT_GE(cell.culprit.exact, 0.95);
  EXPECT_LE(cell.culprit.wrong, 0.02);
  EXPECT_LE(cell.culprit.mean_builds, std::ceil(std::log2(100.0)) + 3);
  // The threshold script on the same worlds is wrong most of the time.
  EXPECT_GE(cell.naive_single.wrong, 0.5);
  EXPECT_LE(cell.naive_single.exact, 0.5 * cell.culprit.exact);
}

TEST(BisectSimulatorTest, ModerateNoiseModerateEffect) {
  WorldOptions world;
  world.n_commits = 100;
  world.effect = 0.10;
  world.sigma = 0.10;
  const CellResult cell = RunCell(world, SearchOptions{}, 120, 11);
  EXPECT_GE(cell.culprit.exact, 0.97);
  EXPECT_LE(cell.culprit.wrong, 0.02);
}

TEST(BisectSimulatorTest, UnbuildableCommitsGiveRangesNotWrongAnswers) {
  WorldOptions world;
  world.n_commits = 100;
  world.effect = 0.18;
  world.sigma = 0.05;
  world.unbuildable_fraction = 0.3;
  const CellResult cell = RunCell(world, SearchOptions{}, 60, 3);
  EXPECT_GT(cell.culprit.range, 0.0);
  EXPECT_GE(cell.culprit.exact + cell.culprit.range, 0.95);
  EXPECT_LE(cell.culprit.wrong, 0.02);
}

TEST(BisectSimulatorTest, AnEffectInsideTheBandIsNeverCalled) {
  // 3% is inside the 5% band: culprit must not name a commit; the script still does.
  WorldOptions world;
  world.n_commits = 100;
  world.effect = 0.03;
  world.sigma = 0.05;
  const CellResult cell = RunCell(world, SearchOptions{}, 40, 5);
  EXPECT_EQ(cell.culprit.exact + cell.culprit.wrong + cell.culprit.range, 0.0);
  EXPECT_EQ(cell.culprit.inconclusive, 1.0);
  EXPECT_EQ(cell.naive_single.inconclusive, 0.0);
}

TEST(BisectSimulatorTest, SameSeedSameFigures) {
  WorldOptions world;
  world.n_commits = 50;
  world.unbuildable_fraction = 0.1;
  const CellResult a = RunCell(world, SearchOptions{}, 10, 42);
  const CellResult b = RunCell(world, SearchOptions{}, 10, 42);
  EXPECT_EQ(a.culprit.mean_pairs, b.culprit.mean_pairs);
  EXPECT_EQ(a.culprit.exact, b.culprit.exact);
  EXPECT_EQ(a.naive_median5.mean_builds, b.naive_median5.mean_builds);
  const CellResult c = RunCell(world, SearchOptions{}, 10, 43);
  EXPECT_NE(a.culprit.mean_pairs, c.culprit.mean_pairs);
}

TEST(BisectSimulatorTest, WorldPairsCarryTheEffect) {
  WorldOptions options;
  options.n_commits = 10;
  options.effect = 1.0;  // 2x: a bad commit's pairs are far above a good one's
  options.sigma = 0.05;
  options.outlier_rate = 0;
  SimWorld world(options, 9);
  const int f = world.first_bad();
  ASSERT_GE(f, 1);
  ASSERT_LE(f, 10);
  double bad_sum = 0;
  for (double d : world.Pairs(10, 0, 20)) bad_sum += d;
  EXPECT_NEAR(bad_sum / 20, std::log(2.0), 0.05);
  double good_sum = 0;
  for (double d : world.Pairs(f - 1, 0, 20)) good_sum += d;
  EXPECT_NEAR(good_sum / 20, 0.0, 0.05);
}

}  // namespace
}  // namespace culprit
