#pragma once

// Facts derived from a record that every reporter shows the same way, so a
// ratio or a drift reads identically in text, Markdown and HTML. Internal to
// records/.

#include <optional>
#include <string>
#include <string_view>

#include "base/metric_direction.h"
#include "base/strings.h"  // ShortCommit
#include "records/record.h"

namespace culprit {

/// End calibration more than this far from the start: the host changed speed
/// during the sitting (see DESIGN.md, Statistics).
inline constexpr double kCalibrationDriftLimit = 0.10;

/// |change| > threshold, except that a change equal to the threshold up to the
/// rounding of end/start - 1 (e.g. 110/100 - 1 = 0.10000000000000009) is not
/// "more than" it. The one drift rule: the sitting's note and the reports agree.
bool BeyondThreshold(double change, double threshold = kCalibrationDriftLimit);

/// One arm's samples, counted from the raw samples (not trusted from the
/// arm's stored summary, which is shown alongside when it disagrees).
struct ArmFacts {
  int warmups = 0;
  int ok = 0;  ///< Non-warm-up, not dropped, ok: what the statistics used.
  int failed = 0;
  int dropped = 0;               ///< Ok but dropped.
  std::optional<double> median;  ///< Of the `ok` samples.
};
ArmFacts SummarizeArm(const Record& record, int arm);

/// A measured value with 4 significant digits ("12.35", "0.001235", "12346").
std::string FormatValue(double value);
/// "+23.4%" / "-5.0%" for a ratio.
std::string FormatChange(double ratio);
/// "1.234 (+23.4%), 95% CI [1.180, 1.290], 20 pairs".
std::string FormatEstimate(const Estimate& estimate);
/// "±5.0%".
std::string FormatBand(double band);
/// end/start - 1, when both calibrations are known.
std::optional<double> CalibrationDrift(const Record& record);
/// "101.2 ms → 103.4 ms (+2.2%)", with a warning beyond kCalibrationDriftLimit,
/// "unavailable" for a missing side.
std::string FormatCalibration(const Record& record);
/// "0.52 → 0.61"-style start → end of an optional fact.
std::string FormatStartEnd(const std::optional<double>& start, const std::optional<double>& end,
                           std::string_view unit);
std::string OrUnavailable(std::string_view text);
/// Load over 5 and 15 minutes at the start and end: "1.20 / 0.80 → 1.40 / 0.90".
std::string FormatLongerLoads(const HostState& start, const HostState& end);
/// MemAvailable at the start and end in MiB, "unavailable" where not read.
std::string FormatMemoryAvailable(const HostState& start, const HostState& end);
/// The verdict, "-" when the kind has none, "(interrupted)" appended.
std::string VerdictText(const Record& record);
/// "commit abc123 · PARALLEL=1 · unset X · condition 'index held'", or "-".
std::string ArmSetup(const Arm& arm);
/// The name to show for arm `index` ("arm 2" if it has none).
std::string ArmName(const Record& record, int index);
/// What a listing's row says the record compared, so that a row is told from its neighbours
/// without opening it: each arm as its label (or revision, or name) with this sitting's
/// median, "v1.0 18.40 ms → v1.3 17.58 ms"; for a bisect, what it named ("culprit
/// 1a2b3c4d5e", "merge 1a2b3c4d5e", "none named"); for a table its shape and columns ("3
/// queries × ours, theirs"). At most `width` characters.
std::string ArmsSummary(const Record& record, size_t width = 60);
/// "ratio B/A" for a two-arm record, else "ratio".
std::string RatioLabel(const Record& record);
/// "hostname, cpu, N logical cores, kernel K", with "unavailable" parts.
std::string FormatHost(const HostIdentity& host);

}  // namespace culprit

namespace culprit {

/// Where an interval lies against the band, by the verdict rule of
/// probes/verdict.h (band symmetric on the log scale: (1/(1+b), 1+b)).
enum class BandReading { kTie, kEffect, kUndecided };
BandReading ReadAgainstBand(double low, double high, double band);

/// The table label of an estimate against its band, the metric's way up (WordsFor), e.g.
///   "1.3% faster, inside ±5.0%: a tie"
///   "38.4% slower, beyond ±5.0%: an effect"
///   "2.1% slower, its interval across the ±5.0% band edge: undecided"
///   "14.4% worse, beyond ±5.0%: an effect"  (a drop in MB/s, better higher)
std::string BandSentence(double ratio, double low, double high, double band,
                         MetricDirection better = MetricDirection::kLowerIsBetter,
                         std::string_view unit = "");

/// Which way `record`'s metric is better: its details.better, "lower" when absent (records
/// written before a query could say, and kinds that never measure a throughput).
MetricDirection DirectionOf(const Record& record);
/// "tie", "effect" or "undecided".
std::string BandWord(double low, double high, double band);

}  // namespace culprit
