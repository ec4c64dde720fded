#include "records/table_payload.h"

#include <gtest/gtest.h>

#include <string>

#include "records/report.h"
#include "records/report_facts.h"

namespace culprit {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TableFacts Example() {
  TableFacts f;
  f.rows = {{"q1", "ms", 12}, {"q2", "ms", 40}};
  f.arms = {{"v1.0", "revision v1.0"}, {"HEAD", "revision HEAD"}};
  TableCellFacts base0;
  base0.row = 0;
  base0.status = "baseline";
  base0.median = 10.5;
  TableCellFacts c01;
  c01.row = 0;
  c01.arm = 1;
  c01.verdict = "EFFECT";
  c01.ratio = 2.01;
  c01.low = 1.95;
  c01.high = 2.08;
  c01.confidence = 0.9875;
  c01.pairs = 12;
  c01.decided_blocks = 12;
  c01.median = 21.1;
  TableCellFacts base1 = base0;
  base1.row = 1;
  TableCellFacts c11;
  c11.row = 1;
  c11.arm = 1;
  c11.status = "not measured";
  c11.error = "every warm-up run failed, \"boom\"";
  f.cells = {base0, c01, base1, c11};
  f.means = {{1, 2.01, 1.9, 2.1, 0.95, 1}};
  f.cell_alpha = 0.025;
  f.cells_tested = 2;
  f.looks = {12, 40};
  return f;
}

TEST(TablePayloadTest, ReadsBackWhatItWrites) {
  Record record;
  record.kind = RecordKind::kTable;
  record.details_json = TableFactsToJson(Example());
  std::optional<TableFacts> read = ReadTableFacts(record);
  ASSERT_TRUE(read);
  EXPECT_EQ(TableFactsText(*read), TableFactsText(Example()));
  EXPECT_EQ(TableFactsCsv(*read), TableFactsCsv(Example()));
  EXPECT_EQ(read->looks, (std::vector<int>{12, 40}));
  EXPECT_FALSE(ReadTableFacts(Record{}));
  record.details_json = "[1, 2]";
  EXPECT_FALSE(ReadTableFacts(record));
}

TEST(TablePayloadTest, TheTextPutsRatiosFirstAndLabelsTheMedians) {
  const std::string text = TableFactsText(Example());
  EXPECT_TRUE(Has(text, "2.010 [1.950, 2.080] EFFECT")) << text;
  EXPECT_TRUE(Has(text, "Bonferroni over 2 cells")) << text;
  EXPECT_TRUE(Has(text, "this sitting's medians")) << text;
  EXPECT_TRUE(Has(text, "q2 × HEAD: not measured: every warm-up run failed")) << text;
  EXPECT_LT(text.find("EFFECT"), text.find("this sitting's medians"));
}

// An undecided cell's verdict says why, and how many blocks would settle it: the table
// prints it under the medians (a reader seeing [0.999, 1.043] INCONCLUSIVE in a ±5% band
// otherwise has to open the record to learn that the mean's slow tail held it back).
TableFacts WithUndecidedCells() {
  TableFacts f = Example();
  f.cells[3] =
      TableCellFacts{.row = 1,
                     .arm = 1,
                     .status = "measured",
                     .verdict = "INCONCLUSIVE",
                     .explanation =
                         "real, possibly beyond the band: +5.7% [+4.2%, +7.5%] crosses the edge of "
                         "the ±5% band; collect more pairs (--max-pairs 336)",
                     .error = "",
                     .ratio = 1.057,
                     .low = 1.042,
                     .high = 1.075,
                     .confidence = 0.9875,
                     .pairs = 40,
                     .median = 11.1};
  return f;
}

TEST(TablePayloadTest, AnUndecidedCellSaysWhyAndWhatWouldSettleIt) {
  const TableFacts f = WithUndecidedCells();
  const std::string text = TableFactsText(f);
  const std::string line =
      "q2 × HEAD: real, possibly beyond the band: +5.7% [+4.2%, +7.5%] crosses the edge of the "
      "±5% band; collect more pairs (--max-pairs 336)";
  EXPECT_TRUE(Has(text, "the undecided cells, and why\n" + line + "\n")) << text;
  EXPECT_LT(text.find("this sitting's medians"), text.find("the undecided cells"));
  // Markdown escapes the interval's brackets.
  const std::string md = TableFactsMarkdown(f);
  EXPECT_TRUE(Has(md, "The undecided cells, and why:\n\n- q2 × HEAD: real, possibly beyond")) << md;
  EXPECT_TRUE(Has(md, "±5% band; collect more pairs (--max-pairs 336)\n")) << md;
  // A decided table has no such section.
  EXPECT_FALSE(Has(TableFactsText(Example()), "undecided cells")) << TableFactsText(Example());
}

TEST(TablePayloadTest, AnUndecidedCellsClaimLineIsItsOnlyExplanation) {
  TableFacts f = WithUndecidedCells();
  f.check_source = "published.csv";
  f.claims = {TableClaimFacts{
      .row = 1,
      .arm = 1,
      .label = "undecided",
      .published = 11.55,
      .published_baseline = 10.5,
      .published_ratio = 1.1,
      .sittings = "one sitting",
      .explanation = "published ×1.100, measured ×1.057: " + f.cells[3].explanation}};
  const std::string text = TableFactsText(f);
  EXPECT_FALSE(Has(text, "the undecided cells, and why")) << text;
  EXPECT_TRUE(Has(text, "q2 × HEAD: undecided: published ×1.100")) << text;
  // The explanation is printed once, on the claim's line.
  const std::string why = "collect more pairs (--max-pairs 336)";
  EXPECT_EQ(text.find(why), text.rfind(why)) << text;
}

TEST(TablePayloadTest, CsvHasOneQuotedLinePerCell) {
  const std::string csv = TableFactsCsv(Example());
  EXPECT_TRUE(Has(csv, "query,arm,status,verdict,ratio")) << csv;
  EXPECT_TRUE(Has(csv, "q1,HEAD,measured,EFFECT,2.01,1.95,2.08,0.9875,12,12,21.1,ms,0,0,\n"))
      << csv;
  EXPECT_TRUE(Has(csv, "\"every warm-up run failed, \"\"boom\"\"\"")) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
}

TEST(TablePayloadTest, CheckedClaimsReadBackAndPrintInEveryFormat) {
  TableFacts f = Example();
  f.check_source = "published.csv";
  TableClaimFacts holds;
  holds.row = 0;
  holds.arm = 1;
  holds.label = "holds";
  holds.published = 12;
  holds.published_baseline = 6;
  holds.published_ratio = 2;
  holds.sittings = "two unrelated numbers divided";
  holds.explanation = "published ×2.000, measured ×2.010 [1.950, 2.080]: beyond the band";
  TableClaimFacts unchecked;
  unchecked.row = 1;
  unchecked.arm = 1;
  unchecked.label = "not checked";
  unchecked.sittings = "not stated";
  unchecked.explanation = "not measured: every warm-up run failed";
  f.claims = {holds, unchecked};
  Record record;
  record.kind = RecordKind::kTable;
  record.details_json = TableFactsToJson(f);
  std::optional<TableFacts> read = ReadTableFacts(record);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->check_source, "published.csv");
  ASSERT_EQ(read->claims.size(), 2u);
  EXPECT_EQ(read->claims[0].published_ratio, 2);
  EXPECT_EQ(TableFactsText(*read), TableFactsText(f));

  const std::string text = TableFactsText(f);
  EXPECT_TRUE(Has(text, "published claims (published.csv): each column against v1.0")) << text;
  EXPECT_TRUE(Has(text, "q1 × HEAD: holds: published ×2.000")) << text;
  EXPECT_TRUE(Has(text, "two sittings: two unrelated numbers divided")) << text;
  EXPECT_TRUE(Has(text, "claims: 1 holds, 1 not checked of 2")) << text;
  const std::string md = TableFactsMarkdown(f);
  EXPECT_TRUE(Has(md, "| query | column | published ratio | re-measured | claim |")) << md;
  const std::string csv = TableFactsCsv(f);
  EXPECT_TRUE(Has(csv, ",error,claim,published_ratio,published_sittings\n")) << csv;
  EXPECT_TRUE(Has(csv, ",holds,2,two unrelated numbers divided\n")) << csv;
  // Two hosts' numbers divided: said as such.
  f.claims[0].sittings = "cross-host: two hosts' numbers divided";
  const std::string cross = TableFactsText(f);
  EXPECT_TRUE(Has(cross, "its published values came from two hosts: a cross-host ratio")) << cross;
  // A table that checks nothing keeps its CSV columns and prints no claims.
  EXPECT_FALSE(Has(TableFactsText(Example()), "published claims"));
  EXPECT_FALSE(Has(TableFactsCsv(Example()), ",claim,"));
}

TEST(TablePayloadTest, MarkdownEscapesCells) {
  TableFacts f = Example();
  f.arms[1].name = "a|b";
  const std::string md = TableFactsMarkdown(f);
  EXPECT_TRUE(Has(md, "a\\|b")) << md;
  EXPECT_TRUE(Has(md, "| query |")) << md;
}

TEST(TablePayloadTest, EveryReporterShowsTheTable) {
  Record record;
  record.id = "t1";
  record.kind = RecordKind::kTable;
  record.query = "q1,q2";
  record.details_json = TableFactsToJson(Example());
  const std::string text = MakeTextReporter()->RenderOne(record);
  EXPECT_TRUE(Has(text, "2.010 [1.950, 2.080] EFFECT")) << text;
  const std::string md = MakeMarkdownReporter()->RenderOne(record);
  EXPECT_TRUE(Has(md, "## Table")) << md;
  // HTML: a forest plot per arm (the queries and the geometric mean as bars over the band).
  const std::string html = MakeHtmlReporter()->RenderOne(record);
  EXPECT_TRUE(Has(html, "HEAD / v1.0, per query")) << html;
  EXPECT_TRUE(Has(html, "geometric mean")) << html;
  EXPECT_TRUE(Has(html, "not measured")) << html;
  EXPECT_TRUE(Has(html, "<svg")) << html;
  // The listing's row says the table's shape and its columns, not its first cells.
  EXPECT_EQ(ArmsSummary(record), "2 queries × v1.0, HEAD");
}

}  // namespace
}  // namespace culprit
