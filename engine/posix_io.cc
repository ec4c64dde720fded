#include "engine/posix_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace culprit {

void Fd::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<Pipe> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return Error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

void SetNonBlocking(const Fd& fd) {
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_NONBLOCK);
}

pollfd PollFor(int fd, short events) {
  pollfd entry{};
  entry.fd = fd;
  entry.events = events;
  return entry;
}

void SignalGroup(pid_t group, int signal_number) { ::kill(-group, signal_number); }

Fd OpenPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return Fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
#else
  return Fd();
#endif
}

ScopedBlockSigpipe::ScopedBlockSigpipe() {
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &block, &old_);
}

ScopedBlockSigpipe::~ScopedBlockSigpipe() {
  if (!was_pending_) {
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

ScopedBlockAllSignals::ScopedBlockAllSignals() {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old_);
}

ScopedBlockAllSignals::~ScopedBlockAllSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

}  // namespace culprit
