#include "base/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

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
  // What an earlier writer of this file killed mid-write left behind (first:
  // this process may be killed too once its file is in place).
  RemoveStaleTempFiles(dir, path.filename().string());

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
      Error error =
          errno == EEXIST
              ? Error(fmt::format("{} already exists and is never overwritten", path.string()))
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

void RemoveStaleTempFiles(const std::filesystem::path& dir, std::string_view name) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
    std::string file = entry.path().filename().string();
    size_t tmp = file.rfind(".tmp-");
    if (file.size() < 2 || file[0] != '.' || tmp == std::string::npos || tmp < 1) continue;
    if (!name.empty() && std::string_view(file).substr(1, tmp - 1) != name) continue;
    size_t dash = file.find('-', tmp + 5);
    if (dash == std::string::npos || dash == tmp + 5) continue;
    long pid = 0;
    for (size_t i = tmp + 5; i < dash; ++i) {
      if (file[i] < '0' || file[i] > '9') pid = -1;
      if (pid >= 0) pid = pid * 10 + (file[i] - '0');
      if (pid > (1L << 22)) pid = -1;  // beyond Linux's pid_max
      if (pid < 0) break;
    }
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
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
