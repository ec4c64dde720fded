#include "engine/process.h"

// Children are started with vfork() (bp::posix::use_vfork) rather than fork():
// fork() copies culprit's page tables, which made every sample cost ~1.8x what
// hyperfine (posix_spawn) pays. Boost.Process 1.74 only compiles its vfork
// executor when boost/process/detail/config.hpp sees an old _XOPEN_SOURCE
// (vfork left POSIX in 2008), so without this use_vfork fails to link; glibc
// still provides vfork(). It must come before any Boost.Process header.
#define BOOST_POSIX_HAS_VFORK 1

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/posix.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "base/interrupt.h"
#include "base/result.h"
#include "base/strings.h"

namespace culprit {
namespace {

namespace bp = boost::process;
using Clock = std::chrono::steady_clock;

/// How long a process group gets between SIGTERM and SIGKILL: long enough for
/// an engine to flush and exit, short enough that a hung bisect step stays cheap.
constexpr std::chrono::milliseconds kTerminateGrace{500};
/// How often a wait wakes up to look at the Ctrl-C flag. It does not limit the
/// precision of wall time: the child's exit wakes the wait at once.
constexpr std::chrono::milliseconds kInterruptPoll{50};
/// After the child exits, how long its pipes may stay open (held by a
/// descendant that left its process group) before capture gives up on them.
constexpr std::chrono::milliseconds kDrainAfterExit{2000};
constexpr size_t kReadChunk = 64 * 1024;
/// How often LineProcess looks whether its child has exited, when it waits for that.
constexpr std::chrono::milliseconds kReapPoll{5};

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
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

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

Result<Pipe> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return Error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

std::string SignalName(int signal_number) {
  switch (signal_number) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    case SIGSYS:
      return "SIGSYS";
    default:
      break;
  }
  const char* text = ::strsignal(signal_number);
  return text != nullptr ? std::string(text) : "unknown signal";
}

pollfd PollFor(int fd, short events) {
  pollfd entry{};
  entry.fd = fd;
  entry.events = events;
  return entry;
}

double Milliseconds(const timeval& tv) { return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0; }

/// Where argv[0] is: as given when it has a '/', else the first executable of
/// that name in PATH (the PATH the child will see, if the spec overrides it).
Result<std::string> ResolveProgram(const ProcessSpec& spec) {
  const std::string& program = spec.argv[0];
  if (program.find('/') != std::string::npos) {
    std::filesystem::path path = program;
    if (path.is_relative() && !spec.cwd.empty()) path = spec.cwd / path;
    if (::access(path.c_str(), X_OK) != 0) {
      return Error(fmt::format("'{}': {}", path.string(), std::strerror(errno)));
    }
    return path.string();
  }
  std::string search_path;
  if (auto it = spec.set_env.find("PATH"); it != spec.set_env.end()) {
    search_path = it->second;
  } else if (std::find(spec.unset_env.begin(), spec.unset_env.end(), "PATH") ==
             spec.unset_env.end()) {
    const char* env_path = ::getenv("PATH");
    search_path = env_path != nullptr ? env_path : "/usr/bin:/bin";
  }
  size_t begin = 0;
  while (begin <= search_path.size()) {
    size_t end = search_path.find(':', begin);
    if (end == std::string::npos) end = search_path.size();
    std::string dir = search_path.substr(begin, end - begin);
    if (dir.empty()) dir = ".";
    std::filesystem::path candidate = std::filesystem::path(dir) / program;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate.string();
    }
    begin = end + 1;
  }
  return Error(fmt::format("'{}' was not found in PATH", program));
}

/// Sends `signal_number` to the whole process group. ESRCH (nobody left) is fine.
void SignalGroup(pid_t group, int signal_number) { ::kill(-group, signal_number); }

/// Blocks SIGPIPE in this thread while stdin is fed, so that a child that
/// exits without reading its input makes write() fail with EPIPE instead of
/// killing culprit. Ignoring SIGPIPE process-wide instead would be inherited
/// by every child we start. A SIGPIPE left pending by our writes is consumed.
class ScopedBlockSigpipe {
 public:
  ScopedBlockSigpipe() {
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &old_);
  }
  ~ScopedBlockSigpipe() {
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

 private:
  sigset_t old_;
  bool was_pending_ = false;
};

/// A descriptor that becomes readable when `pid`, our child, exits; invalid
/// where the kernel has no pidfd_open (before Linux 5.3) or forbids it.
Fd OpenPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return Fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
#else
  return Fd();
#endif
}

/// What we learn when the child exits.
struct Reaped {
  int status = 0;
  rusage usage{};
  Clock::time_point end;
};

/// The inherited environment with spec.unset_env removed, then spec.set_env
/// applied, as "NAME=value" entries.
std::vector<std::string> ChildEnvironment(const ProcessSpec& spec) {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::string name(text.substr(0, text.find('=')));
    if (spec.set_env.count(name) != 0) continue;
    if (std::find(spec.unset_env.begin(), spec.unset_env.end(), name) != spec.unset_env.end()) {
      continue;
    }
    entries.emplace_back(text);
  }
  for (const auto& [name, value] : spec.set_env) entries.push_back(name + "=" + value);
  return entries;
}

/// Blocks every signal in the calling thread for its lifetime, as glibc's
/// posix_spawn does around its vfork-like clone: until the child has called
/// execve it runs on this thread's stack and shares culprit's memory, so a
/// signal handler running in it (culprit's Ctrl-C handler sets a flag) would
/// act on the parent's state. Other threads keep their masks, so a Ctrl-C
/// meanwhile is handled by one of them, or by this one when it unblocks.
class ScopedBlockAllSignals {
 public:
  ScopedBlockAllSignals() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old_);
  }
  ~ScopedBlockAllSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  ScopedBlockAllSignals(const ScopedBlockAllSignals&) = delete;
  ScopedBlockAllSignals& operator=(const ScopedBlockAllSignals&) = delete;

 private:
  sigset_t old_;
};

/// Starts the child; on success returns its pid, which is also its process
/// group id. The child ends on our pipes/fds given as stdin, stdout, stderr.
/// `*started` is set just before the child is created (after everything the
/// parent prepares for it), so that wall time measures the child, not us.
Result<pid_t> Spawn(const ProcessSpec& spec, const std::string& program, int stdin_fd,
                    int stdout_fd, int stderr_fd, Clock::time_point* started) {
  // Everything the child needs is built here, in the parent: after vfork the
  // child may not allocate (malloc's locks and arenas are shared with the
  // parent's other threads, which keep running).
  std::vector<std::string> env_entries = ChildEnvironment(spec);
  std::vector<char*> envp;
  envp.reserve(env_entries.size() + 1);
  for (std::string& entry : env_entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  // Hand execve our own array. Boost's environment class is not used: its
  // find() in 1.74 reads past the end of shorter entries (AddressSanitizer).
  auto use_env = [&envp](auto& executor) { executor.env = envp.data(); };

  std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
  // chdir is done by setup_child rather than bp::start_dir, whose handler
  // ignores chdir's failure and would run the program in the wrong directory.
  const std::string cwd = spec.cwd.empty() ? std::string() : spec.cwd.string();
  const char* const cwd_text = cwd.empty() ? nullptr : cwd.c_str();

  // Runs in the vforked child before exec. The child borrows this thread's
  // stack and shares all of culprit's memory with the parent's other threads
  // (vfork suspends only the calling thread), so it makes only
  // async-signal-safe system calls on values prepared above, writes nothing
  // but Boost's error fields (set_error: an error_code and a std::string
  // assigned a literal of at most 15 characters, which fits the string's
  // inline buffer, so nothing is allocated) and its own stack, and on error
  // _exits at once rather than exec a program in a half-prepared state.
  //
  // Its own process group lets a timeout or Ctrl-C kill the child together
  // with everything it started, and keeps terminal Ctrl-C from reaching it
  // directly (culprit decides what to kill and when).
  auto setup_child = [stdin_fd, stdout_fd, stderr_fd, cwd_text](auto& executor) {
    auto fail = [&executor](const char* what) {
      executor.set_error(std::error_code(errno, std::system_category()), what);
      ::_exit(127);
    };
    ::setpgid(0, 0);
    if (::dup2(stdin_fd, STDIN_FILENO) < 0 || ::dup2(stdout_fd, STDOUT_FILENO) < 0 ||
        ::dup2(stderr_fd, STDERR_FILENO) < 0) {
      fail("dup2 failed");
    }
    if (cwd_text != nullptr && ::chdir(cwd_text) != 0) fail("chdir failed");
    // All signals are blocked (ScopedBlockAllSignals). Before unblocking them,
    // give every caught signal its default action, so that no culprit handler
    // can run in the child before exec (exec would reset them, but only
    // then). Ignored signals stay ignored, as across any exec. This is what
    // glibc's posix_spawn does. sigaction refuses glibc's internal signals,
    // SIGKILL and SIGSTOP; that is fine.
    for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
      struct sigaction current {};
      if (::sigaction(signal_number, nullptr, &current) != 0) continue;
      if ((current.sa_flags & SA_SIGINFO) == 0 &&
          (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN)) {
        continue;
      }
      struct sigaction default_action {};
      default_action.sa_handler = SIG_DFL;
      sigemptyset(&default_action.sa_mask);
      ::sigaction(signal_number, &default_action, nullptr);
    }
    // The program starts with an empty mask, whatever culprit's was.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
  };
  // Boost does not reap a child whose setup or exec failed; do it so no
  // zombie stays. (With vfork the child has already _exited by now.)
  auto reap_failed = [](auto& executor, const std::error_code&) {
    if (executor.pid > 0) {
      ::kill(executor.pid, SIGKILL);
      ::waitpid(executor.pid, nullptr, 0);
    }
  };
  // Handlers run in argument order after Boost's own (exe, args), so this is
  // the last thing before vfork.
  auto start_clock = [started](auto&) { *started = Clock::now(); };

  std::error_code ec;
  ScopedBlockAllSignals block_signals;
  bp::child child(bp::exe = program, bp::args = args, bp::posix::use_vfork,
                  bp::extend::on_setup = use_env, bp::extend::on_exec_setup = setup_child,
                  bp::extend::on_error = reap_failed, bp::extend::on_setup = start_clock, ec);
  if (ec || !child.valid()) {
    return Error(fmt::format("{}: {}", FormatCommand(spec.argv),
                             ec ? ec.message() : std::string("unknown error")));
  }
  pid_t pid = child.id();
  // We reap the child ourselves with wait4() to get its rusage (CPU time,
  // peak RSS), which boost's wait() would discard. Detached, boost's child
  // object neither waits for nor terminates the process when it is destroyed.
  child.detach();
  return pid;
}

/// The child's own peak resident set in kB, or 0 when it cannot be told.
/// Linux starts a process's peak at the resident set of the address space it
/// had when it called execve, and a vfork child calls execve from culprit's:
/// a peak up to culprit's own says only "at most that much", so it is unknown.
long ChildPeakRssKb(const rusage& child) {
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  return child.ru_maxrss > self.ru_maxrss ? child.ru_maxrss : 0;  // Linux reports kB.
}

ProcessResult RunImpl(const ProcessSpec& spec) {
  ProcessResult result;
  if (spec.argv.empty() || spec.argv[0].empty()) {
    result.start_error = "no command given";
    return result;
  }
  if (InterruptRequested()) {
    result.outcome = ProcessOutcome::kInterrupted;
    return result;
  }
  if (!spec.cwd.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(spec.cwd, ec)) {
      result.start_error =
          fmt::format("the working directory '{}' does not exist", spec.cwd.string());
      return result;
    }
  }
  Result<std::string> program = ResolveProgram(spec);
  if (!program) {
    result.start_error = program.error().message();
    return result;
  }

  auto out = MakePipe();
  auto err = MakePipe();
  if (!out || !err) {
    result.start_error = "cannot create pipes (too many open files?)";
    return result;
  }
  Fd stdin_read;
  Fd stdin_write;
  if (spec.stdin_data) {
    auto in = MakePipe();
    if (!in) {
      result.start_error = in.error().message();
      return result;
    }
    stdin_read = std::move(in->read);
    stdin_write = std::move(in->write);
    ::fcntl(stdin_write.get(), F_SETFL, ::fcntl(stdin_write.get(), F_GETFL) | O_NONBLOCK);
  } else {
    stdin_read = Fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  }

  Clock::time_point start = Clock::now();
  Result<pid_t> spawned =
      Spawn(spec, *program, stdin_read.get(), out->write.get(), err->write.get(), &start);
  // The child has its copies; ours must go, or the readers never see EOF.
  stdin_read.Close();
  out->write.Close();
  err->write.Close();
  if (!spawned) {
    result.start_error = spawned.error().message();
    return result;
  }
  const pid_t pid = *spawned;

  // The loop below must learn of the child's exit at once, which keeps wall
  // time exact, while it also serves the pipes, the Ctrl-C flag and the
  // timeout. A pidfd becomes readable when the child exits, and the loop then
  // reaps it with wait4 (for its rusage: CPU time, peak RSS). Without pidfds,
  // a thread blocks in wait4 and writes to a pipe. The pidfd spares every
  // sample a thread start, which would compete with the child for the CPU.
  Reaped reaped;
  auto wait_for_child = [pid, &reaped] {
    int status = 0;
    rusage usage{};
    pid_t r;
    do {
      r = ::wait4(pid, &status, 0, &usage);
    } while (r < 0 && errno == EINTR);
    reaped.status = status;
    reaped.usage = usage;
  };
  Fd exit_fd = OpenPidfd(pid);
  std::thread reaper;
  if (!exit_fd.valid()) {
    auto notify = MakePipe();
    if (!notify) {
      SignalGroup(pid, SIGKILL);
      wait_for_child();
      result.start_error = notify.error().message();
      return result;
    }
    exit_fd = std::move(notify->read);
    auto reap = [&wait_for_child, &reaped, notify_write = std::move(notify->write)] {
      wait_for_child();
      reaped.end = Clock::now();
      char byte = 1;
      [[maybe_unused]] auto n = ::write(notify_write.get(), &byte, 1);
    };
    try {
      reaper = std::thread(std::move(reap));
    } catch (const std::system_error& e) {
      // No thread, no supervision: do not leave the child running unattended.
      SignalGroup(pid, SIGKILL);
      wait_for_child();
      result.start_error = fmt::format("cannot start a thread to wait for it: {}", e.what());
      return result;
    }
  }

  std::optional<ScopedBlockSigpipe> block_sigpipe;
  if (spec.stdin_data) block_sigpipe.emplace();
  size_t stdin_offset = 0;
  if (spec.stdin_data && spec.stdin_data->empty()) stdin_write.Close();

  const bool has_deadline = spec.timeout.count() > 0;
  const Clock::time_point deadline = start + spec.timeout;
  std::optional<Clock::time_point> kill_at;      // SIGTERM was sent; SIGKILL at this time.
  std::optional<Clock::time_point> drain_until;  // The child has exited.
  bool timed_out = false;
  bool interrupted = false;
  std::string buffer(kReadChunk, '\0');

  auto start_killing = [&] {
    SignalGroup(pid, SIGTERM);
    kill_at = Clock::now() + kTerminateGrace;
  };

  while (true) {
    if (drain_until && !out->read.valid() && !err->read.valid()) break;
    pollfd fds[4];
    int count = 0;
    int out_index = -1, err_index = -1, in_index = -1, exit_index = -1;
    if (out->read.valid()) {
      out_index = count;
      fds[count++] = PollFor(out->read.get(), POLLIN);
    }
    if (err->read.valid()) {
      err_index = count;
      fds[count++] = PollFor(err->read.get(), POLLIN);
    }
    if (stdin_write.valid()) {
      in_index = count;
      fds[count++] = PollFor(stdin_write.get(), POLLOUT);
    }
    if (!drain_until) {
      exit_index = count;
      fds[count++] = PollFor(exit_fd.get(), POLLIN);
    }

    const Clock::time_point now = Clock::now();
    Clock::time_point wake = now + kInterruptPoll;
    if (drain_until) wake = std::min(wake, *drain_until);
    if (has_deadline && !timed_out) wake = std::min(wake, deadline);
    if (kill_at) wake = std::min(wake, *kill_at);
    auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(wake - now).count();
    int ready = ::poll(fds, count, static_cast<int>(std::max<int64_t>(wait_ms, 0)));
    const Clock::time_point polled = Clock::now();  // The child's end, if it is what woke us.
    if (ready < 0 && errno != EINTR) break;         // Cannot happen with valid fds; do not spin.

    if (ready > 0) {
      if (out_index >= 0 && fds[out_index].revents != 0) {
        ssize_t n = ::read(out->read.get(), buffer.data(), buffer.size());
        if (n > 0) {
          result.stdout_bytes += n;
          size_t room = spec.output_limit - std::min(spec.output_limit, result.stdout_text.size());
          result.stdout_text.append(buffer.data(), std::min<size_t>(room, n));
        } else if (n == 0 || errno != EINTR) {
          out->read.Close();
        }
      }
      if (err_index >= 0 && fds[err_index].revents != 0) {
        ssize_t n = ::read(err->read.get(), buffer.data(), buffer.size());
        if (n > 0) {
          result.stderr_bytes += n;
          result.stderr_text.append(buffer.data(), n);
          // Keep the tail; trimming only past twice the limit keeps this linear.
          if (result.stderr_text.size() > 2 * spec.output_limit + kReadChunk) {
            result.stderr_text.erase(0, result.stderr_text.size() - spec.output_limit);
          }
        } else if (n == 0 || errno != EINTR) {
          err->read.Close();
        }
      }
      if (in_index >= 0 && fds[in_index].revents != 0) {
        const std::string& data = *spec.stdin_data;
        ssize_t n =
            ::write(stdin_write.get(), data.data() + stdin_offset, data.size() - stdin_offset);
        if (n > 0) stdin_offset += n;
        // Done, or the child closed its stdin (EPIPE): either way, close ours.
        if (stdin_offset >= data.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) {
          stdin_write.Close();
        }
      }
      if (exit_index >= 0 && fds[exit_index].revents != 0) {
        // The child has exited. Anything it left behind in its group goes
        // too, so that nothing keeps running (or holds our pipes) after we
        // return. (Killed before the reaping: until then the group id cannot
        // be reused.)
        SignalGroup(pid, SIGKILL);
        if (!reaper.joinable()) {
          wait_for_child();  // A zombie by now: this does not block.
          reaped.end = polled;
        }
        stdin_write.Close();
        drain_until = Clock::now() + kDrainAfterExit;
        kill_at.reset();
      }
    }

    const Clock::time_point after = Clock::now();
    if (drain_until) {
      if (after >= *drain_until) break;
      continue;
    }
    if (!timed_out && !interrupted) {
      if (InterruptRequested()) {
        interrupted = true;
        start_killing();
      } else if (has_deadline && after >= deadline) {
        timed_out = true;
        start_killing();
      }
    }
    if (kill_at && after >= *kill_at) {
      SignalGroup(pid, SIGKILL);
      kill_at.reset();
    }
  }
  if (reaper.joinable()) {
    reaper.join();
  } else if (!drain_until) {  // Left the loop on a poll error: never leave the child behind.
    SignalGroup(pid, SIGKILL);
    wait_for_child();
    reaped.end = Clock::now();
  }

  if (result.stderr_text.size() > spec.output_limit) {
    result.stderr_text.erase(0, result.stderr_text.size() - spec.output_limit);
  }
  result.wall_ms = std::chrono::duration<double, std::milli>(reaped.end - start).count();
  result.user_ms = Milliseconds(reaped.usage.ru_utime);
  result.system_ms = Milliseconds(reaped.usage.ru_stime);
  result.max_rss_kb = ChildPeakRssKb(reaped.usage);
  if (timed_out) {
    result.outcome = ProcessOutcome::kTimedOut;
  } else if (interrupted) {
    result.outcome = ProcessOutcome::kInterrupted;
  } else if (WIFEXITED(reaped.status)) {
    result.outcome = ProcessOutcome::kExited;
    result.exit_code = WEXITSTATUS(reaped.status);
  } else if (WIFSIGNALED(reaped.status)) {
    result.outcome = ProcessOutcome::kSignaled;
    result.signal = WTERMSIG(reaped.status);
  }
  return result;
}

bool NeedsQuoting(std::string_view word) {
  if (word.empty()) return true;
  return std::any_of(word.begin(), word.end(), [](char c) {
    return !(std::isalnum(static_cast<unsigned char>(c)) ||
             std::string_view("_@%+=:,./-").find(c) != std::string_view::npos);
  });
}

}  // namespace

std::string ProcessResult::Describe(const ProcessSpec& spec) const {
  switch (outcome) {
    case ProcessOutcome::kExited:
      return fmt::format("exited with status {}", exit_code);
    case ProcessOutcome::kSignaled:
      return fmt::format("killed by signal {} ({})", signal, SignalName(signal));
    case ProcessOutcome::kTimedOut:
      if (spec.timeout.count() <= 0) return "timed out and was killed";
      return fmt::format("timed out after {:g} s and was killed", spec.timeout.count() / 1000.0);
    case ProcessOutcome::kFailedToStart:
      return fmt::format("could not start: {}", start_error);
    case ProcessOutcome::kInterrupted:
      return "interrupted (Ctrl-C); it and its child processes were killed";
  }
  return "ended in an unknown way";
}

ProcessResult RunProcess(const ProcessSpec& spec) {
  // Everything that can throw (environment, paths, thread creation) happens
  // before the child exists or is handled without leaving it running.
  try {
    return RunImpl(spec);
  } catch (const std::exception& e) {
    ProcessResult result;
    result.start_error = e.what();
    return result;
  }
}

std::string FormatCommand(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& word : argv) {
    if (!text.empty()) text += ' ';
    if (!NeedsQuoting(word)) {
      text += word;
      continue;
    }
    text += '\'';
    for (char c : word) {
      if (c == '\'') {
        text += "'\\''";
      } else {
        text += c;
      }
    }
    text += '\'';
  }
  return text;
}

// --- LineProcess ---------------------------------------------------------

struct LineProcess::State {
  ProcessSpec spec;
  pid_t pid = -1;
  bool reaped = false;
  ProcessResult ended;  ///< How it ended, once reaped (outcome, exit_code, signal).
  bool killed_by_us = false;
  std::string broken;  ///< Why the conversation is over, once it is.
  Fd stdin_write;
  Fd stdout_read;
  std::string pending;  ///< stdout bytes after the last full line.

  Fd stderr_read;
  mutable std::mutex stderr_mutex;
  std::string stderr_text;
  std::atomic<bool> stop_stderr{false};
  std::atomic<bool> stderr_done{false};
  std::thread stderr_thread;

  void DrainStderr() {
    DrainStderrUntilEof();
    stderr_done.store(true);
  }

  void DrainStderrUntilEof() {
    std::string buffer(kReadChunk, '\0');
    while (!stop_stderr.load()) {
      pollfd entry = PollFor(stderr_read.get(), POLLIN);
      int ready = ::poll(&entry, 1, static_cast<int>(kInterruptPoll.count()));
      if (ready <= 0) continue;
      ssize_t n = ::read(stderr_read.get(), buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      std::lock_guard lock(stderr_mutex);
      stderr_text.append(buffer.data(), n);
      if (stderr_text.size() > spec.output_limit) {
        stderr_text.erase(0, stderr_text.size() - spec.output_limit);
      }
    }
  }

  /// Records how the child ended from a wait status.
  void Reaped(int status) {
    reaped = true;
    if (killed_by_us) {
      ended.outcome = ProcessOutcome::kTimedOut;
    } else if (WIFEXITED(status)) {
      ended.outcome = ProcessOutcome::kExited;
      ended.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      ended.outcome = ProcessOutcome::kSignaled;
      ended.signal = WTERMSIG(status);
    }
    // Whatever it started goes with it.
    SignalGroup(pid, SIGKILL);
    // Let the reader catch up with the child's last words (they explain its
    // exit); bounded, since a descendant outside the group may hold the pipe.
    auto until = Clock::now() + kDrainAfterExit;
    while (stderr_thread.joinable() && !stderr_done.load() && Clock::now() < until) {
      std::this_thread::sleep_for(kReapPoll);
    }
  }

  bool TryReap() {
    if (reaped) return true;
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) Reaped(status);
    return reaped;
  }

  void KillAndReap() {
    if (reaped) return;
    killed_by_us = true;
    SignalGroup(pid, SIGKILL);
    int status = 0;
    pid_t r;
    do {
      r = ::waitpid(pid, &status, 0);
    } while (r < 0 && errno == EINTR);
    Reaped(status);
  }

  /// Waits up to `grace` for the child to exit by itself, then SIGTERM, then SIGKILL.
  void WaitForExit(std::chrono::milliseconds grace) {
    auto until = Clock::now() + grace;
    while (!TryReap() && Clock::now() < until) std::this_thread::sleep_for(kReapPoll);
    if (reaped) return;
    killed_by_us = true;
    SignalGroup(pid, SIGTERM);
    until = Clock::now() + kTerminateGrace;
    while (!TryReap() && Clock::now() < until) std::this_thread::sleep_for(kReapPoll);
    KillAndReap();
  }

  std::string StderrTail() const {
    std::lock_guard lock(stderr_mutex);
    return TailLines(stderr_text, 5);
  }

  /// The error for talking to a child that has gone.
  Error Gone() const {
    std::string how = killed_by_us ? std::string("was killed") : ended.Describe(spec);
    std::string message = fmt::format("the harness {} ({})", how, FormatCommand(spec.argv));
    std::string tail = StderrTail();
    if (!tail.empty()) message += fmt::format("; last lines of its stderr:\n{}", tail);
    return Error(message);
  }
};

LineProcess::LineProcess(std::unique_ptr<State> state) : state_(std::move(state)) {}

LineProcess::~LineProcess() {
  if (!state_) return;
  if (state_->pid > 0) state_->KillAndReap();
  state_->stop_stderr.store(true);
  if (state_->stderr_thread.joinable()) state_->stderr_thread.join();
}

Result<std::unique_ptr<LineProcess>> LineProcess::Start(const ProcessSpec& spec) {
  auto fail = [&](std::string why) {
    return Error(fmt::format("cannot start the harness ({}): {}", FormatCommand(spec.argv), why));
  };
  if (spec.argv.empty() || spec.argv[0].empty()) return fail("no command given");
  if (!spec.cwd.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(spec.cwd, ec)) {
      return fail(fmt::format("the working directory '{}' does not exist", spec.cwd.string()));
    }
  }
  try {
    Result<std::string> program = ResolveProgram(spec);
    if (!program) return fail(program.error().message());
    auto in = MakePipe();
    auto out = MakePipe();
    auto err = MakePipe();
    if (!in || !out || !err) return fail("cannot create pipes (too many open files?)");

    auto state = std::make_unique<State>();
    state->spec = spec;
    Clock::time_point started;
    Result<pid_t> spawned =
        Spawn(spec, *program, in->read.get(), out->write.get(), err->write.get(), &started);
    in->read.Close();
    out->write.Close();
    err->write.Close();
    if (!spawned) return fail(spawned.error().message());
    state->pid = *spawned;
    state->stdin_write = std::move(in->write);
    state->stdout_read = std::move(out->read);
    state->stderr_read = std::move(err->read);
    ::fcntl(state->stdin_write.get(), F_SETFL,
            ::fcntl(state->stdin_write.get(), F_GETFL) | O_NONBLOCK);
    // From here the destructor kills and reaps the child whatever happens.
    std::unique_ptr<LineProcess> process(new LineProcess(std::move(state)));
    State* s = process->state_.get();
    s->stderr_thread = std::thread([s] { s->DrainStderr(); });
    return process;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

Result<std::string> LineProcess::Request(std::string_view line, std::chrono::milliseconds timeout) {
  State& s = *state_;
  if (line.find('\n') != std::string_view::npos) {
    return Error::Usage(fmt::format("a harness request cannot contain a newline: '{}'", line));
  }
  if (!s.broken.empty()) return Error(s.broken);
  if (s.TryReap()) return s.Gone();

  const std::string data = std::string(line) + '\n';
  size_t offset = 0;
  const Clock::time_point deadline = Clock::now() + timeout;
  ScopedBlockSigpipe block_sigpipe;
  std::string buffer(kReadChunk, '\0');
  auto give_up = [&](Error error) {
    s.KillAndReap();
    s.broken = error.message();
    return error;
  };
  while (true) {
    if (offset == data.size()) {
      size_t newline = s.pending.find('\n');
      if (newline != std::string::npos) {
        std::string reply = s.pending.substr(0, newline);
        s.pending.erase(0, newline + 1);
        if (!reply.empty() && reply.back() == '\r') reply.pop_back();
        return reply;
      }
    }
    pollfd fds[2];
    int count = 0;
    fds[count++] = PollFor(s.stdout_read.get(), POLLIN);
    if (offset < data.size()) fds[count++] = PollFor(s.stdin_write.get(), POLLOUT);
    const Clock::time_point now = Clock::now();
    auto wait = std::chrono::ceil<std::chrono::milliseconds>(
        std::min(deadline, now + kInterruptPoll) - now);
    int ready = ::poll(fds, count, static_cast<int>(std::max<int64_t>(wait.count(), 0)));
    if (InterruptRequested()) {
      return give_up(Error::Interrupted(
          fmt::format("interrupted while waiting for the harness to answer '{}'", line)));
    }
    if (ready > 0 && count > 1 && fds[1].revents != 0) {
      ssize_t n = ::write(s.stdin_write.get(), data.data() + offset, data.size() - offset);
      if (n > 0) {
        offset += n;
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        // EPIPE: it closed its stdin, which means it is exiting or has exited.
        s.WaitForExit(std::chrono::seconds(1));
        return s.Gone();
      }
    }
    if (ready > 0 && fds[0].revents != 0) {
      ssize_t n = ::read(s.stdout_read.get(), buffer.data(), buffer.size());
      if (n > 0) {
        s.pending.append(buffer.data(), n);
        continue;
      }
      if (n == 0 || errno != EINTR) {
        s.WaitForExit(std::chrono::seconds(1));
        return s.Gone();
      }
    }
    if (Clock::now() >= deadline) {
      return give_up(
          Error(fmt::format("the harness did not answer '{}' within {:g} s; it was killed", line,
                            timeout.count() / 1000.0)));
    }
  }
}

Status LineProcess::Close(std::chrono::milliseconds grace) {
  State& s = *state_;
  if (!s.reaped) {
    {
      ScopedBlockSigpipe block_sigpipe;
      static constexpr char kQuit[] = "quit\n";
      // Best effort: a harness that is gone or not reading just gets EOF.
      [[maybe_unused]] auto n = ::write(s.stdin_write.get(), kQuit, sizeof(kQuit) - 1);
    }
    s.stdin_write.Close();
    s.WaitForExit(grace);
  }
  s.stop_stderr.store(true);
  if (s.stderr_thread.joinable()) s.stderr_thread.join();
  if (s.killed_by_us) {
    if (!s.broken.empty()) return Error(s.broken);
    return Error(fmt::format("the harness did not exit within {:g} s of 'quit'; it was killed",
                             grace.count() / 1000.0));
  }
  if (!s.ended.ok()) return s.Gone();
  return {};
}

std::string LineProcess::StderrTail() const {
  std::lock_guard lock(state_->stderr_mutex);
  return state_->stderr_text;
}

bool LineProcess::running() const { return !state_->TryReap(); }
}  // namespace culprit
