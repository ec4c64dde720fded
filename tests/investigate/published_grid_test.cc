// The readers of `culprit table --check`'s published table (investigate/published_grid.h):
// a wide CSV, a Markdown table, culprit.published/v1 files as columns, and each error with
// its FILE:LINE:COLUMN.

#include "investigate/published_grid.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

std::string CsvError(const std::string& text) {
  auto grid = ParsePublishedGridCsv(text, "t.csv");
  if (grid) return "accepted";
  EXPECT_EQ(grid.error().kind(), ErrorKind::kUsage);
  return grid.error().message();
}

std::string MarkdownError(const std::string& text) {
  auto grid = ParsePublishedGridMarkdown(text, "t.md");
  if (grid) return "accepted";
  EXPECT_EQ(grid.error().kind(), ErrorKind::kUsage);
  return grid.error().message();
}

TEST(PublishedGrid, ReadsAWideCsv) {
  auto grid = ParsePublishedGridCsv(
      "# the v1 table\n"
      "query, ours, theirs\n"
      "q1, 4.0, 12.5 ms\n"
      "q2, 3 ms @ run-a, 2.5 ms @ run-b\n"
      "\n"
      "q3, 7, -\n"
      "q4,,n/a\n",
      "t.csv");
  ASSERT_TRUE(grid) << grid.error().message();
  EXPECT_EQ(grid->columns, (std::vector<std::string>{"ours", "theirs"}));
  EXPECT_EQ(grid->rows, (std::vector<std::string>{"q1", "q2", "q3", "q4"}));
  EXPECT_DOUBLE_EQ(*grid->cells[0][1].value, 12.5);
  EXPECT_EQ(grid->cells[0][1].unit, "ms");
  EXPECT_EQ(grid->cells[0][1].source, "t.csv:3:10");
  EXPECT_EQ(grid->cells[1][0].sitting, "run-a");
  EXPECT_EQ(grid->cells[1][1].sitting, "run-b");
  EXPECT_DOUBLE_EQ(*grid->cells[1][1].value, 2.5);
  EXPECT_FALSE(grid->cells[2][1].value);
  EXPECT_FALSE(grid->cells[3][0].value);
  EXPECT_FALSE(grid->cells[3][1].value);
}

TEST(PublishedGrid, CsvErrorsNameLineAndColumn) {
  EXPECT_EQ(CsvError("query,a,b\nq1,4,abc\n"),
            "t.csv:2:6: expected a positive number, found 'abc'");
  EXPECT_EQ(CsvError("query,a,b\nq1,4,-2\n"), "t.csv:2:6: expected a positive number, found '-2'");
  EXPECT_EQ(CsvError("query,a,b\nq1,4\n"),
            "t.csv:2:4: expected 3 fields (as the heading), found 2");
  EXPECT_EQ(CsvError("query,a,a\n"), "t.csv:1:9: column 'a' appears twice");
  EXPECT_EQ(CsvError("query,a,\n"), "t.csv:1:9: a column without a heading");
  EXPECT_EQ(CsvError("query,a\nq1,4\n"), "t.csv:1: 1 value column: a claim needs two");
  EXPECT_EQ(CsvError("query,a,b\nq1,4,5\n q1,4,5\n"), "t.csv:3:2: query 'q1' appears twice");
  EXPECT_EQ(CsvError("query,a,b\n,4,5\n"), "t.csv:2:1: the query is empty");
  EXPECT_EQ(CsvError("query,a,b\nq1,\"4\",5\n"), "t.csv:2:4: quoted fields are not supported");
  EXPECT_EQ(CsvError("query,a,b\nq1,4 ms,5 s\n"),
            "t.csv:2:9: unit 's' differs from 'ms' at t.csv:2:4");
  EXPECT_EQ(CsvError("query,a,b\nq1,4 @,5\n"),
            "t.csv:2:4: nothing after '@': expected the sitting's name");
  EXPECT_EQ(CsvError("# only a comment\n"), "t.csv: no table found");
  EXPECT_EQ(CsvError("query,a,b\n"), "t.csv: the table has no rows");
}

TEST(PublishedGrid, ReadsTheFirstMarkdownTable) {
  auto grid = ParsePublishedGridMarkdown(
      "# Results\n"
      "\n"
      "Lower is better.\n"
      "\n"
      "| query | ours | theirs |\n"
      "|:------|-----:|-------:|\n"
      "| q1    | **4.0 ms** | 12.5 ms |\n"
      "| q\\|2  | 3 @ s1 | — |\n"
      "\n"
      "| another | table |\n"
      "|---|---|\n",
      "t.md");
  ASSERT_TRUE(grid) << grid.error().message();
  EXPECT_EQ(grid->columns, (std::vector<std::string>{"ours", "theirs"}));
  EXPECT_EQ(grid->rows, (std::vector<std::string>{"q1", "q|2"}));
  EXPECT_DOUBLE_EQ(*grid->cells[0][0].value, 4.0);
  EXPECT_EQ(grid->cells[0][0].unit, "ms");
  EXPECT_EQ(grid->cells[0][1].source, "t.md:7:24");
  EXPECT_EQ(grid->cells[1][0].sitting, "s1");
  EXPECT_FALSE(grid->cells[1][1].value);
  // Without the outer pipe at the end of a row.
  auto open = ParsePublishedGridMarkdown("| q | a | b\n|---|---|---\n| q1 | 1 | 2\n", "t.md");
  ASSERT_TRUE(open) << open.error().message();
  EXPECT_DOUBLE_EQ(*open->cells[0][1].value, 2);
}

TEST(PublishedGrid, MarkdownErrorsNameLineAndColumn) {
  EXPECT_EQ(MarkdownError("| q | a | b |\n|---|---|---|\n| q1 | 4 | x |\n"),
            "t.md:3:12: expected a positive number, found 'x'");
  EXPECT_EQ(MarkdownError("| q | a | b |\n| q1 | 4 | 5 |\n"),
            "t.md:2:1: expected the delimiter row under the heading");
  EXPECT_EQ(MarkdownError("| q | a | b |\n|---|---|---|\n| q1 | 4 |\n"),
            "t.md:3:8: expected 3 fields (as the heading), found 2");
  EXPECT_EQ(MarkdownError("no table here\n"), "t.md: no Markdown table found");
}

void Write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(PublishedGrid, PublishedJsonFilesNameTheirHosts) {
  TempDir dir;
  Write(dir.path() / "a.json",
        R"({"revision": "v1.0", "unit": "ms", "host": {"hostname": "bench1", "machine_id": "m-1"},
            "rows": [{"query": "q1", "value": 4.0, "record": "r-a"}]})");
  Write(dir.path() / "b.json",
        R"({"revision": "v1.3", "unit": "ms", "host": {"hostname": "bench2"},
            "rows": [{"query": "q1", "value": 5.0, "record": "r-b"}]})");
  Write(dir.path() / "c.json",
        R"({"revision": "v1.4", "unit": "ms", "rows": [{"query": "q1", "value": 6.0}]})");
  auto grid =
      ReadPublishedGrid({dir.path() / "a.json", dir.path() / "b.json", dir.path() / "c.json"});
  ASSERT_TRUE(grid) << grid.error().message();
  EXPECT_EQ(grid->cells[0][0].host, "m-1");     // the machine id when the record has one
  EXPECT_EQ(grid->cells[0][1].host, "bench2");  // else the hostname
  EXPECT_EQ(grid->cells[0][2].host, "");        // not said
}

TEST(PublishedGrid, PublishedJsonFilesAreColumnsAndTheirRecordsTheirSittings) {
  TempDir dir;
  Write(dir.path() / "v1.0.json",
        R"({"format": "culprit.published/v1", "revision": "v1.0", "unit": "ms", "rows": [
             {"query": "q1", "value": 4.0, "record": "r-q1-a"},
             {"query": "q2", "value": 3.0, "record": "r-q2-a"}]})");
  Write(dir.path() / "v1.3.json",
        R"({"revision": "v1.3", "unit": "ms", "rows": [
             {"query": "q2", "value": 6.0, "record": "r-q2-b"},
             {"query": "q3", "value": 1.0}]})");
  auto grid = ReadPublishedGrid({dir.path() / "v1.0.json", dir.path() / "v1.3.json"});
  ASSERT_TRUE(grid) << grid.error().message();
  EXPECT_EQ(grid->columns, (std::vector<std::string>{"v1.0", "v1.3"}));
  EXPECT_EQ(grid->rows, (std::vector<std::string>{"q1", "q2", "q3"}));
  EXPECT_FALSE(grid->cells[0][1].value);  // q1 is not in v1.3's table
  EXPECT_FALSE(grid->cells[2][0].value);  // nor q3 in v1.0's
  EXPECT_EQ(grid->cells[1][0].sitting, "record r-q2-a");
  EXPECT_EQ(grid->cells[1][1].sitting, "record r-q2-b");
  EXPECT_EQ(grid->cells[2][1].sitting, "");

  // One file is one column: nothing to compare.
  auto one = ReadPublishedGrid({dir.path() / "v1.0.json"});
  ASSERT_FALSE(one);
  EXPECT_NE(one.error().message().find("one column (v1.0): a claim needs two"), std::string::npos)
      << one.error().message();
  // A heading twice across the files.
  auto twice = ReadPublishedGrid({dir.path() / "v1.0.json", dir.path() / "v1.0.json"});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message().find("column 'v1.0' is also in"), std::string::npos);
  // A CSV joined with a JSON column; units must agree across files.
  Write(dir.path() / "other.csv", "query,x,y\nq2,3 s,4 s\n");
  auto units = ReadPublishedGrid({dir.path() / "v1.0.json", dir.path() / "other.csv"});
  ASSERT_FALSE(units);
  EXPECT_NE(units.error().message().find("unit 's' differs from 'ms'"), std::string::npos)
      << units.error().message();
  auto ext = ReadPublishedGrid({dir.path() / "table.txt"});
  ASSERT_FALSE(ext);
  EXPECT_NE(ext.error().message().find("a .csv, .md or .json file"), std::string::npos);
}

}  // namespace
}  // namespace culprit
