// The audit's records and summary from hand-built outcomes: the drift record,
// the audit record, the calibration note and what `culprit audit` prints.
// No sitting, no store.

#include "investigate/audit_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace culprit {
namespace {

using Json = nlohmann::json;

AuditFactor Made(const std::string& name, double ratio, double low, double high, Verdict verdict,
                 bool cross = false) {
  AuditFactor f;
  f.factor = {name, std::log(ratio), std::log(low), std::log(high)};
  f.verdict = verdict;
  f.cross_sitting = cross;
  return f;
}

PublishedNumber Published() {
  PublishedNumber p;
  p.query = "scan";
  p.value = 10;
  p.unit = "ms";
  p.revision = "v1.0";
  p.commit = "c1";
  p.source = "table.json rows[0]";
  return p;
}

// The code sitting's record: arm 0 the published commit now, arm 1 today.
Record CodeRecord() {
  Record code;
  code.id = "code-1";
  code.query = "scan";
  code.unit = "ms";
  code.config_digest = "digest";
  code.start.time = "2026-01-01T00:00:00Z";
  Arm a;
  a.name = "A";
  a.commit = "c1";
  Arm b;
  b.name = "B";
  code.arms = {a, b};
  for (int i = 0; i < 4; ++i) {
    Sample s;
    s.sequence = i;
    s.arm = i % 2;
    s.pair = i / 2;
    s.value = 10 + i;
    code.samples.push_back(s);
  }
  return code;
}

TEST(AuditReportTest, TheDriftRecordIsThePublishedFigureAgainstItsCommitNow) {
  PublishedNumber published = Published();
  published.samples = {9.5, 10.5};
  published.calibration_ms = 25;
  ShiftEstimate shift;
  shift.estimate = std::log(1.1);
  shift.low = std::log(1.05);
  shift.high = std::log(1.15);
  AuditFactor drift = Made("host drift", 1.1, 1.05, 1.15, Verdict::kEffect, true);
  drift.note = "an effect";
  Record r = MakeDriftRecord(published, CodeRecord(), shift, drift, 0.05);
  EXPECT_EQ(r.kind, RecordKind::kCompare);
  EXPECT_EQ(r.links, std::vector<std::string>{"code-1"});
  EXPECT_EQ(r.details.at("cross_sitting"), "true");
  EXPECT_EQ(r.details.at("published_calibration_ms"), "25");
  ASSERT_EQ(r.arms.size(), 2u);
  EXPECT_EQ(r.arms[0].name, "published");
  EXPECT_EQ(r.arms[0].ok_samples, 2);
  EXPECT_EQ(r.arms[1].name, "now");
  EXPECT_EQ(r.arms[1].commit, "c1");
  // The published samples (arm 0), then the code sitting's arm A as arm 1, unpaired.
  ASSERT_EQ(r.samples.size(), 4u);
  EXPECT_EQ(r.samples[2].arm, 1);
  EXPECT_EQ(r.samples[2].value, 10);
  EXPECT_EQ(r.samples[3].value, 12);
  EXPECT_EQ(r.samples[3].pair, -1);
  EXPECT_EQ(r.samples[3].sequence, 3);
  EXPECT_EQ(r.verdict, Verdict::kEffect);
  EXPECT_EQ(r.verdict_detail, "cross-sitting: an effect");
  ASSERT_TRUE(r.estimate);
  EXPECT_EQ(r.estimate->method, "two-sample Hodges-Lehmann (Mann-Whitney)");

  AuditFactor none = UnmeasuredFactor("host drift", "no samples of the published commit");
  r = MakeDriftRecord(Published(), CodeRecord(), std::nullopt, none, 0.05);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_EQ(r.verdict_detail, "no samples of the published commit");
  EXPECT_FALSE(r.estimate);
}

AuditOutcome Outcome() {
  AuditOutcome o;
  o.published = Published();
  AuditFigures& f = o.figures;
  f.query = "scan";
  f.unit = "ms";
  f.published = 10;
  f.published_revision = "v1.0";
  f.today = 20;
  f.today_revision = "v1.3";
  f.today_samples = 12;
  f.predecessors = {"load", "index"};
  f.total = Made("today / published", 2.0, 1.9, 2.1, Verdict::kEffect, true);
  f.factors = {Made("host drift", 1.0, 0.99, 1.01, Verdict::kNull, true),
               Made("code", 2.0, 1.9, 2.1, Verdict::kEffect)};
  f.factors[0].record_id = "drift-1";
  f.factors[1].record_id = "code-1";
  o.conclusion = "the conclusion";
  o.notes = {"a note"};
  o.order_way = OrderWay::kHarness;
  o.calibration_now_ms = 24;
  return o;
}

TEST(AuditReportTest, TheAuditRecordLinksTheFactorsAndKeepsTheFigures) {
  const Record code = CodeRecord();
  Record order;
  order.end.time = "2026-01-01T01:00:00Z";
  Record r = MakeAuditRecord(Outcome(), &code, &order, {"culprit", "audit"}, "digest", 0.99);
  EXPECT_EQ(r.kind, RecordKind::kAudit);
  EXPECT_EQ(r.query, "scan");
  EXPECT_EQ(r.config_digest, "digest");
  EXPECT_EQ(r.invocation, (std::vector<std::string>{"culprit", "audit"}));
  EXPECT_EQ(r.hypothesis, "published 10 ms at v1.0 → today at v1.3: host drift × code × order");
  EXPECT_EQ(r.start.time, code.start.time);
  EXPECT_EQ(r.end.time, order.end.time);
  EXPECT_EQ(r.links, (std::vector<std::string>{"drift-1", "code-1"}));
  ASSERT_TRUE(r.estimate);
  EXPECT_NEAR(r.estimate->ratio, 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(r.estimate->confidence, 0.99);
  EXPECT_EQ(r.estimate->pairs, 12);
  EXPECT_EQ(r.verdict, Verdict::kEffect);
  EXPECT_EQ(r.verdict_detail, "the conclusion");
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(r.notes, std::vector<std::string>{"a note"});
  EXPECT_EQ(r.details.at("order_way"), "harness");
  EXPECT_EQ(r.details.at("registry_before"), "load,index");
  EXPECT_EQ(r.details.at("calibration_now_ms"), "24");
  EXPECT_EQ(r.details.count("published_calibration_ms"), 0u);
  Json doc = Json::parse(r.details_json);
  EXPECT_EQ(doc["published"], 10);
  EXPECT_EQ(doc["today"], 20);
  ASSERT_EQ(doc["factors"].size(), 2u);
  EXPECT_EQ(doc["factors"][0]["verdict"], "NULL");
  EXPECT_TRUE(doc["factors"][0]["cross_sitting"].get<bool>());
  EXPECT_EQ(doc["factors"][1]["record"], "code-1");
  EXPECT_FALSE(doc.contains("remainder"));

  // A sitting that was interrupted: the record is an interrupted ERROR saying so.
  AuditOutcome broken = Outcome();
  broken.failure = Error::Interrupted("interrupted");
  r = MakeAuditRecord(broken, &code, nullptr, {}, "digest", 0.99);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_EQ(r.verdict_detail, "interrupted");
  EXPECT_TRUE(r.interrupted);
  EXPECT_TRUE(r.end.time.empty());
}

TEST(AuditReportTest, CalibrationNoteSplitsTheDrift) {
  AuditFactor drift = Made("host drift", 1.2, 1.1, 1.3, Verdict::kEffect, true);
  EXPECT_EQ(CalibrationNote(24, 20, drift),
            "calibration now 24.0 ms against 20.0 ms published: the CPU-bound loop is ×1.200, "
            "the drift that CPU speed explains; the rest of the drift is ×1.000 (memory, caches, "
            "load: what the loop does not exercise)");
  drift.measured = false;
  EXPECT_EQ(CalibrationNote(24, 20, drift),
            "calibration now 24.0 ms against 20.0 ms published: the CPU-bound loop is ×1.200, "
            "the drift that CPU speed explains");
}

TEST(AuditReportTest, TheSummaryAsCulpritAuditPrintsIt) {
  AuditOutcome o = Outcome();
  o.record_path = "/records/audit.json";
  o.factor_record_paths = {{"code", "/records/code.json"}};
  const std::string text = FormatAuditSummary(o);
  EXPECT_EQ(text.rfind("audit scan: published 10 ms at v1.0 (table.json rows[0]) → today at "
                       "v1.3\n\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find(FormatWaterfall(o.figures)), std::string::npos) << text;
  EXPECT_NE(text.find("order was measured through the harness (run each query before it once, "
                      "then the measured query).\nnote: a note\n\nthe conclusion\n\n"
                      "code record /records/code.json\naudit record /records/audit.json\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace culprit
