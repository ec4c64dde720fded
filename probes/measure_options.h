#pragma once

// [measure] of culprit.toml: how one sitting measures (tie band, confidence,
// pair budget, warm-up). One rule checks the values whether they come from the
// file (ReadMeasureSection) or from command-line flags (MakeSittingOptions).

#include <optional>

#include "base/config_reader.h"
#include "base/result.h"

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
Status ReadMeasureSection(const ConfigTable& root, MeasureConfig* measure);

}  // namespace culprit
