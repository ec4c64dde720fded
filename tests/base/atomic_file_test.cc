#include "base/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

TEST(WriteFileAtomically, WritesAndReplaces) {
  TempDir dir;
  auto path = dir.path() / "sub" / "file.txt";
  ASSERT_TRUE(WriteFileAtomically(path, "one"));
  EXPECT_EQ(*ReadFile(path), "one");
  ASSERT_TRUE(WriteFileAtomically(path, "two"));
  EXPECT_EQ(*ReadFile(path), "two");
}

TEST(WriteFileAtomically, RefuseNeverOverwrites) {
  TempDir dir;
  auto path = dir.path() / "record.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first", ExistingFile::kRefuse));
  Status second = WriteFileAtomically(path, "second", ExistingFile::kRefuse);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message().find("never overwritten"), std::string::npos);
  EXPECT_EQ(*ReadFile(path), "first");
  // No temp files are left behind.
  int files = 0;
  for ([[maybe_unused]] auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1);
}

TEST(ReadFile, MissingFileNamesPath) {
  auto result = ReadFile("/nonexistent/culprit-file");
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("/nonexistent/culprit-file"), std::string::npos);
}

}  // namespace
}  // namespace culprit
