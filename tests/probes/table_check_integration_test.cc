// RunTable with a published table to check (TableRequest::check), on real processes of
// tests/fixtures/table_engine: how the published rows and columns become the table's, and
// the claims that come out. Effects are >= 2x; ties are never required.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "investigate/config.h"
#include "probes/table_command.h"
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

PublishedCell Value(double v) {
  PublishedCell cell;
  cell.value = v;
  return cell;
}

PublishedGrid Grid(std::vector<std::string> columns) {
  PublishedGrid grid;
  grid.name = "published.csv";
  grid.columns = std::move(columns);
  grid.rows = {"q1", "q2", "q3"};
  grid.cells = {{Value(4), Value(4)}, {Value(4), Value(12)}, {Value(4), PublishedCell{}}};
  return grid;
}

TEST(TableCheckIntegration, PublishedHeadingsAreRevisionsWhenNoColumnIsGiven) {
  TempDir dir;
  Result<Config> config = ParseConfig(ConfigText(dir.path()), dir.path() / "culprit.toml");
  ASSERT_TRUE(config) << config.error().message();
  NamedBuilds builds;
  MeasureContext context{*config, builds, nullptr, nullptr};
  TableRequest request;
  request.check = Grid({"v1", "v2"});
  request.queries = {"q3", "q1"};  // -q: two of the published rows, in this order
  request.flags.min_pairs = 4;
  request.flags.max_pairs = 8;
  request.flags.warmup = 0;
  Result<TableOutcome> outcome = RunTable(context, request);
  ASSERT_TRUE(outcome) << outcome.error().message();
  const TableFacts& facts = outcome->facts;
  ASSERT_EQ(facts.arms.size(), 2u);
  EXPECT_EQ(facts.arms[1].name, "v2");
  EXPECT_EQ(outcome->record.arms[1].commit, "commit-of-v2");
  EXPECT_EQ(outcome->record.query, "q3,q1");
  ASSERT_EQ(facts.claims.size(), 2u);
  EXPECT_EQ(facts.claims[0].row, 0);
  EXPECT_EQ(facts.claims[0].label, "not published");  // q3 × v2
  EXPECT_EQ(facts.claims[1].published_ratio, 1.0);    // q1 × v2
  EXPECT_EQ(facts.check_source, "published.csv");
  EXPECT_EQ(outcome->record.details.at("check"), "published.csv");
}

TEST(TableCheckIntegration, OverrideSetsMapToThePublishedColumnsInOrder) {
  TempDir dir;
  Result<Config> config = ParseConfig(ConfigText(dir.path()), dir.path() / "culprit.toml");
  ASSERT_TRUE(config) << config.error().message();
  NamedBuilds builds;
  MeasureContext context{*config, builds, nullptr, nullptr};
  TableRequest request;
  request.check = Grid({"ours", "theirs"});
  request.queries = {"q2"};
  request.arms = {"default", "TABLE_ENGINE_SLOW_ON=q2"};  // theirs: three times the work
  request.flags.max_pairs = 40;
  request.flags.seed = 11;
  Result<TableOutcome> outcome = RunTable(context, request);
  ASSERT_TRUE(outcome) << outcome.error().message();
  const std::string table = TableFactsText(outcome->facts);
  EXPECT_EQ(outcome->facts.arms[1].name, "theirs") << table;  // the heading, not the set
  ASSERT_EQ(outcome->facts.claims.size(), 1u) << table;
  EXPECT_EQ(outcome->facts.claims[0].label, "holds") << table;
  EXPECT_FALSE(TableCheckFails(*outcome)) << table;

  // Three published columns for two sets: refused before anything runs.
  request.check = Grid({"a", "b", "c"});
  for (auto& row : request.check->cells) row.push_back(Value(1));
  Result<TableOutcome> refused = RunTable(context, request);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind(), ErrorKind::kUsage);
  EXPECT_TRUE(Contains(refused.error().message(), "has 3 columns (a, b, c)"))
      << refused.error().message();
}

}  // namespace
}  // namespace culprit
