#include "engine/file_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/interrupt.h"

namespace culprit {
namespace {

Result<int> OpenLockFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    return Error(
        fmt::format("cannot create directory {}: {}", path.parent_path().string(), ec.message()));
  }
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Error(fmt::format("cannot open lock file {}: {}", path.string(), std::strerror(errno)))
        .WithHint("check that the cache directory is writable");
  }
  return fd;
}

int FlockOperation(LockMode mode) { return mode == LockMode::kShared ? LOCK_SH : LOCK_EX; }

}  // namespace

Result<std::optional<FileLock>> FileLock::TryAcquire(const std::filesystem::path& path,
                                                     LockMode mode) {
  Result<int> fd = OpenLockFile(path);
  if (!fd) return fd.error();
  while (::flock(*fd, FlockOperation(mode) | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    int saved = errno;
    ::close(*fd);
    if (saved == EWOULDBLOCK) return std::optional<FileLock>();
    return Error(fmt::format("cannot lock {}: {}", path.string(), std::strerror(saved)));
  }
  return std::optional<FileLock>(FileLock(*fd, path));
}

Result<FileLock> FileLock::Acquire(const std::filesystem::path& path,
                                   const std::function<void()>& on_wait, LockMode mode) {
  Result<std::optional<FileLock>> attempt = TryAcquire(path, mode);
  if (!attempt) return attempt.error();
  if (attempt->has_value()) return std::move(**attempt);
  if (on_wait) on_wait();
  Result<int> fd = OpenLockFile(path);
  if (!fd) return fd.error();
  // A blocking flock returns EINTR when a signal arrives (the interrupt handler
  // does not restart system calls), which is our chance to honour Ctrl-C.
  while (::flock(*fd, FlockOperation(mode)) != 0) {
    if (errno == EINTR && !InterruptRequested()) continue;
    int saved = errno;
    ::close(*fd);
    if (saved == EINTR) {
      return Error::Interrupted(fmt::format("interrupted while waiting for {}", path.string()));
    }
    return Error(fmt::format("cannot lock {}: {}", path.string(), std::strerror(saved)));
  }
  return FileLock(*fd, path);
}

Status FileLock::ConvertToShared() {
  while (::flock(fd_, LOCK_SH) != 0) {
    if (errno == EINTR) continue;
    return Error(
        fmt::format("cannot share the lock on {}: {}", path_.string(), std::strerror(errno)));
  }
  return {};
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() { Release(); }

void FileLock::Release() {
  if (fd_ < 0) return;
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace culprit
