#include "bisect/bisect_config.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/config_text.h"

namespace culprit {
namespace {

std::string BisectErrorOf(std::string_view rest) {
  return ConfigErrorOf(WithTestEngine(rest), [](const ConfigTable& root) {
    BisectConfig bisect;
    return ReadBisectSection(root, &bisect);
  });
}

TEST(BisectSection, ReadsEveryKey) {
  BisectConfig bisect;
  Status status = ReadConfigText(
      "[bisect]\ntarget_probability = 0.95\nmax_builds = 12\nmax_pairs = 400\npairs_per_step = 8\n"
      "max_changes = 5\nconfirm_max_pairs = 320\ncheck_max_pairs = 480\nmax_total_pairs = 2000\n"
      "step_odds = 49\nplan_verification = false\nconfirm_look_growth = 2\njoint_looks = false\n"
      "spend_on_root_time = false\n",
      [&](const ConfigTable& root) { return ReadBisectSection(root, &bisect); });
  ASSERT_TRUE(status.ok()) << status.error().message();
  EXPECT_DOUBLE_EQ(bisect.target_probability, 0.95);
  EXPECT_EQ(bisect.max_builds, 12);
  EXPECT_EQ(bisect.max_pairs, 400);
  EXPECT_EQ(bisect.pairs_per_step, 8);
  EXPECT_EQ(bisect.max_changes, 5);
  EXPECT_EQ(bisect.confirm_max_pairs, 320);
  EXPECT_EQ(bisect.check_max_pairs, 480);
  EXPECT_EQ(bisect.max_total_pairs, 2000);
  EXPECT_DOUBLE_EQ(bisect.step_odds, 49);
  EXPECT_FALSE(bisect.plan_verification);
  EXPECT_DOUBLE_EQ(bisect.confirm_look_growth, 2);
  EXPECT_FALSE(bisect.joint_looks);
  EXPECT_TRUE(BisectConfig{}.joint_looks);
  EXPECT_FALSE(bisect.spend_on_root_time);
  EXPECT_TRUE(BisectConfig{}.spend_on_root_time);
}

TEST(BisectSection, TheConfirmationsLooksGrowByAFactorAboveOne) {
  EXPECT_NEAR(BisectConfig{}.confirm_look_growth, 1.414, 0.001);
  EXPECT_EQ(BisectErrorOf("[bisect]\nconfirm_look_growth = 0.5\n")
                .rfind("/proj/culprit.toml:5:23: bisect.confirm_look_growth: expected a number", 0),
            0u)
      << BisectErrorOf("[bisect]\nconfirm_look_growth = 0.5\n");
}

TEST(BisectSection, TheConfirmationBudgetIsBoundedLikeASitting) {
  EXPECT_EQ(BisectConfig{}.confirm_max_pairs, 1280);
  EXPECT_EQ(BisectConfig{}.check_max_pairs, 0);  // [measure] max_pairs
  EXPECT_EQ(BisectErrorOf("[bisect]\nconfirm_max_pairs = 5000\n"),
            "/proj/culprit.toml:5:21: bisect.confirm_max_pairs: expected an integer from 0 to "
            "2000, found 5000");
}

TEST(BisectSection, SearchesThreeChangesByDefault) {
  BisectConfig bisect;
  EXPECT_EQ(bisect.max_changes, 3);
  EXPECT_EQ(BisectErrorOf("[bisect]\nmax_changes = 0\n"),
            "/proj/culprit.toml:5:15: bisect.max_changes: expected an integer >= 1, found 0");
}

TEST(BisectSection, Errors) {
  EXPECT_EQ(BisectErrorOf("[bisect]\ntarget_probability = 1.0\n"),
            "/proj/culprit.toml:5:22: bisect.target_probability: expected a number between 0 "
            "and 1 (exclusive), found 1");
  EXPECT_EQ(BisectErrorOf("[bisect]\nmax_builds = -1\n"),
            "/proj/culprit.toml:5:14: bisect.max_builds: expected an integer >= 0, found -1");
  EXPECT_EQ(BisectErrorOf("[bisect]\nmax_bulids = 3\n"),
            "/proj/culprit.toml:5:1: unknown key 'max_bulids' in [bisect], did you mean "
            "'max_builds'?");
}

}  // namespace
}  // namespace culprit
