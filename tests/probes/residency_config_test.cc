#include "probes/residency_config.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/config_text.h"

namespace culprit {
namespace {

using std::chrono::milliseconds;

// [engine], [queries], [harness] then [residency], as the whole file reads them.
Status ReadIsolation(const ConfigTable& root, HarnessConfig* harness,
                     std::map<std::string, ResidencyPlan>* residency) {
  EngineConfig engine;
  std::map<std::string, QueryConfig> queries;
  CULPRIT_TRY(ReadEngineSection(root, &engine));
  CULPRIT_TRY(ReadQueriesSection(root, engine, &queries));
  CULPRIT_TRY(ReadHarnessSection(root, engine, harness));
  return ReadResidencySection(root, queries, *harness, residency);
}

std::string IsolationErrorOf(std::string_view rest) {
  return ConfigErrorOf(WithTestEngine(rest), [](const ConfigTable& root) {
    HarnessConfig harness;
    std::map<std::string, ResidencyPlan> residency;
    return ReadIsolation(root, &harness, &residency);
  });
}

TEST(HarnessSection, ReadsCommandAndTimeout) {
  HarnessConfig harness;
  std::map<std::string, ResidencyPlan> residency;
  Status status = ReadConfigText(
      WithTestEngine("[harness]\ncommand = [\"{artifact:es}\", \"serve\"]\ntimeout = \"2m\"\n"),
      [&](const ConfigTable& root) { return ReadIsolation(root, &harness, &residency); });
  ASSERT_TRUE(status.ok()) << status.error().message();
  EXPECT_EQ(harness.command, (std::vector<std::string>{"{artifact:es}", "serve"}));
  EXPECT_EQ(harness.timeout, milliseconds(120000));
  EXPECT_TRUE(residency.empty());
}

TEST(HarnessSection, Errors) {
  EXPECT_EQ(IsolationErrorOf("[harness]\ncommand = [\"\", \"serve\"]\n"),
            "/proj/culprit.toml:5:12: harness.command[0]: expected a program name, found \"\"");
  EXPECT_EQ(IsolationErrorOf("[harness]\ncommand = [\"x\"]\ntimeout = \"0s\"\n"),
            "/proj/culprit.toml:6:11: harness.timeout: expected a duration greater than zero, "
            "found \"0s\"");
  EXPECT_EQ(IsolationErrorOf("[harness]\ncommand = [\"{artifact:server}\"]\n"),
            "/proj/culprit.toml:5:12: harness.command[0]: expected an artifact listed in "
            "engine.artifacts, found {artifact:server}");
  EXPECT_EQ(IsolationErrorOf("[harness]\ncommand = [\"x\", \"--port={port}\"]\n"),
            "/proj/culprit.toml:5:17: harness.command[1]: expected a placeholder {rev}, "
            "{commit}, {tree} or {artifact:NAME}, found {port}");
  EXPECT_EQ(IsolationErrorOf("[harness]\ntimeout = \"1m\"\n"),
            "/proj/culprit.toml:4:1: [harness] is missing 'command': expected the argv that "
            "starts the engine's in-process harness");
}

TEST(ResidencySection, AMaxRoundsIsThePlansOwnBudget) {
  constexpr char kPlan[] =
      "[queries.scan]\ncommand = [\"{artifact:es}\"]\n"
      "[harness]\ncommand = [\"{artifact:es}\", \"serve\"]\n"
      "[residency.index]\nquery = \"scan\"\nconditions = [{ name = \"a\" }]\n";
  HarnessConfig harness;
  std::map<std::string, ResidencyPlan> residency;
  ASSERT_TRUE(ReadConfigText(
      WithTestEngine(std::string(kPlan) + "max_rounds = 320\n"),
      [&](const ConfigTable& root) { return ReadIsolation(root, &harness, &residency); }));
  EXPECT_EQ(residency.at("index").max_rounds, 320);
  residency.clear();
  ASSERT_TRUE(ReadConfigText(WithTestEngine(kPlan), [&](const ConfigTable& root) {
    return ReadIsolation(root, &harness, &residency);
  }));
  EXPECT_EQ(residency.at("index").max_rounds, 0);  // [measure] max_pairs

  EXPECT_EQ(IsolationErrorOf(std::string(kPlan) + "max_rounds = 1\n"),
            "/proj/culprit.toml:11:14: residency.index.max_rounds: expected an integer from 2 "
            "to 2000, found 1");
  EXPECT_EQ(IsolationErrorOf(std::string(kPlan) + "max_rounds = \"320\"\n"),
            "/proj/culprit.toml:11:14: residency.index.max_rounds: expected an integer from 2 "
            "to 2000, found \"320\"");
}

TEST(ResidencySection, Errors) {
  constexpr char kQueryAndHarness[] =
      "[queries.scan]\ncommand = [\"{artifact:es}\"]\n"         // lines 4-5
      "[harness]\ncommand = [\"{artifact:es}\", \"serve\"]\n";  // lines 6-7
  EXPECT_EQ(
      IsolationErrorOf(std::string(kQueryAndHarness) +
                       "[residency.index]\nquery = \"scna\"\nconditions = [{ name = \"a\" }]\n"),
      "/proj/culprit.toml:9:9: residency.index.query: expected a query defined in "
      "[queries], found \"scna\", did you mean 'scan'?");
  EXPECT_EQ(
      IsolationErrorOf(std::string(kQueryAndHarness) +
                       "[residency.index]\nquery = \"scan\"\nconditions = [\n"
                       "  { name = \"held\", hold = [\"index\"] },\n"
                       "  { name = \"released\", hold = [\"index\"], release = [\"indx\"] },\n"
                       "]\n"),
      "/proj/culprit.toml:12:53: residency.index.conditions[1].release[0]: expected a "
      "structure this condition holds, found 'indx', which is not in its hold list, did "
      "you mean 'index'?");
  EXPECT_EQ(IsolationErrorOf(std::string(kQueryAndHarness) +
                             "[residency.index]\nquery = \"scan\"\nconditions = [\n"
                             "  { name = \"a\" }, { name = \"a\" }]\n"),
            "/proj/culprit.toml:11:28: residency.index.conditions[1].name: expected a name not "
            "used by another condition of this plan, found \"a\" again");
  EXPECT_EQ(
      IsolationErrorOf(std::string(kQueryAndHarness) +
                       "[residency.index]\nquery = \"scan\"\nconditions = [{ hold = [\"x\"] }]\n"),
      "/proj/culprit.toml:10:15: residency.index.conditions[0]: expected a name, such as "
      "name = \"nothing held\"");
  EXPECT_EQ(IsolationErrorOf(std::string(kQueryAndHarness) +
                             "[residency.index]\nquery = \"scan\"\nconditions = [\n"
                             "  { name = \"a\", hold = [\"two words\"] }]\n"),
            "/proj/culprit.toml:11:25: residency.index.conditions[0].hold[0]: expected a structure "
            "name without spaces (it is sent as \"hold NAME\"), found \"two words\"");
  EXPECT_EQ(
      IsolationErrorOf("[queries.scan]\ncommand = [\"x\"]\n"
                       "[residency.index]\nquery = \"scan\"\nconditions = [{ name = \"a\" }]\n"),
      "/proj/culprit.toml:6:1: [residency.index] needs the engine's in-process harness: "
      "expected a [harness] section with its command");
}

}  // namespace
}  // namespace culprit
