#pragma once

// [measure] of culprit.toml: how one sitting measures (tie band, confidence,
// pair budget, warm-up). One rule checks the values whether they come from the
// file (ReadMeasureSection) or from command-line flags (MakeSittingOptions).

#include <filesystem>
#include <optional>

#include "base/config_reader.h"
#include "base/result.h"
#include "engine/process.h"

namespace culprit {

/// [measure]
struct MeasureConfig {
  double band = 0.05;        ///< In (0, 1).
  double confidence = 0.95;  ///< In (0, 1).
  /// The most pairs one sitting may take: its statistics hold every Walsh
  /// average, n(n+1)/2 numbers (16 MB at this many).
  static constexpr int kMaxPairs = 2000;
  int min_pairs = 10;  ///< 2 <= min_pairs <= max_pairs <= kMaxPairs.
  int max_pairs = 160;
  int warmup = 1;  ///< >= 0.
  bool calibrate_between_looks = false;
};

/// The rules of MeasureConfig, in the order they are checked.
enum class MeasureRule {
  kBand,        ///< band in (0, 1).
  kConfidence,  ///< confidence in (0, 1).
  kMinPairs,    ///< min_pairs >= 2.
  kMaxPairs,    ///< max_pairs <= kMaxPairs.
  kPairOrder,   ///< min_pairs <= max_pairs.
  kWarmup,      ///< warmup >= 0.
};

/// The first rule `measure` breaks, or nullopt. Callers word the problem:
/// the file with its position, the flags by their names.
std::optional<MeasureRule> BrokenMeasureRule(const MeasureConfig& measure);

/// Reads [measure]; each value's type and range is checked where it is written.
/// Its cpus and aslr are ReadMeasuredRuns'.
Status ReadMeasureSection(const ConfigTable& root, MeasureConfig* measure);

/// Reads [measure] cpus (a non-empty array of CPU numbers, each one that exists
/// on this host and that culprit may run on: CheckCpusUsable against
/// `host_root`) and aslr (true or false) into `runs`, which every measured
/// run starts with (EngineSections::measured_runs). Errors are at the value:
/// "FILE:LINE:COL: measure.cpus[1]: CPU 4096 does not exist on this host
/// (online CPUs: 0-1)". Absent keys leave `runs` as it is.
Status ReadMeasuredRuns(const ConfigTable& root, RunPlacement* runs,
                        const std::filesystem::path& host_root = "/");

}  // namespace culprit
