// A sample's resource figures in the record's JSON: kept, and absent when unknown.

#include <gtest/gtest.h>

#include <string>

#include "records/record.h"
#include "tests/records/record_fixture.h"

namespace culprit {
namespace {

TEST(RecordResources, TheFaultsAndSwitchesOfEverySampleRoundTrip) {
  Record original = FullRecord();
  std::string json = RecordToJson(original);
  EXPECT_NE(json.find("\"minor_faults\": 2003, \"major_faults\": 1, \"voluntary_switches\": 33, "
                      "\"involuntary_switches\": 10"),
            std::string::npos)
      << json;
  Result<Record> parsed = RecordFromJson(json, "full.json");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->samples[3].minor_faults, 2003);
  EXPECT_EQ(parsed->samples[2].major_faults, 0);  // a count of 0 is known, not absent
  EXPECT_EQ(parsed->samples[3].voluntary_switches, 33);
  EXPECT_EQ(parsed->samples[3].involuntary_switches, 10);
  EXPECT_EQ(*parsed, original);
}

TEST(RecordResources, UnknownFiguresAreWrittenAsNullAndReadBackUnknown) {
  Record record = FullRecord();
  record.samples[1].minor_faults.reset();
  record.samples[1].major_faults.reset();
  record.samples[1].voluntary_switches.reset();
  record.samples[1].involuntary_switches.reset();
  std::string json = RecordToJson(record);
  EXPECT_NE(json.find("\"minor_faults\": null, \"major_faults\": null"), std::string::npos);
  Result<Record> parsed = RecordFromJson(json, "unknown.json");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_FALSE(parsed->samples[1].minor_faults.has_value());
  EXPECT_FALSE(parsed->samples[1].involuntary_switches.has_value());
  EXPECT_EQ(*parsed, record);
}

TEST(RecordResources, ARecordWrittenBeforeTheyWereKeptReadsWithThemUnknown) {
  // A sample line as culprit.record/v1 files have held it since the start.
  const std::string old = R"({
    "schema": "culprit.record/v1", "id": "old", "kind": "compare",
    "time": "2026-11-01T10:00:00Z",
    "arms": [{"name": "A"}, {"name": "B"}],
    "samples": [
      {"sequence": 0, "arm": 0, "pair": 0, "warmup": false, "ok": true, "value": 12.5,
       "failure": "", "dropped": false, "wall_ms": 12.5, "user_ms": 11.0, "system_ms": 1.0,
       "max_rss_kb": 40960}
    ]})";
  Result<Record> parsed = RecordFromJson(old, "old.json");
  ASSERT_TRUE(parsed) << parsed.error().message();
  ASSERT_EQ(parsed->samples.size(), 1u);
  const Sample& s = parsed->samples[0];
  EXPECT_EQ(s.max_rss_kb, 40960);
  EXPECT_FALSE(s.minor_faults.has_value());
  EXPECT_FALSE(s.major_faults.has_value());
  EXPECT_FALSE(s.voluntary_switches.has_value());
  EXPECT_FALSE(s.involuntary_switches.has_value());
  // Written again, it says unknown, not 0.
  EXPECT_NE(RecordToJson(*parsed).find("\"minor_faults\": null"), std::string::npos);
}

TEST(RecordResources, ANegativeCountIsADamagedRecord) {
  std::string json = RecordToJson(FullRecord());
  const std::string field = "\"minor_faults\": 2001";
  size_t at = json.find(field);
  ASSERT_NE(at, std::string::npos);
  json.replace(at, field.size(), "\"minor_faults\": -5");
  Result<Record> parsed = RecordFromJson(json, "negative.json");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message(),
            "negative.json: damaged record: field 'samples[1].minor_faults' should be a count "
            "of 0 or more");
}

}  // namespace
}  // namespace culprit
