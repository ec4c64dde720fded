// `culprit host` reports the tuning state, item by item with advice, and
// changes nothing; --json carries the same facts in its state, and where instructions and
// simulated cache misses come from here (engine/metric_source.h chooses).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "engine/metric_source.h"
#include "engine/process.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

TEST(HostTuningCli, ReportsEachItemWithAdvice) {
  TempDir dir;
  ProcessResult host = RunCulprit({"host"}, dir.path());
  ASSERT_EQ(host.exit_code, 0) << DescribeRun(host);
  const std::string& out = host.stdout_text;
  ASSERT_TRUE(Contains(out, "tuning (read only: culprit changes none of it)")) << out;
  for (const char* item : {"\n  governor ", "\n  turbo ", "\n  ASLR ", "\n  isolated CPUs ",
                           "\n  SMT ", "\n  counters ", "\n  load "}) {
    const size_t at = out.find(item, out.find("tuning (read only"));
    ASSERT_NE(at, std::string::npos) << item << "\n" << out;
    // The line after each item is its advice.
    const size_t next = out.find('\n', at + 1);
    EXPECT_EQ(out.substr(next + 1, 24), "                 advice:") << item << "\n" << out;
  }
  // The ASLR advice is culprit's own setting, not a change to the host.
  EXPECT_TRUE(Contains(out, "`[measure] aslr = false`")) << out;
}

TEST(HostTuningCli, JsonCarriesTheTuning) {
  TempDir dir;
  ProcessResult host = RunCulprit({"host", "--json"}, dir.path());
  ASSERT_EQ(host.exit_code, 0) << DescribeRun(host);
  nlohmann::json doc = nlohmann::json::parse(host.stdout_text);
  ASSERT_TRUE(doc["state"]["tuning"].is_object()) << host.stdout_text;
  // A counter was tried on the real host: usable or not, it says.
  EXPECT_TRUE(doc["state"]["tuning"]["counters_usable"].is_boolean()) << host.stdout_text;
  // Where instructions would come from: the host's choice (see below); the simulated
  // cache misses from cachegrind when valgrind is here, else why not.
  const nlohmann::json& sources = doc["metric_sources"];
  ASSERT_TRUE(sources.is_object()) << host.stdout_text;
  EXPECT_EQ(sources["metrics"][0], "instructions") << host.stdout_text;
  if (sources["by_metric"]["ll_misses"].is_null()) {
    EXPECT_TRUE(sources["unavailable_because"].is_string()) << host.stdout_text;
  } else {
    EXPECT_EQ(sources["by_metric"]["ll_misses"], "cachegrind") << host.stdout_text;
    EXPECT_TRUE(sources["valgrind"]["path"].is_string()) << host.stdout_text;
  }
  // Without valgrind on PATH, it says so: the simulated misses have no source, and
  // instructions none either unless a hardware counter counts them.
  ProcessResult bare = RunCulprit({"host", "--json"}, dir.path(), {{"PATH", "/nonexistent-bin"}});
  ASSERT_EQ(bare.exit_code, 0) << DescribeRun(bare);
  nlohmann::json none = nlohmann::json::parse(bare.stdout_text);
  EXPECT_TRUE(none["metric_sources"]["by_metric"]["ll_misses"].is_null()) << bare.stdout_text;
  EXPECT_TRUE(none["metric_sources"]["by_metric"]["d1_misses"].is_null()) << bare.stdout_text;
  EXPECT_EQ(none["metric_sources"]["unavailable_because"], "no valgrind on PATH")
      << bare.stdout_text;
  if (HostInstructionSource().source == MetricSource::kPerfEvent) {
    EXPECT_EQ(none["metric_sources"]["source"], "perf_event") << bare.stdout_text;
  } else {
    EXPECT_TRUE(none["metric_sources"]["source"].is_null()) << bare.stdout_text;
  }
}

// The source of instructions in --json is the one the host's chooser picks (this test
// process runs on the same host with the same environment), and what it says of the
// counters agrees with it: read when they are the source, else not, with why.
TEST(HostTuningCli, JsonSaysTheInstructionSourceTheChooserPicks) {
  TempDir dir;
  ProcessResult host = RunCulprit({"host", "--json"}, dir.path());
  ASSERT_EQ(host.exit_code, 0) << DescribeRun(host);
  const nlohmann::json sources = nlohmann::json::parse(host.stdout_text)["metric_sources"];
  const InstructionSourceChoice& choice = HostInstructionSource();
  const bool counted = choice.source == MetricSource::kPerfEvent;
  if (counted || !sources["valgrind"].is_null()) {
    EXPECT_EQ(sources["source"], MetricSourceName(choice.source)) << host.stdout_text;
  } else {
    EXPECT_TRUE(sources["source"].is_null()) << host.stdout_text;  // cachegrind, no valgrind
  }
  EXPECT_EQ(sources["by_metric"]["instructions"], sources["source"]) << host.stdout_text;
  EXPECT_EQ(sources["hardware_counters_read"], counted) << host.stdout_text;
  const nlohmann::json& counters = sources["hardware_counters"];
  if (choice.forced) {
    EXPECT_TRUE(counters["usable"].is_null()) << host.stdout_text;
  } else {
    EXPECT_EQ(counters["usable"], counted) << host.stdout_text;
  }
  if (counted) {
    EXPECT_TRUE(counters["why_not"].is_null()) << host.stdout_text;
  } else {
    EXPECT_EQ(counters["why_not"], choice.why) << host.stdout_text;
    EXPECT_FALSE(choice.why.empty());
  }
}

// CULPRIT_INSTRUCTIONS=cachegrind: on every host, instructions come from cachegrind and no
// counter is tried, which --json says (usable null) with the setting as the reason.
TEST(HostTuningCli, JsonWithInstructionsForcedToCachegrind) {
  TempDir dir;
  ProcessResult host =
      RunCulprit({"host", "--json"}, dir.path(), {{kInstructionsSourceVariable, "cachegrind"}});
  ASSERT_EQ(host.exit_code, 0) << DescribeRun(host);
  const nlohmann::json sources = nlohmann::json::parse(host.stdout_text)["metric_sources"];
  EXPECT_EQ(sources["hardware_counters_read"], false) << host.stdout_text;
  EXPECT_TRUE(sources["hardware_counters"]["usable"].is_null()) << host.stdout_text;
  EXPECT_EQ(sources["hardware_counters"]["why_not"], "CULPRIT_INSTRUCTIONS=cachegrind")
      << host.stdout_text;
  if (sources["valgrind"].is_null()) {
    EXPECT_TRUE(sources["source"].is_null()) << host.stdout_text;
  } else {
    EXPECT_EQ(sources["source"], "cachegrind") << host.stdout_text;
  }
}

}  // namespace
}  // namespace culprit
