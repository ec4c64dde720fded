// The simulated figures of `culprit isolate --simulate`, pure parts: the script a sample's
// process is fed, the check of its answers, the options and their refusals.

#include "probes/isolation_simulated.h"

#include <gtest/gtest.h>

#include <string>

#include "probes/isolate_command.h"

namespace culprit {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SimulatedScript, SetsUpSettlesThenRunsAndQuits) {
  ResidencyCondition released{"index released", {"index", "ballast"}, {"index"}};
  EXPECT_EQ(SimulatedScript(released, "scan", 1, 3),
            "hold index\nhold ballast\nrelease index\nrun scan 1\nrun scan 3\nquit\n");
  // The prefix process: the same, without the measured runs.
  EXPECT_EQ(SimulatedScript(released, "scan", 1, 0),
            "hold index\nhold ballast\nrelease index\nrun scan 1\nquit\n");
  ResidencyCondition baseline{"nothing held", {}, {}};
  EXPECT_EQ(SimulatedScript(baseline, "scan", 0, 2), "run scan 2\nquit\n");
  EXPECT_EQ(SimulatedScript(baseline, "scan", 0, 0), "quit\n");
}

TEST(CheckScriptAnswers, TakesOneAnswerPerCommand) {
  const std::string script = "hold index\nrun scan 1\nrun scan 2\nquit\n";
  EXPECT_TRUE(CheckScriptAnswers(script, "ok bytes=64\nms 1.5\nms 1.5 1.25\n").ok());
  EXPECT_TRUE(CheckScriptAnswers("quit\n", "").ok());
}

TEST(CheckScriptAnswers, NamesTheCommandThatWentWrong) {
  const std::string script = "hold index\nrun scan 2\nquit\n";
  Status error = CheckScriptAnswers(script, "error no such structure\nms 1 2\n");
  ASSERT_FALSE(error.ok());
  EXPECT_TRUE(Contains(error.error().message(), "'hold index'")) << error.error().message();
  EXPECT_TRUE(Contains(error.error().message(), "no such structure"));

  error = CheckScriptAnswers(script, "ok\nms 1\n");
  ASSERT_FALSE(error.ok());
  EXPECT_TRUE(Contains(error.error().message(), "'run scan 2'")) << error.error().message();
  EXPECT_TRUE(Contains(error.error().message(), "expected 'ms' and 2 values"));

  error = CheckScriptAnswers(script, "ok\n");
  ASSERT_FALSE(error.ok());
  EXPECT_TRUE(Contains(error.error().message(), "no answer")) << error.error().message();
}

TEST(ValgrindOptsWithFairScheduling, AddsFairSchedulingUnlessChosen) {
  EXPECT_EQ(ValgrindOptsWithFairScheduling(""), "--fair-sched=yes");
  EXPECT_EQ(ValgrindOptsWithFairScheduling("--smc-check=all"), "--smc-check=all --fair-sched=yes");
  EXPECT_EQ(ValgrindOptsWithFairScheduling("--fair-sched=try"), "--fair-sched=try");
}

TEST(MakeSimulationOptions, NothingAskedNothingRun) {
  IsolateRequest request;
  Result<std::optional<SimulatedIsolationOptions>> options = MakeSimulationOptions(request);
  ASSERT_TRUE(options.ok());
  EXPECT_FALSE(*options);
}

TEST(MakeSimulationOptions, RefusesAMetricCachegrindDoesNotCount) {
  IsolateRequest request;
  request.simulate = "wall";
  Result<std::optional<SimulatedIsolationOptions>> options = MakeSimulationOptions(request);
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.error().kind(), ErrorKind::kUsage);
  EXPECT_TRUE(Contains(options.error().hint(), "ll_misses")) << options.error().hint();

  request.simulate = "ll_misses";
  request.simulate_samples = 0;
  options = MakeSimulationOptions(request);
  ASSERT_FALSE(options.ok());
  EXPECT_TRUE(Contains(options.error().message(), "--simulate-samples 0"));
}

TEST(MakeSimulationOptions, RefusesClearlyWithoutValgrind) {
  IsolateRequest request;
  request.simulate = "ll_misses";
  Result<std::optional<SimulatedIsolationOptions>> options =
      MakeSimulationOptions(request, "/nonexistent-culprit-dir");
  ASSERT_FALSE(options.ok());
  const std::string text = options.error().message() + " " + options.error().hint();
  EXPECT_TRUE(Contains(text, "--simulate ll_misses needs valgrind")) << text;
  EXPECT_TRUE(Contains(text, "apt install valgrind")) << text;
}

TEST(FormatIsolateSummary, PrintsTheSimulatedFiguresLabelledAndTheirRatios) {
  IsolateOutcome outcome;
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
  s.failure = "interrupted";
  outcome.result.simulated = s;
  const std::string text = FormatIsolateSummary(outcome);
  EXPECT_TRUE(Contains(text,
                       "ll_misses per run of scan, simulated (cachegrind, valgrind-3.19.0, "
                       "--fair-sched=yes)"))
      << text;
  EXPECT_TRUE(Contains(text, "[set-up, 1 settling, 2 runs] minus one [set-up, 1 settling]"))
      << text;
  EXPECT_TRUE(Contains(text, "never a verdict")) << text;
  EXPECT_TRUE(Contains(text, "3 (100..102)")) << text;
  EXPECT_TRUE(Contains(text, "3 (300..310)  x3.000")) << text;  // 303 / 101
  EXPECT_TRUE(Contains(text, "stopped: interrupted")) << text;
}

TEST(FormatIsolateSummary, SaysNothingSimulatedWhenNotAskedFor) {
  IsolateOutcome outcome;
  outcome.plan.query = "scan";
  EXPECT_FALSE(Contains(FormatIsolateSummary(outcome), "simulated"));
}

}  // namespace
}  // namespace culprit
