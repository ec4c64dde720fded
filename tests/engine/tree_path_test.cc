#include "engine/tree_path.h"

#include <gtest/gtest.h>

#include <string>

namespace culprit {
namespace {

bool Safe(std::string_view name) { return !UnsafeTreeEntryReason(name).has_value(); }

TEST(TreePath, OrdinaryNamesAreSafe) {
  for (std::string_view name :
       {"main.c", "README", ".gitignore", ".github", ".gitmodules", ".git-blame-ignore-revs", "git",
        "git~2", "...", ".. ", "a..b", ".gi", "x.git", "gitx~1", "back\\slash", "caf\xc3\xa9",
        "\x1b[31mred", " ", "-rf"}) {
    EXPECT_TRUE(Safe(name)) << name;
  }
}

TEST(TreePath, NamesThatLeaveTheDirectoryAreUnsafe) {
  EXPECT_EQ(UnsafeTreeEntryReason(""), "an empty name");
  EXPECT_EQ(UnsafeTreeEntryReason("."), "'.' names the directory itself");
  EXPECT_EQ(UnsafeTreeEntryReason(".."), "'..' leaves the checkout");
  EXPECT_EQ(UnsafeTreeEntryReason("a/b"), "a '/' in one entry's name");
  EXPECT_EQ(UnsafeTreeEntryReason("../x"), "a '/' in one entry's name");
  EXPECT_EQ(UnsafeTreeEntryReason("/etc"), "a '/' in one entry's name");
  EXPECT_EQ(UnsafeTreeEntryReason(std::string_view("a\0b", 3)), "a NUL byte in the name");
}

TEST(TreePath, DotGitInAnyCaseIsUnsafe) {
  for (std::string_view name : {".git", ".GIT", ".Git", ".gIt"}) {
    EXPECT_EQ(UnsafeTreeEntryReason(name), "'.git' would make the checkout a git repository")
        << name;
  }
}

// git's core.protectNTFS, on by default on every platform since 2.24.
TEST(TreePath, WhatNtfsReadsAsDotGitIsUnsafe) {
  for (std::string_view name :
       {".git.", ".git ", ".git. .", ".GIT..", "git~1", "GIT~1", "git~1.", ".git:", ".git::$DATA",
        ".git::$INDEX_ALLOCATION", "git~1:stream", "a\\.git", "a\\b\\GIT~1", ".git\\x"}) {
    EXPECT_EQ(UnsafeTreeEntryReason(name), "a name NTFS reads as '.git'") << name;
  }
  for (std::string_view name : {".git.x", ".gitx", "git~10", "xgit~1", ".git .x"}) {
    EXPECT_TRUE(Safe(name)) << name;
  }
}

TEST(TreePath, PrintableTreePathEscapesControlBytes) {
  EXPECT_EQ(PrintableTreePath("src/main.c"), "src/main.c");
  EXPECT_EQ(PrintableTreePath("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(PrintableTreePath("\x1b[2J\x7f"), "\\x1b[2J\\x7f");
  EXPECT_EQ(PrintableTreePath("a\\b"), "a\\\\b");
  EXPECT_EQ(PrintableTreePath(std::string_view("\0", 1)), "\\x00");
  EXPECT_EQ(PrintableTreePath("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 as it is
}

}  // namespace
}  // namespace culprit
