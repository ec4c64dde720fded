#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

namespace culprit {
namespace {

Error SystemError(std::string_view what, const std::filesystem::path& path) {
  return Error(fmt::format("{} {}: {}", what, path.string(), std::strerror(errno)));
}

Status WriteAll(int fd, std::string_view content, const std::filesystem::path& path) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return SystemError("cannot write", path);
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

void SyncDirectory(const std::filesystem::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content,
                           ExistingFile existing) {
  std::error_code ec;
  std::filesystem::path dir = path.parent_path();
  if (!dir.empty()) {
    std::filesystem::create_directories(dir, ec);
    if (ec) return Error(fmt::format("cannot create directory {}: {}", dir.string(), ec.message()));
  }
  if (existing == ExistingFile::kRefuse && std::filesystem::exists(path)) {
    return Error(fmt::format("{} already exists and is never overwritten", path.string()));
  }

  std::random_device entropy;
  std::filesystem::path temp =
      dir / fmt::format(".{}.tmp-{}-{:08x}", path.filename().string(), ::getpid(), entropy());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return SystemError("cannot create", temp);
  Status written = WriteAll(fd, content, temp);
  if (written && ::fsync(fd) != 0) written = SystemError("cannot sync", temp);
  ::close(fd);
  if (!written) {
    ::unlink(temp.c_str());
    return written;
  }

  if (existing == ExistingFile::kRefuse) {
    // link() fails with EEXIST instead of replacing: two writers racing for one
    // name cannot overwrite each other.
    if (::link(temp.c_str(), path.c_str()) != 0) {
      Error error = errno == EEXIST
                        ? Error(fmt::format("{} already exists and is never overwritten",
                                            path.string()))
                        : SystemError("cannot link", path);
      ::unlink(temp.c_str());
      return error;
    }
    ::unlink(temp.c_str());
  } else if (::rename(temp.c_str(), path.c_str()) != 0) {
    Error error = SystemError("cannot rename into", path);
    ::unlink(temp.c_str());
    return error;
  }
  SyncDirectory(dir);
  return {};
}

Result<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return Error(fmt::format("cannot read {}", path.string()));
  return out.str();
}

}  // namespace culprit
