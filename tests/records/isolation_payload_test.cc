#include "records/isolation_payload.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "records/report_payload.h"

namespace culprit {
namespace {

// A payload in the shape `culprit isolate` wrote by hand before IsolationPayload existed (the
// format string of probes/isolation_report.cc at 1a7f6ce, numbers at {:.6g}, no "version"):
// archived records of that time must keep reading.
constexpr const char* kWrittenBeforeTheStruct =
    R"({"design":{"method":"random Latin square per block of rounds","seed":"18446744073709551557",)"
    R"("conditions":4,"orders":[[0,1,2,3],[3,2,1,0]]},"looks":[10,20],"correction":{"method":)"
    R"("bonferroni","comparisons":3,"condition_alpha":0.0166667},"conditions":[{"name":)"
    R"("nothing held","hold":[],"release":[],"bytes":{},"baseline":true},{"name":"index held",)"
    R"("hold":["traversal_index"],"release":[],"bytes":{"traversal_index":67108864},"baseline":)"
    R"(false,"verdict":"EFFECT","explanation":"beyond the band","ratio":1.25,"low":1.2,"high":)"
    R"(1.3,"confidence":0.983333,"nominal_confidence":0.99,"rounds":20},{"name":"columns held",)"
    R"("hold":["plain_columns"],"release":[],"bytes":{"plain_columns":1024},"baseline":false,)"
    R"("verdict":"NULL","explanation":"a tie","ratio":1.01,"low":0.98,"high":1.03,"confidence":)"
    R"(0.983333,"nominal_confidence":0.99,"rounds":20},{"name":"index released","hold":)"
    R"(["traversal_index"],"release":["traversal_index"],"bytes":{},"baseline":false}],)"
    R"("suspect":1,"reversibility":{"verdict":"reversible","condition":3,"sentence":"released: )"
    R"(tie"},"calibration":{"start_ms":28.1,"end_ms":null,"checkpoints_ms":[28.2,28.4]},)"
    R"("partial":false,"conclusion":"holding `traversal_index` costs series.count +25%"})";

Record IsolateRecord(std::string details_json) {
  Record r;
  r.kind = RecordKind::kIsolate;
  r.details_json = std::move(details_json);
  return r;
}

TEST(IsolationPayload, ReadsARecordWrittenBeforeTheStruct) {
  std::optional<IsolationPayload> p = ReadIsolationPayload(IsolateRecord(kWrittenBeforeTheStruct));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->version, 1);
  EXPECT_EQ(p->seed, 18446744073709551557ull);  // above 2^53: kept as text
  ASSERT_EQ(p->orders.size(), 2u);
  EXPECT_EQ(p->orders[1], (std::vector<int>{3, 2, 1, 0}));
  EXPECT_EQ(p->looks, (std::vector<int>{10, 20}));
  EXPECT_EQ(p->comparisons, 3);
  EXPECT_NEAR(p->condition_alpha, 0.0166667, 1e-9);
  ASSERT_EQ(p->conditions.size(), 4u);
  EXPECT_TRUE(p->conditions[0].baseline);
  EXPECT_FALSE(p->conditions[0].verdict);
  EXPECT_EQ(p->conditions[1].verdict, Verdict::kEffect);
  EXPECT_EQ(p->conditions[1].explanation, "beyond the band");
  EXPECT_EQ(p->conditions[1].ratio, 1.25);
  EXPECT_EQ(p->conditions[1].rounds, 20);
  EXPECT_EQ(p->conditions[1].HeldBytes(), 67108864u);
  EXPECT_EQ(p->conditions[2].verdict, Verdict::kNull);
  EXPECT_FALSE(p->conditions[3].ratio);
  EXPECT_FALSE(p->conditions[3].HeldBytes());
  EXPECT_EQ(p->suspect, 1);
  EXPECT_EQ(p->reversibility, Reversibility::kReversible);
  EXPECT_EQ(p->reversibility_condition, 3);
  EXPECT_EQ(p->calibration_start_ms, 28.1);
  EXPECT_FALSE(p->calibration_end_ms);  // null: the sitting stopped before its end snapshot
  EXPECT_EQ(p->checkpoint_calibrations_ms, (std::vector<double>{28.2, 28.4}));
  EXPECT_FALSE(p->partial);
  EXPECT_EQ(p->conclusion, "holding `traversal_index` costs series.count +25%");

  EXPECT_EQ(p->RoleOf(0), ConditionRole::kBaseline);
  EXPECT_EQ(p->RoleOf(1), ConditionRole::kSuspect);
  EXPECT_EQ(p->RoleOf(2), ConditionRole::kControl);
  EXPECT_EQ(p->RoleOf(3), ConditionRole::kReleased);
}

// What the writer writes, the reader reads back; and every key of the archived shape is
// still written, so a reader of either kind of file reads both.
TEST(IsolationPayload, RoundTripsAndKeepsTheArchivedKeys) {
  IsolationPayload p = *ReadIsolationPayload(IsolateRecord(kWrittenBeforeTheStruct));
  const std::string written = IsolationPayloadToJson(p);
  std::optional<IsolationPayload> back = ReadIsolationPayload(IsolateRecord(written));
  ASSERT_TRUE(back);
  EXPECT_EQ(IsolationPayloadToJson(*back), written);

  const nlohmann::json before = nlohmann::json::parse(kWrittenBeforeTheStruct);
  const nlohmann::json now = nlohmann::json::parse(written);
  EXPECT_EQ(now["version"], kIsolationPayloadVersion);
  for (const auto& [key, value] : before.items()) {
    ASSERT_TRUE(now.contains(key)) << key;
    if (value.is_object()) {
      for (const auto& [inner, _] : value.items()) {
        EXPECT_TRUE(now[key].contains(inner)) << key << "." << inner;
      }
    }
  }
  for (size_t c = 0; c < before["conditions"].size(); ++c) {
    for (const auto& [key, _] : before["conditions"][c].items()) {
      EXPECT_TRUE(now["conditions"][c].contains(key)) << "conditions[" << c << "]." << key;
    }
  }
}

TEST(IsolationPayload, RefusesWhatItCannotRead) {
  EXPECT_FALSE(ReadIsolationPayload(IsolateRecord("")));
  EXPECT_FALSE(ReadIsolationPayload(IsolateRecord("{not json")));
  EXPECT_FALSE(ReadIsolationPayload(IsolateRecord(R"({"looks":[10]})")));  // no conditions
  // A version this build does not know is not read as if it were 1.
  EXPECT_FALSE(ReadIsolationPayload(IsolateRecord(R"({"version":2,"conditions":[]})")));
  // Mistyped figures read as absent, never as a number.
  std::optional<IsolationPayload> p = ReadIsolationPayload(IsolateRecord(
      R"({"conditions":[{"name":"a","baseline":true},{"name":"b","ratio":"x","low":-1,)"
      R"("high":1.1,"verdict":"MAYBE","bytes":{"s":"big"}}]})"));
  ASSERT_TRUE(p);
  ASSERT_EQ(p->conditions.size(), 2u);
  EXPECT_FALSE(p->conditions[1].ratio);
  EXPECT_FALSE(p->conditions[1].low);
  EXPECT_FALSE(p->conditions[1].verdict);
  EXPECT_FALSE(p->conditions[1].HeldBytes());
  EXPECT_EQ(p->RoleOf(1), ConditionRole::kOther);  // holds nothing, suspects nothing
}

// A plan or a conclusion may carry a Latin-1 byte (a commit subject): written, replaced.
TEST(IsolationPayload, WritesTextThatIsNotUtf8) {
  IsolationPayload p;
  p.conditions.emplace_back().name = "caf\xe9";
  p.conclusion = "na\xefve";
  std::optional<IsolationPayload> back =
      ReadIsolationPayload(IsolateRecord(IsolationPayloadToJson(p)));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->conditions[0].name, "caf\uFFFD");
  EXPECT_EQ(back->conclusion, "na\uFFFDve");
}

// The reports read the conditions through the payload; a record with none still names its
// conditions from its arms, and its suspect from the detail.
TEST(IsolateFacts, ComeFromThePayloadOrTheArms) {
  IsolateFacts facts = ReadIsolateFacts(IsolateRecord(kWrittenBeforeTheStruct));
  ASSERT_EQ(facts.conditions.size(), 4u);
  EXPECT_EQ(facts.conditions[1].role, ConditionRole::kSuspect);
  EXPECT_EQ(facts.conditions[1].verdict, Verdict::kEffect);
  ASSERT_TRUE(facts.conditions[1].estimate);
  EXPECT_EQ(facts.conditions[1].estimate->low, 1.2);
  EXPECT_EQ(facts.conditions[1].bytes, 67108864u);
  EXPECT_EQ(facts.conditions[3].role, ConditionRole::kReleased);
  EXPECT_EQ(facts.reversibility, "reversible");

  Record bare = IsolateRecord("");
  bare.details["suspect"] = "index held";
  bare.details["reversibility"] = "undecided";
  for (const char* name : {"nothing held", "index held", "columns held"}) {
    Arm arm;
    arm.name = name;
    arm.condition = name;
    bare.arms.push_back(arm);
  }
  facts = ReadIsolateFacts(bare);
  ASSERT_EQ(facts.conditions.size(), 3u);
  EXPECT_EQ(facts.conditions[0].role, ConditionRole::kBaseline);
  EXPECT_EQ(facts.conditions[1].role, ConditionRole::kSuspect);
  EXPECT_EQ(facts.conditions[2].role, ConditionRole::kOther);
  EXPECT_FALSE(facts.conditions[1].estimate);
  EXPECT_EQ(facts.reversibility, "undecided");
}

}  // namespace
}  // namespace culprit
