// A bisect record's and a bisect step record's flat facts: written in today's spellings, read
// back typed, and read from details spelled as the producers wrote them before the structs
// existed, so that archived records keep reading.

#include "records/bisect_details.h"

#include <gtest/gtest.h>

#include "records/bisect_step_details.h"
#include "records/comparison_details.h"
#include "records/multi_bisect_details.h"
#include "records/placement_details.h"
#include "records/sweep_details.h"
#include "tests/records/archived_details.h"

namespace culprit {
namespace {

// A bisect record's details as bisect/bisect_report.cc wrote them (a found culprit).
const DetailMap kArchivedBisect = {
    {"bisect_run", "bisect-20261130T110000Z"},
    {"good_commit", "1111111111111111111111111111111111111111"},
    {"bad_commit", "9999999999999999999999999999999999999999"},
    {"range_commits", "12"},
    {"log2_minimum_builds", "4"},
    {"builds_used", "6"},
    {"pairs_used", "184"},
    {"probability", "0.9873"},
    {"credible_set", "5555555555"},
    {"largest_step_drift", "-0.0213"},
    {"culprit_commit", "5555555555555555555555555555555555555555"},
    {"first_commit", "5555555555555555555555555555555555555555"},
    {"culprit_subject", "index: scan the whole table"},
    {"changed_files", "src/index.cc,src/index.h"},
    {"changes", "5555555555555555555555555555555555555555"},
    {"culprit_is_first", "yes"},
    {"decomposition", "range ×1.52 = change ×1.50 · remainder ×1.01 (a tie)"},
};

TEST(BisectDetails, ReadsTheDetailsAsTheBisectWroteThem) {
  const BisectDetails d = BisectDetails::FromDetails(kArchivedBisect);
  EXPECT_EQ(d.bisect_run, "bisect-20261130T110000Z");
  EXPECT_EQ(d.range_commits, 12);
  EXPECT_EQ(d.log2_minimum_builds, 4);
  EXPECT_EQ(d.builds_used, 6);
  EXPECT_EQ(d.pairs_used, 184);
  ASSERT_TRUE(d.probability);
  EXPECT_DOUBLE_EQ(*d.probability, 0.9873);
  ASSERT_TRUE(d.largest_step_drift);
  EXPECT_DOUBLE_EQ(*d.largest_step_drift, -0.0213);
  EXPECT_EQ(d.credible_set, std::vector<std::string>{"5555555555"});
  EXPECT_EQ(d.changed_files, (std::vector<std::string>{"src/index.cc", "src/index.h"}));
  EXPECT_EQ(d.culprit_is_first, CulpritIsFirst::kYes);
  EXPECT_EQ(d.culprit_subject, "index: scan the whole table");
  EXPECT_FALSE(d.merge.commit);
  // Written back, the details are the same text, key for key.
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, kArchivedBisect);
}

TEST(BisectDetails, ReadsAMergeAndEveryCulpritIsFirstSpelling) {
  const DetailMap merge = {{"merge_commit", "abc"},
                           {"merge_branch_good", "b0"},
                           {"merge_branch_bad", "b9"},
                           {"merge_brought_in", "7"},
                           {"merge_subject", "Merge branch 'fast-path'"},
                           {"culprit_is_first", "merge"}};
  const BisectDetails d = BisectDetails::FromDetails(merge);
  EXPECT_EQ(d.merge.commit, "abc");
  EXPECT_EQ(d.merge.brought_in, 7);
  EXPECT_EQ(d.culprit_is_first, CulpritIsFirst::kMerge);
  EXPECT_FALSE(d.culprit_commit);
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, merge);
  for (const char* spelling : {"yes", "ends", "no", "merge"}) {
    const auto read = BisectDetails::FromDetails({{"culprit_is_first", spelling}});
    ASSERT_TRUE(read.culprit_is_first) << spelling;
    EXPECT_EQ(CulpritIsFirstName(*read.culprit_is_first), spelling);
  }
}

TEST(BisectDetails, AMissingOrDamagedValueReadsAsNone) {
  const BisectDetails empty = BisectDetails::FromDetails({});
  EXPECT_EQ(empty, BisectDetails{});
  const BisectDetails damaged = BisectDetails::FromDetails({{"range_commits", "twelve"},
                                                            {"probability", "nan"},
                                                            {"builds_used", "-3"},
                                                            {"culprit_is_first", "maybe"},
                                                            {"largest_step_drift", "1,5"}});
  EXPECT_FALSE(damaged.range_commits);
  EXPECT_FALSE(damaged.probability);
  EXPECT_FALSE(damaged.builds_used);
  EXPECT_FALSE(damaged.culprit_is_first);
  EXPECT_FALSE(damaged.largest_step_drift);
  // An empty list is a fact: written as "", read back as no commits.
  EXPECT_EQ(BisectDetails::FromDetails({{"credible_set", ""}}).credible_set,
            std::vector<std::string>{});
}

TEST(BisectDetails, WritesOnlyWhatIsSetAndKeepsTheRest) {
  DetailMap details = {{"seed", "42"}};
  BisectDetails d;
  d.probability = 0.5;
  d.largest_step_drift = 0.01;
  d.WriteTo(&details);
  EXPECT_EQ(
      details,
      (DetailMap{{"seed", "42"}, {"probability", "0.5000"}, {"largest_step_drift", "+0.0100"}}));
}

// A verification step's details as bisect/step_recorder.cc and bisect/step_lines.cc wrote
// them.
const DetailMap kArchivedVerifyStep = {
    {"bisect_run", "bisect-20261130T110000Z"},
    {"step_kind", "verify"},
    {"candidate_commit", "5555555555555555555555555555555555555555"},
    {"baseline_commit", "4444444444444444444444444444444444444444"},
    {"candidate_index", "5"},
    {"baseline_index", "4"},
    {"near_deterministic", "the near-deterministic rule did not decide: the arms overlap"},
    {"step_odds", "19"},
    {"target_probability", "0.95"},
    {"verify_looks", "10,20,40"},
    {"verify_look_alphas", "0.0221,0.0167,0.0112"},
    {"verify_plan", "planned from the search's fit: effect 0.4055, noise 0.0300"},
    {"evidence", "bisect search"},
    {"posterior_at_or_before", "0.991200"},
    {"best_commit", "5555555555555555555555555555555555555555"},
    {"best_probability", "0.987300"},
    {"pairs", "20"},
};

TEST(BisectStepDetails, ReadsTheDetailsAsTheStepRecorderWroteThem) {
  const BisectStepDetails d = BisectStepDetails::FromDetails(kArchivedVerifyStep);
  EXPECT_EQ(d.step_kind, BisectStepKind::kVerify);
  EXPECT_EQ(d.candidate_index, 5);
  EXPECT_EQ(d.baseline_index, 4);
  EXPECT_EQ(d.verify_looks, (std::vector<int>{10, 20, 40}));
  ASSERT_TRUE(d.verify_look_alphas);
  ASSERT_EQ(d.verify_look_alphas->size(), 3u);
  EXPECT_DOUBLE_EQ((*d.verify_look_alphas)[0], 0.0221);
  ASSERT_TRUE(d.step_odds);
  EXPECT_DOUBLE_EQ(*d.step_odds, 19);
  ASSERT_TRUE(d.posterior_at_or_before);
  EXPECT_DOUBLE_EQ(*d.posterior_at_or_before, 0.9912);
  EXPECT_EQ(d.pairs, 20);
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, kArchivedVerifyStep);
}

TEST(BisectStepDetails, ReadsEveryStepKindAndNothingElse) {
  for (const char* spelling : {"confirm", "measure", "verify", "check"}) {
    const std::optional<BisectStepKind> kind = ParseBisectStepKind(spelling);
    ASSERT_TRUE(kind) << spelling;
    EXPECT_EQ(BisectStepKindName(*kind), spelling);
  }
  EXPECT_FALSE(BisectStepDetails::FromDetails({{"step_kind", "Verify"}}).step_kind);
  EXPECT_FALSE(BisectStepDetails::FromDetails({{"verify_looks", "10,x"}}).verify_looks);
  EXPECT_EQ(BisectStepDetails::FromDetails({}), BisectStepDetails{});
}

TEST(SweepDetails, ReadsAndWritesTheSweepsDetails) {
  const DetailMap archived = {{"good", "1111111111"},
                              {"bad", "9999999999"},
                              {"selection", "every 4 commits"},
                              {"step_alpha", "0.01"},
                              {"change_model", "bisect-posterior-segments"}};
  const SweepDetails d = SweepDetails::FromDetails(archived);
  ASSERT_TRUE(d.step_alpha);
  EXPECT_DOUBLE_EQ(*d.step_alpha, 0.01);
  EXPECT_EQ(d.change_model, std::string(kSweepChangeModelBisectPosterior));
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, archived);
}

TEST(MultiBisectDetails, ReadsAndWritesTheMultiBisectsDetails) {
  const DetailMap archived = {
      {"good", "v1.0"}, {"bad", "v1.3"}, {"queries", "loop,scan"}, {"from_table", "table-1"}};
  const MultiBisectDetails d = MultiBisectDetails::FromDetails(archived);
  EXPECT_EQ(d.queries, (std::vector<std::string>{"loop", "scan"}));
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, archived);
  EXPECT_FALSE(MultiBisectDetails::FromDetails({}).from_table);
}

TEST(BisectDetails, ReadsADemoBisectRecordWrittenBeforeTheStruct) {
  const BisectDetails d = BisectDetails::FromDetails(archived::kDemoBisect);
  EXPECT_EQ(d.culprit_is_first, CulpritIsFirst::kEnds);
  EXPECT_EQ(d.range_commits, 31);
  EXPECT_EQ(d.builds_used, 9);
  ASSERT_TRUE(d.changes);
  EXPECT_EQ(d.changes->size(), 2u);
  EXPECT_EQ(d.probability, 1.0);
  DetailMap written;
  d.WriteTo(&written);
  EXPECT_EQ(written, archived::kDemoBisect);
}

// A step record holds the sitting's facts, where its runs ran and the bisect's own: the three
// structs together write back every key of a demo step, as it was.
TEST(BisectStepDetails, ReadsDemoStepRecordsWrittenBeforeTheStruct) {
  for (const DetailMap* step : {&archived::kDemoVerifyStep, &archived::kDemoCheckStep}) {
    const BisectStepDetails d = BisectStepDetails::FromDetails(*step);
    ASSERT_TRUE(d.step_kind);
    ASSERT_TRUE(d.candidate_index);
    DetailMap written;
    d.WriteTo(&written);
    ComparisonDetails::FromDetails(*step).WriteTo(&written);
    PlacementDetails::FromDetails(*step).WriteTo(&written);
    EXPECT_EQ(written, *step) << BisectStepKindName(*d.step_kind);
  }
  const BisectStepDetails verify = BisectStepDetails::FromDetails(archived::kDemoVerifyStep);
  EXPECT_EQ(verify.step_kind, BisectStepKind::kVerify);
  EXPECT_EQ(verify.verify_looks, (std::vector<int>{8, 16, 32, 64, 128, 256, 640}));
  EXPECT_EQ(ComparisonDetails::FromDetails(archived::kDemoVerifyStep).sitting.alpha_spending,
            "none: a plain interval, not a sequential test");
  EXPECT_EQ(BisectStepDetails::FromDetails(archived::kDemoCheckStep).baseline_index, 0);
}

}  // namespace
}  // namespace culprit
