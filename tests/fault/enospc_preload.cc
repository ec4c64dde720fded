// An LD_PRELOAD library that makes a directory behave like a small, full file
// system: the disk-full fault tests (disk_full_test.cc) use it where the host
// cannot mount a tmpfs (no root, or no CAP_SYS_ADMIN, as in a default Docker
// container), and also everywhere else, so that this fallback is itself tested.
//
//   CULPRIT_FAKE_DISK_DIR=/abs/dir CULPRIT_FAKE_DISK_BYTES=4194304
//
// Every regular file under the directory counts as its size rounded up to a
// 4 KiB page, as on a tmpfs. A write into such a file that would take the total
// past the capacity writes what fits and then fails with ENOSPC, as a real
// file system does. Writes are seen where a process calls write, pwrite,
// writev, sendfile or copy_file_range through the dynamic linker: culprit's own
// records, cache entries, checkouts and build logs (POSIX write and
// libstdc++'s streams and std::filesystem::copy), and programs such as cp and
// dd. stdio's writes (fwrite) go to the C library's internal write and are not
// seen: a compiler's output does not fail here, it only fills the directory.
//
// Built without sanitizers (tests/CMakeLists.txt): under ASan it is preloaded
// ahead of the ASan runtime, which the test allows with verify_asan_link_order=0.

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>

namespace {

constexpr long long kPage = 4096;

long long RoundUp(long long bytes) { return (bytes + kPage - 1) / kPage * kPage; }

struct FakeDisk {
  char root[PATH_MAX] = {};  ///< The directory, with a trailing '/'.
  size_t root_length = 0;
  long long capacity = 0;
  bool active = false;
};

const FakeDisk& Disk() {
  // Read once, on the first write: the environment does not change under a
  // process that wants its files on the fake disk.
  static const FakeDisk disk = [] {
    FakeDisk d;
    const char* dir = getenv("CULPRIT_FAKE_DISK_DIR");
    const char* bytes = getenv("CULPRIT_FAKE_DISK_BYTES");
    if (dir == nullptr || bytes == nullptr || dir[0] != '/') return d;
    d.root_length = strlen(dir);
    if (d.root_length + 2 > sizeof(d.root)) return d;
    memcpy(d.root, dir, d.root_length);
    if (d.root[d.root_length - 1] != '/') d.root[d.root_length++] = '/';
    d.capacity = atoll(bytes);
    d.active = d.capacity > 0;
    return d;
  }();
  return disk;
}

/// Whether `fd` is a regular file under the fake disk.
bool OnDisk(int fd) {
  const FakeDisk& disk = Disk();
  if (!disk.active) return false;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof(path) - 1);
  if (n <= 0) return false;
  path[n] = '\0';
  return strncmp(path, disk.root, disk.root_length) == 0;
}

thread_local long long used_bytes;

int CountFile(const char*, const struct stat* st, int type, struct FTW*) {
  if (type == FTW_F && S_ISREG(st->st_mode)) used_bytes += RoundUp(st->st_size);
  return 0;
}

/// How many of `count` bytes written at `fd`'s `offset` (-1: its current
/// offset) fit on the fake disk; `count` when `fd` is not on it.
size_t BytesThatFit(int fd, size_t count, off_t offset) {
  if (count == 0 || !OnDisk(fd)) return count;
  struct stat st;
  if (fstat(fd, &st) != 0) return count;
  if (offset < 0) {
    int flags = fcntl(fd, F_GETFL);
    offset = (flags >= 0 && (flags & O_APPEND)) ? st.st_size : lseek(fd, 0, SEEK_CUR);
    if (offset < 0) offset = st.st_size;
  }
  used_bytes = 0;
  const FakeDisk& disk = Disk();
  char root[PATH_MAX];
  memcpy(root, disk.root, disk.root_length - 1);
  root[disk.root_length - 1] = '\0';
  nftw(root, CountFile, 16, FTW_PHYS);
  const long long free_bytes = std::max(0LL, disk.capacity - used_bytes);
  // The file may grow to what it holds now plus the free pages.
  const long long end_limit = RoundUp(st.st_size) + free_bytes;
  const long long end = static_cast<long long>(offset) + static_cast<long long>(count);
  if (end <= end_limit) return count;
  return static_cast<size_t>(std::max(0LL, end_limit - static_cast<long long>(offset)));
}

template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

/// Nothing fits: the call fails as on a full file system.
ssize_t NoSpace() {
  errno = ENOSPC;
  return -1;
}

}  // namespace

extern "C" {

ssize_t write(int fd, const void* buffer, size_t count) {
  static const auto real = Next<ssize_t (*)(int, const void*, size_t)>("write");
  size_t fits = BytesThatFit(fd, count, -1);
  if (fits == 0 && count > 0) return NoSpace();
  return real(fd, buffer, fits);
}

ssize_t pwrite(int fd, const void* buffer, size_t count, off_t offset) {
  static const auto real = Next<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite");
  size_t fits = BytesThatFit(fd, count, offset);
  if (fits == 0 && count > 0) return NoSpace();
  return real(fd, buffer, fits, offset);
}

ssize_t pwrite64(int fd, const void* buffer, size_t count, off_t offset) {
  static const auto real = Next<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite64");
  size_t fits = BytesThatFit(fd, count, offset);
  if (fits == 0 && count > 0) return NoSpace();
  return real(fd, buffer, fits, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  static const auto real = Next<ssize_t (*)(int, const struct iovec*, int)>("writev");
  size_t total = 0;
  for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
  size_t fits = BytesThatFit(fd, total, -1);
  if (fits == total) return real(fd, iov, iovcnt);
  if (fits == 0) return NoSpace();
  // Only the first buffer's part that fits: a short write, which callers retry.
  return write(fd, iov[0].iov_base, std::min(fits, iov[0].iov_len));
}

ssize_t sendfile(int out_fd, int in_fd, off_t* offset, size_t count) {
  static const auto real = Next<ssize_t (*)(int, int, off_t*, size_t)>("sendfile");
  size_t fits = BytesThatFit(out_fd, count, -1);
  if (fits == 0 && count > 0) return NoSpace();
  return real(out_fd, in_fd, offset, fits);
}

ssize_t sendfile64(int out_fd, int in_fd, off_t* offset, size_t count) {
  static const auto real = Next<ssize_t (*)(int, int, off_t*, size_t)>("sendfile64");
  size_t fits = BytesThatFit(out_fd, count, -1);
  if (fits == 0 && count > 0) return NoSpace();
  return real(out_fd, in_fd, offset, fits);
}

ssize_t copy_file_range(int in_fd, off_t* in_offset, int out_fd, off_t* out_offset, size_t count,
                        unsigned int flags) {
  static const auto real =
      Next<ssize_t (*)(int, off_t*, int, off_t*, size_t, unsigned int)>("copy_file_range");
  size_t fits = BytesThatFit(out_fd, count, out_offset != nullptr ? *out_offset : -1);
  if (fits == 0 && count > 0) return NoSpace();
  return real(in_fd, in_offset, out_fd, out_offset, fits, flags);
}

}  // extern "C"
