#include "records/record.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/records/record_fixture.h"

namespace culprit {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(RecordJson, RoundTripKeepsEveryField) {
  Record original = FullRecord();
  std::string json = RecordToJson(original);
  auto parsed = RecordFromJson(json, "full.json");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(*parsed, original);
  // Spot checks that would catch a field silently defaulted on both sides.
  EXPECT_EQ(parsed->samples.size(), 7u);
  EXPECT_FALSE(parsed->samples[5].ok);
  EXPECT_EQ(parsed->samples[5].failure, "timed out after 60s");
  EXPECT_TRUE(parsed->samples[6].dropped);
  EXPECT_TRUE(parsed->samples[0].warmup);
  EXPECT_EQ(parsed->samples[3].max_rss_kb, 40963);
  EXPECT_EQ(parsed->arms[1].env.at("PARALLEL"), "1");
  EXPECT_EQ(parsed->start.calibration_ms, 101.5);
  EXPECT_EQ(parsed->end.governor, "powersave");
  EXPECT_EQ(parsed->host.machine_id, "m-0123456789abcdef");
  EXPECT_EQ(parsed->end.load15, 0.8);
  EXPECT_EQ(parsed->end.memory_available_kb, 19 * 1024 * 1024 + 512);
  EXPECT_EQ(parsed->end.swap_used_kb, 4096);
  EXPECT_TRUE(parsed->interrupted);
  EXPECT_EQ(parsed->estimate->method, "paired Hodges-Lehmann");
  EXPECT_EQ(parsed->details_json, original.details_json);
  // Writing again gives the same bytes: the key order is stable.
  EXPECT_EQ(RecordToJson(*parsed), json);
}

TEST(RecordJson, AbsentFactsStayAbsent) {
  Record r;
  r.id = "x";
  r.kind = RecordKind::kRun;
  r.time = "2026-11-30T10:15:00Z";
  auto parsed = RecordFromJson(RecordToJson(r), "x.json");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_FALSE(parsed->estimate.has_value());
  EXPECT_FALSE(parsed->start.calibration_ms.has_value());
  EXPECT_FALSE(parsed->end.cpu_mhz.has_value());
  EXPECT_FALSE(parsed->end.load5.has_value());
  EXPECT_FALSE(parsed->start.memory_available_kb.has_value());
  EXPECT_EQ(*parsed, r);
}

TEST(RecordJson, DetailIsTheFactReadBackOrEmpty) {
  Record r;
  r.id = "x";
  r.kind = RecordKind::kBisect;
  r.time = "2026-11-30T10:15:00Z";
  r.details["culprit_commit"] = "0123456789abcdef";
  auto parsed = RecordFromJson(RecordToJson(r), "x.json");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->Detail("culprit_commit"), "0123456789abcdef");
  EXPECT_EQ(parsed->Detail("first_commit"), "");
  EXPECT_EQ(parsed->details.count("first_commit"), 0u);  // asking adds nothing
}

TEST(RecordJson, FileIsValidJsonWithSchemaFirstAndOneSamplePerLine) {
  std::string json = RecordToJson(FullRecord());
  auto doc = nlohmann::ordered_json::parse(json);
  EXPECT_EQ(doc.begin().key(), "schema");
  EXPECT_EQ(doc["schema"], "culprit.record/v1");
  // The payload is embedded as JSON, not as an escaped string.
  EXPECT_TRUE(doc["payload"].is_object());
  // A failed sample has no value.
  EXPECT_TRUE(doc["samples"][5]["value"].is_null());
  EXPECT_TRUE(Contains(json, "\n    {\"sequence\": 1, \"arm\": 0, \"pair\": 0,"));
}

TEST(RecordJson, NonFiniteValueIsWrittenAsAFailure) {
  Record r = FullRecord();
  r.samples[1].value = std::numeric_limits<double>::quiet_NaN();
  auto parsed = RecordFromJson(RecordToJson(r), "nan.json");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_FALSE(parsed->samples[1].ok);
  EXPECT_TRUE(Contains(parsed->samples[1].failure, "not a finite number"));
}

TEST(RecordJson, InvalidUtf8IsReplacedNotFatal) {
  Record r = FullRecord();
  r.samples[5].failure = "engine said \xff\xfe";
  auto parsed = RecordFromJson(RecordToJson(r), "utf8.json");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_TRUE(Contains(parsed->samples[5].failure, "engine said"));
}

TEST(RecordJson, RefusesUnknownSchema) {
  std::string json = RecordToJson(FullRecord());
  size_t at = json.find("culprit.record/v1");
  json.replace(at, 17, "culprit.record/v7");
  auto parsed = RecordFromJson(json, "dir/future.json");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message(),
            "dir/future.json: schema 'culprit.record/v7' is not supported by this culprit (reads "
            "culprit.record/v1); upgrade culprit");
}

TEST(RecordJson, RefusesMissingSchema) {
  auto parsed = RecordFromJson(R"({"id": "x", "kind": "run"})", "other.json");
  ASSERT_FALSE(parsed);
  EXPECT_TRUE(Contains(parsed.error().message(), "other.json: damaged record: no 'schema'"));
}

TEST(RecordJson, RefusesDamagedJson) {
  std::string json = RecordToJson(FullRecord());
  auto parsed = RecordFromJson(json.substr(0, json.size() / 2), "half.json");
  ASSERT_FALSE(parsed);
  EXPECT_TRUE(Contains(parsed.error().message(), "half.json: damaged record: "))
      << parsed.error().message();
  EXPECT_TRUE(Contains(parsed.error().message(), "parse error")) << parsed.error().message();
  EXPECT_FALSE(parsed.error().hint().empty());
}

// A record whose payload is nested 100k deep (damaged, or from someone else's archive)
// crashed `records list/report/export` for the whole archive: dumping it recursed past
// the stack. It is a damaged record, refused before anything recursive sees it.
TEST(RecordJson, RefusesAPayloadNestedTooDeepAsDamaged) {
  nlohmann::ordered_json record = nlohmann::ordered_json::parse(RecordToJson(FullRecord()));
  ASSERT_TRUE(record.contains("payload"));
  record["payload"] = "NESTED";
  const std::string json = record.dump(1);
  auto with_payload = [&](size_t depth) {
    std::string text = json;
    text.replace(text.find("\"NESTED\""), 8, std::string(depth, '[') + std::string(depth, ']'));
    return text;
  };
  auto parsed = RecordFromJson(with_payload(100000), "deep.json");
  ASSERT_FALSE(parsed);
  EXPECT_TRUE(Contains(parsed.error().message(),
                       "deep.json: damaged record: JSON nested more than 512 levels deep"))
      << parsed.error().message();
  // Nesting within the limit is a payload like any other.
  auto read = RecordFromJson(with_payload(400), "fine.json");
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->details_json, std::string(400, '[') + std::string(400, ']'));
}

TEST(RecordJson, RefusesWrongFieldTypesNamingTheField) {
  std::string json = RecordToJson(FullRecord());
  size_t at = json.find("\"max_rss_kb\": 40961");
  ASSERT_NE(at, std::string::npos);
  json.replace(at, 19, "\"max_rss_kb\": \"big\"");
  auto parsed = RecordFromJson(json, "typed.json");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message(),
            "typed.json: damaged record: field 'samples[1].max_rss_kb' should be an integer");
}

TEST(RecordJson, RefusesSampleOfMissingArm) {
  Record r = FullRecord();
  r.samples[2].arm = 2;
  auto parsed = RecordFromJson(RecordToJson(r), "arm.json");
  ASSERT_FALSE(parsed);
  EXPECT_TRUE(
      Contains(parsed.error().message(), "samples[2] refers to arm 2, but the record has 2 arms"))
      << parsed.error().message();
}

TEST(RecordJson, RequiresIdKindAndTime) {
  Record r = FullRecord();
  std::string text = RecordToJson(r);
  const std::string kind = "\"kind\": \"probe\"";
  ASSERT_NE(text.find(kind), std::string::npos) << text;
  std::string no_kind = text;
  no_kind.replace(no_kind.find(kind), kind.size(), "\"kind\": \"\"");
  auto parsed = RecordFromJson(no_kind, "nokind.json");
  ASSERT_FALSE(parsed);
  EXPECT_TRUE(Contains(parsed.error().message(), "field 'kind' is missing"));
}

TEST(RecordJson, RefusesAKindOrVerdictCulpritNeverWrites) {
  const std::string text = RecordToJson(FullRecord());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    EXPECT_NE(changed.find(from), std::string::npos) << from;
    if (changed.find(from) != std::string::npos)
      changed.replace(changed.find(from), from.size(), to);
    return RecordFromJson(changed, "odd.json");
  };
  auto kind = with("\"kind\": \"probe\"", "\"kind\": \"benchmark\"");
  ASSERT_FALSE(kind);
  EXPECT_TRUE(Contains(kind.error().message(),
                       "odd.json: damaged record: field 'kind' should be one of probe"))
      << kind.error().message();
  auto verdict = with("\"verdict\": \"NULL\"", "\"verdict\": \"null\"");
  ASSERT_FALSE(verdict);
  EXPECT_TRUE(Contains(verdict.error().message(), "field 'verdict' should be one of EFFECT"))
      << verdict.error().message();
  auto none = with("\"verdict\": \"NULL\"", "\"verdict\": \"\"");
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_EQ(none->verdict, std::nullopt);
}

TEST(HostJson, SaysWhatCulpritHostMeasuredInTheRecordsEncoding) {
  HostIdentity host{"bench-1", "AMD EPYC 7B13", "6.1.0-13-amd64", 8, 32ULL * 1024 * 1024, ""};
  HostState state;
  state.load1 = 0.5;
  state.governor = "performance";
  const nlohmann::json j = nlohmann::json::parse(HostToJson(host, state, {"load is high"}));
  EXPECT_EQ(j["schema"], "culprit.host/v1");
  EXPECT_EQ(j["host"]["hostname"], "bench-1");
  EXPECT_EQ(j["host"]["logical_cores"], 8);
  EXPECT_EQ(j["host"]["memory_total_kb"], 32ULL * 1024 * 1024);
  EXPECT_EQ(j["state"]["load1"], 0.5);
  EXPECT_TRUE(j["state"]["cpu_mhz"].is_null());  // unavailable stays unavailable
  EXPECT_EQ(j["warnings"], nlohmann::json::array({"load is high"}));
  EXPECT_FALSE(j.contains("kind"));  // not a record: nothing reads it as one
}

TEST(RecordJson, ARecordWrittenBeforeTheHostsMemoryWasKeptReadsWithoutIt) {
  Record r = FullRecord();
  r.host.memory_total_kb.reset();
  nlohmann::json j = nlohmann::json::parse(RecordToJson(r));
  j["host"].erase("memory_total_kb");
  auto back = RecordFromJson(j.dump(), "old.json");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->host, r.host);
  EXPECT_FALSE(back->host.memory_total_kb);
}

}  // namespace
}  // namespace culprit
