// `culprit isolate --simulate` on a real harness process under valgrind:
// tests/fixtures/residency_engine, whose `scan` streams a 16 MiB working set through the
// simulated 8 MiB last-level cache and, while the rollup is held, also walks and updates a
// 32 MiB rollup, reading the working set twice more (by hand under cachegrind, 1,310,880
// last-level misses per scan against 262,300: x5.0). The ballast is as large and never read.
// Counts, not times: the assertions hold on any host that has valgrind.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/median.h"
#include "engine/cachegrind.h"
#include "probes/isolation_simulated.h"
#include "tests/support/build_paths.h"

namespace culprit {
namespace {

const std::string kEngine = FixturePath("residency_engine");

IsolationPlan RollupPlan() {
  IsolationPlan plan;
  plan.name = "rollup";
  plan.query = "scan";
  plan.conditions = {{"nothing held", {}, {}},
                     {"rollup held", {"rollup"}, {}},
                     {"ballast held", {"ballast"}, {}},
                     {"rollup released", {"rollup"}, {"rollup"}}};
  return plan;
}

TEST(SimulatedIsolationIntegration, ARollupWalkedByEveryScanAtLeastDoublesItsLastLevelMisses) {
  Result<std::filesystem::path> valgrind = FindValgrind(MetricRule::Kind::kLlMisses);
  if (!valgrind) GTEST_SKIP() << "valgrind is not installed (apt install valgrind): not tested";
  ProcessSpec harness;
  harness.argv = {kEngine, "--elements", "2097152"};  // 16 MiB of int64
  harness.timeout = std::chrono::minutes(5);
  SimulatedIsolationOptions options;
  options.kind = MetricRule::Kind::kLlMisses;
  options.samples = 2;
  options.runs = 2;
  options.settle_runs = 1;
  options.valgrind = *valgrind;
  SimulatedIsolation s = RunSimulatedIsolation(harness, RollupPlan(), options, nullptr);
  ASSERT_EQ(s.failure, "");
  ASSERT_EQ(s.values.size(), 4u);
  for (const std::vector<double>& v : s.values) ASSERT_EQ(v.size(), 2u);
  const double nothing = Median(s.values[0]);
  const double rollup = Median(s.values[1]);
  const double ballast = Median(s.values[2]);
  const double released = Median(s.values[3]);
  // A scan of 16 MiB misses on about every one of its 262144 lines.
  EXPECT_GT(nothing, 100000) << nothing;
  EXPECT_GE(rollup, 2 * nothing) << rollup << " vs " << nothing;
  EXPECT_LT(ballast, 1.5 * nothing) << ballast << " vs " << nothing;
  EXPECT_LT(released, 1.5 * nothing) << released << " vs " << nothing;
}

TEST(SimulatedIsolationIntegration, AnEngineErrorStopsItNamingTheCondition) {
  Result<std::filesystem::path> valgrind = FindValgrind(MetricRule::Kind::kLlMisses);
  if (!valgrind) GTEST_SKIP() << "valgrind is not installed (apt install valgrind): not tested";
  ProcessSpec harness;
  harness.argv = {kEngine, "--elements", "4096"};
  harness.timeout = std::chrono::minutes(2);
  IsolationPlan plan = RollupPlan();
  plan.conditions[1].hold = {"no_such_structure"};
  SimulatedIsolationOptions options;
  options.samples = 1;
  options.runs = 1;
  options.valgrind = *valgrind;
  SimulatedIsolation s = RunSimulatedIsolation(harness, plan, options, nullptr);
  EXPECT_NE(s.failure.find("condition 'rollup held'"), std::string::npos) << s.failure;
  EXPECT_NE(s.failure.find("'hold no_such_structure'"), std::string::npos) << s.failure;
  ASSERT_EQ(s.values.size(), 4u);
  EXPECT_EQ(s.values[0].size(), 1u);  // what was measured before stays
  EXPECT_TRUE(s.values[1].empty());
}

}  // namespace
}  // namespace culprit
