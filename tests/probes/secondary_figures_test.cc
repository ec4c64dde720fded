// Secondary figures (probes/secondary_figures.h): their own ratios over the kept pairs,
// shown and recorded, never deciding.

#include "probes/secondary_figures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "probes/comparison.h"
#include "probes/sitting.h"
#include "probes/summary.h"

namespace culprit {
namespace {

const SecondaryFigure* Find(const std::vector<SecondaryFigure>& figures, std::string_view name) {
  for (const SecondaryFigure& f : figures) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

/// Runs whose primary value is `primary_ratio` times A's in B, while B's CPU time is
/// `cpu_ratio` times A's and its peak RSS `rss_ratio` times; noise of 2% on everything,
/// from a fixed seed. Faults and switches are known in every run.
class ScriptedResources : public SampleSource {
 public:
  ScriptedResources(double primary_ratio, double cpu_ratio, double rss_ratio)
      : primary_(primary_ratio), cpu_(cpu_ratio), rss_(rss_ratio) {}

  SampleOutcome Run(int arm) override {
    auto noisy = [&](double value) { return value * std::exp(noise_(rng_)); };
    SampleOutcome o;
    o.ok = true;
    o.value = noisy(arm == 1 ? 100 * primary_ : 100);
    o.wall_ms = o.value;
    o.user_ms = noisy(arm == 1 ? 40 * cpu_ : 40);
    o.system_ms = 2;
    o.max_rss_kb = static_cast<long>(noisy(arm == 1 ? 50000 * rss_ : 50000));
    o.minor_faults = static_cast<long>(noisy(12000));
    o.major_faults = 0;  // none: a ratio of zeros is unavailable, never 1
    o.voluntary_switches = 3;
    o.involuntary_switches = static_cast<long>(noisy(20));
    return o;
  }

 private:
  double primary_, cpu_, rss_;
  std::mt19937_64 rng_{20261204};
  std::normal_distribution<double> noise_{0, 0.02};
};

SittingOptions Options() {
  SittingOptions options;
  options.warmup = 1;
  options.min_pairs = 10;
  options.max_pairs = 40;
  options.band = 0.05;
  options.seed = 7;
  return options;
}

ComparisonPlan Plan(MetricRule::Kind primary) {
  ComparisonPlan plan;
  plan.query = "q";
  plan.a.process.metric.kind = primary;
  plan.b.process.metric.kind = primary;
  plan.options = Options();
  return plan;
}

TEST(SecondaryFigures, ADoubledCpuNextToATiedPrimaryLeavesTheVerdictNull) {
  // The primary (a regex metric, say) ties; B burns twice the CPU and holds half again the
  // memory. The verdict is the primary's alone.
  ScriptedResources source(1.0, 2.0, 1.5);
  SittingResult sitting = RunPairedSitting(source, nullptr, Options(), nullptr);
  ASSERT_TRUE(sitting.verdict.has_value());
  EXPECT_EQ(sitting.verdict->verdict, Verdict::kNull);
  Record record = MakeComparisonRecord(Plan(MetricRule::Kind::kRegex), sitting, HostIdentity{});
  EXPECT_EQ(record.verdict, Verdict::kNull);

  std::vector<SecondaryFigure> figures =
      SecondaryFigures(sitting.samples, MetricRule::Kind::kRegex, 0.95);
  const SecondaryFigure* cpu = Find(figures, "cpu");
  ASSERT_NE(cpu, nullptr);
  ASSERT_TRUE(cpu->estimate.has_value()) << cpu->why;
  EXPECT_NEAR(cpu->estimate->ratio, (80.0 + 2) / (40 + 2), 0.1);  // user 40 -> 80, system 2
  EXPECT_GT(cpu->estimate->low, 1.5);
  const SecondaryFigure* rss = Find(figures, "max_rss");
  ASSERT_TRUE(rss && rss->estimate);
  EXPECT_NEAR(rss->estimate->ratio, 1.5, 0.05);
  EXPECT_EQ(rss->pairs, sitting.pairs_kept);
  // With a primary that is not wall time, wall time is a secondary figure too.
  ASSERT_NE(Find(figures, "wall"), nullptr);
  // Zero major faults in every run: unavailable, not a ratio of 1.
  const SecondaryFigure* major = Find(figures, "major_faults");
  ASSERT_NE(major, nullptr);
  EXPECT_FALSE(major->estimate.has_value());
  EXPECT_EQ(major->why, "not known in any kept pair");

  // The record keeps them, labelled secondary.
  EXPECT_EQ(record.Detail("secondary.cpu"), FormatSecondaryFigure(*cpu));
  EXPECT_EQ(record.Detail("secondary.major_faults"), "unavailable: not known in any kept pair");
  EXPECT_EQ(record.Detail("secondary_confidence"), "95%");
  EXPECT_EQ(record.details.count("secondary.regex"), 0u);
  std::string summary = FormatSecondaryFigures(record);
  EXPECT_NE(summary.find("secondary figures, B/A at 95% confidence (shown, never deciding):"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("    cpu          " + FormatSecondaryFigure(*cpu)), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("    unavailable: major_faults"), std::string::npos) << summary;
}

TEST(SecondaryFigures, TiedFiguresNextToASlowerPrimaryLeaveTheVerdictAnEffect) {
  // B is 30% slower on the primary (cpu) and the same in memory: the sitting stops on its
  // primary alone and says EFFECT.
  ScriptedResources source(1.3, 1.3, 1.0);
  SittingResult sitting = RunPairedSitting(source, nullptr, Options(), nullptr);
  ASSERT_TRUE(sitting.verdict.has_value());
  EXPECT_EQ(sitting.verdict->verdict, Verdict::kEffect);
  Record record = MakeComparisonRecord(Plan(MetricRule::Kind::kCpu), sitting, HostIdentity{});
  EXPECT_EQ(record.verdict, Verdict::kEffect);
  // The primary is not among its own secondary figures; the others are.
  EXPECT_TRUE(record.Detail("secondary.cpu").empty());
  EXPECT_FALSE(record.Detail("secondary.wall").empty());
  EXPECT_FALSE(record.Detail("secondary.max_rss").empty());
}

TEST(SecondaryFigures, ASittingsVerdictAndLooksAreTheSameWithOrWithoutTheFigures) {
  // The same scripted values with every resource figure unknown: the sitting runs exactly
  // as it did with them, because they are read only after it is over.
  class WithoutFigures : public SampleSource {
   public:
    explicit WithoutFigures(ScriptedResources& inner) : inner_(inner) {}
    SampleOutcome Run(int arm) override {
      SampleOutcome o = inner_.Run(arm);
      SampleOutcome bare;
      bare.ok = o.ok;
      bare.value = o.value;
      return bare;
    }

   private:
    ScriptedResources& inner_;
  };
  ScriptedResources with(1.02, 3.0, 0.5);
  ScriptedResources inner(1.02, 3.0, 0.5);
  WithoutFigures without(inner);
  SittingResult a = RunPairedSitting(with, nullptr, Options(), nullptr);
  SittingResult b = RunPairedSitting(without, nullptr, Options(), nullptr);
  ASSERT_TRUE(a.verdict && b.verdict);
  EXPECT_EQ(a.verdict->verdict, b.verdict->verdict);
  EXPECT_EQ(a.looks, b.looks);
  EXPECT_EQ(a.log_ratios, b.log_ratios);
  EXPECT_EQ(a.pairs_kept, b.pairs_kept);
  // Without figures every secondary one is unavailable.
  for (const SecondaryFigure& f : SecondaryFigures(b.samples, MetricRule::Kind::kRegex, 0.95)) {
    EXPECT_FALSE(f.estimate.has_value()) << f.name;
  }
}

TEST(SecondaryFigures, OnlyPairsWithBothRunsKeptAndTheFigureKnownCount) {
  auto sample = [](int arm, int pair, double cpu) {
    Sample s;
    s.arm = arm;
    s.pair = pair;
    s.value = 10;
    s.user_ms = cpu;
    return s;
  };
  std::vector<Sample> samples;
  for (int p = 0; p < 8; ++p) {
    samples.push_back(sample(0, p, 10));
    samples.push_back(sample(1, p, 20));
  }
  samples[0].warmup = true;   // pair 0 is not kept
  samples[3].dropped = true;  // nor pair 1
  samples[4].user_ms = 0;     // pair 2 has no cpu figure for A
  std::vector<SecondaryFigure> figures = SecondaryFigures(samples, MetricRule::Kind::kWall, 0.95);
  const SecondaryFigure* cpu = Find(figures, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->pairs_kept, 6);
  EXPECT_EQ(cpu->pairs, 5);
  EXPECT_FALSE(cpu->estimate.has_value());  // 5 pairs: fewer than the 6 an interval needs
  EXPECT_EQ(cpu->why, "known in 5 of 6 kept pairs, fewer than an interval needs (6)");
  EXPECT_EQ(Find(figures, "wall"), nullptr);  // the primary

  samples[4].user_ms = 10;
  figures = SecondaryFigures(samples, MetricRule::Kind::kWall, 0.95);
  cpu = Find(figures, "cpu");
  ASSERT_TRUE(cpu->estimate.has_value());
  EXPECT_DOUBLE_EQ(cpu->estimate->ratio, 2.0);
  EXPECT_EQ(FormatSecondaryFigure(*cpu), "2.000 [2.000, 2.000] (A 10 ms, B 20 ms; 6 pairs)");

  // No kept pair at all (a single-arm run): nothing to show.
  std::vector<Sample> one_arm;
  for (int i = 0; i < 8; ++i) one_arm.push_back(sample(0, -1, 10));
  EXPECT_TRUE(SecondaryFigures(one_arm, MetricRule::Kind::kWall, 0.95).empty());
}

}  // namespace
}  // namespace culprit

namespace culprit {
namespace {

TEST(ResourceMedians, ARunShowsTheMediansOfWhatItsRunsKnow) {
  std::vector<Sample> samples;
  for (int i = 0; i < 3; ++i) {
    Sample s;
    s.arm = 0;
    s.value = 10;
    s.wall_ms = 10 + i;
    s.user_ms = 8;
    s.system_ms = 1;
    s.max_rss_kb = 0;  // unknown in every run
    s.minor_faults = 100 + i;
    s.major_faults = 0;  // known: none
    s.voluntary_switches = 2;
    s.involuntary_switches = 3;
    samples.push_back(s);
  }
  samples[0].warmup = true;  // not counted: wall 11 and 12, minor faults 101 and 102
  EXPECT_EQ(FormatResourceMedians(samples, 0),
            "wall 11.5 ms, cpu 9 ms, max_rss unavailable, minor_faults 101.5, major_faults 0, "
            "ctx_switches 5");
  EXPECT_EQ(FormatResourceMedians(samples, 1), "");
  // An in-process sample knows its wall share and nothing else.
  Sample harness;
  harness.wall_ms = 4;
  EXPECT_EQ(FormatResourceMedians(std::vector<Sample>{harness}, 0),
            "wall 4 ms, cpu unavailable, max_rss unavailable, minor_faults unavailable, "
            "major_faults unavailable, ctx_switches unavailable");
}

}  // namespace
}  // namespace culprit
