#include "probes/measure_options.h"

#include <gtest/gtest.h>

#include <string>

#include "probes/measure_commands.h"
#include "tests/support/config_text.h"

namespace culprit {
namespace {

std::string MeasureErrorOf(std::string_view rest) {
  return ConfigErrorOf(WithTestEngine(rest), [](const ConfigTable& root) {
    MeasureConfig measure;
    return ReadMeasureSection(root, &measure);
  });
}

TEST(MeasureSection, Defaults) {
  MeasureConfig measure;
  ASSERT_TRUE(ReadConfigText(kTestEngineSection, [&](const ConfigTable& root) {
                return ReadMeasureSection(root, &measure);
              }).ok());
  EXPECT_DOUBLE_EQ(measure.band, 0.05);
  EXPECT_DOUBLE_EQ(measure.confidence, 0.95);
  EXPECT_EQ(measure.min_pairs, 10);
  EXPECT_EQ(measure.max_pairs, 160);
  EXPECT_EQ(measure.warmup, 1);
  EXPECT_FALSE(measure.calibrate_between_looks);
}

TEST(MeasureSection, BandAndConfidenceOutOfRange) {
  EXPECT_EQ(MeasureErrorOf("[measure]\nband = 1.5\n"),
            "/proj/culprit.toml:5:8: measure.band: expected a number between 0 and 1 "
            "(exclusive), found 1.5");
  EXPECT_EQ(MeasureErrorOf("[measure]\nband = 0\n"),
            "/proj/culprit.toml:5:8: measure.band: expected a number between 0 and 1 "
            "(exclusive), found 0");
  EXPECT_EQ(MeasureErrorOf("[measure]\nconfidence = 95\n"),
            "/proj/culprit.toml:5:14: measure.confidence: expected a number between 0 and 1 "
            "(exclusive), found 95");
}

TEST(MeasureSection, PairBudgets) {
  EXPECT_EQ(MeasureErrorOf("[measure]\nmin_pairs = 200\n"),
            "/proj/culprit.toml:5:13: measure.min_pairs: expected at most max_pairs (160), "
            "found 200");
  EXPECT_EQ(MeasureErrorOf("[measure]\nmax_pairs = 5\n"),
            "/proj/culprit.toml:5:13: measure.min_pairs: expected at most max_pairs (5), found 10");
  EXPECT_EQ(
      MeasureErrorOf("[measure]\nmin_pairs = 1\n"),
      "/proj/culprit.toml:5:13: measure.min_pairs: expected an integer from 2 to 2000, found 1");
  // A sitting's statistics hold n(n+1)/2 numbers: the budget has a ceiling.
  EXPECT_EQ(MeasureErrorOf("[measure]\nmax_pairs = 50000\n"),
            "/proj/culprit.toml:5:13: measure.max_pairs: expected an integer from 2 to 2000, found "
            "50000");
}

TEST(MeasureSection, WrongTypes) {
  EXPECT_EQ(MeasureErrorOf("[measure]\nmin_pairs = \"ten\"\n"),
            "/proj/culprit.toml:5:13: measure.min_pairs: expected an integer from 2 to 2000, found "
            "\"ten\"");
  EXPECT_EQ(MeasureErrorOf("[measure]\ncalibrate_between_looks = 1\n"),
            "/proj/culprit.toml:5:27: measure.calibrate_between_looks: expected true or false, "
            "found an integer");
}

TEST(BrokenMeasureRule, EachRuleInOrder) {
  MeasureConfig ok;
  EXPECT_FALSE(BrokenMeasureRule(ok).has_value());
  auto broken = [](auto change) {
    MeasureConfig m;
    change(m);
    return BrokenMeasureRule(m);
  };
  EXPECT_EQ(broken([](MeasureConfig& m) { m.band = 1; }), MeasureRule::kBand);
  EXPECT_EQ(broken([](MeasureConfig& m) { m.confidence = 0; }), MeasureRule::kConfidence);
  EXPECT_EQ(broken([](MeasureConfig& m) { m.min_pairs = 1; }), MeasureRule::kMinPairs);
  EXPECT_EQ(broken([](MeasureConfig& m) { m.max_pairs = MeasureConfig::kMaxPairs + 1; }),
            MeasureRule::kMaxPairs);
  EXPECT_EQ(broken([](MeasureConfig& m) { m.min_pairs = 50, m.max_pairs = 40; }),
            MeasureRule::kPairOrder);
  EXPECT_EQ(broken([](MeasureConfig& m) { m.warmup = -1; }), MeasureRule::kWarmup);
  // The first rule broken is the one named.
  EXPECT_EQ(broken([](MeasureConfig& m) { m.band = 2, m.warmup = -1; }), MeasureRule::kBand);
}

TEST(MakeSittingOptions, FlagsOverTheQueryOverTheFile) {
  MeasureConfig measure;
  measure.calibrate_between_looks = true;
  QueryConfig query;
  query.warmup = 3;
  MeasureFlags flags;
  Result<SittingOptions> from_file = MakeSittingOptions(measure, query, flags);
  ASSERT_TRUE(from_file.ok());
  EXPECT_DOUBLE_EQ(from_file->band, 0.05);
  EXPECT_EQ(from_file->warmup, 3);
  EXPECT_TRUE(from_file->calibrate_between_looks);
  flags.band = 0.1;
  flags.warmup = 0;
  flags.max_pairs = 20;
  flags.seed = 7;
  Result<SittingOptions> from_flags = MakeSittingOptions(measure, query, flags);
  ASSERT_TRUE(from_flags.ok());
  EXPECT_DOUBLE_EQ(from_flags->band, 0.1);
  EXPECT_EQ(from_flags->warmup, 0);
  EXPECT_EQ(from_flags->min_pairs, 10);
  EXPECT_EQ(from_flags->max_pairs, 20);
  EXPECT_EQ(from_flags->seed, 7u);
}

TEST(MakeSittingOptions, BrokenRulesAreWordedByTheFlag) {
  auto error_of = [](MeasureFlags flags) {
    Result<SittingOptions> options = MakeSittingOptions(MeasureConfig{}, QueryConfig{}, flags);
    EXPECT_FALSE(options.ok());
    if (options) return std::string();
    EXPECT_EQ(options.error().kind(), ErrorKind::kUsage);
    return options.error().message();
  };
  MeasureFlags band;
  band.band = 1.5;
  EXPECT_EQ(error_of(band), "--band 1.5 is not in (0, 1); 0.05 means ±5%");
  MeasureFlags min_pairs;
  min_pairs.min_pairs = 1;
  EXPECT_EQ(error_of(min_pairs), "--min-pairs must be at least 2");
  MeasureFlags many;
  many.max_pairs = 5000;
  EXPECT_EQ(error_of(many), "--max-pairs 5000 is above 2000, the most one sitting takes");
  MeasureFlags few;
  few.max_pairs = 5;
  EXPECT_EQ(error_of(few), "--max-pairs 5 is below min_pairs 10");
  MeasureFlags warmup;
  warmup.warmup = -1;
  EXPECT_EQ(error_of(warmup), "--warmup must be 0 or more");
}

}  // namespace
}  // namespace culprit
