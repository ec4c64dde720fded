#include "investigate/registry_config.h"

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
  return ReadRegistrySection(root, queries, registry);
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
  Status status =
      ReadConfigText(WithTestEngine(std::string(kQueries) + "[registry]\norder = [\"b\", \"a\"]\n"),
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

}  // namespace
}  // namespace culprit
