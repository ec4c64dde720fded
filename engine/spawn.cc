#include "engine/spawn.h"

// Children are started with vfork() (bp::posix::use_vfork) rather than fork():
// fork() copies culprit's page tables, which made every sample cost ~1.8x what
// hyperfine (posix_spawn) pays. Boost.Process 1.74 only compiles its vfork
// executor when boost/process/detail/config.hpp sees an old _XOPEN_SOURCE
// (vfork left POSIX in 2008), so without this use_vfork fails to link; glibc
// still provides vfork(). It must come before any Boost.Process header.
#define BOOST_POSIX_HAS_VFORK 1

#include <fmt/format.h>
#include <sched.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/posix.hpp>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "base/interrupt.h"
#include "engine/orphans.h"
#include "engine/posix_io.h"

namespace culprit {
namespace {

namespace bp = boost::process;

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

/// spec.placement as the child applies it: prepared in the parent, since the
/// vforked child may not allocate.
struct ChildPlacement {
  bool pin = false;
  cpu_set_t cpus;
  bool no_aslr = false;
};

Result<ChildPlacement> PrepareChildPlacement(const RunPlacement& placement) {
  ChildPlacement child;
  CPU_ZERO(&child.cpus);
  for (int cpu : placement.cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
      return Error(fmt::format("CPU {} cannot be pinned to (0 to {})", cpu, CPU_SETSIZE - 1));
    }
    CPU_SET(cpu, &child.cpus);
    child.pin = true;
  }
  child.no_aslr = !placement.aslr;
  return child;
}

/// In the child, before exec: only system calls. Returns the failed call's
/// name (at most 15 characters, see setup_child) or nullptr.
const char* ApplyChildPlacement(const ChildPlacement& placement) {
  if (placement.pin && ::sched_setaffinity(0, sizeof(placement.cpus), &placement.cpus) != 0) {
    return "setaffinity";
  }
  if (placement.no_aslr) {
    // 0xffffffff reads the persona without changing it; the flag takes effect at exec.
    const int persona = ::personality(0xffffffff);
    if (persona == -1 ||
        ::personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE) == -1) {
      return "personality";
    }
  }
  return nullptr;
}

/// In the child, last before exec (system calls only). All signals are blocked
/// (ScopedBlockAllSignals). Before unblocking them, gives every caught signal
/// its default action, so that no culprit handler can run in the child before
/// exec (exec would reset them, but only then). Ignored signals stay ignored,
/// as across any exec. This is what glibc's posix_spawn does. sigaction refuses
/// glibc's internal signals, SIGKILL and SIGSTOP; that is fine. The program
/// starts with an empty mask, whatever culprit's was.
void UnblockSignalsForExec() {
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
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace

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

Result<std::string> ProgramToStart(const ProcessSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) return Error("no command given");
  if (!spec.cwd.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(spec.cwd, ec)) {
      return Error(fmt::format("the working directory '{}' does not exist", spec.cwd.string()));
    }
  }
  return ResolveProgram(spec);
}

// Long on purpose: what the child does between vfork and exec must be read in one place,
// beside what the parent prepared for it (no allocation after vfork); split, the rule that
// keeps the child safe would sit in two functions.
Result<pid_t> Spawn(const ProcessSpec& spec, const std::string& program, int stdin_fd,
                    int stdout_fd, int stderr_fd, std::chrono::steady_clock::time_point* started) {
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
  Result<ChildPlacement> placement_or = PrepareChildPlacement(spec.placement);
  if (!placement_or) return placement_or.error();
  const ChildPlacement placement = *placement_or;

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
  auto setup_child = [stdin_fd, stdout_fd, stderr_fd, cwd_text, &placement](auto& executor) {
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
    if (const char* failed = ApplyChildPlacement(placement)) fail(failed);
    UnblockSignalsForExec();
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
  auto start_clock = [started](auto&) { *started = std::chrono::steady_clock::now(); };

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
  // The child's group is its own (setpgid in setup_child); set it from here as well, as
  // SpawnHeld does. Under vfork this does nothing (the child has exec'd by now: EACCES), but
  // where vfork is a fork (ThreadSanitizer makes it one) the parent may run first, and a kill
  // of the group at once (a throwing on_start) would find no group and leave the child.
  ::setpgid(pid, pid);
  // We reap the child ourselves with wait4() to get its rusage (CPU time,
  // peak RSS), which boost's wait() would discard. Detached, boost's child
  // object neither waits for nor terminates the process when it is destroyed.
  child.detach();
  NoteChild(pid);
  // For a quit at once (a third Ctrl-C), which must not leave it running.
  NoteChildGroup(pid);
  return pid;
}

// The fork-based sibling of Spawn, for counted runs only (spec.before_exec).
// Long on purpose: as Spawn's, what the child does between fork and exec (system calls only,
// on what the parent prepared) must be read in one place with the gate the parent holds it at.
Result<pid_t> SpawnHeld(const ProcessSpec& spec, const std::string& program, int stdin_fd,
                        int stdout_fd, int stderr_fd,
                        std::chrono::steady_clock::time_point* started) {
  // Prepared in the parent, as for Spawn: after fork, a multithreaded process's child may
  // make only async-signal-safe calls (another thread may have held malloc's lock).
  std::vector<std::string> env_entries = ChildEnvironment(spec);
  std::vector<char*> envp;
  envp.reserve(env_entries.size() + 1);
  for (std::string& entry : env_entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_copies(spec.argv);
  std::vector<char*> argv;
  argv.reserve(arg_copies.size() + 1);
  for (std::string& arg : arg_copies) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const std::string cwd = spec.cwd.empty() ? std::string() : spec.cwd.string();
  const char* const cwd_text = cwd.empty() ? nullptr : cwd.c_str();
  Result<ChildPlacement> placement_or = PrepareChildPlacement(spec.placement);
  if (!placement_or) return placement_or.error();
  const ChildPlacement placement = *placement_or;
  // The gate: the child reads it until end-of-file, which comes when the parent closes its
  // write end, after before_exec. The report: close-on-exec, so end-of-file at once when
  // the exec succeeds; else the child writes the failed step's errno and name there.
  Result<Pipe> gate = MakePipe();
  Result<Pipe> report = MakePipe();
  if (!gate || !report) return Error("cannot create pipes (too many open files?)");
  struct ChildFailure {
    int error = 0;
    char step[16] = {};
  };

  ScopedBlockAllSignals block_signals;
  *started = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return Error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    // The child: system calls only, on the values prepared above.
    auto fail = [&report](const char* step) {
      ChildFailure failure;
      failure.error = errno;
      for (size_t i = 0; i + 1 < sizeof(failure.step) && step[i] != '\0'; ++i) {
        failure.step[i] = step[i];
      }
      [[maybe_unused]] auto n = ::write(report->write.get(), &failure, sizeof(failure));
      ::_exit(127);
    };
    ::close(gate->write.get());  // Our copy would keep the gate from ever reaching EOF.
    ::close(report->read.get());
    ::setpgid(0, 0);
    if (::dup2(stdin_fd, STDIN_FILENO) < 0 || ::dup2(stdout_fd, STDOUT_FILENO) < 0 ||
        ::dup2(stderr_fd, STDERR_FILENO) < 0) {
      fail("dup2");
    }
    if (cwd_text != nullptr && ::chdir(cwd_text) != 0) fail("chdir");
    if (const char* failed = ApplyChildPlacement(placement)) fail(failed);
    char byte;
    ssize_t n;
    while ((n = ::read(gate->read.get(), &byte, 1)) != 0) {
      if (n < 0 && errno != EINTR) fail("read the gate");
    }
    ::close(gate->read.get());
    UnblockSignalsForExec();
    ::execve(program.c_str(), argv.data(), envp.data());
    fail("execve");
  }
  // The parent. Its group is the child's own from here on (setpgid in the child as well:
  // whichever runs first), so that killing the group kills it even before it execs.
  ::setpgid(pid, pid);
  gate->read.Close();
  report->write.Close();
  NoteChild(pid);
  NoteChildGroup(pid);
  auto kill_and_reap = [pid] {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    ForgetChildGroup(pid);
    ForgetChild(pid);
  };
  if (spec.before_exec) {
    Status ready;
    try {
      ready = spec.before_exec(static_cast<int>(pid));
    } catch (...) {
      kill_and_reap();
      throw;
    }
    if (!ready) {
      kill_and_reap();
      return ready.error();
    }
  }
  gate->write.Close();  // The child execs now.
  ChildFailure failure;
  ssize_t got;
  do {
    got = ::read(report->read.get(), &failure, sizeof(failure));
  } while (got < 0 && errno == EINTR);
  if (got > 0) {
    kill_and_reap();
    return Error(fmt::format("{}: {} failed: {}", FormatCommand(spec.argv), failure.step,
                             std::strerror(failure.error)));
  }
  return pid;
}

}  // namespace culprit
