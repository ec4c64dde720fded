#include "engine/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "base/interrupt.h"
#include "base/result.h"
#include "engine/orphans.h"
#include "engine/posix_io.h"
#include "engine/spawn.h"

namespace culprit {
namespace {

using Clock = std::chrono::steady_clock;

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

double Milliseconds(const timeval& tv) { return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0; }

/// The child's own peak resident set in kB, or 0 when it cannot be told.
/// Linux starts a process's peak at the resident set of the address space it
/// had when it called execve, and a vfork child calls execve from culprit's:
/// a peak up to culprit's own says only "at most that much", so it is unknown.
long ChildPeakRssKb(const rusage& child) {
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  return child.ru_maxrss > self.ru_maxrss ? child.ru_maxrss : 0;  // Linux reports kB.
}

// --- The parts of the run loop ---------------------------------------------

/// The descriptors one round of the run loop waits on.
class PollSet {
 public:
  /// Adds `fd` when `wanted`; returns its index for Ready(), or -1.
  int Add(bool wanted, int fd, short events) {
    if (!wanted) return -1;
    fds_[count_] = PollFor(fd, events);
    return count_++;
  }
  /// Waits until one is ready or `wake`. Returns poll()'s result.
  int Wait(Clock::time_point now, Clock::time_point wake) {
    auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(wake - now).count();
    return ::poll(fds_, count_, static_cast<int>(std::max<int64_t>(wait_ms, 0)));
  }
  bool Ready(int index) const { return index >= 0 && fds_[index].revents != 0; }

 private:
  pollfd fds_[4];
  int count_ = 0;
};

/// One of the child's output pipes, read into the result: stdout keeps its
/// first `limit` bytes, stderr its last ones (errors come at the end). Both
/// count every byte.
class OutputCapture {
 public:
  enum class Keep { kHead, kTail };
  OutputCapture(Fd read, Keep keep, size_t limit, std::string* text, size_t* bytes)
      : read_(std::move(read)), keep_(keep), limit_(limit), text_(text), bytes_(bytes) {}

  bool open() const { return read_.valid(); }
  int fd() const { return read_.get(); }

  /// Reads what is there (into `buffer`, shared between captures) and keeps
  /// it; closes the pipe at end-of-file or on an error. Returns what was read.
  std::string_view OnReadable(std::string& buffer) {
    ssize_t n = ::read(read_.get(), buffer.data(), buffer.size());
    if (n > 0) {
      *bytes_ += n;
      if (keep_ == Keep::kHead) {
        size_t room = limit_ - std::min(limit_, text_->size());
        text_->append(buffer.data(), std::min<size_t>(room, n));
      } else {
        text_->append(buffer.data(), n);
        // Keep the tail; trimming only past twice the limit keeps this linear.
        if (text_->size() > 2 * limit_ + kReadChunk) text_->erase(0, text_->size() - limit_);
      }
    } else if (n == 0 || errno != EINTR) {
      read_.Close();
    }
    return n > 0 ? std::string_view(buffer.data(), n) : std::string_view();
  }

  /// Trims the kept tail to its limit, once nothing more comes.
  void Finish() {
    if (keep_ == Keep::kTail && text_->size() > limit_) text_->erase(0, text_->size() - limit_);
  }

 private:
  Fd read_;
  Keep keep_;
  size_t limit_;
  std::string* text_;
  size_t* bytes_;
};

/// Passes output to spec.on_output as it comes, and an empty piece after a
/// second without any, so that a heartbeat keeps beating through silence.
class OutputListener {
 public:
  OutputListener(const std::function<void(std::string_view)>& listener, Clock::time_point start)
      : listener_(listener), last_(start) {}

  void Tell(std::string_view piece, Clock::time_point now) {
    if (!listener_ || piece.empty()) return;
    listener_(piece);
    last_ = now;
  }
  void Tick(Clock::time_point now) {
    if (!listener_ || now - last_ < std::chrono::seconds(1)) return;
    listener_(std::string_view());
    last_ = now;
  }

 private:
  const std::function<void(std::string_view)>& listener_;
  Clock::time_point last_;
};

/// Writes spec.stdin_data to the child's stdin without blocking, then closes
/// it. Without stdin data there is nothing to feed (the child has /dev/null).
class StdinFeed {
 public:
  StdinFeed(Fd write, const std::optional<std::string>& data) : write_(std::move(write)) {
    if (data) data_ = *data;
    if (data_.empty()) write_.Close();
  }

  bool open() const { return write_.valid(); }
  int fd() const { return write_.get(); }

  void OnWritable() {
    ssize_t n = ::write(write_.get(), data_.data() + offset_, data_.size() - offset_);
    if (n > 0) offset_ += n;
    // Done, or the child closed its stdin (EPIPE): either way, close ours.
    if (offset_ >= data_.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) write_.Close();
  }

  void Close() { write_.Close(); }

 private:
  Fd write_;
  std::string_view data_;
  size_t offset_ = 0;
};

/// What we learn when the child exits.
struct Reaped {
  int status = 0;
  rusage usage{};
  Clock::time_point end;
};

/// Learns of the child's exit at once, which keeps wall time exact, through a
/// descriptor the run loop polls along with the pipes. A pidfd becomes
/// readable when the child exits, and the loop then reaps it with wait4 (for
/// its rusage: CPU time, peak RSS). Without pidfds, a thread blocks in wait4
/// and writes to a pipe. The pidfd spares every sample a thread start, which
/// would compete with the child for the CPU.
class ExitWatcher {
 public:
  explicit ExitWatcher(pid_t pid) : pid_(pid) {}
  /// Without Finish (an exception left the run loop, or came before it: a
  /// throwing on_start or on_output), the child's group is killed and the
  /// child reaped: never left running, never left a zombie.
  ~ExitWatcher() {
    if (finished_) return;
    if (reaper_.joinable()) {
      SignalGroup(pid_, SIGKILL);
      reaper_.join();
    } else if (!reaped_once_) {
      SignalGroup(pid_, SIGKILL);
      Reap();
    }
  }
  ExitWatcher(const ExitWatcher&) = delete;
  ExitWatcher& operator=(const ExitWatcher&) = delete;

  /// Starts watching. Errors: no pidfd, and no pipe or thread to wait with;
  /// the child is then killed and reaped, never left unattended.
  Status Start() {
    fd_ = OpenPidfd(pid_);
    if (fd_.valid()) return {};
    Result<Pipe> notify = MakePipe();
    if (!notify) {
      KillAndReap();
      return notify.error();
    }
    fd_ = std::move(notify->read);
    try {
      reaper_ = std::thread([this, notify_write = std::move(notify->write)] {
        Reap();
        reaped_.end = Clock::now();
        char byte = 1;
        [[maybe_unused]] auto n = ::write(notify_write.get(), &byte, 1);
      });
    } catch (const std::system_error& e) {
      KillAndReap();
      return Error(fmt::format("cannot start a thread to wait for it: {}", e.what()));
    }
    return {};
  }

  /// Readable once the child has exited.
  int fd() const { return fd_.get(); }

  /// fd() was readable at `polled`: the child has exited. Anything it left
  /// behind in its group goes too, so that nothing keeps running (or holds our
  /// pipes) after we return. (Killed before the reaping: until then the group
  /// id cannot be reused.)
  void OnExited(Clock::time_point polled) {
    SignalGroup(pid_, SIGKILL);
    if (!reaper_.joinable()) {
      Reap();  // A zombie by now: this does not block.
      reaped_.end = polled;
    }
  }

  /// How the child ended, once the run loop is over. `exited` says whether
  /// OnExited was called; if not (the loop left on a poll error), the child is
  /// killed first: never leave it behind.
  Reaped Finish(bool exited) {
    finished_ = true;
    if (!exited) SignalGroup(pid_, SIGKILL);
    if (reaper_.joinable()) {
      reaper_.join();
    } else if (!exited) {
      Reap();
      reaped_.end = Clock::now();
    }
    return reaped_;
  }

 private:
  void Reap() {
    // Forget the group for a quit at once (base/interrupt.h) once the child
    // has exited but before it is reaped: until then its id cannot be reused.
    siginfo_t info{};
    while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0 &&
           errno == EINTR) {
    }
    ForgetChildGroup(pid_);
    int status = 0;
    rusage usage{};
    pid_t r;
    do {
      r = ::wait4(pid_, &status, 0, &usage);
    } while (r < 0 && errno == EINTR);
    ForgetChild(pid_);
    reaped_.status = status;
    reaped_.usage = usage;
    reaped_once_ = true;
  }
  void KillAndReap() {
    SignalGroup(pid_, SIGKILL);
    Reap();
  }

  pid_t pid_;
  Fd fd_;
  std::thread reaper_;
  Reaped reaped_;
  bool finished_ = false;
  bool reaped_once_ = false;  ///< Written by the reaper thread, if any: read only without one.
};

/// When to stop the child: at its deadline (spec.timeout after `start`) or on
/// Ctrl-C, SIGTERM to its group, then SIGKILL kTerminateGrace later.
class KillSchedule {
 public:
  KillSchedule(pid_t pid, Clock::time_point start, std::chrono::milliseconds timeout)
      : pid_(pid), has_deadline_(timeout.count() > 0), deadline_(start + timeout) {}

  /// `wake`, or earlier if the deadline or a SIGKILL is due sooner.
  Clock::time_point WakeBy(Clock::time_point wake) const {
    if (has_deadline_ && !timed_out_) wake = std::min(wake, deadline_);
    return std::min(wake, kill_at_);
  }

  /// Looks at the Ctrl-C flag and the clock (`now`); signals the group when due.
  void Check(Clock::time_point now) {
    if (!timed_out_ && !interrupted_) {
      if (InterruptRequested()) {
        interrupted_ = true;
        StartKilling();
      } else if (has_deadline_ && now >= deadline_) {
        timed_out_ = true;
        StartKilling();
      }
    }
    if (now >= kill_at_) {
      SignalGroup(pid_, SIGKILL);
      kill_at_ = kNever;
    }
  }

  /// The child has exited: no SIGKILL is due any more.
  void Cancel() { kill_at_ = kNever; }

  bool timed_out() const { return timed_out_; }
  bool interrupted() const { return interrupted_; }

 private:
  void StartKilling() {
    SignalGroup(pid_, SIGTERM);
    kill_at_ = Clock::now() + kTerminateGrace;
  }

  pid_t pid_;
  bool has_deadline_;
  Clock::time_point deadline_;
  static constexpr Clock::time_point kNever = Clock::time_point::max();
  Clock::time_point kill_at_ = kNever;  // SIGTERM was sent; SIGKILL at this time.
  bool timed_out_ = false;
  bool interrupted_ = false;
};

// --- Running one process -----------------------------------------------------

/// A started child and our ends of its standard streams.
struct StartedChild {
  pid_t pid = -1;
  Clock::time_point start;  ///< Just before it was created.
  Fd stdin_write;           ///< Valid when spec.stdin_data is fed.
  Fd stdout_read;
  Fd stderr_read;
};

/// Makes the pipes and starts the child. Errors: why it could not start.
Result<StartedChild> StartChild(const ProcessSpec& spec, const std::string& program) {
  Result<Pipe> out = MakePipe();
  Result<Pipe> err = MakePipe();
  if (!out || !err) return Error("cannot create pipes (too many open files?)");
  Fd stdin_read;
  StartedChild child;
  if (spec.stdin_data) {
    Result<Pipe> in = MakePipe();
    if (!in) return in.error();
    stdin_read = std::move(in->read);
    child.stdin_write = std::move(in->write);
    SetNonBlocking(child.stdin_write);
  } else {
    stdin_read = Fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  }
  child.start = Clock::now();
  Result<pid_t> spawned = spec.before_exec
                              ? SpawnHeld(spec, program, stdin_read.get(), out->write.get(),
                                          err->write.get(), &child.start)
                              : Spawn(spec, program, stdin_read.get(), out->write.get(),
                                      err->write.get(), &child.start);
  // The child has its copies; ours must go, or the readers never see EOF.
  stdin_read.Close();
  out->write.Close();
  err->write.Close();
  if (!spawned) return spawned.error();
  child.pid = *spawned;
  child.stdout_read = std::move(out->read);
  child.stderr_read = std::move(err->read);
  return child;
}

/// Serves the child until it has exited and its pipes are drained (or
/// kDrainAfterExit has passed since it exited): captures its output into
/// `result`, feeds its stdin, watches for its exit and kills it on timeout or
/// Ctrl-C. Returns how it ended; `schedule` says whether it was stopped.
Reaped Supervise(const ProcessSpec& spec, StartedChild& child, ExitWatcher& watcher,
                 KillSchedule& schedule, ProcessResult& result) {
  OutputCapture out(std::move(child.stdout_read), OutputCapture::Keep::kHead, spec.output_limit,
                    &result.stdout_text, &result.stdout_bytes);
  OutputCapture err(std::move(child.stderr_read), OutputCapture::Keep::kTail, spec.output_limit,
                    &result.stderr_text, &result.stderr_bytes);
  std::optional<ScopedBlockSigpipe> block_sigpipe;
  if (spec.stdin_data) block_sigpipe.emplace();
  StdinFeed in(std::move(child.stdin_write), spec.stdin_data);
  std::optional<Clock::time_point> drain_until;  // The child has exited.
  std::string buffer(kReadChunk, '\0');
  OutputListener output(spec.on_output, child.start);

  while (true) {
    if (drain_until && !out.open() && !err.open()) break;
    PollSet poll_set;
    const int out_index = poll_set.Add(out.open(), out.fd(), POLLIN);
    const int err_index = poll_set.Add(err.open(), err.fd(), POLLIN);
    const int in_index = poll_set.Add(in.open(), in.fd(), POLLOUT);
    const int exit_index = poll_set.Add(!drain_until, watcher.fd(), POLLIN);

    const Clock::time_point now = Clock::now();
    Clock::time_point wake = now + kInterruptPoll;
    if (drain_until) wake = std::min(wake, *drain_until);
    int ready = poll_set.Wait(now, schedule.WakeBy(wake));
    const Clock::time_point polled = Clock::now();  // The child's end, if it is what woke us.
    if (ready < 0 && errno != EINTR) break;         // Cannot happen with valid fds; do not spin.

    if (ready > 0) {
      if (poll_set.Ready(out_index)) output.Tell(out.OnReadable(buffer), polled);
      if (poll_set.Ready(err_index)) output.Tell(err.OnReadable(buffer), polled);
      if (poll_set.Ready(in_index)) in.OnWritable();
      if (poll_set.Ready(exit_index)) {
        watcher.OnExited(polled);
        // A daemon outside the group may hold our pipes open: it goes now,
        // so that draining them does not wait for it.
        KillOrphans();
        in.Close();
        drain_until = Clock::now() + kDrainAfterExit;
        schedule.Cancel();
      }
    }

    const Clock::time_point after = Clock::now();
    output.Tick(after);
    if (drain_until) {
      if (after >= *drain_until) break;
      continue;
    }
    schedule.Check(after);
  }
  Reaped reaped = watcher.Finish(drain_until.has_value());
  err.Finish();
  return reaped;
}

/// Fills in what the child's end says: times, peak RSS, faults, switches and the outcome.
void RecordEnd(const Reaped& reaped, Clock::time_point start, const KillSchedule& schedule,
               ProcessResult& result) {
  result.wall_ms = std::chrono::duration<double, std::milli>(reaped.end - start).count();
  result.user_ms = Milliseconds(reaped.usage.ru_utime);
  result.system_ms = Milliseconds(reaped.usage.ru_stime);
  result.max_rss_kb = ChildPeakRssKb(reaped.usage);
  // The same wait4 filled these: recording them costs no system call.
  result.minor_faults = reaped.usage.ru_minflt;
  result.major_faults = reaped.usage.ru_majflt;
  result.voluntary_switches = reaped.usage.ru_nvcsw;
  result.involuntary_switches = reaped.usage.ru_nivcsw;
  result.reaped = true;
  if (schedule.timed_out()) {
    result.outcome = ProcessOutcome::kTimedOut;
  } else if (schedule.interrupted()) {
    result.outcome = ProcessOutcome::kInterrupted;
  } else if (WIFEXITED(reaped.status)) {
    result.outcome = ProcessOutcome::kExited;
    result.exit_code = WEXITSTATUS(reaped.status);
  } else if (WIFSIGNALED(reaped.status)) {
    result.outcome = ProcessOutcome::kSignaled;
    result.signal = WTERMSIG(reaped.status);
  }
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
  Result<std::string> program = ProgramToStart(spec);
  if (!program) {
    result.start_error = program.error().message();
    return result;
  }
  Result<StartedChild> child = StartChild(spec, *program);
  if (!child) {
    result.start_error = child.error().message();
    return result;
  }
  // Before anything that may throw (on_start is the caller's): from here the
  // watcher's destructor kills and reaps the child whatever happens.
  ExitWatcher watcher(child->pid);
  if (spec.on_start) spec.on_start(child->pid);
  if (Status watching = watcher.Start(); !watching) {
    result.start_error = watching.error().message();
    return result;
  }
  KillSchedule schedule(child->pid, child->start, spec.timeout);
  Reaped reaped = Supervise(spec, *child, watcher, schedule, result);
  RecordEnd(reaped, child->start, schedule, result);
  // The group is gone; a process that left it (a daemon) was adopted by
  // culprit when its parent exited, and goes now, before the next sample.
  KillOrphans();
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

std::map<std::string, std::string> EffectiveEnvironment(const ProcessSpec& spec,
                                                        const std::vector<std::string>& names) {
  std::map<std::string, std::string> effective;
  for (const std::string& name : names) {
    if (std::find(spec.unset_env.begin(), spec.unset_env.end(), name) != spec.unset_env.end()) {
      continue;
    }
    if (auto it = spec.set_env.find(name); it != spec.set_env.end()) {
      effective[name] = it->second;
    } else if (const char* inherited = std::getenv(name.c_str())) {
      effective[name] = inherited;
    }
  }
  return effective;
}

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

}  // namespace culprit
