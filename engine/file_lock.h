#pragma once

// An advisory lock on a file (flock), so that two culprit processes never
// build into the same scratch directory at once: exclusive, or shared (many
// readers of a build cache entry, which its rebuild or pruning must not pull
// from under them). The lock belongs to the open file description: two
// FileLocks on one file conflict even within one process; it is released when
// the FileLock is destroyed, and also by the kernel if the process dies, so a
// crash never leaves a stale lock.

#include <filesystem>
#include <functional>
#include <optional>

#include "base/result.h"

namespace culprit {

/// Exclusive: one holder. Shared: any number of holders, and no exclusive one.
enum class LockMode { kExclusive, kShared };

class FileLock {
 public:
  /// Takes the lock on `path` (the file is created if missing). If another
  /// process (or another FileLock in this process) holds it in a conflicting
  /// mode, calls `on_wait` once, e.g. to say "waiting for another culprit
  /// ...", then blocks until it is free. Returns Error::Interrupted if the
  /// user presses Ctrl-C meanwhile.
  static Result<FileLock> Acquire(const std::filesystem::path& path,
                                  const std::function<void()>& on_wait = {},
                                  LockMode mode = LockMode::kExclusive);

  /// Takes the lock if it is free; nullopt if someone else holds it in a
  /// conflicting mode.
  static Result<std::optional<FileLock>> TryAcquire(const std::filesystem::path& path,
                                                    LockMode mode = LockMode::kExclusive);

  /// Turns an exclusive lock into a shared one. Not atomic (flock drops the
  /// old lock, then takes the new one): use it where nothing else can take
  /// the exclusive lock meanwhile. Errors: the system refuses.
  Status ConvertToShared();

  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  const std::filesystem::path& path() const { return path_; }

 private:
  FileLock(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  void Release();

  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace culprit
