// A table of real processes: three queries of tests/fixtures/table_engine, its default
// environment against an override set that makes one query three times slower and one that
// makes another query fail. Effects are >= 2x; ties are asserted only as "no EFFECT".

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "investigate/config.h"
#include "probes/engine_builds.h"
#include "probes/table_command.h"
#include "records/record_store.h"
#include "records/table_payload.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

const std::string kEngine = FixturePath("table_engine");

std::string ConfigText(const std::filesystem::path& dir) {
  std::string text = "[records]\ndir = " + Quoted((dir / "records").string()) + "\n";
  for (const char* q : {"q1", "q2", "q3"}) {
    text += std::string("[queries.") + q + "]\ncommand = [" + Quoted(kEngine) + ", \"" + q +
            "\"]\nmetric = { regex = 'ms=([0-9.]+)' }\n";
  }
  return text;
}

// The ties are asked at 99.99% (family-wise): a cell of no change is a wrong EFFECT at most at
// the table's α, and a loaded 2-core host spends a share of it (docs/statistics.md), so "never
// an EFFECT" is asserted where the sitting's α is small; q2's ×3 is an EFFECT there too.
TEST(TableIntegration, TheSlowCellIsAnEffectTheTiesAreNotAndAFailingCellIsNotMeasured) {
  TempDir dir;
  Result<Config> config = ParseConfig(ConfigText(dir.path()) + "[measure]\nconfidence = 0.9999\n",
                                      dir.path() / "culprit.toml");
  ASSERT_TRUE(config) << config.error().message();
  std::unique_ptr<BuildProvider> builds = MakeEngineBuildProvider(*config, false, nullptr);
  MeasureContext context{*config, *builds, nullptr, nullptr};
  TableRequest request;
  request.arms = {"default", "theirs:TABLE_ENGINE_SLOW_ON=q2", "broken:TABLE_ENGINE_FAIL_ON=q3"};
  request.flags.max_pairs = 60;
  request.flags.seed = 7;
  Result<TableOutcome> outcome = RunTable(context, request);
  ASSERT_TRUE(outcome) << outcome.error().message();
  const TableFacts& facts = outcome->facts;
  ASSERT_EQ(facts.rows.size(), 3u);
  ASSERT_EQ(facts.arms.size(), 3u);
  EXPECT_EQ(facts.arms[1].name, "theirs");
  const std::string table = TableFactsText(facts);
  // q2 under "theirs" does three times the work: an effect, with its ratio well above 2.
  const TableCellFacts* slow = facts.Cell(1, 1);
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->verdict, "EFFECT") << table;
  ASSERT_TRUE(slow->ratio);
  EXPECT_GT(*slow->ratio, 2.0) << table;
  // The same work elsewhere: never an effect.
  for (auto [row, arm] : {std::pair{0, 1}, {2, 1}, {0, 2}, {1, 2}}) {
    const TableCellFacts* tie = facts.Cell(row, arm);
    ASSERT_TRUE(tie);
    EXPECT_EQ(tie->status, "measured") << table;
    EXPECT_NE(tie->verdict, "EFFECT") << row << "," << arm << "\n" << table;
  }
  // q3 under "broken" fails: not measured, with the engine's own words, the rest kept.
  const TableCellFacts* broken = facts.Cell(2, 2);
  ASSERT_TRUE(broken);
  EXPECT_EQ(broken->status, "not measured") << table;
  EXPECT_TRUE(Contains(broken->error, "no such query")) << broken->error;
  EXPECT_TRUE(Contains(table, "q3 × broken: not measured")) << table;
  EXPECT_FALSE(TableOutcomeStatus(*outcome));  // a cell not measured is an error after the table

  // One `table` record with every cell's samples, read back as written.
  std::vector<Record> records = RecordStore(dir.path() / "records").List().records;
  ASSERT_EQ(records.size(), 1u);
  const Record& record = records[0];
  EXPECT_EQ(record.kind, RecordKind::kTable);
  EXPECT_EQ(record.verdict, Verdict::kEffect);
  EXPECT_EQ(record.arms.size(), 9u);
  EXPECT_EQ(record.arms[TableSlot(1, 1, 3)].env.at("TABLE_ENGINE_SLOW_ON"), "q2");
  EXPECT_EQ(record.samples, outcome->sitting.samples);
  std::optional<TableFacts> read = ReadTableFacts(record);
  ASSERT_TRUE(read);
  EXPECT_EQ(TableFactsText(*read), table);
}

// Revisions without git: the builds a provider gives, each a name and a commit.
class NamedBuilds : public BuildProvider {
 public:
  Result<ResolvedBuild> Resolve(const std::optional<std::string>& revision) override {
    ResolvedBuild build;
    build.revision = revision.value_or("worktree");
    build.commit = "commit-of-" + build.revision;
    return build;
  }
  std::optional<bool> KnownBuildable(const std::string&) const override { return true; }
};

TEST(TableIntegration, RevisionsTimesOverrideSetsAreTheColumns) {
  TempDir dir;
  Result<Config> config = ParseConfig(ConfigText(dir.path()), dir.path() / "culprit.toml");
  ASSERT_TRUE(config) << config.error().message();
  NamedBuilds builds;
  MeasureContext context{*config, builds, nullptr, nullptr};
  TableRequest request;
  request.queries = {"q2"};
  request.revisions = {"v1", "v2"};
  request.arms = {"default", "slow:TABLE_ENGINE_SLOW_ON=q2"};
  request.flags.min_pairs = 4;
  request.flags.max_pairs = 8;
  request.flags.warmup = 0;
  Result<TableOutcome> outcome = RunTable(context, request);
  ASSERT_TRUE(outcome) << outcome.error().message();
  std::vector<std::string> names;
  for (const TableArmFacts& arm : outcome->facts.arms) names.push_back(arm.name);
  EXPECT_EQ(names, (std::vector<std::string>{"v1 default", "v1 slow", "v2 default", "v2 slow"}));
  ASSERT_EQ(outcome->record.arms.size(), 4u);
  EXPECT_EQ(outcome->record.arms[3].commit, "commit-of-v2");
  EXPECT_EQ(outcome->record.arms[3].env.at("TABLE_ENGINE_SLOW_ON"), "q2");
  EXPECT_TRUE(outcome->record.arms[2].env.empty());
}

}  // namespace
}  // namespace culprit
