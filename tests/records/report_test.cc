#include "records/report.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "base/strings.h"
#include "records/report_facts.h"
#include "tests/records/record_fixture.h"
#include "tests/records/report_examples.h"
#include "tests/records/svg_check.h"

namespace culprit {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

#define EXPECT_CONTAINS(text, part) EXPECT_TRUE(Contains(text, part)) << "missing: " << (part)

Record Effect() {
  Record r = FullRecord();
  r.id = "2026-11-30T120000Z-compare-series.count-beef";
  r.kind = RecordKind::kCompare;
  r.time = "2026-11-30T12:00:00Z";
  r.verdict = Verdict::kEffect;
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
  r.kind = RecordKind::kRun;
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
  // Each row says what it compared, with this sitting's medians.
  std::regex row1(
      "2026-11-30T101500Z-probe-series.count-1a2b +probe +series.count +"
      "as configured 12.50 ms → override 12.75 ms +NULL "
      "\\(interrupted\\) +1.012 +\\[0.991, 1.034\\] +20");
  std::regex row2(
      "2026-11-30T120000Z-compare-series.count-beef +compare +series.count +"
      "as configured 12.50 ms → override 12.75 ms +EFFECT +"
      "1.384 +\\[1.301, 1.472\\] +40");
  EXPECT_TRUE(std::regex_search(out, row1)) << out;
  EXPECT_TRUE(std::regex_search(out, row2)) << out;
  EXPECT_CONTAINS(out, "\n2 records\n");
  EXPECT_EQ(MakeTextReporter()->RenderList({}), "no records\n");
}

TEST(TextReporter, ListKeepsATablesManyQueriesToOneNarrowColumn) {
  // A table's record names every query it measured; the list shows the ones that fit in 32
  // characters and how many more, `records show` all of them.
  Record table = FullRecord();
  std::vector<std::string> names;
  for (int i = 1; i <= 20; ++i) names.push_back(fmt::format("series.q{:02}", i));
  table.query = Join(names, ",");
  Record one_long = Effect();
  one_long.query = std::string(40, 'q');
  std::vector<Record> records = {table, one_long};
  const std::string out = MakeTextReporter()->RenderList(records);
  EXPECT_CONTAINS(out, " series.q01,series.q02 +18 more ");
  EXPECT_FALSE(Contains(out, "series.q03")) << out;
  EXPECT_CONTAINS(out, " " + std::string(29, 'q') + "... ");
  EXPECT_CONTAINS(MakeTextReporter()->RenderOne(table), "series.q03,series.q04");
}

TEST(TextReporter, ListClipsAHypothesisAtACharacterAndKeepsItsColumnsInLine) {
  // Clipped by bytes, a "×" at the cut printed as half a character; padded by bytes, every
  // "×", "→" or "ê" pushed the columns after it out of line with the other rows'.
  Record a = FullRecord();
  a.hypothesis = std::string(46, 'h') +
                 "\xc3\x97"
                 "2 in 15% of the runs, and more words";
  a.query = "requ\xc3\xaate.count";  // "requête.count": ê is two bytes
  Record b = Effect();
  b.hypothesis = "short";
  std::vector<Record> records = {a, b};
  const std::string out = MakeTextReporter()->RenderList(records);
  EXPECT_CONTAINS(out, std::string(46, 'h') + "\xc3\x97...\n");
  // The VERDICT column starts at the same character in every row.
  std::vector<size_t> starts;
  for (std::string_view line : SplitLines(out)) {
    for (std::string_view verdict : {"VERDICT", "NULL", "EFFECT"}) {
      const size_t at = line.find(verdict);
      if (at != std::string_view::npos) starts.push_back(TextWidth(line.substr(0, at)));
    }
  }
  ASSERT_EQ(starts.size(), 3u) << out;
  EXPECT_EQ(starts[0], starts[1]) << out;
  EXPECT_EQ(starts[0], starts[2]) << out;
}

TEST(TextReporter, FieldsFromForeignRecordsCannotDriveTheTerminal) {
  // A record from someone else's archive whose fields carry escape sequences: a title
  // change, a screen clear, a CSI as a C1 control, a line break that would forge a row.
  Record r = FullRecord();
  r.id = "id\x1b]0;owned\x07";
  r.hypothesis = "hyp\x1b[2J";
  r.query =
      "q\xc2\x9b"
      "31m";
  r.arms[0].label = "lbl\x1b[1A";
  r.arms[0].commit = "c\x1b[K";
  r.samples[5].failure = "harness said \x1b[31mred\nforged line";
  r.notes = {"note\x1b[H"};
  r.links = {"link\x07"};
  r.details = {{"k\x1b", "v\x1b"}};
  r.details_json = "{\"x\":\"\xc2\x9b\"}";
  std::vector<Record> records = {r};
  for (const std::string& out :
       {MakeTextReporter()->RenderOne(r), MakeTextReporter()->RenderList(records)}) {
    EXPECT_FALSE(Contains(out, "\x1b")) << out;
    EXPECT_FALSE(Contains(out, "\x07")) << out;
    EXPECT_FALSE(Contains(out, "\xc2\x9b")) << out;
    EXPECT_CONTAINS(out, "id\\x1b]0;owned\\x07");
  }
  std::string one = MakeTextReporter()->RenderOne(r);
  EXPECT_CONTAINS(one, "harness said \\x1b[31mred\\x0aforged line");
  EXPECT_CONTAINS(one, "(lbl\\x1b[1A)");
  EXPECT_CONTAINS(one, "commit c\\x1b[K");
  EXPECT_CONTAINS(one, "- note\\x1b[H");
  EXPECT_CONTAINS(one, "- link\\x07");
  EXPECT_CONTAINS(one, "k\\x1b: v\\x1b");
  EXPECT_CONTAINS(one, "{\"x\":\"\\u009b\"}");
  EXPECT_CONTAINS(one, "q\\u009b31m");
  EXPECT_CONTAINS(MakeTextReporter()->RenderList(records), "hyp\\x1b[2J");
}

TEST(MarkdownReporter, TableRowHasVerdictAndRatio) {
  std::vector<Record> records = {FullRecord(), Effect()};
  std::string out = MakeMarkdownReporter()->RenderList(records);
  EXPECT_CONTAINS(out,
                  "| id | time | kind | query | arms (medians) | verdict | ratio | interval | "
                  "pairs |");
  EXPECT_CONTAINS(
      out,
      "| `2026-11-30T120000Z-compare-series.count-beef` | 2026-11-30T12:00:00Z | "
      "compare | series.count | as configured 12.50 ms → override 12.75 ms | **EFFECT** | "
      "1.384 (+38.4%) | [1.301, 1.472] | 40 |");
  EXPECT_CONTAINS(out, "**NULL (interrupted)** | 1.012 (+1.2%)");
}

TEST(MarkdownReporter, EscapesPipesInCells) {
  Record r = Effect();
  r.hypothesis = "a | b\nc";
  std::vector<Record> records = {r};
  std::string out = MakeMarkdownReporter()->RenderList(records);
  EXPECT_CONTAINS(out, "| a \\| b c |");
}

// Commit subjects, file names, record ids, notes and conclusions are someone else's
// text: in the .md they are shown, never raw HTML, live links, emphasis or code
// fences of their own.
TEST(MarkdownReporter, HostileTextIsShownNotObeyed) {
  Record r = Effect();
  r.id = "x\"><img src=x onerror=alert(1)>";
  r.query = "q<script>alert(1)</script>";
  r.hypothesis = "[click](javascript:alert(1)) *bold* _it_ `code` ~~gone~~ a&b \\";
  r.notes = {"# not a heading", "1. not a list", "<a href=\"https://evil\">x</a>"};
  r.details = {{"subject", "fix <b>it</b> | [x]: https://evil"}};
  r.arms[0].name = "```\nevil";
  std::string one = MakeMarkdownReporter()->RenderOne(r);
  // No raw HTML from the record (only inside code spans, where it is text); the
  // anchor's attribute is quoted whole.
  EXPECT_FALSE(Contains(one, "<script")) << one;
  EXPECT_FALSE(Contains(one, "<a href")) << one;
  EXPECT_CONTAINS(one, "<a id=\"x&quot;&gt;&lt;img src=x onerror=alert(1)&gt;\"></a>");
  EXPECT_CONTAINS(one, "q&lt;script&gt;alert(1)&lt;/script&gt;");
  // No live link, emphasis, code or strikethrough of the record's making.
  EXPECT_CONTAINS(one,
                  "\\[click\\](javascript:alert(1)) \\*bold\\* \\_it\\_ \\`code\\` "
                  "\\~\\~gone\\~\\~ a&amp;b \\\\");
  EXPECT_CONTAINS(one, "| subject | fix &lt;b&gt;it&lt;/b&gt; \\| \\[x\\]: https://evil |");
  // Notes cannot start a block of their own.
  EXPECT_CONTAINS(one, "- \\# not a heading\n");
  EXPECT_CONTAINS(one, "- 1\\. not a list\n");
  EXPECT_CONTAINS(one, "- &lt;a href=&quot;https://evil&quot;&gt;x&lt;/a&gt;\n");
  // The id in a code span cannot close it; the samples' fence is longer than any run
  // of backticks inside, and an arm name's line break does not forge a line.
  EXPECT_CONTAINS(one, "| id | `x\"><img src=x onerror=alert(1)>` |");
  EXPECT_CONTAINS(one, "\n````\nseq arm pair value flags\n");
  EXPECT_CONTAINS(one, "``` evil 0");
  EXPECT_CONTAINS(one, "\n````\n");
  // A link to a hostile id keeps the id inside its fragment.
  Record linker = FullRecord();
  linker.links = {r.id};
  std::vector<Record> both = {linker, r};
  std::string whole = MakeMarkdownReporter()->RenderWhole(both);
  EXPECT_CONTAINS(whole,
                  "[`x\"><img src=x onerror=alert(1)>`](#x%22%3E%3Cimg%20src%3Dx%20"
                  "onerror%3Dalert%281%29%3E)");
}

TEST(MarkdownReporter, CodeSpansOutgrowTheBackticksInside) {
  Record r = Effect();
  r.id = "a``b`";
  std::string one = MakeMarkdownReporter()->RenderOne(r);
  EXPECT_CONTAINS(one, "| id | ``` a``b` ``` |");
  // Snake-case names stay readable: '_' inside a word is no emphasis.
  r.query = "plain_columns";
  EXPECT_CONTAINS(MakeMarkdownReporter()->RenderOne(r), "plain_columns");
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
  // Each record: its verdict strip beside its samples.
  std::regex strip("class=\"plot interval-strip\"");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(out.begin(), out.end(), strip), std::sregex_iterator()),
      2);
  std::regex samples("aria-label=\"samples of ");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(out.begin(), out.end(), samples), std::sregex_iterator()),
      2);
}

// Every record kind of the examples, in one archive.
std::vector<Record> Archive() {
  std::vector<Record> all = {examples::Probe()};
  for (const auto& group : {examples::Bisect(), examples::Audit()}) {
    all.insert(all.end(), group.begin(), group.end());
  }
  all.push_back(examples::Isolate());
  all.push_back(
      examples::Investigation({all[0].id, examples::Bisect()[0].id, examples::Isolate().id,
                               "2026-11-29T090000Z-probe-series.count-gone"}));
  return all;
}

// Self-contained and readable without scripts: no script, no resource
// fetched from anywhere (the only URL is the SVG namespace), every link an
// in-page anchor that exists, every tag closed.
void ExpectSelfContained(const std::string& page) {
  EXPECT_FALSE(Contains(page, "<script"));
  EXPECT_FALSE(Contains(page, "<iframe"));
  EXPECT_FALSE(Contains(page, "<link"));
  EXPECT_FALSE(Contains(page, " src="));
  EXPECT_FALSE(Contains(page, "url("));
  EXPECT_FALSE(Contains(page, "@import"));
  std::regex url("https?://[^\"' <)]*");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), url); it != std::sregex_iterator();
       ++it) {
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg") << "external reference";
  }
  std::regex href("href=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), href); it != std::sregex_iterator();
       ++it) {
    std::string target = (*it)[1].str();
    ASSERT_FALSE(target.empty());
    EXPECT_EQ(target[0], '#') << "link leaves the page: " << target;
    EXPECT_TRUE(Contains(page, "id=\"" + target.substr(1) + "\"")) << "dead anchor: " << target;
  }
  svg::ExpectWellFormedSvg(page);
  for (const std::string& plot : svg::Svgs(page)) svg::ExpectInsideViewBox(plot);
}

std::string PlotOf(const std::string& page, const std::string& cls) {
  for (const std::string& plot : svg::Svgs(page)) {
    if (Contains(plot, "class=\"plot " + cls + "\"")) return plot;
  }
  return "";
}

TEST(ReportFacts, ArmsSummaryNamesWhatARowCompared) {
  EXPECT_EQ(ArmsSummary(Effect()), "as configured 12.50 ms → override 12.75 ms");
  Record bisect;
  bisect.kind = RecordKind::kBisect;
  EXPECT_EQ(ArmsSummary(bisect), "none named");
  bisect.details["merge_commit"] = std::string(40, 'a');
  EXPECT_EQ(ArmsSummary(bisect), "merge aaaaaaaaaa");
  bisect.details["culprit_commit"] = std::string(40, 'b');
  EXPECT_EQ(ArmsSummary(bisect), "culprit bbbbbbbbbb");
  Record long_names = Effect();
  long_names.arms[0].revision = std::string(80, 'x');
  EXPECT_EQ(ArmsSummary(long_names, 20).size(), 20u);
}

TEST(ReportFacts, BandSentenceLabelsTies) {
  EXPECT_EQ(BandSentence(0.987, 0.971, 1.004, 0.05), "1.3% faster, inside ±5.0%: a tie");
  EXPECT_EQ(BandSentence(1.384, 1.301, 1.472, 0.05), "38.4% slower, beyond ±5.0%: an effect");
  EXPECT_EQ(BandSentence(1.18, 1.12, 1.24, 0.05), "18.0% slower, beyond ±5.0%: an effect");
  EXPECT_EQ(BandSentence(1.02, 0.99, 1.06, 0.05),
            "2.0% slower, its interval across the ±5.0% band edge: undecided");
  // A throughput the right way up: a 14.4% drop in MB/s was once "a 14.4% win".
  EXPECT_EQ(BandSentence(0.856, 0.83, 0.88, 0.05, MetricDirection::kHigherIsBetter, "MB/s"),
            "14.4% worse, beyond ±5.0%: an effect");
  EXPECT_EQ(BandSentence(1.2, 1.1, 1.3, 0.05, MetricDirection::kLowerIsBetter, "bytes"),
            "20.0% worse, beyond ±5.0%: an effect");
  Record r;
  EXPECT_EQ(DirectionOf(r), MetricDirection::kLowerIsBetter);  // records before `better`
  r.details["better"] = "higher";
  EXPECT_EQ(DirectionOf(r), MetricDirection::kHigherIsBetter);
  EXPECT_EQ(BandWord(0.96, 0.99, 0.05), "tie");
  EXPECT_EQ(BandWord(0.94, 0.99, 0.05), "undecided");  // below 1/1.05
}

TEST(HtmlReporter, EveryKindIsSelfContained) {
  std::vector<Record> all = Archive();
  ExpectSelfContained(MakeHtmlReporter()->RenderList(all));
  for (const Record& r : all) {
    SCOPED_TRACE(r.id);
    ExpectSelfContained(MakeHtmlReporter()->RenderOne(r));
    ExpectSelfContained(MakeHtmlReporter()->RenderWhole(LinkedRecords(r, all)));
  }
  ExpectSelfContained(MakeHtmlReporter()->RenderOne(FullRecord()));
}

TEST(HtmlReporter, ProbeStripDrawsTheRecordsIntervalAgainstTheBand) {
  Record probe = examples::Probe();
  std::string page = MakeHtmlReporter()->RenderOne(probe);
  std::string strip = PlotOf(page, "interval-strip");
  ASSERT_FALSE(strip.empty());
  svg::Scale x = svg::ValueAxis(strip);
  std::string line = svg::Element(strip, "line", "interval");
  EXPECT_NEAR(x.Invert(svg::Attr(line, "x1")), probe.estimate->low,
              svg::PixelTolerance(x, probe.estimate->low));
  EXPECT_NEAR(x.Invert(svg::Attr(line, "x2")), probe.estimate->high,
              svg::PixelTolerance(x, probe.estimate->high));
  EXPECT_CONTAINS(strip, "0.987× (-1.3%)");
  EXPECT_CONTAINS(page, "1.3% faster, inside ±5.0%: a tie");
  // The samples beside it, one marker per sample.
  EXPECT_EQ(svg::CountElements(page, "circle", "sample"), static_cast<int>(probe.samples.size()));
  // Calibration across the sitting: start, the two between-look ones, end.
  std::string host = PlotOf(page, "line");
  EXPECT_EQ(svg::CountElements(host, "circle", "point"), 4);
  EXPECT_CONTAINS(host, "look 2");
}

TEST(HtmlReporter, BisectPlotsEachStepByCommitIndexWithCulpritAndPosterior) {
  std::vector<Record> bisect = examples::Bisect();
  std::string page = MakeHtmlReporter()->RenderWhole(bisect);
  std::string scatter = PlotOf(page, "scatter");
  ASSERT_FALSE(scatter.empty());
  svg::Scale x = svg::Axis(scatter, "x-axis"), y = svg::ValueAxis(scatter);
  std::vector<std::string> intervals = svg::Elements(scatter, "line", "interval");
  ASSERT_EQ(intervals.size(), bisect.size() - 1);  // every step, the confirmation included
  for (size_t i = 1; i < bisect.size(); ++i) {
    const Record& step = bisect[i];
    const std::string& line = intervals[i - 1];
    double index = step.details.count("candidate_index")
                       ? std::stod(step.details.at("candidate_index"))
                       : examples::kBisectCommits;
    EXPECT_NEAR(x.Invert(svg::Attr(line, "x1")), index, 0.05) << step.id;
    EXPECT_NEAR(y.Invert(svg::Attr(line, "y1")), step.estimate->low,
                svg::PixelTolerance(y, step.estimate->low));
    EXPECT_NEAR(y.Invert(svg::Attr(line, "y2")), step.estimate->high,
                svg::PixelTolerance(y, step.estimate->high));
  }
  EXPECT_NEAR(x.Invert(svg::Attr(svg::Element(scatter, "line", "mark"), "x1")), examples::kCulprit,
              0.05);
  std::string cross = svg::Element(scatter, "path", "unbuildable");
  EXPECT_EQ(svg::Attr(cross, "data-x"), examples::kUnbuildable);
  EXPECT_CONTAINS(
      scatter, "culprit " + examples::CommitId(examples::kCulprit).substr(0, kShortCommitLength));
  std::string posterior = PlotOf(page, "columns");
  ASSERT_FALSE(posterior.empty());
  std::string column = svg::Element(posterior, "rect", "column", "data-x=\"11\"");
  svg::Scale p = svg::ValueAxis(posterior);
  EXPECT_NEAR(p.Invert(svg::Attr(column, "y")), 0.97, svg::PixelTolerance(p, 0.97));
  // The steps are linked in the page, the table labels ties.
  EXPECT_CONTAINS(page, "<a href=\"#" + bisect[2].id + "\">");
  EXPECT_CONTAINS(page, "0.4% slower, inside ±5.0%: a tie");
  // Alone, the bisect says where its steps are.
  std::string alone = MakeHtmlReporter()->RenderOne(bisect[0]);
  EXPECT_CONTAINS(alone, "Not in this report: the 6 step records this bisect links to");
  EXPECT_CONTAINS(alone, bisect[1].id + "</code> <span class=\"absent\">(not in this report)");
}

TEST(HtmlReporter, IsolationBarsShowEachConditionAgainstTheBaseline) {
  Record iso = examples::Isolate();
  std::string page = MakeHtmlReporter()->RenderOne(iso);
  std::string bars = PlotOf(page, "interval-bars");
  ASSERT_FALSE(bars.empty());
  EXPECT_EQ(svg::CountElements(bars, "g", "bar"), 3);  // every condition but the baseline
  svg::Scale x = svg::ValueAxis(bars);
  std::string suspect = svg::Element(bars, "line", "interval", "data-low=\"1.22\"");
  EXPECT_NEAR(x.Invert(svg::Attr(suspect, "x1")), 1.22, svg::PixelTolerance(x, 1.22));
  EXPECT_NEAR(x.Invert(svg::Attr(suspect, "x2")), 1.35, svg::PixelTolerance(x, 1.35));
  EXPECT_CONTAINS(bars, "traversal_index held (suspect)");
  EXPECT_CONTAINS(bars, "plain_columns held (control)");
  EXPECT_CONTAINS(bars, "traversal_index released (released)");
  EXPECT_CONTAINS(bars, "+1.0% [-1.0%, +3.0%] tie");
  EXPECT_CONTAINS(bars, "+29.0% [+22.0%, +35.0%] effect");
  EXPECT_CONTAINS(bars, "1.0 = nothing held");
  EXPECT_CONTAINS(page, "64.0 MiB");
  EXPECT_CONTAINS(page, "reversibility: <b>reversible</b>");

  // Without the payload, the arms still name the conditions; no number is invented.
  iso.details_json.clear();
  std::string bare = MakeHtmlReporter()->RenderOne(iso);
  EXPECT_EQ(svg::CountElements(PlotOf(bare, "interval-bars"), "g", "bar"), 0);
  EXPECT_CONTAINS(PlotOf(bare, "interval-bars"), "not in this record");
}

TEST(HtmlReporter, AuditWaterfallCompoundsTheFactorsWithTheirIntervals) {
  std::vector<Record> audit = examples::Audit();
  std::string page = MakeHtmlReporter()->RenderWhole(audit);
  std::string waterfall = PlotOf(page, "waterfall");
  ASSERT_FALSE(waterfall.empty());
  svg::Scale y = svg::ValueAxis(waterfall);
  std::vector<std::string> totals = svg::Elements(waterfall, "rect", "total");
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_NEAR(y.Invert(svg::Attr(totals[0], "y")), 59.0, svg::PixelTolerance(y, 59.0));
  EXPECT_NEAR(y.Invert(svg::Attr(totals[1], "y")), 84.0, svg::PixelTolerance(y, 84.0));
  std::vector<std::string> intervals = svg::Elements(waterfall, "line", "interval");
  ASSERT_EQ(intervals.size(), 4u);  // drift, code, order, remainder
  // The order factor's whisker: published × drift × code × [1.14, 1.25].
  double before = 59.0 * 1.18 * 1.01;
  EXPECT_NEAR(y.Invert(svg::Attr(intervals[2], "y1")), before * 1.14,
              svg::PixelTolerance(y, before * 1.14));
  EXPECT_NEAR(y.Invert(svg::Attr(intervals[2], "y2")), before * 1.25,
              svg::PixelTolerance(y, before * 1.25));
  EXPECT_CONTAINS(waterfall, "×1.180 (+18.0%)");
  EXPECT_CONTAINS(waterfall, "cross-sitting");
  EXPECT_CONTAINS(page, "1.0% slower, inside ±5.0%: a tie");
  EXPECT_CONTAINS(page, "<a href=\"#" + audit[1].id + "\">");

  Record bare = audit[0];
  bare.details_json.clear();
  std::string missing = MakeHtmlReporter()->RenderOne(bare);
  EXPECT_CONTAINS(missing, "audit factors: not in this record");
  EXPECT_EQ(svg::CountElements(PlotOf(missing, "waterfall"), "rect", "total"), 0);
}

TEST(HtmlReporter, ArchiveGroupsByInvestigationAndQueryAndResolvesLinks) {
  std::vector<Record> all = Archive();
  std::string page = MakeHtmlReporter()->RenderList(all);
  const std::string investigation = all.back().id;
  EXPECT_CONTAINS(page, "<h2 class=\"group\" id=\"group-" + investigation + "\">investigation");
  EXPECT_CONTAINS(page, "<h2 class=\"group\" id=\"group-2026-11-30T133000Z-audit");
  // The investigation's group holds its probe, the bisect and the bisect's steps.
  size_t group = page.find("id=\"group-" + investigation);
  size_t next = page.find("<h2 class=\"group\"", group + 1);
  std::string inside = page.substr(group, next - group);
  EXPECT_CONTAINS(inside, "<section id=\"" + examples::Probe().id + "\">");
  EXPECT_CONTAINS(inside, "<section id=\"" + examples::Bisect()[3].id + "\">");
  EXPECT_CONTAINS(inside, "<section id=\"" + examples::Isolate().id + "\">");
  // A link to a record outside the file says so; the others are anchors.
  EXPECT_CONTAINS(page,
                  "2026-11-29T090000Z-probe-series.count-gone</code> <span class=\"absent\">");
  EXPECT_CONTAINS(page, "<a href=\"#" + examples::Isolate().id + "\"><code>");
  // Readable at 1200 px: ids and times do not wrap.
  EXPECT_CONTAINS(page, "td.id,td.time,td.num,td.kind{white-space:nowrap}");
  EXPECT_CONTAINS(page, "<td class=\"id\">");
}

TEST(RecordReports, LinkedRecordsFollowLinksTransitively) {
  std::vector<Record> all = Archive();
  std::vector<Record> whole = LinkedRecords(all.back(), all);
  ASSERT_FALSE(whole.empty());
  EXPECT_EQ(whole[0].id, all.back().id);
  // probe, bisect + 6 steps, isolate (the "gone" link is not in the archive).
  EXPECT_EQ(whole.size(), 1u + 1 + 7 + 1);
}

TEST(MarkdownReporter, EachKindHasItsTableWithBandAndTies) {
  std::vector<Record> all = Archive();
  std::string probe = MakeMarkdownReporter()->RenderOne(examples::Probe());
  EXPECT_CONTAINS(probe, "**NULL**: 1.3% faster, inside ±5.0%: a tie.");
  EXPECT_CONTAINS(probe, "| look 2 | 102.2 ms | - |");
  std::string bisect = MakeMarkdownReporter()->RenderWhole(examples::Bisect());
  EXPECT_CONTAINS(bisect, "| 12 | measure | `" +
                              examples::CommitId(12).substr(0, kShortCommitLength) +
                              "` | 1.395 (+39.5%) | [1.351, 1.440] | 39.5% slower, beyond ±5.0%: "
                              "an effect |");
  EXPECT_CONTAINS(
      bisect, "culprit: `" + examples::CommitId(11).substr(0, kShortCommitLength) + "` (index 11)");
  EXPECT_CONTAINS(bisect, "unbuildable: index 6");
  EXPECT_CONTAINS(bisect, "| 11 | 0.9700 |");
  std::string iso = MakeMarkdownReporter()->RenderOne(examples::Isolate());
  EXPECT_CONTAINS(iso,
                  "| plain_columns held | control | plain_columns | - | 1.010 (+1.0%) | "
                  "[0.990, 1.030] | NULL | 1.0% slower, inside ±5.0%: a tie |");
  std::string audit = MakeMarkdownReporter()->RenderWhole(examples::Audit());
  EXPECT_CONTAINS(audit, "| × order | 1.190 (+19.0%) | [1.140, 1.250] | 83.68 ms | EFFECT |");
  EXPECT_CONTAINS(audit, "| × host drift (cross-sitting) |");
  std::string list = MakeMarkdownReporter()->RenderList(all);
  EXPECT_CONTAINS(list, "## investigation series.count");
  EXPECT_CONTAINS(list, "| ±5.0% | 1.3% faster, inside ±5.0%: a tie |");
  std::string inv = MakeMarkdownReporter()->RenderOne(all.back());
  EXPECT_CONTAINS(inv, "- `2026-11-29T090000Z-probe-series.count-gone` (not in this report)");
}

TEST(JsonReporter, ExportIsAnArrayOfRecordsThatReadBack) {
  std::vector<Record> records = {FullRecord(), Effect()};
  std::string out = MakeJsonReporter()->RenderList(records);
  auto doc = nlohmann::json::parse(out);
  ASSERT_TRUE(doc.is_array());
  ASSERT_EQ(doc.size(), 2u);
  auto back = RecordFromJson(doc[1].dump(), "export");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->verdict, Verdict::kEffect);
  EXPECT_EQ(back->estimate->ratio, 1.384);
  EXPECT_EQ(MakeJsonReporter()->RenderList({}), "[]\n");
  EXPECT_EQ(MakeJsonReporter()->RenderOne(records[0]), RecordToJson(records[0]));
}

}  // namespace
}  // namespace culprit
