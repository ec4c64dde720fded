// rusage-overhead: what recording a run's resource figures costs a sample (issue 28, "Numbers
// to reach": at most 1% of a sample against not recording them, same-sitting ratio).
//
// Every measured run of culprit is started by Spawn (engine/spawn.h) and reaped by wait4 with
// an rusage, and RecordEnd (engine/process.cc) then reads culprit's own peak RSS with
// getrusage(RUSAGE_SELF) to tell the child's peak from the one it inherited. The production
// path has no switch to reap without them, so this program compares the two reaps on the
// same spawn code path, one child per sample:
//   without: Spawn, then waitpid(pid, &status, 0);
//   with:    Spawn, then wait4(pid, &status, 0, &usage), getrusage(RUSAGE_SELF) and the
//            figures read out of both (CPU, peak RSS, faults, context switches).
// A sample is the wall time from just before Spawn to just after the reap, of a trivial
// program (default /bin/true): the smallest sample, where a fixed cost weighs most. RunProcess
// adds pipes, a pidfd and poll around both, the same for either arm, so a real sample is
// longer and the ratio nearer 1 than here.
//
// The arms alternate in one sitting, in a random order within each pair; it prints the
// medians, the median of the per-pair ratios with/without and its distribution-free 95%
// interval (order statistics of the binomial), and the median per-pair difference.
//
// Usage: rusage-overhead [--pairs N] [--seed S] [-- PROGRAM ARGS...]

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/interrupt.h"
#include "engine/orphans.h"
#include "engine/spawn.h"

namespace {

using Clock = std::chrono::steady_clock;

volatile long g_sink = 0;  // Keeps the figures read.

double Milliseconds(const timeval& tv) { return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0; }

/// One sample: spawn `program` and reap it, with or without the figures; its wall time in µs.
double Sample(const culprit::ProcessSpec& spec, const std::string& program, int null_fd,
              bool record) {
  Clock::time_point started;
  const Clock::time_point before = Clock::now();
  culprit::Result<pid_t> pid = culprit::Spawn(spec, program, null_fd, null_fd, null_fd, &started);
  if (!pid) {
    fmt::print(stderr, "rusage-overhead: {}\n", pid.error().message());
    std::exit(1);
  }
  int status = 0;
  culprit::ForgetChildGroup(*pid);
  if (record) {
    rusage usage{};
    while (::wait4(*pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    rusage self{};
    ::getrusage(RUSAGE_SELF, &self);  // As ChildPeakRssKb does.
    const double cpu = Milliseconds(usage.ru_utime) + Milliseconds(usage.ru_stime);
    const long peak = usage.ru_maxrss > self.ru_maxrss ? usage.ru_maxrss : 0;
    g_sink = g_sink + static_cast<long>(cpu) + peak + usage.ru_minflt + usage.ru_majflt +
             usage.ru_nvcsw + usage.ru_nivcsw;
  } else {
    while (::waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  const Clock::time_point after = Clock::now();
  culprit::ForgetChild(*pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fmt::print(stderr, "rusage-overhead: {} did not exit 0 (status {})\n", program, status);
    std::exit(1);
  }
  return std::chrono::duration<double, std::micro>(after - before).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// The distribution-free 95% interval of the median of `v` (sorted): order statistics
/// n/2 ± 1.96·√n/2 (the binomial's normal approximation, fine for hundreds of values).
std::pair<double, double> MedianInterval(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  const double half = 1.96 * std::sqrt(n) / 2;
  const size_t lo = static_cast<size_t>(std::max(0.0, std::floor(n / 2 - half)));
  const size_t hi = static_cast<size_t>(std::min(n - 1, std::ceil(n / 2 + half)));
  return {v[lo], v[hi]};
}

}  // namespace

int main(int argc, char** argv) {
  int pairs = 2000;
  unsigned seed = 1;
  std::vector<std::string> command = {"/bin/true"};
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--pairs" && i + 1 < argc) {
      pairs = std::atoi(argv[++i]);
    } else if (arg == "--seed" && i + 1 < argc) {
      seed = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (arg == "--" && i + 1 < argc) {
      command.assign(argv + i + 1, argv + argc);
      break;
    } else {
      fmt::print(stderr, "usage: rusage-overhead [--pairs N] [--seed S] [-- PROGRAM ARGS...]\n");
      return 2;
    }
  }
  if (pairs < 10) {
    fmt::print(stderr, "rusage-overhead: --pairs must be at least 10\n");
    return 2;
  }
  culprit::ProcessSpec spec;
  spec.argv = command;
  culprit::Result<std::string> program = culprit::ResolveProgram(spec);
  if (!program) {
    fmt::print(stderr, "rusage-overhead: {}\n", program.error().message());
    return 1;
  }
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  std::mt19937 rng(seed);
  for (int i = 0; i < 20; ++i) Sample(spec, *program, null_fd, i % 2 == 0);  // Warm-up.
  std::vector<double> without, with, ratios, differences;
  for (int i = 0; i < pairs; ++i) {
    const bool record_first = rng() % 2 == 0;
    double first = Sample(spec, *program, null_fd, record_first);
    double second = Sample(spec, *program, null_fd, !record_first);
    const double w = record_first ? first : second, wo = record_first ? second : first;
    with.push_back(w);
    without.push_back(wo);
    ratios.push_back(w / wo);
    differences.push_back(w - wo);
  }
  const auto [low, high] = MedianInterval(ratios);
  fmt::print(
      "rusage-overhead: {} pairs of `{}`, spawned by culprit's Spawn, interleaved (seed {})\n",
      pairs, fmt::join(command, " "), seed);
  fmt::print("  without figures (waitpid):                          median {:.1f} us\n",
             Median(without));
  fmt::print("  with figures (wait4 + rusage, getrusage(SELF)):     median {:.1f} us\n",
             Median(with));
  fmt::print(
      "  ratio with/without, median of per-pair ratios: {:.4f}  95% interval [{:.4f}, {:.4f}]\n",
      Median(ratios), low, high);
  fmt::print("  ratio of the medians: {:.4f}; median per-pair difference {:+.2f} us\n",
             Median(with) / Median(without), Median(differences));
  return 0;
}
