#include "engine/line_process.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "base/interrupt.h"
#include "base/strings.h"
#include "engine/orphans.h"
#include "engine/posix_io.h"
#include "engine/spawn.h"

namespace culprit {
namespace {

using Clock = std::chrono::steady_clock;

/// How often LineProcess looks whether its child has exited, when it waits for that.
constexpr std::chrono::milliseconds kReapPoll{5};

}  // namespace

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
  size_t scanned = 0;   ///< How many bytes at the start of `pending` hold no newline.

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
    ForgetChild(pid);
    // What the engine started outside its process group goes with it.
    KillOrphans();
    if (killed_by_us) {
      ended.outcome = ProcessOutcome::kTimedOut;
    } else if (WIFEXITED(status)) {
      ended.outcome = ProcessOutcome::kExited;
      ended.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      ended.outcome = ProcessOutcome::kSignaled;
      ended.signal = WTERMSIG(status);
    }
    // Let the reader catch up with the child's last words (they explain its
    // exit); bounded, since a descendant outside the group may hold the pipe.
    auto until = Clock::now() + kDrainAfterExit;
    while (stderr_thread.joinable() && !stderr_done.load() && Clock::now() < until) {
      std::this_thread::sleep_for(kReapPoll);
    }
  }

  /// Whether the child has exited (without reaping it); `block`: wait for it.
  bool HasExited(bool block) const {
    siginfo_t info{};
    int flags = WEXITED | WNOWAIT | (block ? 0 : WNOHANG);
    int r;
    do {
      r = ::waitid(P_PID, static_cast<id_t>(pid), &info, flags);
    } while (r != 0 && errno == EINTR);
    return r != 0 || info.si_pid != 0;  // An error: not ours to wait for any more.
  }

  /// Reaps the exited child. Its group is forgotten for the quit at once
  /// (base/interrupt.h) and killed first, while the unreaped leader keeps its
  /// id unused.
  void ReapExited() {
    ForgetChildGroup(pid);
    // Whatever it started goes with it: signalled before the leader is
    // reaped, while its pid keeps the group id from being reused (after, the
    // id could name a stranger's new group).
    SignalGroup(pid, SIGKILL);
    int status = 0;
    pid_t r;
    do {
      r = ::waitpid(pid, &status, 0);
    } while (r < 0 && errno == EINTR);
    Reaped(status);
  }

  bool TryReap() {
    if (reaped) return true;
    if (HasExited(false)) ReapExited();
    return reaped;
  }

  void KillAndReap() {
    if (reaped) return;
    killed_by_us = true;
    SignalGroup(pid, SIGKILL);
    HasExited(true);
    ReapExited();
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
  try {
    Result<std::string> program = ProgramToStart(spec);
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
    SetNonBlocking(state->stdin_write);
    // From here the destructor kills and reaps the child whatever happens.
    std::unique_ptr<LineProcess> process(new LineProcess(std::move(state)));
    State* s = process->state_.get();
    s->stderr_thread = std::thread([s] { s->DrainStderr(); });
    return process;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

Result<std::string> LineProcess::Request(std::string_view line, std::chrono::milliseconds timeout,
                                         size_t max_reply) {
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
    // Only the bytes not yet looked at are searched, so that a long line
    // arriving in many pieces costs linear time, not quadratic.
    const size_t newline = s.pending.find('\n', s.scanned);
    s.scanned = newline == std::string::npos ? s.pending.size() : newline;
    if (s.scanned > max_reply) {
      return give_up(Error(fmt::format(
          "harness reply longer than {} bytes (to '{}'): a harness answers with one short line; "
          "it was killed",
          max_reply, line)));
    }
    if (offset == data.size() && newline != std::string::npos) {
      std::string reply = s.pending.substr(0, newline);
      s.pending.erase(0, newline + 1);
      s.scanned = 0;
      if (!reply.empty() && reply.back() == '\r') reply.pop_back();
      return reply;
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

bool LineProcess::running() const {
  const State& s = *state_;
  if (s.reaped) return false;
  // WNOWAIT looks without reaping: the child stays waitable for TryReap.
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(s.pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return false;  // Not our child any more: it cannot be running for us.
  }
  return info.si_pid == 0;
}

}  // namespace culprit
