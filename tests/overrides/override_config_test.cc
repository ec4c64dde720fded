#include "overrides/override_config.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/config_text.h"

namespace culprit {
namespace {

std::string OverridesErrorOf(std::string_view rest) {
  return ConfigErrorOf(WithTestEngine(rest), [](const ConfigTable& root) {
    std::map<std::string, NamedOverride> sets;
    return ReadOverridesSection(root, &sets);
  });
}

TEST(OverridesSection, ReadsNamedSets) {
  std::map<std::string, NamedOverride> sets;
  Status status = ReadConfigText(
      "[overrides.gate]\nenv = { PARALLEL = \"1\" }\nhypothesis = \"the gate\"\n"
      "[overrides.no_cache]\nunset = [\"CACHE\"]\n",
      [&](const ConfigTable& root) { return ReadOverridesSection(root, &sets); });
  ASSERT_TRUE(status.ok()) << status.error().message();
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets.at("gate").name, "gate");
  EXPECT_EQ(sets.at("gate").env, (std::map<std::string, std::string>{{"PARALLEL", "1"}}));
  EXPECT_EQ(sets.at("gate").hypothesis, "the gate");
  EXPECT_EQ(sets.at("no_cache").unset, std::vector<std::string>{"CACHE"});
}

TEST(OverridesSection, Errors) {
  Status status =
      ReadConfigText(WithTestEngine("[overrides.gate]\nenv = { \"PARALLEL-GATE\" = \"1\" }\n"),
                     [](const ConfigTable& root) {
                       std::map<std::string, NamedOverride> sets;
                       return ReadOverridesSection(root, &sets);
                     });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "/proj/culprit.toml:5:9: overrides.gate.env: expected an environment variable name "
            "(letters, digits and '_', not starting with a digit), found 'PARALLEL-GATE'");
  EXPECT_EQ(OverridesErrorOf("[overrides.gate]\nenv = { PARALLEL = 1 }\n"),
            "/proj/culprit.toml:5:20: overrides.gate.env.PARALLEL: expected a string, found an "
            "integer");
  EXPECT_EQ(OverridesErrorOf("[overrides.gate]\nunset = [\"OK\", \"2BAD\"]\n"),
            "/proj/culprit.toml:5:16: overrides.gate.unset[1]: expected an environment variable "
            "name (letters, digits and '_', not starting with a digit), found \"2BAD\"");
  EXPECT_EQ(OverridesErrorOf("[overrides.gate]\nhypothesis = \"h\"\n"),
            "/proj/culprit.toml:4:1: [overrides.gate] changes nothing: expected env = { NAME = "
            "\"value\" } or unset = [\"NAME\"]");
  EXPECT_EQ(OverridesErrorOf("[overrides.\"A=1\"]\nenv = { A = \"1\" }\n"),
            "/proj/culprit.toml:4:12: overrides.\"A=1\": expected an override set name without "
            "'=', found 'A=1'");
  EXPECT_EQ(OverridesErrorOf("[overrides.gate]\nenv = { A = \"1\" }\nunset = [\"A\"]\n"),
            "/proj/culprit.toml:6:10: overrides.gate.unset[0]: expected a variable this set does "
            "not also set in env, found 'A'");
}

}  // namespace
}  // namespace culprit
