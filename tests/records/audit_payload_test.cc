#include "records/audit_payload.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "records/report_payload.h"

namespace culprit {
namespace {

// A payload in the shape `culprit audit` wrote before AuditPayload existed (nlohmann's dump of
// investigate/audit_report.cc's object at 1a7f6ce: no "version"; a factor that was not
// measured has no interval and an empty verdict): archived records must keep reading.
constexpr const char* kWrittenBeforeTheStruct =
    R"({"conclusion":"the order explains the move","factors":[{"cross_sitting":true,"high":)"
    R"(0.744,"low":0.716,"name":"host drift","ratio":0.728,"record":"2026-12-02T1-compare-a",)"
    R"("verdict":"EFFECT"},{"cross_sitting":false,"high":1.039,"low":0.991,"name":"code",)"
    R"("ratio":1.015,"record":"2026-12-02T2-compare-b","verdict":"NULL"},{"cross_sitting":)"
    R"(false,"name":"order","note":"not measured: the code sitting did not finish","verdict":)"
    R"(""}],"published":18.4042,"remainder":{"high":1.387,"low":0.686,"ratio":1.013},)"
    R"("today":17.58})";

Record AuditRecord(std::string details_json) {
  Record r;
  r.kind = RecordKind::kAudit;
  r.details_json = std::move(details_json);
  return r;
}

TEST(AuditPayload, ReadsARecordWrittenBeforeTheStruct) {
  std::optional<AuditPayload> p = ReadAuditPayload(AuditRecord(kWrittenBeforeTheStruct));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->version, 1);
  EXPECT_EQ(p->published, 18.4042);
  EXPECT_EQ(p->today, 17.58);
  ASSERT_EQ(p->factors.size(), 3u);
  EXPECT_EQ(p->factors[0].name, "host drift");
  EXPECT_TRUE(p->factors[0].cross_sitting);
  EXPECT_EQ(p->factors[0].verdict, Verdict::kEffect);
  EXPECT_EQ(p->factors[0].ratio, 0.728);
  EXPECT_EQ(p->factors[0].record, "2026-12-02T1-compare-a");
  EXPECT_EQ(p->factors[1].verdict, Verdict::kNull);
  EXPECT_FALSE(p->factors[2].verdict);  // "" : not measured
  EXPECT_FALSE(p->factors[2].ratio);
  EXPECT_EQ(p->factors[2].note, "not measured: the code sitting did not finish");
  EXPECT_EQ(p->remainder_low, 0.686);
  EXPECT_EQ(p->conclusion, "the order explains the move");
}

TEST(AuditPayload, RoundTripsAndKeepsTheArchivedKeys) {
  const AuditPayload p = *ReadAuditPayload(AuditRecord(kWrittenBeforeTheStruct));
  const std::string written = AuditPayloadToJson(p);
  std::optional<AuditPayload> back = ReadAuditPayload(AuditRecord(written));
  ASSERT_TRUE(back);
  EXPECT_EQ(AuditPayloadToJson(*back), written);
  // The same document as before, plus its version: a reader of either file reads both.
  nlohmann::json now = nlohmann::json::parse(written);
  EXPECT_EQ(now["version"], kAuditPayloadVersion);
  now.erase("version");
  EXPECT_EQ(now, nlohmann::json::parse(kWrittenBeforeTheStruct));
}

TEST(AuditPayload, RefusesWhatItCannotRead) {
  EXPECT_FALSE(ReadAuditPayload(AuditRecord("")));
  EXPECT_FALSE(ReadAuditPayload(AuditRecord("[1,2]")));
  EXPECT_FALSE(ReadAuditPayload(AuditRecord(R"({"version":7,"factors":[]})")));
  // {"published": {"value": V}} is read as V; a ratio that is not a positive number is absent.
  std::optional<AuditPayload> p = ReadAuditPayload(AuditRecord(
      R"({"published":{"value":12.5},"factors":[{"name":"code","ratio":0,"low":1,"high":2,)"
      R"("verdict":"effect"}]})"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->published, 12.5);
  EXPECT_FALSE(p->factors[0].ratio);
  EXPECT_EQ(p->factors[0].verdict, Verdict::kEffect);  // ParseVerdict is case-insensitive
}

TEST(AuditFacts, ComeFromThePayload) {
  AuditFacts facts = ReadAuditFacts(AuditRecord(kWrittenBeforeTheStruct));
  ASSERT_EQ(facts.factors.size(), 3u);
  ASSERT_TRUE(facts.factors[1].estimate);
  EXPECT_EQ(facts.factors[1].estimate->high, 1.039);
  EXPECT_EQ(facts.factors[1].verdict, Verdict::kNull);
  EXPECT_FALSE(facts.factors[2].estimate);
  ASSERT_TRUE(facts.remainder);
  EXPECT_EQ(facts.remainder->ratio, 1.013);
  EXPECT_TRUE(ReadAuditFacts(AuditRecord("")).factors.empty());
}

}  // namespace
}  // namespace culprit
