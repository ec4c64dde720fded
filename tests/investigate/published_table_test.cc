// The published number's readers: plain values, run records, JSON and CSV
// tables, and each of their errors (FILE:LINE for CSV).

#include "investigate/published_table.h"

#include <gtest/gtest.h>

#include <string>

namespace culprit {
namespace {

std::string CsvError(const std::string& text) {
  auto rows = ParsePublishedTable(text, "t.csv", TableFormat::kCsv);
  if (rows) return "accepted";
  EXPECT_EQ(rows.error().kind(), ErrorKind::kUsage);
  return rows.error().message();
}

std::string JsonError(const std::string& text) {
  auto rows = ParsePublishedTable(text, "t.json", TableFormat::kJson);
  if (rows) return "accepted";
  EXPECT_EQ(rows.error().kind(), ErrorKind::kUsage);
  return rows.error().message();
}

TEST(PublishedValue, PositiveNumbersOnly) {
  EXPECT_DOUBLE_EQ(*ParsePublishedValue("59.0", "--published"), 59.0);
  EXPECT_DOUBLE_EQ(*ParsePublishedValue(" 1e2 ", "--published"), 100.0);
  for (const char* bad : {"0", "-3", "abc", "", "59ms", "nan", "inf"}) {
    auto v = ParsePublishedValue(bad, "--published");
    ASSERT_FALSE(v) << bad;
    EXPECT_EQ(v.error().message(),
              std::string("--published '") + bad + "' is not a positive number");
  }
}

TEST(PublishedTable, ReadsCsv) {
  auto rows = ParsePublishedTable(
      "# published v1.0\nquery,value,revision,calibration_ms\nseries.count,59.0,v1.0,101.5\n"
      "path.traverse, 12.5 ,v1.0,\n",
      "t.csv", TableFormat::kCsv);
  ASSERT_TRUE(rows) << rows.error().message();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].query, "series.count");
  EXPECT_DOUBLE_EQ((*rows)[0].value, 59.0);
  EXPECT_EQ((*rows)[0].revision, "v1.0");
  EXPECT_DOUBLE_EQ(*(*rows)[0].calibration_ms, 101.5);
  EXPECT_EQ((*rows)[0].source, "t.csv:3");
  EXPECT_DOUBLE_EQ((*rows)[1].value, 12.5);
  EXPECT_FALSE((*rows)[1].calibration_ms);
}

TEST(PublishedTable, CsvErrors) {
  EXPECT_EQ(CsvError(""), "t.csv: the table is empty");
  EXPECT_EQ(CsvError("query,value,revision\n"), "t.csv: the table has no rows");
  EXPECT_EQ(CsvError("query,valeu,revision\n"),
            "t.csv:1: unknown column 'valeu', did you mean 'value'?");
  EXPECT_EQ(CsvError("query,value\n"), "t.csv:1: the header has no 'revision' column");
  EXPECT_EQ(CsvError("query,value,revision\na,1,v1\nb,-2,v1\n"),
            "t.csv:3: value: expected a positive number, found '-2'");
  EXPECT_EQ(CsvError("query,value,revision\na,1\n"),
            "t.csv:2: expected 3 fields (as the header on its first line), found 2");
  EXPECT_EQ(CsvError("query,value,revision\na,1,\n"), "t.csv:2: the revision is empty");
  EXPECT_EQ(CsvError("query,value,revision\n\"a\",1,v1\n"),
            "t.csv:2: quoted fields are not supported");
  EXPECT_EQ(CsvError("query,value,revision\na,1,v1\na,2,v1\n"),
            "t.csv:3: query 'a' appears twice; each query has one published value");
  EXPECT_EQ(CsvError("query,value,revision,calibration_ms\na,1,v1,fast\n"),
            "t.csv:2: calibration_ms: expected a positive number, found 'fast'");
}

TEST(PublishedTable, ReadsJson) {
  auto rows = ParsePublishedTable(
      R"({"format": "culprit.published/v1", "revision": "v1.0", "unit": "ms",
          "calibration_ms": 100.0, "host": {"hostname": "bench1", "cpu_model": "X"},
          "rows": [{"query": "series.count", "value": 59.0, "record": "r1"},
                   {"query": "path.traverse", "value": 12.0, "revision": "v1.1",
                    "calibration_ms": 99.0}]})",
      "t.json", TableFormat::kJson);
  ASSERT_TRUE(rows) << rows.error().message();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].revision, "v1.0");
  EXPECT_EQ((*rows)[0].unit, "ms");
  EXPECT_EQ((*rows)[0].record_id, "r1");
  EXPECT_DOUBLE_EQ(*(*rows)[0].calibration_ms, 100.0);
  EXPECT_EQ((*rows)[0].host->hostname, "bench1");
  EXPECT_EQ((*rows)[1].revision, "v1.1");
  EXPECT_DOUBLE_EQ(*(*rows)[1].calibration_ms, 99.0);
}

TEST(PublishedTable, JsonErrors) {
  EXPECT_EQ(JsonError("{\n  \"rows\": [,]\n}"), "t.json:2:12: not valid JSON");
  EXPECT_EQ(JsonError("[]"), "t.json: expected a JSON object with \"rows\"");
  EXPECT_EQ(JsonError(R"({"revision": "v1", "rowz": []})"),
            "t.json: unknown key \"rowz\", did you mean 'rows'?");
  EXPECT_EQ(JsonError(R"({"revision": "v1"})"),
            "t.json: expected \"rows\": an array of {\"query\", \"value\"}");
  EXPECT_EQ(JsonError(R"({"revision": "v1", "rows": []})"), "t.json: the table has no rows");
  EXPECT_EQ(JsonError(R"({"revision": "v1", "rows": [{"query": "a", "value": 0}]})"),
            "t.json: rows[0].value: expected a positive number, found 0");
  EXPECT_EQ(JsonError(R"({"revision": "v1", "rows": [{"query": "a", "value": "59"}]})"),
            "t.json: rows[0].value: expected a positive number, found \"59\"");
  EXPECT_EQ(JsonError(R"({"revision": "v1", "rows": [{"query": "a"}]})"),
            "t.json: rows[0].value: missing; expected the published number");
  EXPECT_EQ(JsonError(R"({"rows": [{"query": "a", "value": 1}]})"),
            "t.json: rows[0]: no revision (neither the row's nor the table's)");
  EXPECT_EQ(JsonError(R"({"format": "culprit.published/v9", "rows": []})"),
            "t.json: format 'culprit.published/v9' is not supported (this culprit reads "
            "culprit.published/v1)");
}

// A third party's table with a value nested 100k deep overflowed the stack when the
// error showed it (`audit --table`): refused before parsing, with the limit said.
TEST(PublishedTable, RefusesJsonNestedTooDeep) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(JsonError(R"({"revision": "v1", "calibration_ms": )" + deep +
                      R"(, "rows": [{"query": "a", "value": 1}]})"),
            "t.json: not read: JSON nested more than 512 levels deep, the most culprit reads");
  EXPECT_EQ(JsonError(R"({"revision": "v1", "rows": [{"query": "a", "value": )" + deep + "}]}"),
            "t.json: not read: JSON nested more than 512 levels deep, the most culprit reads");
  // Brackets inside strings are text, not nesting.
  EXPECT_EQ(JsonError(R"({"revision": ")" + std::string(1000, '[') +
                      R"(", "rows": [{"query": "a", "value": 0}]})"),
            "t.json: rows[0].value: expected a positive number, found 0");
  // Within the limit, a wrong value is shown short.
  const std::string shallow = std::string(300, '[') + std::string(300, ']');
  EXPECT_EQ(
      JsonError(R"({"revision": "v1", "calibration_ms": )" + shallow +
                R"(, "rows": [{"query": "a", "value": 1}]})"),
      "t.json.calibration_ms: expected a positive number, found " + std::string(80, '[') + "...");
}

// Commit subjects, units or hosts in Latin-1 made dump() throw: written, replaced.
TEST(PublishedTable, WritesInvalidUtf8Replaced) {
  std::vector<PublishedNumber> rows(1);
  rows[0].query = "series.count";
  rows[0].value = 59.25;
  rows[0].revision = "caf\xe9";
  rows[0].unit = "ms";
  std::string text = PublishedTableToJson(rows, "culprit publish --rev caf\xe9");
  auto back = ParsePublishedTable(text, "t.json", TableFormat::kJson);
  ASSERT_TRUE(back) << back.error().message() << "\n" << text;
  EXPECT_EQ((*back)[0].revision, "caf\xef\xbf\xbd");
}

TEST(PublishedTable, FileNameSaysTheFormat) {
  auto rows = ReadPublishedTable("/nonexistent/table.txt");
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().message(),
            "/nonexistent/table.txt: a published table is a .json or a .csv file");
  EXPECT_EQ(ReadPublishedTable("/nonexistent/table.csv").error().kind(), ErrorKind::kUsage);
}

TEST(PublishedTable, FindsARow) {
  std::vector<PublishedNumber> table(2);
  table[0].query = "series.count";
  table[1].query = "path.traverse";
  EXPECT_EQ(FindPublishedRow(table, "path.traverse", "t.json")->query, "path.traverse");
  EXPECT_EQ(FindPublishedRow(table, "series.cont", "t.json").error().message(),
            "t.json has no row for query 'series.cont', did you mean 'series.count'?");
}

TEST(PublishedTable, WritesWhatItReads) {
  std::vector<PublishedNumber> rows(2);
  rows[0].query = "series.count";
  rows[0].value = 59.25;
  rows[0].calibration_ms = 101.5;
  rows[0].record_id = "r1";
  rows[1].query = "path.traverse";
  rows[1].value = 12.0;
  for (PublishedNumber& r : rows) {
    r.revision = "v1.0";
    r.commit = "abc";
    r.unit = "ms";
    r.host = HostIdentity{"bench1", "cpu", "6.1", 2, std::nullopt};
  }
  std::string text = PublishedTableToJson(rows, "culprit publish --rev v1.0 -o t.json");
  auto back = ParsePublishedTable(text, "t.json", TableFormat::kJson);
  ASSERT_TRUE(back) << back.error().message() << "\n" << text;
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].query, "series.count");
  EXPECT_DOUBLE_EQ((*back)[0].value, 59.25);
  EXPECT_DOUBLE_EQ(*(*back)[0].calibration_ms, 101.5);
  EXPECT_EQ((*back)[0].record_id, "r1");
  EXPECT_EQ((*back)[1].revision, "v1.0");
  EXPECT_EQ((*back)[1].commit, "abc");
  EXPECT_EQ((*back)[1].unit, "ms");
  EXPECT_FALSE((*back)[1].calibration_ms);
  EXPECT_EQ((*back)[1].host->hostname, "bench1");
}

Record RunRecord() {
  Record r;
  r.id = "2026-12-01T100000Z-run-q-0001";
  r.kind = RecordKind::kRun;
  r.query = "q";
  r.unit = "ms";
  Arm arm;
  arm.revision = "v1.0";
  arm.commit = "0123456789abcdef0123456789abcdef01234567";
  r.arms = {arm};
  r.start.calibration_ms = 100.5;
  r.host.hostname = "bench1";
  for (int i = 0; i < 5; ++i) {
    Sample s;
    s.sequence = i;
    s.value = 10 + i;
    s.warmup = i == 0;
    r.samples.push_back(s);
  }
  return r;
}

TEST(PublishedFromRecord, TakesCommitCalibrationHostAndSamples) {
  Record r = RunRecord();
  auto n = PublishedFromRecord(r, "record x");
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_EQ(n->query, "q");
  EXPECT_EQ(n->commit, r.arms[0].commit);
  EXPECT_EQ(n->revision, "v1.0");
  EXPECT_DOUBLE_EQ(*n->calibration_ms, 100.5);
  EXPECT_EQ(n->host->hostname, "bench1");
  EXPECT_EQ(n->samples, (std::vector<double>{11, 12, 13, 14}));  // the warm-up is not published
  EXPECT_DOUBLE_EQ(n->value, 12.5);
  r.details["median"] = "12.25";
  EXPECT_DOUBLE_EQ(PublishedFromRecord(r, "record x")->value, 12.25);
}

TEST(PublishedFromRecord, Errors) {
  Record r = RunRecord();
  r.kind = RecordKind::kCompare;
  EXPECT_EQ(PublishedFromRecord(r, "record x").error().message(),
            "record x: a published record is a `culprit run` record (one arm); this one is a "
            "compare");
  r = RunRecord();
  for (Sample& s : r.samples) s.ok = false;
  EXPECT_EQ(PublishedFromRecord(r, "record x").error().message(),
            "record x: the record has no successful sample to publish");
  r = RunRecord();
  r.arms[0].commit = "";
  EXPECT_EQ(PublishedFromRecord(r, "record x").error().message(),
            "record x: the record measured a working tree, not a commit: it cannot be "
            "re-measured");
}

}  // namespace
}  // namespace culprit
