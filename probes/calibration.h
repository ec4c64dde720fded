#pragma once

// Calibration: a fixed CPU-bound loop timed at the start and end of every
// sitting (and between pairs on long sittings). Its times say whether the host
// changed speed during a sitting and how fast the host is compared with other
// sittings. It is a quality gate, never a divisor for paired ratios: both arms
// of a pair see the same host, so dividing by calibration would only add noise.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace culprit {

/// Identifies the calibration work. Calibration times are comparable only
/// between sittings with the same version (and a culprit built the same way:
/// a debug build runs the loop several times slower). Bump it whenever
/// CalibrationWork changes; the checksum test guards against silent changes.
inline constexpr int kCalibrationVersion = 1;

/// The checksum CalibrationWork returns: the same on every host and every run.
inline constexpr uint64_t kCalibrationChecksum = 0xd6956f3fdff87c34ULL;

/// One pass of the calibration work: a fixed-length serial chain of 64-bit
/// integer mixing steps (about 30 ms on a current core, L1-resident, no
/// allocation, no system calls). Returns its checksum, which depends on every
/// step, so the compiler cannot drop or shorten the work.
uint64_t CalibrationWork();

/// Timings of RunCalibration.
struct CalibrationRun {
  double median_ms = 0;         ///< Median time of one pass.
  std::vector<double> loop_ms;  ///< Every pass, in execution order.
  uint64_t checksum = 0;        ///< CalibrationWork's result (identical for every pass).
};

/// Runs CalibrationWork `repetitions` times (at least once) and times each pass
/// with a monotonic clock.
CalibrationRun RunCalibration(int repetitions = 5);

/// Runs the fixed CPU-bound calibration loop `repetitions` times and returns
/// the median ms of one loop. Deterministic work; only its time varies.
double RunCalibrationLoop(int repetitions = 5);

/// How much more CPU-bound work several busy threads get done together than one alone: a
/// host's core count says what it has, this says what it gives (a VM may give two cores' worth
/// of names and one core's worth of time). Each thread runs CalibrationWork.
struct ParallelismCheck {
  int threads = 0;
  double single_ms = 0;    ///< Median pass of one thread running alone.
  double parallel_ms = 0;  ///< Median pass of `threads` threads running at once.
  /// The CPU time the threads got together over the wall time they ran, while all of them
  /// were busy: 1 when the host gives them one core's worth, `threads` when each has a core.
  /// CPU time, not the passes' times, so that it is bounded by what the process may use:
  /// threads confined to one CPU can never show more than 1, whatever else the host runs
  /// (the ratio of pass times, under a competing process, once read 1.47 there).
  double effective = 0;
};

/// Times `repetitions` passes of one thread alone, then runs `threads` (at least 2) at once
/// and measures the CPU time they got against the wall time. About
/// (1 + threads / effective) × repetitions × 30 ms.
ParallelismCheck MeasureParallelism(int threads, int repetitions = 3);

/// One line for `culprit host`: the effective parallelism, and when it is well below the
/// threads (under 3/4 of them) that threads will not help and what a probe of a thread-count
/// knob then measures.
std::string DescribeParallelism(const ParallelismCheck& check);

/// Whether DescribeParallelism warns: effective < 3/4 of threads.
bool ParallelismIsShort(const ParallelismCheck& check);

/// The comparison of a sitting's start and end calibrations.
struct CalibrationCheck {
  double start_ms = 0;
  double end_ms = 0;
  double change = 0;     ///< end/start - 1: positive when the host got slower. NaN if !valid.
  bool drifted = false;  ///< |change| > threshold.
  bool valid = true;     ///< False when either time is not a positive finite number.
  std::string message;   ///< One line for the user; says what to do when drifted or invalid.
};

/// Compares start and end calibrations against a threshold (default 0.10).
/// A change of exactly the threshold is not a drift ("more than 10%"); the
/// comparison tolerates floating-point rounding of the ratio.
CalibrationCheck CheckCalibration(double start_ms, double end_ms, double threshold = 0.10);

}  // namespace culprit
