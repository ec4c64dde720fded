// The pure half of engine/cachegrind.h: which events each metric sums, reading an out
// file's summary, the command line around a query, and the named metrics themselves.

#include "engine/cachegrind.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace culprit {
namespace {

using Kind = MetricRule::Kind;

TEST(CachegrindMetrics, AreNamedMetricsWithFixedUnits) {
  EXPECT_EQ(ParseNamedMetric("instructions"), Kind::kInstructions);
  EXPECT_EQ(ParseNamedMetric("ll_misses"), Kind::kLlMisses);
  EXPECT_EQ(ParseNamedMetric("d1_misses"), Kind::kD1Misses);
  EXPECT_EQ(NamedMetricName(Kind::kInstructions), "instructions");
  EXPECT_EQ(FixedMetricUnit(Kind::kInstructions), "instructions");
  EXPECT_EQ(FixedMetricUnit(Kind::kLlMisses), "misses");
  const std::vector<std::string> names = NamedMetricNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "d1_misses"), names.end());
  EXPECT_TRUE(IsCachegrindMetric(Kind::kD1Misses));
  EXPECT_FALSE(IsCachegrindMetric(Kind::kWall));
  EXPECT_FALSE(IsCachegrindMetric(Kind::kCpu));
  EXPECT_TRUE(IsNearDeterministicMetric(Kind::kInstructions));
  EXPECT_FALSE(IsNearDeterministicMetric(Kind::kLlMisses));
  EXPECT_FALSE(IsNearDeterministicMetric(Kind::kWall));
}

TEST(CachegrindMetrics, AreNeverReadFromARunsOutput) {
  MetricRule rule;
  rule.kind = Kind::kInstructions;
  ProcessResult result;
  result.outcome = ProcessOutcome::kExited;
  result.exit_code = 0;
  result.wall_ms = 12;
  Result<double> value = ExtractMetric(rule, result);
  ASSERT_FALSE(value);  // Never the wall time instead.
  EXPECT_NE(value.error().message().find("cachegrind"), std::string::npos);
}

TEST(CachegrindEvents, EachMetricSumsItsEvents) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(CachegrindEvents(Kind::kInstructions), (V{"Ir"}));
  EXPECT_EQ(CachegrindEvents(Kind::kLlMisses), (V{"DLmr", "DLmw"}));
  EXPECT_EQ(CachegrindEvents(Kind::kD1Misses), (V{"D1mr", "D1mw"}));
  EXPECT_TRUE(CachegrindEvents(Kind::kMaxRss).empty());
}

constexpr std::string_view kSimulated =
    "desc: I1 cache:         32768 B, 64 B, 8-way associative\n"
    "cmd: ./a.out 3\n"
    "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
    "fl=a.c\n"
    "fn=main\n"
    "3 10 1 1 4 2 1 2 1 1\n"
    "summary: 1000 10 9 400 40 30 200 20 15\n";

TEST(CachegrindSummary, ReadsEveryEventOfTheSummaryLine) {
  Result<std::map<std::string, uint64_t>> counts = ParseCachegrindSummary(kSimulated);
  ASSERT_TRUE(counts) << counts.error().message();
  EXPECT_EQ(counts->at("Ir"), 1000u);
  EXPECT_EQ(counts->at("DLmr"), 30u);
  EXPECT_EQ(counts->at("DLmw"), 15u);
  EXPECT_EQ(*CachegrindFigure(Kind::kInstructions, *counts), 1000);
  EXPECT_EQ(*CachegrindFigure(Kind::kLlMisses, *counts), 45);
  EXPECT_EQ(*CachegrindFigure(Kind::kD1Misses, *counts), 60);
}

TEST(CachegrindSummary, WithoutTheCacheSimulationThereAreNoMisses) {
  Result<std::map<std::string, uint64_t>> counts =
      ParseCachegrindSummary("events: Ir\nsummary: 574607\n");
  ASSERT_TRUE(counts) << counts.error().message();
  EXPECT_EQ(*CachegrindFigure(Kind::kInstructions, *counts), 574607);
  Result<double> misses = CachegrindFigure(Kind::kLlMisses, *counts);
  ASSERT_FALSE(misses);
  EXPECT_NE(misses.error().message().find("DLmr"), std::string::npos);
}

TEST(CachegrindSummary, MalformedFilesAreErrorsThatSayWhat) {
  EXPECT_FALSE(ParseCachegrindSummary(""));
  EXPECT_NE(ParseCachegrindSummary("events: Ir\n").error().message().find("summary"),
            std::string::npos);
  EXPECT_NE(ParseCachegrindSummary("summary: 12\n").error().message().find("events"),
            std::string::npos);
  EXPECT_FALSE(ParseCachegrindSummary("events: Ir Dr\nsummary: 12\n"));
  EXPECT_FALSE(ParseCachegrindSummary("events: Ir\nsummary: 12x\n"));
  EXPECT_FALSE(ParseCachegrindSummary("events: Ir\nsummary: -12\n"));
  Result<std::map<std::string, uint64_t>> zero = ParseCachegrindSummary("events: Ir\nsummary: 0\n");
  ASSERT_TRUE(zero);
  EXPECT_FALSE(CachegrindFigure(Kind::kInstructions, *zero));  // A ratio needs a count above 0.
}

TEST(CachegrindArgv, WrapsTheCommandAndTracesChildren) {
  std::vector<std::string> argv =
      CachegrindArgv("/usr/bin/valgrind", Kind::kInstructions, "/tmp/d", {"./engine", "q 1"});
  EXPECT_EQ(argv.front(), "/usr/bin/valgrind");
  EXPECT_EQ(argv[1], "--tool=cachegrind");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--cache-sim=no"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--trace-children=yes"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--cachegrind-out-file=/tmp/d/cachegrind.out.%p"),
            argv.end());
  EXPECT_EQ(argv[argv.size() - 2], "./engine");
  EXPECT_EQ(argv.back(), "q 1");
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--LL=8388608,16,64"), argv.end());

  std::vector<std::string> sim = CachegrindArgv("valgrind", Kind::kLlMisses, "/tmp/d", {"x"});
  EXPECT_NE(std::find(sim.begin(), sim.end(), "--cache-sim=yes"), sim.end());
  EXPECT_NE(std::find(sim.begin(), sim.end(), "--LL=8388608,16,64"), sim.end());
}

TEST(FindValgrind, MissingValgrindNamesThePackage) {
  Result<std::filesystem::path> found =
      FindValgrind(Kind::kInstructions, "valgrind", "/nonexistent-culprit-dir");
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().message().find("\"instructions\""), std::string::npos)
      << found.error().message();
  EXPECT_NE(found.error().hint().find("apt install valgrind"), std::string::npos);
  EXPECT_FALSE(FindValgrind(Kind::kLlMisses, "/nonexistent-culprit-dir/valgrind"));
}

TEST(InProcessMetric, ACachegrindMetricIsRefusedForAHarnessQuery) {
  EXPECT_TRUE(CheckInProcessMetric(Kind::kWall, "q"));
  EXPECT_TRUE(CheckInProcessMetric(Kind::kRegex, "q"));
  Status refused = CheckInProcessMetric(Kind::kInstructions, "series.count");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind(), ErrorKind::kUsage);
  EXPECT_NE(refused.error().message().find("harness"), std::string::npos);
  EXPECT_NE(refused.error().hint().find("process per run"), std::string::npos);
}

}  // namespace
}  // namespace culprit
