#include "records/records_config.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/config_text.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

Result<fs::path> RecordsDir(std::string_view text) {
  RecordsConfig records;
  Status status = ReadConfigText(
      text, [&](const ConfigTable& root) { return ReadRecordsSection(root, &records); });
  if (!status) return status.error();
  return records.dir;
}

TEST(RecordsSection, DirResolvesAgainstTheFile) {
  EXPECT_EQ(*RecordsDir(""), fs::path("/proj/benchmarks/results-v1"));
  EXPECT_EQ(*RecordsDir("[records]\ndir = \"out\"\n"), fs::path("/proj/out"));
  EXPECT_EQ(*RecordsDir("[records]\ndir = \"/abs/records/\"\n"), fs::path("/abs/records"));
}

TEST(RecordsSection, Errors) {
  Result<fs::path> empty = RecordsDir("[records]\ndir = \"\"\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message(),
            "/proj/culprit.toml:2:7: records.dir: expected a non-empty string, found \"\"");
  Result<fs::path> unknown = RecordsDir("[records]\ndri = \"x\"\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(),
            "/proj/culprit.toml:2:1: unknown key 'dri' in [records], did you mean 'dir'?");
}

}  // namespace
}  // namespace culprit
