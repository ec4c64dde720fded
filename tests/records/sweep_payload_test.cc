// A sweep record's facts: kept beside the table's in details_json, read back, and printed
// the same way by `culprit sweep` and `culprit records show`.

#include "records/sweep_payload.h"

#include <gtest/gtest.h>

#include <string>

#include "records/report.h"
#include "records/table_payload.h"

namespace culprit {
namespace {

SweepFacts Example() {
  SweepFacts f;
  f.good = "v1.0";
  f.bad = "v1.3";
  f.commits = 12;
  f.selection = "every 4 commits";
  f.band = 0.1;
  f.step_confidence = 0.99;
  SweepQueryFacts q;
  q.query = "loop";
  for (int i = 0; i <= 12; i += 4) {
    SweepPointFacts p;
    p.index = i;
    p.commit = std::string(40, static_cast<char>('a' + i / 4));
    p.short_id = p.commit.substr(0, 10);
    if (i > 0) {
      p.ratio = i >= 8 ? 2.5 : 1.0;
      p.low = *p.ratio - 0.01;
      p.high = *p.ratio + 0.01;
      p.verdict = i >= 8 ? "EFFECT" : "NULL";
    }
    q.points.push_back(p);
  }
  q.points[3].measured = false;
  q.points[3].error = "its build: does not build\nlast lines of the build log";
  q.parts.push_back({"tie", 0, 1, 4, 1.0, 0.99, 1.01, 1, ""});
  q.parts.push_back({"change", 1, 2, 4, 2.5, 2.45, 2.55, 0.97,
                     "culprit bisect run --good bbbbbbbbbb --bad cccccccccc -q loop"});
  f.queries.push_back(q);
  return f;
}

TEST(SweepPayload, RoundTripsBesideTheTableFacts) {
  Record record;
  record.kind = RecordKind::kSweep;
  record.details_json = SweepFactsToJson(R"({"cells":[],"rows":[]})", Example());
  EXPECT_TRUE(ReadTableFacts(record).has_value());  // the table's facts are still there
  std::optional<SweepFacts> read = ReadSweepFacts(record);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->good, "v1.0");
  EXPECT_EQ(read->selection, "every 4 commits");
  ASSERT_EQ(read->queries.size(), 1u);
  ASSERT_EQ(read->queries[0].points.size(), 4u);
  EXPECT_FALSE(read->queries[0].points[3].measured);
  ASSERT_EQ(read->queries[0].parts.size(), 2u);
  EXPECT_EQ(read->queries[0].parts[1].kind, "change");
  EXPECT_DOUBLE_EQ(*read->queries[0].parts[1].ratio, 2.5);
  EXPECT_EQ(read->queries[0].parts[1].command, Example().queries[0].parts[1].command);
}

// A commit subject in Latin-1 (an old repository's) is written, replaced, never thrown on:
// nlohmann's dump() throws on invalid UTF-8, and a sweep's record would be lost with it.
TEST(SweepPayload, ASubjectThatIsNotUtf8IsWrittenNotThrownOn) {
  SweepFacts facts = Example();
  facts.queries[0].points[1].subject = "R\xe9sum\xe9 the scan";
  Record record;
  record.kind = RecordKind::kSweep;
  record.details_json = SweepFactsToJson(R"({"cells":[],"rows":[]})", facts);
  std::optional<SweepFacts> read = ReadSweepFacts(record);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->queries[0].points[1].subject, "R\uFFFDsum\uFFFD the scan");
}

TEST(SweepPayload, NoSweepFactsInATableRecord) {
  Record record;
  record.details_json = R"({"cells":[]})";
  EXPECT_FALSE(ReadSweepFacts(record));
  record.details_json = "not json";
  EXPECT_FALSE(ReadSweepFacts(record));
}

TEST(SweepPayload, TextSaysWhereItMovedAndTheBisectOfThatPart) {
  const std::string text = SweepFactsText(Example());
  EXPECT_NE(text.find("sweep v1.0..v1.3: 12 commits after the start"), std::string::npos) << text;
  EXPECT_NE(text.find("moved ×2.500 [2.450, 2.550] between #4 bbbbbbbbbb and #8 cccccccccc "
                      "(4 commits)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    culprit bisect run --good bbbbbbbbbb --bad cccccccccc -q loop"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("no change beyond the band (10%) between #0"), std::string::npos) << text;
  // A point not measured says why on one line.
  EXPECT_NE(text.find("not measured: its build: does not build\n"), std::string::npos) << text;
  const std::string md = SweepFactsMarkdown(Example());
  EXPECT_NE(md.find("- `culprit bisect run --good bbbbbbbbbb"), std::string::npos) << md;
  EXPECT_NE(md.find("| 8 | `cccccccccc` | ×2.500 [2.490, 2.510]  EFFECT |"), std::string::npos)
      << md;
}

TEST(SweepPayload, RecordsShowPrintsTheSweepAndTheHtmlReportPlotsEachSeries) {
  Record record;
  record.id = "2026-12-04T000000Z-sweep-loop-0001";
  record.kind = RecordKind::kSweep;
  record.query = "loop";
  record.verdict = Verdict::kEffect;
  record.details_json = SweepFactsToJson(R"({"cells":[],"rows":[]})", Example());
  const std::string text = MakeTextReporter()->RenderOne(record);
  EXPECT_NE(text.find("  culprit bisect run --good bbbbbbbbbb --bad cccccccccc -q loop"),
            std::string::npos)
      << text;
  const std::string md = MakeMarkdownReporter()->RenderOne(record);
  EXPECT_NE(md.find("## Sweep"), std::string::npos) << md;
  const std::string html = MakeHtmlReporter()->RenderOne(record);
  EXPECT_NE(html.find("loop: ratio to the start"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("moved ×2.500"), std::string::npos);
  EXPECT_NE(html.find("not measured"), std::string::npos);
}

}  // namespace
}  // namespace culprit
