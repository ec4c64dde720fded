#include "bisect/bisect_state.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "bisect/bisect_runner.h"

namespace culprit {
namespace {

BisectState TwoCommits() {
  BisectState s;
  s.run_id = "run";
  s.status = BisectStatus::kRunning;
  s.good_rev = "v1";
  s.bad_rev = "v2";
  s.query = "q";
  s.commits = {std::string(40, 'a'), std::string(40, 'b')};
  return s;
}

TEST(BisectStateJson, RoundTrips) {
  BisectState s = TwoCommits();
  Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->commits, s.commits);
  EXPECT_EQ(back->good_rev, "v1");
}

// A step too short for an interval keeps saying so after a save, and the log prints its
// median and pairs, not an interval; a state saved before the field existed had intervals.
TEST(BisectStateJson, AStepWithoutAnIntervalIsPrintedWithoutOne) {
  BisectState s = TwoCommits();
  BisectStepLog short_step;
  short_step.step = 1;
  short_step.index = 1;
  short_step.commit = s.commits.back();
  short_step.pairs = 2;
  short_step.ratio = 1.31;
  short_step.has_interval = false;
  BisectStepLog long_step = short_step;
  long_step.step = 2;
  long_step.pairs = 12;
  long_step.low = 1.2;
  long_step.high = 1.4;
  long_step.has_interval = true;
  s.log = {short_step, long_step};
  Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  ASSERT_EQ(back->log.size(), 2u);
  EXPECT_FALSE(back->log[0].has_interval);
  EXPECT_TRUE(back->log[1].has_interval);
  const std::string text = FormatBisectLog(*back);
  EXPECT_NE(text.find("1.310 (median, 2 pairs: no interval)"), std::string::npos) << text;
  EXPECT_NE(text.find("1.310 [1.200, 1.400]"), std::string::npos) << text;

  nlohmann::json old = nlohmann::json::parse(BisectStateToJson(s));
  old["log"][0].erase("has_interval");
  Result<BisectState> older = BisectStateFromJson(old.dump(), "state.json");
  ASSERT_TRUE(older.ok()) << older.error().message();
  EXPECT_TRUE(older->log[0].has_interval);
}

TEST(BisectStateJson, AStepsBurstsRoundTripAndOlderStatesHaveNone) {
  BisectState s = TwoCommits();
  BisectStepLog step;
  step.step = 1;
  step.kind = BisectStepKind::kCheck;
  step.commit = std::string(40, 'b');
  step.record_id = "rec-1";
  SlowRunBursts bursts;
  bursts.slow[0] = 24;
  bursts.slow[1] = 21;
  bursts.runs[0] = 160;
  bursts.runs[1] = 158;
  bursts.factor = 1.71;
  step.bursts = bursts;
  BisectStepLog quiet = step;
  quiet.step = 2;
  quiet.bursts.reset();
  s.log = {step, quiet};
  Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  ASSERT_TRUE(back->log[0].bursts);
  EXPECT_EQ(back->log[0].bursts->slow[0], 24);
  EXPECT_EQ(back->log[0].bursts->slow[1], 21);
  EXPECT_EQ(back->log[0].bursts->runs[1], 158);
  EXPECT_DOUBLE_EQ(back->log[0].bursts->factor, 1.71);
  EXPECT_FALSE(back->log[1].bursts);
  EXPECT_FALSE(nlohmann::json::parse(BisectStateToJson(s))["log"][1].contains("bursts"));

  // A damaged entry is a clear error naming the file, not a crash or a silent zero.
  nlohmann::json damaged = nlohmann::json::parse(BisectStateToJson(s));
  damaged["log"][0]["bursts"]["slow"] = "many";
  Result<BisectState> bad = BisectStateFromJson(damaged.dump(), "state.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("state.json"), std::string::npos) << bad.error().message();
}

TEST(BisectStateJson, RunsFlagsRoundTripAndOlderStatesHaveNone) {
  BisectState s = TwoCommits();
  s.max_pairs = 300;
  s.seed = 0xfedcba9876543210ULL;  // a seed uses all 64 bits
  Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->max_pairs, 300);
  EXPECT_EQ(back->seed, 0xfedcba9876543210ULL);

  nlohmann::json old = nlohmann::json::parse(BisectStateToJson(TwoCommits()));
  old.erase("max_pairs");
  old.erase("seed");
  Result<BisectState> older = BisectStateFromJson(old.dump(), "state.json");
  ASSERT_TRUE(older.ok()) << older.error().message();
  EXPECT_EQ(older->max_pairs, 0);
  EXPECT_EQ(older->seed, 0u);
}

TEST(BisectStateJson, SegmentsRoundTrip) {
  BisectState s = TwoCommits();
  s.commits.push_back(std::string(40, 'c'));
  BisectSegment whole;
  whole.lo = 0;
  whole.hi = 2;
  whole.check = SegmentCheck::kSame;
  whole.outcome = SegmentOutcome::kChange;
  whole.first = whole.change = 2;
  whole.log_ratio = 0.25;
  whole.verify_confidence = 0.99;
  BisectSegment before;
  before.lo = 0;
  before.hi = 1;
  before.check = SegmentCheck::kSame;
  before.search_json = R"({"schema":"x"})";
  before.recheck = SegmentCheck::kUndecided;
  before.recheck_record = "r-recheck";
  s.segments = {whole, before};
  s.active_segment = 1;
  Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  ASSERT_EQ(back->segments.size(), 2u);
  EXPECT_EQ(back->active_segment, 1);
  EXPECT_EQ(back->segments[0].outcome, SegmentOutcome::kChange);
  EXPECT_EQ(back->segments[0].change, 2);
  EXPECT_DOUBLE_EQ(back->segments[0].log_ratio, 0.25);
  EXPECT_DOUBLE_EQ(back->segments[0].verify_confidence, 0.99);
  EXPECT_EQ(back->segments[1].hi, 1);
  EXPECT_EQ(back->segments[1].search_json, R"({"schema":"x"})");
  EXPECT_EQ(back->segments[1].recheck, SegmentCheck::kUndecided);
  EXPECT_EQ(back->segments[1].recheck_record, "r-recheck");
  EXPECT_EQ(back->segments[0].recheck, SegmentCheck::kNotMeasured);

  // A state saved before a part's move was re-checked has no such keys: none was.
  nlohmann::json old = nlohmann::json::parse(BisectStateToJson(s));
  old["segments"][1].erase("recheck");
  old["segments"][1].erase("recheck_record");
  Result<BisectState> older = BisectStateFromJson(old.dump(), "state.json");
  ASSERT_TRUE(older.ok()) << older.error().message();
  EXPECT_EQ(older->segments[1].recheck, SegmentCheck::kNotMeasured);
  EXPECT_EQ(older->segments[1].recheck_record, "");
  // A class this culprit does not write is damage.
  old["segments"][1]["recheck"] = "maybe";
  EXPECT_FALSE(BisectStateFromJson(old.dump(), "state.json").ok());

  // A segment outside the range is damage, not an index to trust.
  s.segments[1].hi = 7;
  Result<BisectState> bad = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("segment 0..7"), std::string::npos) << bad.error().message();
}

// A check's runs that gave no number are kept with its part, for the ending to say; a state
// saved before they were kept has none, and counts no sitting makes are damage.
// A check measured beside a verification keeps how many runs it shared; a step that shared
// none, or a state saved before any could, has none; more than one arm's runs is damage.
TEST(BisectStateJson, AChecksSharedRunsRoundTripAndOlderStatesHaveNone) {
  BisectState s = TwoCommits();
  BisectStepLog check;
  check.step = 1;
  check.kind = BisectStepKind::kCheck;
  check.index = 1;
  check.commit = s.commits[1];
  check.pairs = 40;
  check.shared_runs = 41;  // a warm-up and one a pair
  s.log = {check};
  Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->log[0].shared_runs, 41);

  nlohmann::json old = nlohmann::json::parse(BisectStateToJson(s));
  old["log"][0].erase("shared_runs");
  Result<BisectState> older = BisectStateFromJson(old.dump(), "state.json");
  ASSERT_TRUE(older.ok()) << older.error().message();
  EXPECT_EQ(older->log[0].shared_runs, 0);

  for (int value : {-1, 40 + kMaxSharedRunsBesidePairs + 1}) {
    nlohmann::json bad = nlohmann::json::parse(BisectStateToJson(s));
    bad["log"][0]["shared_runs"] = value;
    Result<BisectState> damaged = BisectStateFromJson(bad.dump(), "state.json");
    ASSERT_FALSE(damaged.ok()) << value;
    EXPECT_NE(damaged.error().message().find("step 1 shares"), std::string::npos)
        << damaged.error().message();
  }
}

TEST(BisectStateJson, ACheckFailureCountsRoundTripAndOlderStatesHaveNone) {
  BisectState s = TwoCommits();
  BisectSegment whole;
  whole.lo = 0;
  whole.hi = 1;
  whole.check = SegmentCheck::kUndecided;
  whole.check_failures.runs[0] = 40;
  whole.check_failures.runs[1] = 41;
  whole.check_failures.timed_out[0] = 9;
  whole.check_failures.failed[1] = 3;
  whole.check_failures.timed_out[1] = 7;
  whole.check_failures.p_value = 0.8;
  s.segments = {whole};
  Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  const FailureComparison& f = back->segments[0].check_failures;
  EXPECT_EQ(f.runs[0], 40);
  EXPECT_EQ(f.runs[1], 41);
  EXPECT_EQ(f.timed_out[0], 9);
  EXPECT_EQ(f.Unmeasured(1), 10);
  EXPECT_DOUBLE_EQ(f.p_value, 0.8);
  EXPECT_FALSE(f.differ);

  nlohmann::json old = nlohmann::json::parse(BisectStateToJson(s));
  old["segments"][0].erase("check_failures");
  Result<BisectState> older = BisectStateFromJson(old.dump(), "state.json");
  ASSERT_TRUE(older.ok()) << older.error().message();
  EXPECT_EQ(older->segments[0].check_failures.Unmeasured(0), 0);
  EXPECT_EQ(older->segments[0].check_failures.runs[1], 0);

  // More runs without a number than runs, a negative count, a p-value past 1.
  for (auto [field, arm, value] : {std::tuple{"timed_out", 0, 41}, {"failed", 1, -1}}) {
    nlohmann::json bad = nlohmann::json::parse(BisectStateToJson(s));
    bad["segments"][0]["check_failures"][field][arm] = value;
    Result<BisectState> damaged = BisectStateFromJson(bad.dump(), "state.json");
    ASSERT_FALSE(damaged.ok()) << field;
    EXPECT_NE(damaged.error().message().find("check failure counts no sitting makes"),
              std::string::npos)
        << damaged.error().message();
  }
  nlohmann::json bad = nlohmann::json::parse(BisectStateToJson(s));
  bad["segments"][0]["check_failures"]["p_value"] = 1.5;
  EXPECT_FALSE(BisectStateFromJson(bad.dump(), "state.json").ok());
  // Counts of the wrong shape are damage too, not a crash.
  bad = nlohmann::json::parse(BisectStateToJson(s));
  bad["segments"][0]["check_failures"]["runs"] = "forty";
  Result<BisectState> shapeless = BisectStateFromJson(bad.dump(), "state.json");
  ASSERT_FALSE(shapeless.ok());
  EXPECT_NE(shapeless.error().message().find("damaged bisect state"), std::string::npos)
      << shapeless.error().message();
}

TEST(BisectStateJson, AChangeOrAStepOutsideTheRangeIsDamagedNotTrusted) {
  // `bisect resume` once indexed the commits with a segment's change as read (a crash).
  BisectState s = TwoCommits();
  s.commits.push_back(std::string(40, 'c'));
  BisectSegment whole;
  whole.lo = 0;
  whole.hi = 2;
  whole.check = SegmentCheck::kSame;
  whole.outcome = SegmentOutcome::kChange;
  whole.first = whole.change = 2;
  s.segments = {whole};
  ASSERT_TRUE(BisectStateFromJson(BisectStateToJson(s), "state.json").ok());
  for (auto [first, change] : {std::pair{2, 99}, {0, 2}, {-5, 1}, {2, 1}, {-1, 2}}) {
    s.segments[0].first = first;
    s.segments[0].change = change;
    Result<BisectState> bad = BisectStateFromJson(BisectStateToJson(s), "state.json");
    ASSERT_FALSE(bad.ok()) << first << ".." << change;
    EXPECT_NE(bad.error().message().find("damaged bisect state"), std::string::npos)
        << bad.error().message();
  }
  s.segments[0].first = s.segments[0].change = 2;
  BisectStepLog step;
  step.index = 3;  // one past the bad end
  s.log = {step};
  Result<BisectState> bad = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("outside the range 0..2"), std::string::npos)
      << bad.error().message();
}

TEST(BisectStateJson, AStepInFlightRoundTripsAndIsCheckedAgainstTheRange) {
  BisectState s = TwoCommits();
  BisectPendingStep pending;
  pending.kind = BisectStepKind::kVerify;
  pending.index = 1;
  pending.baseline = 0;
  pending.pairs = 1;
  pending.d = {0.5};
  Sample a, b;
  a.arm = 0;
  a.pair = 0;
  a.value = 10;
  b.sequence = 1;
  b.arm = 1;
  b.pair = 0;
  b.value = 16.5;
  pending.samples = {a, b};
  s.pending_step = pending;
  Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  ASSERT_TRUE(back->pending_step.has_value());
  EXPECT_EQ(back->pending_step->kind, BisectStepKind::kVerify);
  EXPECT_EQ(back->pending_step->d, pending.d);
  EXPECT_EQ(back->pending_step->samples, pending.samples);
  s.pending_step->index = 5;
  EXPECT_FALSE(BisectStateFromJson(BisectStateToJson(s), "state.json").ok());
  s.pending_step->index = 1;
  s.pending_step->pairs = 2;  // more pairs than values
  EXPECT_FALSE(BisectStateFromJson(BisectStateToJson(s), "state.json").ok());
}

TEST(BisectStateJson, AStateNestedTooDeepIsDamagedNotACrash) {
  // A search of 100k nested arrays: read whole, its dump() recursed off the stack.
  std::string json = BisectStateToJson(TwoCommits());
  const size_t at = json.find("\"search\": null");
  ASSERT_NE(at, std::string::npos) << json;
  json.replace(at, std::string("\"search\": null").size(),
               "\"search\": " + std::string(100000, '[') + std::string(100000, ']'));
  Result<BisectState> back = BisectStateFromJson(json, "state.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message().find("state.json: damaged bisect state"), std::string::npos)
      << back.error().message();
}

TEST(BisectStateJson, Latin1TextIsReplacedNotThrownOn) {
  // A skip note quotes a commit subject, which real histories write in
  // Latin-1 (0xE9: é) as often as in UTF-8.
  BisectState s = TwoCommits();
  s.good_rev = "v\xe9";
  BisectStepLog step;
  step.step = 1;
  step.kind = BisectStepKind::kMeasure;
  step.commit = s.commits[1];
  step.note = "skipped: commit bbbb (Caf\xe9) does not build";
  s.log.push_back(step);
  std::string json = BisectStateToJson(s);
  Result<BisectState> back = BisectStateFromJson(json, "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->good_rev, "v\xef\xbf\xbd");  // U+FFFD
  ASSERT_EQ(back->log.size(), 1u);
  EXPECT_EQ(back->log[0].note, "skipped: commit bbbb (Caf\xef\xbf\xbd) does not build");
}

TEST(BisectStateJson, ARangeOfFewerThanTwoCommitsIsDamaged) {
  for (size_t n : {0u, 1u}) {
    BisectState s = TwoCommits();
    s.commits.resize(n);
    Result<BisectState> back = BisectStateFromJson(BisectStateToJson(s), "state.json");
    ASSERT_FALSE(back.ok());
    EXPECT_NE(back.error().message().find("state.json: damaged bisect state"), std::string::npos)
        << back.error().message();
    EXPECT_NE(back.error().message().find(n == 1 ? "it names 1 commit, not a range"
                                                 : "it names 0 commits, not a range"),
              std::string::npos)
        << back.error().message();
    EXPECT_NE(back.error().hint().find("bisect reset"), std::string::npos);
  }
}

TEST(BisectStateJson, AFieldOfTheWrongTypeIsDamaged) {
  std::string json = BisectStateToJson(TwoCommits());
  size_t at = json.find("\"first_parent\": ");
  ASSERT_NE(at, std::string::npos) << json;
  json.replace(at, std::string("\"first_parent\": ").size(), "\"first_parent\": \"yes\", \"x\": ");
  Result<BisectState> back = BisectStateFromJson(json, "state.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message().find("damaged bisect state"), std::string::npos);
}

}  // namespace
}  // namespace culprit
