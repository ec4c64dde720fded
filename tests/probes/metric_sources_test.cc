// `culprit host`'s metric sources item (probes/host_tuning.h): where instructions and
// simulated cache misses come from on a host, said with and without valgrind and counters.

#include <gtest/gtest.h>

#include <string>

#include "probes/host_tuning.h"

namespace culprit {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

InstructionSourceChoice NoCounter() {
  InstructionSourceChoice choice;
  choice.source = MetricSource::kCachegrind;
  choice.why = "ENOENT: No such file or directory";
  return choice;
}

TEST(MetricSources, ValgrindFoundIsCachegrindWithItsVersion) {
  MetricSources sources;
  sources.instructions = NoCounter();
  sources.valgrind = "/usr/bin/valgrind";
  sources.valgrind_version = "valgrind-3.19.0";
  const std::string item = FormatMetricSources(sources);
  EXPECT_TRUE(Has(item, "metric sources")) << item;
  EXPECT_TRUE(Has(item,
                  "instructions, ll_misses, d1_misses: cachegrind (valgrind-3.19.0, "
                  "/usr/bin/valgrind)"))
      << item;
  EXPECT_TRUE(Has(item, "hardware counters: not usable here (ENOENT: No such file or directory)"))
      << item;
  EXPECT_TRUE(Has(item, "advice: ")) << item;
}

TEST(MetricSources, UsableCountersCountInstructionsAndCachegrindTheMisses) {
  MetricSources sources;
  sources.instructions.source = MetricSource::kPerfEvent;
  sources.valgrind = "/usr/bin/valgrind";
  const std::string item = FormatMetricSources(sources);
  EXPECT_TRUE(Has(item, "instructions: perf_event (hardware counter, user space)")) << item;
  EXPECT_TRUE(Has(item, "ll_misses, d1_misses: cachegrind")) << item;
  EXPECT_FALSE(Has(item, "instructions, ll_misses")) << item;
}

TEST(MetricSources, ForcedCachegrindSaysCountersWereNotTried) {
  MetricSources sources;
  sources.instructions.forced = true;
  sources.instructions.why = "CULPRIT_INSTRUCTIONS=cachegrind";
  sources.valgrind = "/usr/bin/valgrind";
  const std::string item = FormatMetricSources(sources);
  EXPECT_TRUE(Has(item, "hardware counters: not tried (CULPRIT_INSTRUCTIONS=cachegrind)")) << item;
}

TEST(MetricSources, WithoutValgrindTheAdviceNamesThePackage) {
  MetricSources sources;
  sources.instructions = NoCounter();
  sources.missing = "no valgrind on PATH";
  const std::string item = FormatMetricSources(sources);
  EXPECT_TRUE(Has(item, "unavailable (no valgrind on PATH)")) << item;
  EXPECT_TRUE(Has(item, "apt install valgrind")) << item;
  sources.instructions.source = MetricSource::kPerfEvent;
  const std::string counted = FormatMetricSources(sources);
  EXPECT_TRUE(Has(counted, "instructions: perf_event")) << counted;
  EXPECT_TRUE(Has(counted, "ll_misses, d1_misses: unavailable (no valgrind on PATH)")) << counted;
}

}  // namespace
}  // namespace culprit
