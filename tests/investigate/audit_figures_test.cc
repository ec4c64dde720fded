// The audit's figures from scripted sittings and records: the factor a record
// gives, the samples a sitting kept, today's figure and the decomposition.
// No sitting, no store.

#include "investigate/audit_figures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace culprit {
namespace {

Sample Kept(int arm, double value) {
  Sample s;
  s.arm = arm;
  s.value = value;
  s.pair = 0;
  return s;
}

TEST(AuditFiguresTest, AFactorFromARecordOrWhyItHasNone) {
  Record record;
  record.id = "r1";
  record.verdict = Verdict::kEffect;
  Estimate e;
  e.ratio = 1.2;
  e.low = 1.1;
  e.high = 1.3;
  record.estimate = e;
  AuditFactor f = FactorFromRecord("code", record);
  EXPECT_TRUE(f.measured);
  EXPECT_EQ(f.factor.name, "code");
  EXPECT_EQ(f.record_id, "r1");
  EXPECT_EQ(f.verdict, Verdict::kEffect);
  EXPECT_NEAR(std::exp(f.factor.log_ratio), 1.2, 1e-12);
  EXPECT_NEAR(std::exp(f.factor.low), 1.1, 1e-12);

  record.interrupted = true;
  f = FactorFromRecord("code", record);
  EXPECT_FALSE(f.measured);
  EXPECT_EQ(f.note, "interrupted");
  record.interrupted = false;
  record.estimate.reset();
  record.verdict_detail = "every run failed";
  EXPECT_EQ(FactorFromRecord("code", record).note, "no estimate: every run failed");

  f = UnmeasuredFactor("order", "the registry has no command");
  EXPECT_FALSE(f.measured);
  EXPECT_EQ(f.verdict, Verdict::kError);
  EXPECT_EQ(f.note, "the registry has no command");
}

TEST(AuditFiguresTest, KeptSamplesAreTheOnesTheStatisticsUsed) {
  SittingResult sitting;
  sitting.samples = {Kept(0, 10), Kept(1, 20), Kept(0, 11), Kept(0, 12), Kept(0, 13), Kept(0, 0)};
  sitting.samples[2].warmup = true;
  sitting.samples[3].ok = false;
  sitting.samples[4].dropped = true;
  EXPECT_EQ(KeptSamples(sitting, 0), std::vector<double>{10});
  EXPECT_EQ(KeptSamples(sitting, 1), std::vector<double>{20});
}

TEST(AuditFiguresTest, TodayIsTheMedianInRegistryOrderAgainstThePublishedValue) {
  PublishedNumber published;
  published.value = 10;
  SittingOptions options;
  options.band = 0.05;
  options.confidence = 0.95;
  AuditFigures f;
  f.band = 0.05;
  const std::vector<double> in_order = {19.8, 20.0, 20.2, 19.9, 20.1, 20.0, 19.7, 20.3, 20.0, 20.1};
  SetTodayTotal(published, in_order, options, f);
  EXPECT_DOUBLE_EQ(f.today, 20.0);
  EXPECT_EQ(f.today_samples, 10);
  EXPECT_TRUE(f.total.measured);
  EXPECT_TRUE(f.total.cross_sitting);
  EXPECT_EQ(f.total.verdict, Verdict::kEffect);
  EXPECT_NEAR(std::exp(f.total.factor.log_ratio), 2.0, 0.02);

  // Every factor measured: the move decomposes, and its remainder is what they leave.
  AuditFactor drift = UnmeasuredFactor("host drift", "");
  drift.measured = true;
  drift.factor = {"host drift", std::log(2.0), std::log(1.98), std::log(2.02)};
  f.factors = {drift};
  DecomposeMove(f);
  ASSERT_TRUE(f.decomposition);
  EXPECT_NEAR(std::exp(f.decomposition->remainder.log_ratio), 1.0, 0.02);

  // A factor not measured: nothing to decompose.
  AuditFigures g = f;
  g.decomposition.reset();
  g.factors[0].measured = false;
  DecomposeMove(g);
  EXPECT_FALSE(g.decomposition);

  // No figure of today: the total is not measured either.
  AuditFigures none;
  DecomposeMove(none);
  EXPECT_FALSE(none.total.measured);
  EXPECT_EQ(none.total.note, "no samples of today in registry order");
  EXPECT_FALSE(none.decomposition);
}

}  // namespace
}  // namespace culprit
