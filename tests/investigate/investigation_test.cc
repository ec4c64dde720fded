// The investigation's saved state (pure): every field survives a round trip,
// and a damaged or foreign file is refused with a message naming it. And the
// lock on it (files in a temp dir, no processes).

#include "investigate/investigation.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

InvestigationState SampleState() {
  InvestigationState s;
  s.run_id = "20260101T000000Z-abcd";
  s.status = InvestigationStatus::kStopped;
  s.started = "2026-01-01T00:00:00Z";
  s.request.good = "v1";
  s.request.bad = "v2";
  s.request.query = "scan";
  s.request.probe_query = "scan.fresh";
  s.request.plans = {"rollup"};
  s.request.runs_per_visit = 5;
  s.request.flags.band = 0.1;
  s.request.flags.seed = 7;
  InvestigationStepRecord confirm;
  confirm.name = "confirm";
  confirm.record_id = "r1";
  confirm.verdict = Verdict::kEffect;
  confirm.ratio = 3.0;
  confirm.low = 2.5;
  confirm.high = 3.5;
  confirm.sentence = "confirmed";
  s.confirm = confirm;
  s.probes_done = true;
  s.probes.push_back({"threads", "r2", Verdict::kNull, 1.0, 0.98, 1.02, "ruled out"});
  s.bisect_done = true;
  s.bisect_record = "r9";
  s.bisect_records = {"r3", "r4"};
  s.bisect_found = true;
  s.culprit = "c0ffee";
  s.parent = "beef";
  s.changed_files = {"rollup.c"};
  s.relevance_done = true;
  s.relevance = CulpritRelevance::kOffPath;
  s.off_path = {"rollup.c"};
  s.partial_records = {"r5"};
  s.step_wall_ms = {{"confirm", 1200}, {"bisect", 3400}};
  return s;
}

TEST(InvestigationStateJson, RoundTripsEveryField) {
  InvestigationState s = SampleState();
  Result<InvestigationState> back =
      InvestigationStateFromJson(InvestigationStateToJson(s), "investigate.json");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->run_id, s.run_id);
  EXPECT_EQ(back->status, InvestigationStatus::kStopped);
  EXPECT_EQ(back->relevance, CulpritRelevance::kOffPath);
  EXPECT_EQ(back->probes.at(0).verdict, Verdict::kNull);
  EXPECT_EQ(back->request.probe_query, "scan.fresh");
  EXPECT_EQ(back->request.plans, s.request.plans);
  EXPECT_EQ(back->request.runs_per_visit, 5);
  EXPECT_EQ(back->request.flags.band, 0.1);
  EXPECT_EQ(back->request.flags.seed, 7u);
  EXPECT_FALSE(back->request.flags.min_pairs);
  ASSERT_TRUE(back->confirm);
  EXPECT_EQ(back->confirm->verdict, Verdict::kEffect);
  EXPECT_EQ(back->confirm->low, 2.5);
  ASSERT_EQ(back->probes.size(), 1u);
  EXPECT_EQ(back->probes[0].sentence, "ruled out");
  EXPECT_EQ(back->bisect_records, s.bisect_records);
  EXPECT_EQ(back->culprit, "c0ffee");
  EXPECT_EQ(back->off_path, s.off_path);
  EXPECT_EQ(back->partial_records, s.partial_records);
  EXPECT_EQ(back->step_wall_ms, s.step_wall_ms);
  EXPECT_FALSE(back->isolation_done);
  EXPECT_TRUE(back->later_changes.empty());
  EXPECT_TRUE(back->on_path_culprit.empty());

  // The ladder went on past an on-path culprit: the culprit and the later changes are kept.
  s.later_changes = {{"beef01", "beef00"}, {"cafe01", "cafe00"}};
  s.on_path_culprit = "abc123";
  s.on_path_subject = "Scan twice";
  s.on_path_detail = "on the path of scan";
  back = InvestigationStateFromJson(InvestigationStateToJson(s), "investigate.json");
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->later_changes.size(), 2u);
  EXPECT_EQ(back->later_changes[1].commit, "cafe01");
  EXPECT_EQ(back->later_changes[1].parent, "cafe00");
  EXPECT_EQ(back->on_path_culprit, "abc123");
  EXPECT_EQ(back->on_path_subject, "Scan twice");
  EXPECT_EQ(back->on_path_detail, "on the path of scan");
}

TEST(InvestigationStateJson, RefusesOtherSchemasAndDamagedFiles) {
  Result<InvestigationState> other =
      InvestigationStateFromJson(R"({"schema": "culprit.investigate/v9"})", "a.json");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message().find("a.json: schema 'culprit.investigate/v9'"),
            std::string::npos)
      << other.error().message();
  Result<InvestigationState> damaged = InvestigationStateFromJson("{\"schema\": ", "b.json");
  ASSERT_FALSE(damaged);
  EXPECT_NE(damaged.error().message().find("b.json: damaged investigation state"),
            std::string::npos)
      << damaged.error().message();
}

// A Latin-1 file name or commit subject made dump() throw: every run and every
// --resume then failed. The state is written with the text replaced (U+FFFD).
TEST(InvestigationStateJson, WritesInvalidUtf8Replaced) {
  InvestigationState s = SampleState();
  s.culprit_subject = "r\xe9sum\xe9 du cache";
  s.changed_files = {"src/caf\xe9.c"};
  std::string json;
  ASSERT_NO_THROW(json = InvestigationStateToJson(s));
  Result<InvestigationState> back = InvestigationStateFromJson(json, "investigate.json");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->culprit_subject, "r\xef\xbf\xbdsum\xef\xbf\xbd du cache");
  EXPECT_EQ(back->changed_files.at(0), "src/caf\xef\xbf\xbd.c");
}

TEST(InvestigationStateJson, RefusesAStateNestedTooDeep) {
  std::string json = InvestigationStateToJson(SampleState());
  json.insert(json.find('{') + 1,
              "\"extra\": " + std::string(100000, '[') + std::string(100000, ']') + ",");
  Result<InvestigationState> damaged = InvestigationStateFromJson(json, "c.json");
  ASSERT_FALSE(damaged);
  EXPECT_NE(damaged.error().message().find(
                "c.json: damaged investigation state: JSON nested more than 512 levels deep"),
            std::string::npos)
      << damaged.error().message();
}

// `investigate --resume` took over a live investigation and overwrote its state: the
// lock is held while one runs, and a second taker is refused with the holder's pid.
// flock locks belong to the open file description, so a second FileLock in this
// process conflicts as one in another process would.
TEST(InvestigationLock, ASecondTakerIsRefusedWhileTheFirstHoldsIt) {
  TempDir dir;
  BisectSections config;
  config.base_dir = dir.path();
  Result<FileLock> first = LockInvestigation(config);
  ASSERT_TRUE(first) << first.error().message();
  Result<FileLock> second = LockInvestigation(config);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message(),
            fmt::format("another culprit investigate holds the lock (pid {}) on this engine",
                        static_cast<long>(::getpid())));
  EXPECT_NE(second.error().hint().find("--resume"), std::string::npos);
  // --restart may not discard a live investigation's state either.
  WriteTextFile(InvestigationStatePath(config), InvestigationStateToJson(SampleState()));
  Status discarded = DiscardInvestigationState(config);
  ASSERT_FALSE(discarded);
  EXPECT_TRUE(std::filesystem::exists(InvestigationStatePath(config)));
  // Released with its holder.
  { FileLock released = std::move(*first); }
  {
    Result<FileLock> third = LockInvestigation(config);
    EXPECT_TRUE(third) << third.error().message();
  }
  EXPECT_TRUE(DiscardInvestigationState(config));
  EXPECT_FALSE(std::filesystem::exists(InvestigationStatePath(config)));
}

TEST(InvestigationSteps, ParseNamesAndSuggest) {
  Result<InvestigationStep> bisect = ParseInvestigationStep("bisect");
  ASSERT_TRUE(bisect);
  EXPECT_EQ(*bisect, InvestigationStep::kBisect);
  EXPECT_EQ(InvestigationStepName(InvestigationStep::kRelevance), "relevance");
  Result<InvestigationStep> typo = ParseInvestigationStep("bisekt");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().kind(), ErrorKind::kUsage);
  EXPECT_NE(typo.error().message().find("did you mean 'bisect'"), std::string::npos)
      << typo.error().message();
}

}  // namespace
}  // namespace culprit
