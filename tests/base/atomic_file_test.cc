#include "base/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

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

TEST(WriteFileAtomically, RemovesTempFilesOfWritersThatDied) {
  TempDir dir;
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  ASSERT_GT(dead, 0);
  ASSERT_EQ(waitpid(dead, nullptr, 0), dead);
  auto temp = [&](const std::string& name, pid_t pid) {
    std::filesystem::path p =
        dir.path() / ("." + name + ".tmp-" + std::to_string(pid) + "-0000abcd");
    WriteTextFile(p, "half");
    return p;
  };
  std::filesystem::path stale = temp("state.json", dead);
  std::filesystem::path live = temp("state.json", getppid());  // still running
  std::filesystem::path other = temp("other.json", dead);      // another file's
  ASSERT_TRUE(WriteFileAtomically(dir.path() / "state.json", "whole"));
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(other));
  RemoveStaleTempFiles(dir.path());  // every file's
  EXPECT_FALSE(std::filesystem::exists(other));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_EQ(ReadAll(dir.path() / "state.json"), "whole");
}

TEST(ReadFile, MissingFileNamesPath) {
  auto result = ReadFile("/nonexistent/culprit-file");
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("/nonexistent/culprit-file"), std::string::npos);
}

}  // namespace
}  // namespace culprit
