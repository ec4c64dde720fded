#include "records/bisect_payload.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace culprit {
namespace {

// A found bisect's payload exactly as bisect/bisect_report.cc wrote it by hand before the
// struct existed (no "version"; key order as nlohmann sorted it).
constexpr const char* kBeforeTheStruct = R"x({
  "changes": [
    {"commit": "c3", "confidence": 0.99, "direction": "range", "first_commit": "c3",
     "high": 1.31, "low": 1.12, "pairs": 20, "parent_commit": "c2", "probability": 0.97,
     "ratio": 1.2},
    {"commit": "c5", "confidence": 0.99, "direction": "other", "first_commit": "c5",
     "high": 0.95, "low": 0.85, "pairs": 40, "parent_commit": "c4", "probability": 0.93,
     "ratio": 0.9}],
  "commits": ["c0", "c1", "c2", "c3", "c4", "c5", "c6"],
  "decomposition": {"remainder": [0.01, -0.02, 0.04], "remainder_class": "tie",
                    "total": [0.09, 0.05, 0.13]},
  "posterior": [0, 0.01, 0.02, 0.9, 0.03, 0.04, 0],
  "segments": [
    {"bad_commit": "c6", "check": "same", "check_record": "r1", "confidence": 0.95,
     "further_move": {"alternative": 0, "pairs_to_rule_out": 0, "ruled_out": false,
                      "small_move_suspected": false},
     "good_commit": "c0", "hi": 6, "high": 1.14, "lo": 0, "low": 1.05, "outcome": "change",
     "pairs": 30, "ratio": 1.09, "reason": "verified", "tie_budget": 0,
     "tie_pairs_needed": 0, "tie_sought": false},
    {"bad_commit": "c2", "check": "tie", "check_record": "r2", "confidence": 0.9,
     "further_move": {"alternative": 1.127, "pairs_to_rule_out": 64, "ruled_out": true,
                      "small_move_suspected": false},
     "good_commit": "c0", "hi": 2, "high": 1.03, "lo": 0, "low": 0.98, "outcome": "",
     "pairs": 64, "ratio": 1.004, "reason": "", "tie_budget": 160, "tie_pairs_needed": 300,
     "tie_sought": false}],
  "unbuildable": [1]
})x";

TEST(BisectPayload, APayloadWrittenBeforeTheStructReadsAsVersionOne) {
  Record r;
  r.details_json = kBeforeTheStruct;
  std::optional<BisectPayload> p = ReadBisectPayload(r);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->version, 1);
  EXPECT_EQ(p->commits.size(), 7u);
  ASSERT_EQ(p->posterior.size(), 7u);
  EXPECT_DOUBLE_EQ(p->posterior[3], 0.9);
  EXPECT_EQ(p->unbuildable, std::vector<int>{1});
  ASSERT_EQ(p->changes.size(), 2u);
  EXPECT_EQ(p->changes[0].commit, "c3");
  EXPECT_EQ(p->changes[0].direction, ChangeDirection::kRange);
  EXPECT_EQ(p->changes[0].parent_commit, "c2");
  EXPECT_DOUBLE_EQ(*p->changes[0].ratio, 1.2);
  EXPECT_EQ(p->changes[0].pairs, 20);
  EXPECT_EQ(p->changes[1].direction, ChangeDirection::kOther);
  ASSERT_EQ(p->segments.size(), 2u);
  EXPECT_EQ(p->segments[1].check, "tie");
  EXPECT_EQ(p->segments[1].check_record, "r2");
  EXPECT_EQ(p->segments[1].tie_pairs_needed, 300);
  EXPECT_DOUBLE_EQ(p->segments[1].further_move.alternative, 1.127);
  EXPECT_TRUE(p->segments[1].further_move.ruled_out);
  EXPECT_EQ(p->segments[1].further_move.pairs_to_rule_out, 64);
  ASSERT_TRUE(p->decomposition.has_value());
  EXPECT_DOUBLE_EQ(p->decomposition->total_log, 0.09);
  EXPECT_DOUBLE_EQ(p->decomposition->remainder_high, 0.04);
  EXPECT_EQ(p->decomposition->remainder_class, "tie");
}

TEST(BisectPayload, EveryKeyWrittenBeforeTheStructIsStillWritten) {
  Record r;
  r.details_json = kBeforeTheStruct;
  const BisectPayload p = *ReadBisectPayload(r);
  const nlohmann::json before = nlohmann::json::parse(kBeforeTheStruct);
  const nlohmann::json after = nlohmann::json::parse(BisectPayloadToJson(p));
  // Every key and value of the old shape comes back (the new one adds only "version").
  for (const auto& [key, value] : before.items()) {
    ASSERT_TRUE(after.contains(key)) << key;
    EXPECT_EQ(after[key], value) << key;
  }
  EXPECT_EQ(after["version"], kBisectPayloadVersion);
}

TEST(BisectPayload, ARecheckedPartKeepsItsRecheckAndOthersHaveNone) {
  Record r;
  r.details_json = kBeforeTheStruct;
  BisectPayload p = *ReadBisectPayload(r);
  EXPECT_EQ(p.segments[1].recheck, "");  // absent before parts were re-checked
  p.segments[1].recheck = "undecided";
  p.segments[1].recheck_record = "r3";
  const nlohmann::json j = nlohmann::json::parse(BisectPayloadToJson(p));
  EXPECT_FALSE(j["segments"][0].contains("recheck"));
  EXPECT_EQ(j["segments"][1]["recheck"], "undecided");
  std::optional<BisectPayload> back = BisectPayloadFromJson(BisectPayloadToJson(p));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->segments[1].recheck, "undecided");
  EXPECT_EQ(back->segments[1].recheck_record, "r3");
  EXPECT_EQ(back->segments[0].recheck_record, "");
}

TEST(BisectPayload, AnInconclusiveBisectHasNoChangesPartsOrDecomposition) {
  BisectPayload p;
  p.commits = {"a", "b", "c"};
  p.posterior = {0, 0.5, 0.5};
  const nlohmann::json j = nlohmann::json::parse(BisectPayloadToJson(p));
  EXPECT_FALSE(j.contains("changes"));
  EXPECT_FALSE(j.contains("segments"));
  EXPECT_FALSE(j.contains("decomposition"));
  std::optional<BisectPayload> back = BisectPayloadFromJson(BisectPayloadToJson(p));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->posterior, p.posterior);
  EXPECT_FALSE(back->decomposition.has_value());
}

TEST(BisectPayload, AVersionItDoesNotKnowIsNotRead) {
  EXPECT_FALSE(BisectPayloadFromJson(R"({"version": 2, "commits": ["a"]})").has_value());
  EXPECT_TRUE(BisectPayloadFromJson(R"({"version": 1, "commits": ["a"]})").has_value());
}

TEST(BisectPayload, MistypedFieldsReadAsAbsentAndTheRestIsKept) {
  std::optional<BisectPayload> p = BisectPayloadFromJson(
      R"({"commits": ["a", 3, "b"], "posterior": [0.5, "x", 0.5], "unbuildable": [1, "2"],
          "changes": [{"commit": "b", "ratio": "fast", "low": -1, "pairs": "many"}, 7],
          "decomposition": {"total": [1, 2]}})");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->commits, (std::vector<std::string>{"a", "b"}));
  // A posterior entry keeps its place: the index is the commit's.
  EXPECT_EQ(p->posterior, (std::vector<double>{0.5, 0, 0.5}));
  EXPECT_EQ(p->unbuildable, std::vector<int>{1});
  ASSERT_EQ(p->changes.size(), 1u);
  EXPECT_FALSE(p->changes[0].ratio.has_value());
  EXPECT_FALSE(p->changes[0].low.has_value());
  EXPECT_EQ(p->changes[0].pairs, 0);
  ASSERT_TRUE(p->decomposition.has_value());
  EXPECT_DOUBLE_EQ(p->decomposition->total_log, 0);
}

TEST(BisectPayload, NoPayloadOrADamagedOneIsNone) {
  EXPECT_FALSE(BisectPayloadFromJson("").has_value());
  EXPECT_FALSE(BisectPayloadFromJson("{not json").has_value());
  EXPECT_FALSE(BisectPayloadFromJson("[1, 2]").has_value());
  EXPECT_FALSE(BisectPayloadFromJson(std::string(100000, '[')).has_value());
}

TEST(BisectPayload, AReasonThatIsNotUtf8IsWrittenNotThrownOn) {
  BisectPayload p;
  p.commits = {"a", "b"};
  p.decomposition = BisectDecompositionPayload{};
  BisectSegmentPayload s;
  s.reason = "engine said caf\xe9";
  p.segments.push_back(s);
  std::string text;
  ASSERT_NO_THROW(text = BisectPayloadToJson(p));
  std::optional<BisectPayload> back = BisectPayloadFromJson(text);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->segments.size(), 1u);
  EXPECT_EQ(back->segments[0].reason.rfind("engine said caf", 0), 0u);
}

}  // namespace
}  // namespace culprit
