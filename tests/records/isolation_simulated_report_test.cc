// An isolation's simulated figures (`isolate --simulate`) in every record reporter: labelled
// as `isolate` labels them on the terminal (simulated, secondary, never a verdict), with the
// figures it printed, and nothing new for a record without them.

#include <gtest/gtest.h>

#include <string>

#include "records/isolation_payload.h"
#include "records/report.h"
#include "records/report_payload.h"

namespace culprit {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

#define EXPECT_CONTAINS(text, part) EXPECT_TRUE(Contains(text, part)) << "missing: " << (part)

// The payload of a record `culprit isolate --simulate ll_misses --simulate-samples 2` wrote on
// tests/fixtures/residency_engine before the reporters showed it (2026-12-05, at d6a1ef6): the
// conditions cut to their names and holds, `simulated` as written. `isolate` printed:
//   ll_misses per run of scan, simulated (cachegrind, valgrind-3.19.0, --fair-sched=yes): ...
//     nothing held      4753   2 (4734..4771)      baseline
//     ballast held      4075   2 (4045..4104)      x0.857
//     rollup held     647550   2 (647548..647553)  x136.250
//     rollup released   4035   2 (4035..4035)      x0.849
constexpr const char* kConditions =
    R"({"conditions":[{"name":"nothing held","hold":[],"release":[],"baseline":true},)"
    R"({"name":"ballast held","hold":["ballast"],"release":[]},)"
    R"({"name":"rollup held","hold":["rollup"],"release":[]},)"
    R"({"name":"rollup released","hold":["rollup"],"release":["rollup"]}],)"
    R"("suspect":2,"reversibility":{"verdict":"reversible","condition":3})";
constexpr const char* kSimulated =
    R"(,"simulated":{"failure":"","metric":"ll_misses","runs":3,"samples":2,"settle_runs":1,)"
    R"("source":"simulated (cachegrind, --fair-sched=yes), valgrind-3.19.0","values":)"
    R"([[4771.333333333333,4734.0],[4045.3333333333335,4104.0],)"
    R"([647552.6666666666,647548.0],[4034.6666666666665,4034.6666666666665]]})";

Record Isolation(bool simulated) {
  Record r;
  r.id = "2026-12-05T120244Z-isolate-scan-3c7d";
  r.kind = RecordKind::kIsolate;
  r.query = "scan";
  r.unit = "ms";
  r.verdict = Verdict::kEffect;
  r.details_json = std::string(kConditions) + (simulated ? kSimulated : "") + "}";
  for (const char* name : {"nothing held", "ballast held", "rollup held", "rollup released"}) {
    Arm arm;
    arm.name = arm.condition = name;
    r.arms.push_back(arm);
  }
  return r;
}

const std::string kHeading =
    "ll_misses per run of scan, simulated (cachegrind, --fair-sched=yes), valgrind-3.19.0: per "
    "sample, a fresh harness process [set-up, 1 settling, 3 runs] minus one [set-up, 1 "
    "settling], divided by 3; secondary, never a verdict";

TEST(IsolateFacts, SimulatedFiguresAreTheOnesIsolatePrinted) {
  const std::optional<SimulatedFacts> s = ReadIsolateFacts(Isolation(true)).simulated;
  ASSERT_TRUE(s);
  EXPECT_EQ(s->heading, kHeading);
  ASSERT_EQ(s->rows.size(), 4u);
  auto row = [&](size_t i) {
    const SimulatedRow& r = s->rows[i];
    return r.condition + " | " + r.median + " | " + r.samples + " | " + r.vs_baseline;
  };
  EXPECT_EQ(row(0), "nothing held | 4753 | 2 (4734..4771) | baseline");
  EXPECT_EQ(row(1), "ballast held | 4075 | 2 (4045..4104) | x0.857");
  EXPECT_EQ(row(2), "rollup held | 647550 | 2 (647548..647553) | x136.250");
  EXPECT_EQ(row(3), "rollup released | 4035 | 2 (4035..4035) | x0.849");
  EXPECT_EQ(s->failure, "");
  EXPECT_FALSE(ReadIsolateFacts(Isolation(false)).simulated);
}

TEST(IsolateFacts, AStoppedSimulationSaysWhyAndLeavesTheMissingFiguresOut) {
  Record r = Isolation(false);
  std::optional<IsolationPayload> p = ReadIsolationPayload(r);
  ASSERT_TRUE(p);
  IsolationSimulatedPayload s;
  s.metric = "instructions";
  s.source = "simulated (cachegrind, valgrind-3.22.0, --fair-sched=yes)";
  s.samples = 3;
  s.runs = 2;
  s.settle_runs = 0;
  s.values = {{0, 0, 0}, {303, 300, 310}};
  s.failure = "interrupted";
  p->simulated = s;
  r.details_json = IsolationPayloadToJson(*p);
  const std::optional<SimulatedFacts> facts = ReadIsolateFacts(r).simulated;
  ASSERT_TRUE(facts);
  EXPECT_TRUE(facts->heading.starts_with(
      "instructions per run of scan, simulated (cachegrind, valgrind-3.22.0, --fair-sched=yes): "
      "per sample, a fresh harness process [set-up, 0 settling, 2 runs]"))
      << facts->heading;
  ASSERT_EQ(facts->rows.size(), 2u);
  EXPECT_EQ(facts->rows[0].vs_baseline, "baseline");
  EXPECT_EQ(facts->rows[1].median, "303");
  EXPECT_EQ(facts->rows[1].vs_baseline, "-");  // No positive baseline to divide by.
  EXPECT_EQ(facts->failure, "interrupted");
  const std::string text = MakeTextReporter()->RenderOne(r);
  EXPECT_CONTAINS(text, "stopped: interrupted");
  EXPECT_CONTAINS(MakeMarkdownReporter()->RenderOne(r), "stopped: interrupted");
  EXPECT_CONTAINS(MakeHtmlReporter()->RenderOne(r), "stopped: interrupted");
}

TEST(TextReporter, ShowsAnIsolationsSimulatedFiguresAsSecondary) {
  const std::string out = MakeTextReporter()->RenderOne(Isolation(true));
  EXPECT_CONTAINS(out, "\nsimulated figures\n  " + kHeading + "\n");
  EXPECT_CONTAINS(out, "condition        median  samples (min..max)  vs baseline");
  EXPECT_CONTAINS(out, "rollup held      647550  2 (647548..647553)  x136.250");
  EXPECT_CONTAINS(out, "ballast held     4075    2 (4045..4104)      x0.857");
}

TEST(MarkdownReporter, ShowsAnIsolationsSimulatedFiguresAsSecondary) {
  const std::string out = MakeMarkdownReporter()->RenderOne(Isolation(true));
  EXPECT_CONTAINS(out, "## Simulated figures");
  // Markdown's brackets escaped, the words as the terminal's.
  EXPECT_CONTAINS(out, "ll_misses per run of scan, simulated (cachegrind, --fair-sched=yes)");
  EXPECT_CONTAINS(out, "\\[set-up, 1 settling, 3 runs\\] minus one");
  EXPECT_CONTAINS(out, "divided by 3; secondary, never a verdict");
  EXPECT_CONTAINS(out, "| rollup held | 647550 | 2 (647548..647553) | x136.250 |");
  EXPECT_CONTAINS(out, "| nothing held | 4753 | 2 (4734..4771) | baseline |");
}

TEST(HtmlReporter, ShowsAnIsolationsSimulatedFiguresAsSecondary) {
  const std::string out = MakeHtmlReporter()->RenderOne(Isolation(true));
  EXPECT_CONTAINS(out, "<h4>Simulated figures</h4>");
  EXPECT_CONTAINS(out, "<p class=\"reading\">" + kHeading + "</p>");
  EXPECT_CONTAINS(out,
                  "<tr><td>rollup held</td><td>647550</td><td>2 (647548..647553)</td>"
                  "<td>x136.250</td></tr>");
}

TEST(RecordReporters, AnIsolationWithoutSimulatedFiguresShowsNothingOfThem) {
  const Record r = Isolation(false);
  for (const std::string& out :
       {MakeTextReporter()->RenderOne(r), MakeMarkdownReporter()->RenderOne(r),
        MakeHtmlReporter()->RenderOne(r)}) {
    EXPECT_FALSE(Contains(out, "imulated")) << out;
    EXPECT_FALSE(Contains(out, "never a verdict")) << out;
    EXPECT_FALSE(Contains(out, "647550")) << out;
  }
}

}  // namespace
}  // namespace culprit
