#include "cli/starter_config.h"

#include <gtest/gtest.h>

#include <string>

#include "investigate/config.h"

namespace culprit {
namespace {

constexpr char kFile[] = "/proj/culprit.toml";

TEST(StarterConfig, IsAcceptedAndNamesTheEngine) {
  std::string text = StarterConfig("eventstore");
  auto config = ParseConfig(text, kFile);
  ASSERT_TRUE(config.ok()) << config.error().message() << "\n" << text;
  EXPECT_EQ(config->engine.artifacts, std::vector<std::string>{"build/eventstore"});
  ASSERT_EQ(config->queries.count("example"), 1u);
  EXPECT_EQ(config->queries.at("example").command[0], "{artifact:eventstore}");
  EXPECT_NE(text.find("# "), std::string::npos);  // commented

  // Characters that would break the TOML strings are dropped.
  auto odd = ParseConfig(StarterConfig("my \"engine\"/v2"), kFile);
  ASSERT_TRUE(odd.ok()) << odd.error().message();
  EXPECT_EQ(odd->engine.artifacts, std::vector<std::string>{"build/myenginev2"});
  auto empty = ParseConfig(StarterConfig(""), kFile);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->engine.artifacts, std::vector<std::string>{"build/engine"});
}

TEST(StarterConfig, CommentedSectionsAreValidWhenUncommented) {
  // Uncommenting every "# [section]" block (lines starting "# " after such a
  // header, until a blank line) must still give a valid file.
  std::string text = StarterConfig("es");
  std::string out;
  bool in_block = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("# [", 0) == 0) in_block = true;
    if (line.empty()) in_block = false;
    if (in_block && line.rfind("# ", 0) == 0) line = line.substr(2);
    out += line + "\n";
  }
  auto config = ParseConfig(out, kFile);
  ASSERT_TRUE(config.ok()) << config.error().message() << "\n" << out;
  EXPECT_EQ(config->overrides.size(), 1u);
  EXPECT_EQ(config->residency.size(), 1u);
  EXPECT_EQ(config->registry.order, std::vector<std::string>{"example"});
  EXPECT_FALSE(config->harness.command.empty());
}

}  // namespace
}  // namespace culprit
