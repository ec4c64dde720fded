// `culprit table --rev A --rev B ...` on a temporary git repository: revisions built through
// the build cache, as compare builds them, every configured query a row. The engine is a tiny
// C program that times its own loop for the query it is given; the second commit makes the
// loop of one query three times longer, the third does not compile.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/process.h"
#include "records/record_store.h"
#include "records/table_payload.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

// Loops FAST iterations for "fast" and SLOW for "slow", 5 times; prints the median time.
std::string Program(long fast, long slow, const std::string& extra = "") {
  return "#include <stdio.h>\n#include <string.h>\n#include <time.h>\n" + extra +
         R"(
static double NowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  long n = argc > 1 && strcmp(argv[1], "slow") == 0 ? )" +
         std::to_string(slow) + "L : " + std::to_string(fast) + R"(L;
  double ms[5];
  volatile unsigned long sink = 0;
  for (int r = 0; r < 5; ++r) {
    double start = NowMs();
    unsigned long x = sink + r + 1;
    for (long i = 0; i < n; ++i) {
      x = x * 6364136223846793005UL + 1442695040888963407UL;
      x ^= x >> 29;
    }
    sink = x;
    ms[r] = NowMs() - start;
  }
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j)
      if (ms[j] < ms[i]) { double t = ms[i]; ms[i] = ms[j]; ms[j] = t; }
  printf("median_ms=%.4f\n", ms[2]);
  return 0;
}
)";
}

// At 99.99% (family-wise), so that "the fast row is no EFFECT" holds on a loaded host: a cell
// of no change is a wrong EFFECT at most at the table's α, and a loaded host spends a share of
// it (docs/statistics.md). The slow row's ×3 is an EFFECT there too.
TEST(TableRevisionsCli, RevisionsAreColumnsAndABrokenBuildIsAColumnNotMeasured) {
  TempDir dir;
  GitFixture repo(dir.path() / "engine");
  const std::string base = repo.Commit({{"main.c", Program(1000000, 1000000)}}, {}, "base");
  const std::string change = repo.Commit({{"main.c", Program(1000000, 3000000)}}, {}, "slow");
  const std::string broken =
      repo.Commit({{"main.c", Program(1000000, 3000000, "int broken(void) { return nope; }\n")}},
                  {}, "does not compile");
  WriteTextFile(dir.path() / "culprit.toml", R"([engine]
repo = "engine"
build = [["cc", "-O1", "-o", "prog", "main.c"]]
artifacts = ["prog"]
build_timeout = "60s"

[queries.fast]
command = ["{artifact:prog}", "fast"]
metric = { regex = 'median_ms=([0-9.]+)' }

[queries.slow]
command = ["{artifact:prog}", "slow"]
metric = { regex = 'median_ms=([0-9.]+)' }

[measure]
max_pairs = 40
confidence = 0.9999

[records]
dir = "records"

[cache]
dir = "cache"
)");
  ProcessResult r = RunCulprit({"table", "--rev", base, "--rev", change, "--rev", broken, "--seed",
                                "5", "--format", "markdown"},
                               dir.path());
  // A column could not be measured: the table is printed, then the error (exit 1).
  EXPECT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "| query |")) << DescribeRun(r);
  std::vector<Record> records = RecordStore(dir.path() / "records").List().records;
  ASSERT_EQ(records.size(), 1u) << DescribeRun(r);
  std::optional<TableFacts> facts = ReadTableFacts(records[0]);
  ASSERT_TRUE(facts);
  ASSERT_EQ(facts->rows.size(), 2u);
  EXPECT_EQ(facts->rows[0].query, "fast");
  ASSERT_EQ(facts->arms.size(), 3u);
  EXPECT_EQ(facts->arms[1].name, change);
  const std::string table = TableFactsText(*facts);
  EXPECT_EQ(facts->Cell(1, 1)->verdict, "EFFECT") << table;
  EXPECT_NE(facts->Cell(0, 1)->verdict, "EFFECT") << table;
  for (int row : {0, 1}) {
    EXPECT_EQ(facts->Cell(row, 2)->status, "not measured") << table;
    EXPECT_TRUE(Contains(facts->Cell(row, 2)->error, "its build")) << table;
  }
  // Each arm of the record carries its build's commit.
  EXPECT_EQ(records[0].arms[1].commit, change);
  EXPECT_EQ(records[0].arms[4].commit, change);
  EXPECT_EQ(records[0].arms[3].commit, base);
}

}  // namespace
}  // namespace culprit
