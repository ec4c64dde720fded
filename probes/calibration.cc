#include "probes/calibration.h"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <latch>
#include <limits>
#include <thread>
#include <vector>

#include "probes/statistics.h"
#include "records/report_facts.h"

namespace culprit {
namespace {

// About 30 ms at ~5 ns per step (one step is a chain of two multiplies and
// three shift-xors, each depending on the previous step).
constexpr uint64_t kCalibrationSteps = 6'000'000;
constexpr uint64_t kCalibrationSeed = 0x243f6a8885a308d3ULL;

// The seed is read through a volatile so the compiler cannot evaluate the
// whole chain at compile time; the result is written to one so it cannot
// discard it. The sink is each thread's own: MeasureParallelism runs the work
// on several threads at once, and their writes to one shared variable were a
// data race (ThreadSanitizer reported it: docs/development.md, "The thread lane").
volatile uint64_t calibration_seed = kCalibrationSeed;
thread_local volatile uint64_t calibration_sink = 0;

bool UsableTime(double ms) { return std::isfinite(ms) && ms > 0; }

}  // namespace

uint64_t CalibrationWork() {
  uint64_t x = calibration_seed;
  uint64_t checksum = 0;
  for (uint64_t i = 0; i < kCalibrationSteps; ++i) {
    // splitmix64's finaliser; feeding z back into x keeps the steps serial, so
    // the time measures dependent-instruction latency, not memory or SIMD width.
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    checksum += z;
    x ^= z;
  }
  calibration_sink = checksum;
  return checksum;
}

CalibrationRun RunCalibration(int repetitions) {
  CalibrationRun run;
  const int n = std::max(1, repetitions);
  run.loop_ms.reserve(n);
  for (int i = 0; i < n; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run.checksum = CalibrationWork();
    const auto end = std::chrono::steady_clock::now();
    run.loop_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  run.median_ms = Median(run.loop_ms);
  return run;
}

double RunCalibrationLoop(int repetitions) { return RunCalibration(repetitions).median_ms; }

namespace {

// This thread's CPU time, user and system, in ms.
double ThreadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

}  // namespace

ParallelismCheck MeasureParallelism(int threads, int repetitions) {
  ParallelismCheck check;
  check.threads = std::max(2, threads);
  check.single_ms = RunCalibration(repetitions).median_ms;
  std::vector<CalibrationRun> runs(check.threads);
  // Each thread's own CPU clock, read when it starts and ends its passes, and the wall clock
  // from the first start to the first end: the span in which every thread is busy.
  std::vector<double> cpu_ms(check.threads, 0);
  std::vector<std::chrono::steady_clock::time_point> started(check.threads), ended(check.threads);
  {
    // All start together: a thread still being created is not time the others' CPU counts
    // against.
    std::latch ready(check.threads);
    std::vector<std::jthread> workers;
    for (int t = 0; t < check.threads; ++t) {
      workers.emplace_back([&, t, repetitions] {
        ready.arrive_and_wait();
        started[t] = std::chrono::steady_clock::now();
        const double cpu_start = ThreadCpuMs();
        runs[t] = RunCalibration(repetitions);
        cpu_ms[t] = ThreadCpuMs() - cpu_start;
        ended[t] = std::chrono::steady_clock::now();
      });
    }
  }  // joined
  std::vector<double> passes;
  for (const CalibrationRun& run : runs) {
    passes.insert(passes.end(), run.loop_ms.begin(), run.loop_ms.end());
  }
  check.parallel_ms = Median(passes);
  // CPU over wall for the whole run of every thread: the threads that finish early stop
  // using CPU, so the span is the last end minus the first start and the CPU is all of it.
  const auto first = *std::min_element(started.begin(), started.end());
  const auto last = *std::max_element(ended.begin(), ended.end());
  const double wall_ms = std::chrono::duration<double, std::milli>(last - first).count();
  double cpu = 0;
  for (double ms : cpu_ms) cpu += ms;
  if (wall_ms > 0) check.effective = std::min<double>(check.threads, cpu / wall_ms);
  return check;
}

bool ParallelismIsShort(const ParallelismCheck& check) {
  return check.effective > 0 && check.effective < 0.75 * check.threads;
}

std::string DescribeParallelism(const ParallelismCheck& check) {
  std::string line = fmt::format(
      "effective parallelism {:.2f} of {} threads ({} busy loops at once take {:.1f} ms a pass, "
      "one alone {:.1f} ms)",
      check.effective, check.threads, check.threads, check.parallel_ms, check.single_ms);
  if (ParallelismIsShort(check)) {
    line += fmt::format(
        ": this host gives about {:.1f} cores' worth of CPU time, so more threads will not make "
        "a CPU-bound engine faster here; a probe of a thread-count knob measures that "
        "contention, not the engine — measure thread scaling on a host whose cores are its own",
        check.effective);
  }
  return line;
}

CalibrationCheck CheckCalibration(double start_ms, double end_ms, double threshold) {
  CalibrationCheck check;
  check.start_ms = start_ms;
  check.end_ms = end_ms;
  if (!UsableTime(start_ms) || !UsableTime(end_ms)) {
    check.valid = false;
    check.change = std::numeric_limits<double>::quiet_NaN();
    check.message = fmt::format(
        "calibration could not be compared (start {} ms, end {} ms): the host's speed during "
        "this sitting is unknown; check that the calibration loop ran, then rerun the sitting",
        start_ms, end_ms);
    return check;
  }
  check.change = end_ms / start_ms - 1;
  check.drifted = BeyondThreshold(check.change, threshold);
  const std::string times = fmt::format("{:.1f} ms at start, {:.1f} ms at end ({:+.1f}%)", start_ms,
                                        end_ms, check.change * 100);
  if (!check.drifted) {
    check.message = fmt::format("calibration steady: {}", times);
  } else {
    check.message = fmt::format(
        "calibration drifted: {}, beyond ±{:.0f}%: the host {} during the sitting (frequency "
        "scaling, thermal throttling or other load); rerun on a quiet host",
        times, threshold * 100, check.change > 0 ? "slowed down" : "sped up");
  }
  return check;
}

}  // namespace culprit
