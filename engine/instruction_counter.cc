#include "engine/instruction_counter.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "base/strings.h"
#include "engine/posix_io.h"

namespace culprit {
namespace {

/// The attributes of a user-space instructions counter: kernel and hypervisor excluded;
/// the two times read with the count, so that a multiplexed counter is seen.
perf_event_attr InstructionsAttr() {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return attr;
}

/// perf_event_open(attr, pid, any CPU, no group, close-on-exec): the descriptor, or the
/// errno's name and text ("ENOENT: No such file or directory").
Result<Fd> OpenCounter(perf_event_attr attr, int pid) {
  const long fd = ::syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0) return Fd(static_cast<int>(fd));
  const int error = errno;
  return Error(fmt::format("{}: {}", ErrnoName(error), std::strerror(error)));
}

class RealInstructionCounter final : public InstructionCounter {
 public:
  explicit RealInstructionCounter(Fd fd) : fd_(std::move(fd)) {}

  Result<CounterReading> Read() override {
    uint64_t words[3] = {};
    ssize_t n;
    do {
      n = ::read(fd_.get(), words, sizeof(words));
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      const int error = errno;
      return Error(fmt::format("reading the instruction counter: {}: {}", ErrnoName(error),
                               std::strerror(error)));
    }
    CounterReading reading;
    reading.bytes = static_cast<size_t>(n);
    reading.value = words[0];
    reading.time_enabled = words[1];
    reading.time_running = words[2];
    return reading;
  }

 private:
  Fd fd_;
};

}  // namespace

std::string ErrnoName(int error) {
  // glibc's own table (2.32 and later; Debian 12 has 2.36), not a list of our own.
  const char* name = ::strerrorname_np(error);
  return name != nullptr ? std::string(name) : fmt::format("errno {}", error);
}

Result<double> InstructionsOfReading(const CounterReading& reading) {
  if (reading.bytes != kCounterReadingBytes) {
    return Error(fmt::format("the instruction counter read short: {} bytes of {}", reading.bytes,
                             kCounterReadingBytes));
  }
  if (reading.time_enabled == 0) {
    return Error("the instruction counter was never enabled: the program did not exec under it");
  }
  if (reading.time_running != reading.time_enabled) {
    return Error(fmt::format(
        "the instruction counter was multiplexed: it ran {} ns of the {} ns it was enabled, so "
        "it counted part of the run only (culprit does not scale it into a guess); other "
        "counters in use on this host share the hardware",
        reading.time_running, reading.time_enabled));
  }
  if (reading.value == 0) {
    return Error("the instruction counter counted 0 instructions: a ratio needs a positive count");
  }
  return static_cast<double>(reading.value);
}

Status RealInstructionCounterFactory::Probe() {
  Result<Fd> fd = OpenCounter(InstructionsAttr(), 0);
  if (!fd) return fd.error();
  return {};
}

Result<std::unique_ptr<InstructionCounter>> RealInstructionCounterFactory::OpenOnChild(int pid) {
  perf_event_attr attr = InstructionsAttr();
  attr.inherit = 1;         // The processes the child starts count too.
  attr.enable_on_exec = 1;  // Nothing before the exec (culprit's own code in the child).
  Result<Fd> fd = OpenCounter(attr, pid);
  if (!fd) return fd.error().WithContext(fmt::format("perf_event_open on pid {}", pid));
  return std::unique_ptr<InstructionCounter>(
      std::make_unique<RealInstructionCounter>(std::move(*fd)));
}

CountedRun RunCounted(const ProcessSpec& spec, InstructionCounterFactory& counters) {
  CountedRun run;
  std::unique_ptr<InstructionCounter> counter;
  ProcessSpec counted = spec;
  counted.before_exec = [&spec, &counters, &counter](int pid) -> Status {
    if (spec.before_exec) CULPRIT_TRY(spec.before_exec(pid));
    Result<std::unique_ptr<InstructionCounter>> opened = counters.OpenOnChild(pid);
    if (!opened) return opened.error().WithContext("cannot count the run's instructions");
    counter = std::move(*opened);
    return {};
  };
  run.process = RunProcess(counted);
  if (!run.process.ok()) {
    run.failure = run.process.Describe(counted);
    std::string tail = TailLines(run.process.stderr_text, 3);
    if (!tail.empty()) run.failure += "; stderr ends: " + tail;
    return run;
  }
  if (!counter) {
    run.failure = "the run ended without an instruction counter opened on it";
    return run;
  }
  Result<CounterReading> reading = counter->Read();
  Result<double> count =
      reading ? InstructionsOfReading(*reading) : Result<double>(reading.error());
  if (!count) {
    run.failure = count.error().message();
    return run;
  }
  run.value = *count;
  return run;
}

}  // namespace culprit
