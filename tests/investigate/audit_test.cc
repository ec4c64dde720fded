// The audit's arithmetic and text, without measuring: cross-sitting factors
// with known answers, the decomposition into factors, the waterfall and the
// conclusion sentence.

#include "investigate/audit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace culprit {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

AuditFactor Made(const std::string& name, double ratio, double low, double high,
                 const std::string& verdict, bool cross = false) {
  AuditFactor f;
  f.factor = {name, std::log(ratio), std::log(low), std::log(high)};
  f.verdict = ParseVerdict(verdict);
  f.cross_sitting = cross;
  return f;
}

// The story of the issue: 59.0 ms published, 84.0 today; drift and order
// about 18% each, code a tie.
AuditFigures Story() {
  AuditFigures f;
  f.query = "series.count";
  f.unit = "ms";
  f.published = 59.0;
  f.published_revision = "v1.0";
  f.today = 84.0;
  f.today_revision = "v1.3";
  f.band = 0.05;
  f.predecessors = {"path.traverse"};
  f.total = Made("today / published", 84.0 / 59.0, 84.0 / 59.0 / 1.04, 84.0 / 59.0 * 1.04, "EFFECT",
                 true);
  f.factors = {Made("host drift", 1.18, 1.16, 1.20, "EFFECT", true),
               Made("code", 1.0, 0.99, 1.01, "NULL"), Made("order", 1.19, 1.17, 1.21, "EFFECT")};
  std::vector<Factor> parts;
  for (const AuditFactor& x : f.factors) parts.push_back(x.factor);
  f.decomposition = Decompose(f.total.factor, parts, f.band);
  return f;
}

TEST(CrossSittingShift, AgainstAPublishedValue) {
  // ln(now / 100) = 0.1 + k/100, k = -5..5: a symmetric set whose pseudo-median is 0.1.
  std::vector<double> now;
  for (int k = -5; k <= 5; ++k) now.push_back(100 * std::exp(0.1 + k / 100.0));
  PublishedNumber published;
  published.value = 100;
  auto shift = CrossSittingShift(published, now, 0.95);
  ASSERT_TRUE(shift) << shift.error().message();
  EXPECT_NEAR(shift->estimate, 0.1, 1e-12);
  EXPECT_NEAR(shift->low - 0.1, 0.1 - shift->high, 1e-12);  // symmetric
  EXPECT_LT(shift->low, 0.1);
  EXPECT_GT(shift->low, 0.05);
  EXPECT_EQ(shift->n, 11u);
}

TEST(CrossSittingShift, AgainstPublishedSamples) {
  PublishedNumber published;
  published.value = 50;
  std::vector<double> now;
  for (int k = 0; k < 10; ++k) {
    published.samples.push_back(50 * std::exp(k / 1000.0));
    now.push_back(50 * 1.25 * std::exp(k / 1000.0));  // every sample exactly ×1.25
  }
  auto shift = CrossSittingShift(published, now, 0.95);
  ASSERT_TRUE(shift) << shift.error().message();
  EXPECT_NEAR(shift->estimate, std::log(1.25), 1e-12);
  EXPECT_EQ(shift->n, 20u);
  EXPECT_EQ(MakeAuditFactor("host drift", *shift, 0.05).verdict, Verdict::kEffect);
}

TEST(CrossSittingShift, TooFewSamplesIsAnError) {
  PublishedNumber published;
  published.value = 10;
  std::vector<double> now = {11, 12};
  EXPECT_FALSE(CrossSittingShift(published, now, 0.95));
}

TEST(MakeAuditFactor, JudgesAgainstTheBand) {
  ShiftEstimate tie{0.01, -0.02, 0.03, 0.95, 20, true};
  EXPECT_EQ(MakeAuditFactor("code", tie, 0.05).verdict, Verdict::kNull);
  ShiftEstimate wide{0.05, -0.02, 0.12, 0.95, 20, true};
  EXPECT_EQ(MakeAuditFactor("code", wide, 0.05).verdict, Verdict::kInconclusive);
  ShiftEstimate big{0.17, 0.15, 0.19, 0.95, 20, true};
  AuditFactor f = MakeAuditFactor("order", big, 0.05);
  EXPECT_EQ(f.verdict, Verdict::kEffect);
  EXPECT_EQ(f.factor.name, "order");
  EXPECT_DOUBLE_EQ(f.factor.low, 0.15);
}

TEST(AuditDecomposition, KnownAnswer) {
  AuditFigures f = Story();
  const Decomposition& d = *f.decomposition;
  // 84/59 = 1.42373; / (1.18 × 1.0 × 1.19) = 1.01392.
  EXPECT_NEAR(std::exp(d.remainder.log_ratio), 84.0 / 59.0 / (1.18 * 1.19), 1e-12);
  // Interval arithmetic: total.low - sum of highs .. total.high - sum of lows.
  EXPECT_NEAR(std::exp(d.remainder.low), 84.0 / 59.0 / 1.04 / (1.20 * 1.01 * 1.21), 1e-12);
  EXPECT_NEAR(std::exp(d.remainder.high), 84.0 / 59.0 * 1.04 / (1.16 * 0.99 * 1.17), 1e-12);
  EXPECT_EQ(d.remainder_class, RemainderClass::kUndecided);  // [0.96, 1.11] crosses ±5%
}

TEST(AuditWaterfall, RunningValuesAndVerdicts) {
  std::string text = FormatWaterfall(Story());
  EXPECT_TRUE(Has(text, "published           59.00 ms   (v1.0)")) << text;
  EXPECT_TRUE(Has(text,
                  "× host drift        69.62 ms   ×1.180 [1.160, 1.200] +18.0%  EFFECT  "
                  "(cross-sitting)"))
      << text;
  EXPECT_TRUE(Has(text, "× code              69.62 ms   ×1.000 [0.990, 1.010] +0.0%  NULL (tie)"))
      << text;
  EXPECT_TRUE(Has(text, "× order             82.85 ms   ×1.190 [1.170, 1.210] +19.0%  EFFECT"))
      << text;
  EXPECT_TRUE(Has(text, "× unexplained       84.00 ms   ×1.014")) << text;
  EXPECT_TRUE(Has(text, "undecided: the intervals are too wide")) << text;
  EXPECT_TRUE(Has(text, "= today             84.00 ms   (v1.3 in registry order")) << text;
}

TEST(AuditWaterfall, AFactorNotMeasured) {
  AuditFigures f = Story();
  f.factors[2].measured = false;
  f.factors[2].note = "the sitting was interrupted";
  f.decomposition.reset();
  std::string text = FormatWaterfall(f);
  EXPECT_TRUE(Has(text, "× order                 ?      not measured: the sitting was interrupted"))
      << text;
  EXPECT_TRUE(Has(text, "not computed: a factor was not measured")) << text;
}

TEST(AuditConclusion, NamesEffectsTiesAndTheNextSteps) {
  std::string text = AuditConclusion(Story());
  EXPECT_TRUE(Has(text, "series.count: published 59 → today 84 ms (×1.424).")) << text;
  EXPECT_TRUE(Has(text, "real (EFFECT): host drift ×1.180 (cross-sitting), order ×1.190")) << text;
  EXPECT_TRUE(Has(text, "ties (inside the band): code ×1.000")) << text;
  EXPECT_TRUE(Has(text, "is undecided")) << text;
  EXPECT_TRUE(Has(text, "before series.count in the registry: path.traverse")) << text;
  EXPECT_TRUE(Has(text, "culprit isolate --rev v1.3")) << text;
  EXPECT_FALSE(Has(text, "culprit investigate")) << text;  // code is a tie
}

TEST(AuditConclusion, CodeEffectOffersTheBisect) {
  AuditFigures f = Story();
  f.factors[1] = Made("code", 1.3, 1.25, 1.35, "EFFECT");
  f.factors[2] = Made("order", 1.0, 0.99, 1.01, "NULL");
  f.factors[0] = Made("host drift", 1.09, 1.0, 1.2, "INCONCLUSIVE", true);
  std::vector<Factor> parts;
  for (const AuditFactor& x : f.factors) parts.push_back(x.factor);
  f.decomposition = Decompose(f.total.factor, parts, f.band);
  std::string text = AuditConclusion(f);
  EXPECT_TRUE(Has(text, "real (EFFECT): code ×1.300")) << text;
  EXPECT_TRUE(Has(text, "undecided (INCONCLUSIVE): host drift ×1.090 (cross-sitting)")) << text;
  EXPECT_TRUE(Has(text, "culprit investigate --good v1.0 --bad v1.3 --query series.count")) << text;
  EXPECT_TRUE(Has(text, "culprit bisect run --good v1.0 --bad v1.3")) << text;
  EXPECT_FALSE(Has(text, "culprit isolate")) << text;
}

// The order sitting failed: no sample of today in registry order, so no today's figure.
TEST(AuditConclusion, TodayNotMeasuredIsSaidNotPrintedAsZero) {
  AuditFigures f = Story();
  f.today = 0;
  f.total.measured = false;
  f.factors[2].measured = false;
  f.decomposition.reset();
  std::string text = AuditConclusion(f);
  EXPECT_TRUE(Has(text, "series.count: published 59 ms → today not measured.")) << text;
  EXPECT_FALSE(Has(text, "today 0")) << text;
  EXPECT_TRUE(Has(text, "not measured: order")) << text;
}

TEST(AuditConclusion, FullyExplained) {
  AuditFigures f = Story();
  f.total = Made("today / published", 1.18 * 1.19, 1.18 * 1.19 / 1.01, 1.18 * 1.19 * 1.01, "EFFECT",
                 true);
  f.factors = {Made("host drift", 1.18, 1.175, 1.185, "EFFECT", true),
               Made("code", 1.0, 0.995, 1.005, "NULL"),
               Made("order", 1.19, 1.185, 1.195, "EFFECT")};
  std::vector<Factor> parts;
  for (const AuditFactor& x : f.factors) parts.push_back(x.factor);
  f.decomposition = Decompose(f.total.factor, parts, f.band);
  EXPECT_EQ(f.decomposition->remainder_class, RemainderClass::kTie);
  EXPECT_TRUE(Has(AuditConclusion(f), "inside the band: the factors fully explain the move"));
  EXPECT_TRUE(Has(FormatWaterfall(f), "inside the band: fully explained"));
}

// Today's host, as a probe would read it.
class FixedHost : public HostProbe {
 public:
  explicit FixedHost(HostIdentity identity) : identity_(std::move(identity)) {}
  HostIdentity Identity() const override { return identity_; }
  HostState Snapshot(bool) const override { return {}; }

 private:
  HostIdentity identity_;
};

HostIdentity Bench(const std::string& machine_id) {
  HostIdentity host;
  host.hostname = "bench-1";
  host.cpu_model = "AMD EPYC 7B13";
  host.machine_id = machine_id;
  return host;
}

bool SaysAnotherHost(const std::vector<std::string>& notes) {
  for (const std::string& note : notes) {
    if (Has(note, "comes from another host")) return true;
  }
  return false;
}

TEST(AuditProvenance, AnotherMachineOfTheSameNameIsAnotherHost) {
  PublishedNumber published;
  published.calibration_ms = 10.0;
  published.host = Bench("m-0000000000000001");
  std::vector<std::string> notes;
  FixedHost same(Bench("m-0000000000000001"));
  AddProvenanceNotes(published, &same, notes);
  EXPECT_FALSE(SaysAnotherHost(notes));

  FixedHost other(Bench("m-0000000000000002"));
  notes.clear();
  AddProvenanceNotes(published, &other, notes);
  EXPECT_TRUE(SaysAnotherHost(notes));

  // A record written before machine identities were kept: the name and CPU decide.
  published.host = Bench("");
  notes.clear();
  AddProvenanceNotes(published, &other, notes);
  EXPECT_FALSE(SaysAnotherHost(notes));
}

TEST(AuditFactorBursts, AFactorWhoseSittingHadBurstsSaysSoBesideTheFactors) {
  ComparisonOutcome code;
  std::vector<std::string> notes;
  AddFactorBurstsNote("code", code, notes);
  EXPECT_TRUE(notes.empty());  // no bursts, no note

  SlowRunBursts bursts;
  bursts.slow[0] = 58;
  bursts.slow[1] = 55;
  bursts.runs[0] = bursts.runs[1] = 160;
  bursts.factor = 1.59;
  code.bursts = bursts;
  AddFactorBurstsNote("code", code, notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_TRUE(
      notes[0].starts_with("the code factor's sitting: slow runs came in bursts: 113 of "
                           "320 runs"))
      << notes[0];
  EXPECT_TRUE(Has(notes[0], "rerun on a quiet host")) << notes[0];
}

}  // namespace
}  // namespace culprit
