#include "investigate/registry_config.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/support/config_text.h"

namespace culprit {
namespace {

constexpr char kQueries[] = "[queries.a]\ncommand = [\"x\"]\n[queries.b]\ncommand = [\"x\"]\n";

// [engine], [queries] then [registry], as the whole file reads them.
Status ReadRegistry(const ConfigTable& root, RegistryConfig* registry) {
  EngineConfig engine;
  std::map<std::string, QueryConfig> queries;
  CULPRIT_TRY(ReadEngineSection(root, &engine));
  CULPRIT_TRY(ReadQueriesSection(root, engine, &queries));
  return ReadRegistrySection(root, engine, queries, registry);
}

std::string RegistryErrorOf(std::string_view rest) {
  return ConfigErrorOf(WithTestEngine(std::string(kQueries) + std::string(rest)),
                       [](const ConfigTable& root) {
                         RegistryConfig registry;
                         return ReadRegistry(root, &registry);
                       });
}

TEST(RegistrySection, ReadsTheOrder) {
  RegistryConfig registry;
  Status status = ReadConfigText(
      WithTestEngine(fmt::format("{}[registry]\norder = [\"b\", \"a\"]\n", kQueries)),
      [&](const ConfigTable& root) { return ReadRegistry(root, &registry); });
  ASSERT_TRUE(status.ok()) << status.error().message();
  EXPECT_EQ(registry.order, (std::vector<std::string>{"b", "a"}));
}

TEST(RegistrySection, Errors) {
  EXPECT_EQ(RegistryErrorOf("[registry]\norder = [\"a\", \"c\"]\n"),
            "/proj/culprit.toml:9:15: registry.order[1]: expected a query defined in [queries], "
            "found \"c\", did you mean 'a'?");
  EXPECT_EQ(RegistryErrorOf("[registry]\norder = [\"a\", \"b\", \"a\"]\n"),
            "/proj/culprit.toml:9:20: registry.order[2]: expected each query once, found \"a\" "
            "again");
}

TEST(RegistrySection, ReadsTheCommand) {
  RegistryConfig registry;
  Status status = ReadConfigText(
      WithTestEngine(fmt::format("{}[registry]\norder = [\"b\", \"a\"]\n"
                                 "command = [\"{{artifact:es}}\", \"registry\", \"--only\", "
                                 "\"{{query}}\"]\n",
                                 kQueries)),
      [&](const ConfigTable& root) { return ReadRegistry(root, &registry); });
  ASSERT_TRUE(status.ok()) << status.error().message();
  EXPECT_EQ(RegistryCommandFor(registry.command, "a"),
            (std::vector<std::string>{"{artifact:es}", "registry", "--only", "a"}));
  EXPECT_EQ(RegistryCommandFor({"--q={query},{query}"}, "series.count"),
            (std::vector<std::string>{"--q=series.count,series.count"}));
  // "{{query}}" is an escape, a literal "{query}" for the engine: not filled in.
  EXPECT_EQ(RegistryCommandFor({"--label={{query}}", "{query}"}, "a"),
            (std::vector<std::string>{"--label={{query}}", "a"}));
}

TEST(RegistrySection, CommandErrors) {
  EXPECT_EQ(RegistryErrorOf("[registry]\norder = []\n"),
            "/proj/culprit.toml:9:9: registry.order: expected at least one query, found an "
            "empty list");
  EXPECT_EQ(RegistryErrorOf("[registry]\norder = [\"a\"]\ncommand = [\"x\", \"all\"]\n"),
            "/proj/culprit.toml:10:11: registry.command: expected \"{query}\" in some word: the "
            "command runs the order up to the measured query, which it must be told");
  // An escaped "{{query}}" is literal text: the command still does not name the query.
  EXPECT_NE(RegistryErrorOf("[registry]\norder = [\"a\"]\ncommand = [\"x\", \"{{query}}\"]\n")
                .find("/proj/culprit.toml:10:11: registry.command: expected \"{query}\""),
            std::string::npos);
  EXPECT_EQ(RegistryErrorOf("[registry]\ncommand = [\"x\", \"{query}\"]\n"),
            "/proj/culprit.toml:9:11: registry.command: expected registry.order beside it: the "
            "command runs the order, which culprit needs to name the queries before the "
            "measured one");
  EXPECT_NE(RegistryErrorOf("[registry]\norder = [\"a\"]\ncommand = [\"{artifact:nope}\", "
                            "\"{query}\"]\n")
                .find("/proj/culprit.toml:10:"),
            std::string::npos);
  // {query} is this command's own placeholder, beside the usual ones.
  EXPECT_EQ(RegistryErrorOf("[registry]\norder = [\"a\"]\ncommand = [\"x\", \"{query}\", "
                            "\"{qeury}\"]\n"),
            "/proj/culprit.toml:10:28: registry.command[2]: expected a placeholder {rev}, "
            "{commit}, {tree}, {query} or {artifact:NAME}, found {qeury}, did you mean 'query'?");
}

}  // namespace
}  // namespace culprit
