// The host's tuning and the measured runs' placement in a record: written,
// read back, and absent from records written before culprit kept them.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "records/record.h"
#include "records/report.h"

namespace culprit {
namespace {

Record Minimal() {
  Record r;
  r.id = "20261204-130000-probe-q-0001";
  r.time = "2026-12-04T13:00:00Z";
  return r;
}

HostTuning Tuned() {
  HostTuning t;
  t.turbo_disabled = true;
  t.randomize_va_space = 2;
  t.isolated_cpus = "";
  t.nohz_full = "2-3";
  t.isolcpus = "managed_irq,2-3";
  t.smt_active = false;
  t.smt_control = "notsupported";
  t.perf_event_paranoid = 2;
  t.counters_usable = false;
  t.counters_error = "ENOENT: No such file or directory";
  return t;
}

TEST(RecordTuning, RoundTrips) {
  Record r = Minimal();
  r.start.tuning = Tuned();
  r.end.tuning = HostTuning{};  // a host that said nothing: every field unavailable
  r.details["cpus"] = "0-1";
  r.details["aslr"] = "off";
  Result<Record> back = RecordFromJson(RecordToJson(r), "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->start.tuning, Tuned());
  EXPECT_EQ(back->end.tuning, HostTuning{});
  EXPECT_EQ(back->Detail("cpus"), "0-1");
  EXPECT_EQ(back->Detail("aslr"), "off");
  EXPECT_EQ(*back, r);
}

TEST(RecordTuning, AnOldRecordWithoutItStillReads) {
  Record r = Minimal();
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(RecordToJson(r));
  json["start"].erase("tuning");
  json["end"].erase("tuning");
  Result<Record> back = RecordFromJson(json.dump(), "old.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->start.tuning, std::nullopt);
  EXPECT_EQ(back->end.tuning, std::nullopt);
  EXPECT_EQ(back->Detail("cpus"), "");
}

TEST(RecordTuning, ADamagedFieldIsNamed) {
  Record r = Minimal();
  r.start.tuning = Tuned();
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(RecordToJson(r));
  json["start"]["tuning"]["smt_active"] = "yes";
  Result<Record> back = RecordFromJson(json.dump(), "bad.json");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.error().message(),
            "bad.json: damaged record: field 'start.tuning.smt_active' should be true or false");
}

TEST(RecordTuning, HostJsonCarriesIt) {
  HostState state;
  state.tuning = Tuned();
  nlohmann::json doc = nlohmann::json::parse(HostToJson(HostIdentity{}, state, {}));
  EXPECT_EQ(doc["state"]["tuning"]["nohz_full"], "2-3");
  EXPECT_EQ(doc["state"]["tuning"]["counters_usable"], false);
  EXPECT_TRUE(doc["state"]["tuning"]["boost"].is_null());
}

TEST(RecordTuning, OneLineForTheReader) {
  EXPECT_EQ(FormatTuningSummary(Tuned()),
            "ASLR 2, turbo off, SMT off, isolated CPUs none, counters not usable");
  EXPECT_EQ(FormatTuningSummary(HostTuning{}),
            "ASLR unavailable, turbo unavailable, SMT unavailable, isolated CPUs unavailable, "
            "counters not tried");
  EXPECT_EQ(FormatTuningSummary(std::nullopt), "not recorded (written before culprit kept it)");
}

TEST(RecordTuning, RecordsShowSaysIt) {
  Record r = Minimal();
  r.start.tuning = Tuned();
  r.details["cpus"] = "1";
  r.details["aslr"] = "off";
  const std::string out = MakeTextReporter()->RenderOne(r);
  EXPECT_NE(out.find("  tuning "), std::string::npos) << out;
  EXPECT_NE(out.find("ASLR 2, turbo off, SMT off, isolated CPUs none"), std::string::npos) << out;
  EXPECT_NE(out.find("  aslr: off\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  cpus: 1\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace culprit
