// `culprit host`'s metric sources item (probes/host_tuning.h): where instructions and
// simulated cache misses come from on a host, said with and without valgrind.

#include <gtest/gtest.h>

#include <string>

#include "probes/host_tuning.h"

namespace culprit {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MetricSources, ValgrindFoundIsCachegrindWithItsVersion) {
  MetricSources sources;
  sources.valgrind = "/usr/bin/valgrind";
  sources.valgrind_version = "valgrind-3.19.0";
  const std::string item = FormatMetricSources(sources, false);
  EXPECT_TRUE(Has(item, "metric sources")) << item;
  EXPECT_TRUE(Has(item, "cachegrind (valgrind-3.19.0, /usr/bin/valgrind)")) << item;
  EXPECT_TRUE(Has(item, "hardware counters: unavailable here")) << item;
  EXPECT_TRUE(Has(item, "advice: ")) << item;
}

TEST(MetricSources, UsableCountersAreSaidNotToBeRead) {
  MetricSources sources;
  sources.valgrind = "/usr/bin/valgrind";
  EXPECT_TRUE(Has(FormatMetricSources(sources, true), "culprit does not read them"));
  EXPECT_TRUE(Has(FormatMetricSources(sources, std::nullopt), "unavailable here"));
}

TEST(MetricSources, WithoutValgrindTheAdviceNamesThePackage) {
  MetricSources sources;
  sources.missing = "no valgrind on PATH";
  const std::string item = FormatMetricSources(sources, false);
  EXPECT_TRUE(Has(item, "unavailable (no valgrind on PATH)")) << item;
  EXPECT_TRUE(Has(item, "apt install valgrind")) << item;
}

}  // namespace
}  // namespace culprit
