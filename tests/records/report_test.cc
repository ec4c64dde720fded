#include "records/report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "tests/records/record_fixture.h"

namespace culprit {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

#define EXPECT_CONTAINS(text, part) EXPECT_TRUE(Contains(text, part)) << "missing: " << (part)

Record Effect() {
  Record r = FullRecord();
  r.id = "2026-11-30T120000Z-compare-series.count-beef";
  r.kind = "compare";
  r.time = "2026-11-30T12:00:00Z";
  r.verdict = "EFFECT";
  r.interrupted = false;
  r.estimate = Estimate{1.384, 1.301, 1.472, 0.95, 40, false, ""};
  return r;
}

TEST(TextReporter, ShowHasEverythingASkepticAsksFor) {
  std::string out = MakeTextReporter()->RenderOne(FullRecord());
  EXPECT_CONTAINS(out, "record 2026-11-30T101500Z-probe-series.count-1a2b");
  EXPECT_CONTAINS(out, "NULL (interrupted)");
  EXPECT_CONTAINS(out, "interval inside the ±5% band");
  EXPECT_CONTAINS(out, "PARALLEL=1/default");
  EXPECT_CONTAINS(out, "1.012 (+1.2%), 90% CI [0.991, 1.034], 20 pairs, exact");
  EXPECT_CONTAINS(out, "±3.0%");
  EXPECT_CONTAINS(out, "commit 0123456789ab");
  EXPECT_CONTAINS(out, "OMP_NUM_THREADS=2");
  EXPECT_CONTAINS(out, "unset PARALLEL");
  // Arm 0: ok samples 12.25 and 12.75 (median 12.5); warm-up and failure apart.
  EXPECT_CONTAINS(out, "median    12.50 ms  n=2 ok, 1 failed, 0 dropped, 1 warm-up");
  EXPECT_CONTAINS(out, "median    12.75 ms  n=2 ok, 0 failed, 1 dropped, 0 warm-up");
  EXPECT_CONTAINS(out, "#5 default pair 2: timed out after 60s");
  EXPECT_CONTAINS(out, "101.5 ms → 103.0 ms (drift +1.5%)");
  EXPECT_CONTAINS(out, "0.5200 → 0.6100");
  EXPECT_CONTAINS(out, "2400 MHz → 2300 MHz");
  EXPECT_CONTAINS(out, "1.250 / 0.7500 → 1.500 / 0.8000");
  EXPECT_CONTAINS(out, "20480 MiB → 19457 MiB");
  EXPECT_CONTAINS(out, "bench-1, cpu AMD EPYC 7B13, 8 logical cores, kernel 6.1.0-13-amd64");
  EXPECT_CONTAINS(out, "- second note with \"quotes\"");
  EXPECT_CONTAINS(out, "- 2026-11-30T100000Z-compare-series.count-ffff");
  EXPECT_CONTAINS(out, "culprit_commit: 89abcdef");
  EXPECT_CONTAINS(out, "0:0=30.50/w  1:0=12.25  2:1=12.50");
  EXPECT_CONTAINS(out, "5:0=FAILED");
  EXPECT_CONTAINS(out, "6:1=13.25/d");
  EXPECT_FALSE(Contains(out, "unavailable"));
}

TEST(TextReporter, MissingHostFactsAreUnavailable) {
  Record r;
  r.id = "bare";
  r.kind = "run";
  r.time = "2026-11-30T10:15:00Z";
  std::string out = MakeTextReporter()->RenderOne(r);
  EXPECT_CONTAINS(out, "calibration       unavailable → unavailable");
  EXPECT_CONTAINS(out, "load (1 min)      unavailable → unavailable");
  EXPECT_CONTAINS(out, "cpu frequency     unavailable → unavailable");
  EXPECT_CONTAINS(out, "load (5/15 min)   unavailable → unavailable");
  EXPECT_CONTAINS(out, "memory available  unavailable → unavailable");
  EXPECT_CONTAINS(out,
                  "unavailable, cpu unavailable, unavailable logical cores, kernel unavailable");
  EXPECT_CONTAINS(out, "none");
  EXPECT_FALSE(Contains(out, "drift"));
  // Nothing invents a number for what was not measured.
  EXPECT_FALSE(Contains(out, " 0 MHz"));
}

TEST(TextReporter, WarnsAboutCalibrationDrift) {
  Record r = FullRecord();
  r.end.calibration_ms = 120.0;
  std::string out = MakeTextReporter()->RenderOne(r);
  EXPECT_CONTAINS(out, "drift +18.2%) WARNING");
}

TEST(TextReporter, ListHasOneRowPerRecord) {
  std::vector<Record> records = {FullRecord(), Effect()};
  std::string out = MakeTextReporter()->RenderList(records);
  EXPECT_CONTAINS(out, "ID");
  std::regex row1(
      "2026-11-30T101500Z-probe-series.count-1a2b +probe +series.count +NULL "
      "\\(interrupted\\) +1.012 +\\[0.991, 1.034\\] +20");
  std::regex row2(
      "2026-11-30T120000Z-compare-series.count-beef +compare +series.count +EFFECT +"
      "1.384 +\\[1.301, 1.472\\] +40");
  EXPECT_TRUE(std::regex_search(out, row1)) << out;
  EXPECT_TRUE(std::regex_search(out, row2)) << out;
  EXPECT_CONTAINS(out, "2 record(s)");
  EXPECT_EQ(MakeTextReporter()->RenderList({}), "no records\n");
}

TEST(MarkdownReporter, TableRowHasVerdictAndRatio) {
  std::vector<Record> records = {FullRecord(), Effect()};
  std::string out = MakeMarkdownReporter()->RenderList(records);
  EXPECT_CONTAINS(out, "| id | time | kind | query | verdict | ratio | interval | pairs |");
  EXPECT_CONTAINS(out,
                  "| `2026-11-30T120000Z-compare-series.count-beef` | 2026-11-30T12:00:00Z | "
                  "compare | series.count | **EFFECT** | 1.384 (+38.4%) | [1.301, 1.472] | 40 |");
  EXPECT_CONTAINS(out, "**NULL (interrupted)** | 1.012 (+1.2%)");
}

TEST(MarkdownReporter, EscapesPipesInCells) {
  Record r = Effect();
  r.hypothesis = "a | b\nc";
  std::vector<Record> records = {r};
  std::string out = MakeMarkdownReporter()->RenderList(records);
  EXPECT_CONTAINS(out, "| a \\| b c |");
}

TEST(MarkdownReporter, OneRecordHasArmsFailuresAndSamples) {
  std::string out = MakeMarkdownReporter()->RenderOne(FullRecord());
  EXPECT_CONTAINS(out, "# probe series.count — NULL (interrupted)");
  EXPECT_CONTAINS(out, "| 1 | PARALLEL=1 |");
  EXPECT_CONTAINS(out, "- #5 default: timed out after 60s");
  EXPECT_CONTAINS(out, "  0 default - 30.50 warm-up\n");
  EXPECT_CONTAINS(out, "  5 default 2 - failed\n");
}

TEST(HtmlReporter, PlotsSamplesInExecutionOrder) {
  Record r = FullRecord();
  std::string out = MakeHtmlReporter()->RenderOne(r);
  EXPECT_CONTAINS(out, "<!DOCTYPE html>");
  EXPECT_CONTAINS(out, "<svg");
  EXPECT_FALSE(Contains(out, "<script"));
  // One marker per sample: 6 circles for measured values, 1 cross for the failure.
  std::regex circle("<circle class=\"sample\"");
  std::regex cross("<path class=\"failed\"");
  auto count = [&](const std::regex& re) {
    return std::distance(std::sregex_iterator(out.begin(), out.end(), re), std::sregex_iterator());
  };
  EXPECT_EQ(count(circle), 6);
  EXPECT_EQ(count(cross), 1);
  // Execution order on x: sample 0 at the left edge, sample 6 at the right.
  EXPECT_CONTAINS(out, "cx=\"64.0\" cy=");
  EXPECT_CONTAINS(out, "cx=\"704.0\" cy=");
  EXPECT_CONTAINS(out, "second note with &quot;quotes&quot;");
  // The cold warm-up (30.5 ms) does not set the scale; it is pinned and marked.
  EXPECT_CONTAINS(out, "#0 default: 30.50 ms (off scale)");
  EXPECT_FALSE(Contains(out, "#1 default: 12.25 ms (off scale)"));
}

TEST(HtmlReporter, ListHasSummaryAndOneSectionPerRecord) {
  std::vector<Record> records = {FullRecord(), Effect()};
  std::string out = MakeHtmlReporter()->RenderList(records);
  EXPECT_CONTAINS(out, "<td><b>EFFECT</b></td><td>1.384</td>");
  EXPECT_CONTAINS(out, "<section id=\"2026-11-30T120000Z-compare-series.count-beef\">");
  std::regex svg("<svg ");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(out.begin(), out.end(), svg), std::sregex_iterator()), 2);
}

TEST(JsonReporter, ExportIsAnArrayOfRecordsThatReadBack) {
  std::vector<Record> records = {FullRecord(), Effect()};
  std::string out = MakeJsonReporter()->RenderList(records);
  auto doc = nlohmann::json::parse(out);
  ASSERT_TRUE(doc.is_array());
  ASSERT_EQ(doc.size(), 2u);
  auto back = RecordFromJson(doc[1].dump(), "export");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->verdict, "EFFECT");
  EXPECT_EQ(back->estimate->ratio, 1.384);
  EXPECT_EQ(MakeJsonReporter()->RenderList({}), "[]\n");
  EXPECT_EQ(MakeJsonReporter()->RenderOne(records[0]), RecordToJson(records[0]));
}

}  // namespace
}  // namespace culprit
