// `culprit host` reports the tuning state, item by item with advice, and
// changes nothing; --json carries the same facts in its state.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

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
  // Where instructions would come from: cachegrind when valgrind is here, else why not.
  const nlohmann::json& sources = doc["metric_sources"];
  ASSERT_TRUE(sources.is_object()) << host.stdout_text;
  EXPECT_EQ(sources["metrics"][0], "instructions") << host.stdout_text;
  EXPECT_EQ(sources["hardware_counters_read"], false) << host.stdout_text;
  if (sources["source"].is_null()) {
    EXPECT_TRUE(sources["unavailable_because"].is_string()) << host.stdout_text;
  } else {
    EXPECT_EQ(sources["source"], "cachegrind") << host.stdout_text;
    EXPECT_TRUE(sources["valgrind"]["path"].is_string()) << host.stdout_text;
  }
  // Without valgrind on PATH, it says so.
  ProcessResult bare = RunCulprit({"host", "--json"}, dir.path(), {{"PATH", "/nonexistent-bin"}});
  ASSERT_EQ(bare.exit_code, 0) << DescribeRun(bare);
  nlohmann::json none = nlohmann::json::parse(bare.stdout_text);
  EXPECT_TRUE(none["metric_sources"]["source"].is_null()) << bare.stdout_text;
  EXPECT_EQ(none["metric_sources"]["unavailable_because"], "no valgrind on PATH")
      << bare.stdout_text;
}

}  // namespace
}  // namespace culprit
