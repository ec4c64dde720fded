// `culprit table --check` as a user types it: a published table of two engines (two command
// lines of the table fixture engine) re-measured in one sitting, each claim labelled, exit 3
// when one does not hold; culprit publish files as columns; bad input named by position.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "records/record_store.h"
#include "records/table_payload.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

const std::string kEngine = FixturePath("table_engine");

// Two engines: "theirs" does three times the work on q2 and q3 (table_engine --slow-on).
std::vector<std::string> CheckArgs(const std::vector<std::string>& before) {
  std::vector<std::string> args = {"table"};
  args.insert(args.end(), before.begin(), before.end());
  for (const std::string& word :
       {std::string("--max-pairs"), std::string("40"), std::string("--band"), std::string("0.2"),
        std::string("--seed"), std::string("5"), std::string("--"), kEngine, std::string("{query}"),
        std::string("--"), kEngine, std::string("{query}"), std::string("--slow-on"),
        std::string("q2"), std::string("--slow-on"), std::string("q3")}) {
    args.push_back(word);
  }
  return args;
}

TEST(TableCheckCli, ClaimsThatHoldTieAndReverseAndAMissingCell) {
  TempDir dir;
  // q1: the same program in both columns, published as a 2.5% win: a tie to relabel.
  // q2: published 3x slower, and it is: holds. q3: published 3x faster, truly 3x slower.
  // q4: theirs not published.
  WriteTextFile(dir.path() / "published.csv",
                "# our README's table\n"
                "query,ours,theirs\n"
                "q1,4.0 ms,3.9 ms\n"
                "q2,4.0 ms,12.0 ms\n"
                "q3,12.0 ms,4.0 ms\n"
                "q4,4.0 ms,\n");
  ProcessResult r = RunCulprit(CheckArgs({"--check", "published.csv"}), dir.path());
  ASSERT_EQ(r.exit_code, 3) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "published claims (published.csv)")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "q2 × theirs: holds: published ×3.000")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "q3 × theirs: reversed: published ×0.333")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "q4 × theirs: not published")) << DescribeRun(r);
  // Two real processes are never required to come out a tie; undecided is honest too.
  EXPECT_TRUE(Contains(r.stdout_text, "q1 × theirs: tie: published ×0.975") ||
              Contains(r.stdout_text, "q1 × theirs: undecided: published ×0.975"))
      << DescribeRun(r);
  EXPECT_FALSE(Contains(r.stdout_text, "q1 × theirs: holds")) << DescribeRun(r);

  // One table record, holding the claims beside its cells.
  std::vector<Record> records = RecordStore(dir.path() / "benchmarks/results-v1").List().records;
  ASSERT_EQ(records.size(), 1u) << DescribeRun(r);
  EXPECT_EQ(records[0].kind, RecordKind::kTable);
  EXPECT_EQ(records[0].query, "q1,q2,q3,q4");
  std::optional<TableFacts> facts = ReadTableFacts(records[0]);
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->check_source, "published.csv");
  ASSERT_EQ(facts->claims.size(), 4u);
  EXPECT_EQ(facts->claims[1].label, "holds");
  EXPECT_EQ(facts->claims[2].label, "reversed");
  EXPECT_EQ(facts->claims[3].label, "not published");
  EXPECT_EQ(facts->arms[1].name, "theirs");  // the published headings name the columns
  ProcessResult show =
      RunCulprit({"records", "--dir", "benchmarks/results-v1", "show", records[0].id}, dir.path());
  ASSERT_EQ(show.exit_code, 0) << DescribeRun(show);
  EXPECT_TRUE(Contains(show.stdout_text, "q3 × theirs: reversed")) << DescribeRun(show);
}

TEST(TableCheckCli, PublishFilesAreColumnsFromTwoSittings) {
  TempDir dir;
  // Two `culprit publish` tables: each value from its own run record, so every published
  // ratio between them divides two unrelated numbers. The claim itself (q2 3x) holds.
  WriteTextFile(dir.path() / "before.json",
                R"({"format": "culprit.published/v1", "revision": "before", "unit": "ms",
                    "rows": [{"query": "q2", "value": 4.0, "record": "run-q2-a"}]})");
  WriteTextFile(dir.path() / "after.json",
                R"({"format": "culprit.published/v1", "revision": "after", "unit": "ms",
                    "rows": [{"query": "q2", "value": 12.0, "record": "run-q2-b"}]})");
  ProcessResult r = RunCulprit(
      CheckArgs({"--check", "before.json", "--check", "after.json", "--format", "markdown"}),
      dir.path());
  ASSERT_EQ(r.exit_code, 0) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "| query | column | published ratio |")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "| two unrelated numbers divided |")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "q2 × after: holds")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "claims: 1 holds of 1")) << DescribeRun(r);

  ProcessResult json =
      RunCulprit(CheckArgs({"--check", "before.json", "--check", "after.json", "--format", "json"}),
                 dir.path());
  ASSERT_EQ(json.exit_code, 0) << DescribeRun(json);
  EXPECT_TRUE(Contains(json.stdout_text, R"("label": "holds")")) << DescribeRun(json);
  EXPECT_TRUE(Contains(json.stdout_text, R"("sittings": "two unrelated numbers divided")"))
      << DescribeRun(json);
}

TEST(TableCheckCli, BadPublishedTablesAreUsageErrorsWithTheirPosition) {
  TempDir dir;
  WriteTextFile(dir.path() / "bad.csv", "query,ours,theirs\nq1,4.0,fast\n");
  ProcessResult bad = RunCulprit(CheckArgs({"--check", "bad.csv"}), dir.path());
  EXPECT_EQ(bad.exit_code, 2) << DescribeRun(bad);
  EXPECT_TRUE(Contains(bad.stderr_text, "bad.csv:2:8: expected a positive number, found 'fast'"))
      << DescribeRun(bad);
  WriteTextFile(dir.path() / "three.md",
                "| query | a | b | c |\n|---|---|---|---|\n| q1 | 1 | 2 | 3 |\n");
  ProcessResult three = RunCulprit(CheckArgs({"--check", "three.md"}), dir.path());
  EXPECT_EQ(three.exit_code, 2) << DescribeRun(three);
  EXPECT_TRUE(Contains(three.stderr_text, "has 3 columns (a, b, c), the table's flags give 2"))
      << DescribeRun(three);
  WriteTextFile(dir.path() / "ok.csv", "query,ours,theirs\nq1,4,4\n");
  ProcessResult row = RunCulprit(CheckArgs({"--check", "ok.csv", "-q", "q9"}), dir.path());
  EXPECT_EQ(row.exit_code, 2) << DescribeRun(row);
  EXPECT_TRUE(Contains(row.stderr_text, "has no such row")) << DescribeRun(row);
  EXPECT_TRUE(RecordStore(dir.path() / "benchmarks/results-v1").List().records.empty());
}

}  // namespace
}  // namespace culprit
