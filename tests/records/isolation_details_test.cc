// The flat facts of an `isolate` record: read typed from details as culprit wrote them before
// records/isolation_details.h existed (a demo's, a simulated sitting's, a partial one's), and
// written back key for key, so that archived records keep reading.

#include "records/isolation_details.h"

#include <gtest/gtest.h>

#include "records/report_payload.h"
#include "tests/records/archived_details.h"

namespace culprit {
namespace {

DetailMap WrittenBack(const IsolationDetails& d) {
  DetailMap written;
  d.WriteTo(&written);
  return written;
}

TEST(IsolationDetails, ReadsADemoIsolateRecordWrittenBeforeTheStruct) {
  const IsolationDetails d = IsolationDetails::FromDetails(archived::kDemoIsolate);
  EXPECT_EQ(d.plan, "traversal index");
  EXPECT_EQ(d.suspect, "index held");
  EXPECT_EQ(d.reversibility, Reversibility::kReversible);
  EXPECT_EQ(d.design, kIsolationDesign);
  EXPECT_EQ(d.correction, kBonferroniCorrection);
  EXPECT_EQ(d.sample_tags, kIsolationSampleTags);
  EXPECT_EQ(d.rounds, 160);
  EXPECT_EQ(d.max_rounds, 160);
  EXPECT_EQ(d.runs_per_visit, 3);
  EXPECT_EQ(d.settle_runs, 1);
  ASSERT_TRUE(d.condition_alpha);
  EXPECT_DOUBLE_EQ(*d.condition_alpha, 0.0125);
  EXPECT_EQ(d.sitting.seed, 13243176173049484283u);
  EXPECT_EQ(d.sitting.alpha_spending, kPocockIncrements);
  ASSERT_TRUE(d.sitting.calibration_change);
  EXPECT_DOUBLE_EQ(*d.sitting.calibration_change, -0.0286);
  EXPECT_FALSE(d.partial);
  EXPECT_FALSE(d.failed_condition);
  EXPECT_EQ(WrittenBack(d), archived::kDemoIsolate);
}

TEST(IsolationDetails, ReadsASimulatedSittingsRecordWrittenBeforeTheStruct) {
  const IsolationDetails d = IsolationDetails::FromDetails(archived::kFixtureIsolateSimulated);
  EXPECT_EQ(d.plan, "rollup");
  EXPECT_EQ(d.suspect, "rollup held");
  ASSERT_TRUE(d.condition_alpha);
  EXPECT_DOUBLE_EQ(*d.condition_alpha, 0.0166667);
  EXPECT_EQ(WrittenBack(d), archived::kFixtureIsolateSimulated);
}

TEST(IsolationDetails, ReadsAPartialRecordWrittenBeforeTheStruct) {
  const IsolationDetails d = IsolationDetails::FromDetails(archived::kFixtureIsolatePartial);
  EXPECT_EQ(d.partial, true);
  EXPECT_EQ(d.failed_condition, "rollup held");
  EXPECT_EQ(d.failed_command, "run scan 3");
  EXPECT_EQ(d.reversibility, Reversibility::kUndecided);
  EXPECT_EQ(d.rounds, 3);
  EXPECT_FALSE(d.sitting.calibration_change);
  EXPECT_EQ(WrittenBack(d), archived::kFixtureIsolatePartial);
}

TEST(IsolationDetails, EveryReversibilitySpellingRoundTrips) {
  for (Reversibility r : {Reversibility::kReversible, Reversibility::kNotReversible,
                          Reversibility::kUndecided, Reversibility::kNotTested}) {
    EXPECT_EQ(ParseReversibility(ReversibilityName(r)), r);
  }
  EXPECT_EQ(ReversibilityName(Reversibility::kNotReversible), "not reversible");
  EXPECT_EQ(ReversibilityName(Reversibility::kNotTested), "not tested");
  EXPECT_FALSE(ParseReversibility("Reversible"));
}

TEST(IsolationDetails, ADamagedValueReadsAsNone) {
  const IsolationDetails d = IsolationDetails::FromDetails({{"rounds", "-3"},
                                                            {"condition_alpha", "nan"},
                                                            {"reversibility", "maybe"},
                                                            {"partial", "yes"},
                                                            {"seed", "x"}});
  EXPECT_FALSE(d.rounds);
  EXPECT_FALSE(d.condition_alpha);
  EXPECT_FALSE(d.reversibility);
  EXPECT_FALSE(d.partial);
  EXPECT_FALSE(d.sitting.seed);
  EXPECT_EQ(IsolationDetails::FromDetails({}), IsolationDetails{});
  EXPECT_TRUE(WrittenBack(IsolationDetails{}).empty());
}

TEST(IsolationDetails, TheReportsTakeTheSuspectAndReversibilityFromThemWithoutAPayload) {
  Record r;
  r.kind = RecordKind::kIsolate;
  r.details = archived::kFixtureIsolatePartial;
  for (const char* name : {"nothing held", "ballast held", "rollup held"}) {
    Arm arm;
    arm.name = name;
    arm.condition = name;
    r.arms.push_back(arm);
  }
  const IsolateFacts facts = ReadIsolateFacts(r);
  ASSERT_EQ(facts.conditions.size(), 3u);
  EXPECT_EQ(facts.conditions[0].role, ConditionRole::kBaseline);
  EXPECT_EQ(facts.conditions[1].role, ConditionRole::kOther);
  EXPECT_EQ(facts.conditions[2].role, ConditionRole::kSuspect);
  EXPECT_EQ(facts.reversibility, "undecided");
  r.details["reversibility"] = "perhaps";
  EXPECT_EQ(ReadIsolateFacts(r).reversibility, "");
}

}  // namespace
}  // namespace culprit
