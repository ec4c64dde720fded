#include "engine/file_lock.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

TEST(FileLock, SharedHoldersExcludeAnExclusiveOne) {
  TempDir dir;
  const fs::path path = dir.path() / "entry.lock";
  auto first = FileLock::Acquire(path, {}, LockMode::kShared);
  ASSERT_TRUE(first) << first.error().message();
  auto second = FileLock::TryAcquire(path, LockMode::kShared);
  ASSERT_TRUE(second && second->has_value());
  auto exclusive = FileLock::TryAcquire(path);
  ASSERT_TRUE(exclusive);
  EXPECT_FALSE(exclusive->has_value());
  { FileLock gone = std::move(*first); }
  EXPECT_FALSE(FileLock::TryAcquire(path)->has_value());  // The second still holds it.
  second->reset();
  auto now = FileLock::TryAcquire(path);
  ASSERT_TRUE(now && now->has_value());
  ASSERT_TRUE((*now)->ConvertToShared());
  EXPECT_TRUE(FileLock::TryAcquire(path, LockMode::kShared)->has_value());
  EXPECT_FALSE(FileLock::TryAcquire(path)->has_value());
}

TEST(FileLock, ExcludesASecondHolderUntilReleased) {
  TempDir dir;
  auto first = FileLock::Acquire(dir.path() / "sub" / "lock");
  ASSERT_TRUE(first) << first.error().message();
  auto second = FileLock::TryAcquire(dir.path() / "sub" / "lock");
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->has_value());
  { FileLock moved = std::move(*first); }  // released here
  auto third = FileLock::TryAcquire(dir.path() / "sub" / "lock");
  ASSERT_TRUE(third);
  EXPECT_TRUE(third->has_value());
}

}  // namespace
}  // namespace culprit
