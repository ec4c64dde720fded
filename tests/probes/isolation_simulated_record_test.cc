// The simulated figures of `isolate --simulate` as the record keeps them: the reports label
// them with the very line `isolate` printed on the terminal, and show the same figures.

#include <gtest/gtest.h>

#include <string>

#include "probes/isolate_command.h"
#include "probes/isolation_report.h"
#include "records/report.h"

namespace culprit {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

IsolateOutcome SimulatedOutcome() {
  IsolateOutcome outcome;
  outcome.plan.name = "rollup";
  outcome.plan.query = "scan";
  outcome.plan.conditions = {{"nothing held", {}, {}}, {"rollup held", {"rollup"}, {}}};
  for (const ResidencyCondition& c : outcome.plan.conditions) {
    ConditionOutcome o;
    o.condition = c;
    outcome.result.conditions.push_back(o);
  }
  SimulatedIsolation s;
  s.kind = MetricRule::Kind::kLlMisses;
  s.valgrind_version = "valgrind-3.19.0";
  s.samples = 3;
  s.runs = 2;
  s.settle_runs = 1;
  s.values = {{100, 102, 101}, {303, 300, 310}};
  outcome.result.simulated = s;
  outcome.record = MakeIsolationRecord(outcome.plan, outcome.options, outcome.result,
                                       IsolationProvenance{}, HostIdentity{});
  return outcome;
}

TEST(IsolationSimulatedRecord, TheReportsLabelTheFiguresWithTheLineIsolatePrinted) {
  const IsolateOutcome outcome = SimulatedOutcome();
  const std::string terminal = FormatIsolateSummary(outcome);
  const size_t start = terminal.find("ll_misses per run of scan");
  ASSERT_NE(start, std::string::npos) << terminal;
  const std::string heading = terminal.substr(start, terminal.find('\n', start) - start);
  EXPECT_TRUE(heading.ends_with("secondary, never a verdict")) << heading;

  const std::string text = MakeTextReporter()->RenderOne(outcome.record);
  EXPECT_TRUE(Contains(text, heading)) << text;
  // 303 / 101, as printed (the columns are the text report's own).
  EXPECT_TRUE(Contains(terminal, "3 (300..310)  x3.000")) << terminal;
  EXPECT_TRUE(Contains(text, "rollup held   303     3 (300..310)        x3.000")) << text;
  const std::string html = MakeHtmlReporter()->RenderOne(outcome.record);
  EXPECT_TRUE(Contains(html, heading)) << html;
  EXPECT_TRUE(Contains(html, "<td>x3.000</td>")) << html;
}

}  // namespace
}  // namespace culprit
