#pragma once

// Descriptor and signal plumbing for the code that supervises child processes
// (engine/process.cc, engine/line_process.cc): owned descriptors, close-on-exec
// pipes, poll entries, process-group signals and scoped signal masks. Internal
// to engine/; nothing here knows about ProcessSpec.

#include <poll.h>
#include <signal.h>
#include <sys/types.h>

#include <utility>

#include "base/result.h"

namespace culprit {

/// A file descriptor closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { Close(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Close();

 private:
  int fd_ = -1;
};

/// A pipe whose both ends are close-on-exec, so that a child started from
/// another thread at the same moment never inherits them (an inherited write
/// end would keep our reader from ever seeing end-of-file). Boost's own pipes
/// are not close-on-exec, which is why they are not used.
struct Pipe {
  Fd read;
  Fd write;
};

/// A new pipe. Errors: the system refuses (too many open files).
Result<Pipe> MakePipe();

/// Makes writes to `fd` return EAGAIN instead of blocking.
void SetNonBlocking(const Fd& fd);

/// A poll entry waiting for `events` on `fd`.
pollfd PollFor(int fd, short events);

/// Sends `signal_number` to the whole process group. ESRCH (nobody left) is fine.
void SignalGroup(pid_t group, int signal_number);

/// A descriptor that becomes readable when `pid`, our child, exits; invalid
/// where the kernel has no pidfd_open (before Linux 5.3) or forbids it.
Fd OpenPidfd(pid_t pid);

/// Blocks SIGPIPE in this thread while a child's stdin is fed, so that a child
/// that exits without reading its input makes write() fail with EPIPE instead
/// of killing culprit. Ignoring SIGPIPE process-wide instead would be inherited
/// by every child we start. A SIGPIPE left pending by our writes is consumed.
class ScopedBlockSigpipe {
 public:
  ScopedBlockSigpipe();
  ~ScopedBlockSigpipe();
  ScopedBlockSigpipe(const ScopedBlockSigpipe&) = delete;
  ScopedBlockSigpipe& operator=(const ScopedBlockSigpipe&) = delete;

 private:
  sigset_t old_;
  bool was_pending_ = false;
};

/// Blocks every signal in the calling thread for its lifetime, as glibc's
/// posix_spawn does around its vfork-like clone: until the child has called
/// execve it runs on this thread's stack and shares culprit's memory, so a
/// signal handler running in it (culprit's Ctrl-C handler sets a flag) would
/// act on the parent's state. Other threads keep their masks, so a Ctrl-C
/// meanwhile is handled by one of them, or by this one when it unblocks.
class ScopedBlockAllSignals {
 public:
  ScopedBlockAllSignals();
  ~ScopedBlockAllSignals();
  ScopedBlockAllSignals(const ScopedBlockAllSignals&) = delete;
  ScopedBlockAllSignals& operator=(const ScopedBlockAllSignals&) = delete;

 private:
  sigset_t old_;
};

}  // namespace culprit
