#pragma once

// The figures a paired sitting did not decide on. A sitting decides on its primary metric
// only; every other figure the kernel counted of the same runs (wall time when the primary
// is not wall, CPU time, peak RSS, page faults, context switches) gets its own ratio B/A
// with an interval over the same kept pairs, shown beside the primary and kept in the
// record, labelled secondary. It is computed from the samples after the sitting ended, so
// it cannot stop a sitting or turn a verdict. Pure: no I/O.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/metric.h"
#include "records/record.h"

namespace culprit {

/// One secondary figure of a sitting.
struct SecondaryFigure {
  MetricRule::Kind kind = MetricRule::Kind::kWall;  ///< A named metric (kNamedMetrics).
  std::string name;                                 ///< "wall", "cpu", "max_rss" ...
  std::string unit;                                 ///< "ms", "KiB", "faults", "switches".
  /// B/A with its interval (paired Hodges-Lehmann, signed-rank interval) at the sitting's
  /// overall confidence, not adjusted for its looks; nullopt: unavailable (see `why`).
  std::optional<Estimate> estimate;
  int pairs = 0;                      ///< Kept pairs where both runs have the figure.
  int pairs_kept = 0;                 ///< The sitting's kept pairs.
  double median_a = 0, median_b = 0;  ///< Of each arm's runs in those pairs; 0 when none.
  std::string why;                    ///< Why there is no estimate; "" when there is one.
};

/// The figure `kind` names of one sample, when known and positive (a ratio needs it):
/// wall_ms, user_ms + system_ms, max_rss_kb (0 is unknown), the fault and switch counts
/// (nullopt is unknown; ctx_switches needs both kinds). nullopt for regex and json.
std::optional<double> ResourceFigure(const Sample& sample, MetricRule::Kind kind);

/// Every named metric but `primary`, over the pairs of `samples` whose two runs were kept
/// (ok, not dropped, not warm-up), in kNamedMetrics' order. Empty when the samples hold no
/// kept pair (a single-arm run). A figure known in fewer pairs than a signed-rank interval
/// needs at `confidence` is unavailable, with the reason.
std::vector<SecondaryFigure> SecondaryFigures(std::span<const Sample> samples,
                                              MetricRule::Kind primary, double confidence);

/// "1.012 [0.998, 1.025] (A 12.3 ms, B 12.45 ms; 24 pairs)", or "unavailable: <why>": what the
/// record keeps of one figure (ComparisonDetails::secondary, records/comparison_details.h) and
/// the summary's words for it.
std::string FormatSecondaryFigure(const SecondaryFigure& figure);

/// The medians of one arm's resource figures over its kept runs (ok, not dropped, not
/// warm-up), for a sitting with no second arm (`culprit run`): "wall 14.2 ms, cpu 13.9 ms,
/// max_rss 68180 KiB, minor_faults 114, major_faults 0, ctx_switches 5". A count of 0 is
/// shown (it is known); a figure no run knows is "unavailable". "" without kept runs.
std::string FormatResourceMedians(std::span<const Sample> samples, int arm);

/// What the record keeps of `figures`: NAME -> FormatSecondaryFigure
/// (ComparisonDetails::secondary).
std::map<std::string, std::string> SecondaryFiguresByName(
    const std::vector<SecondaryFigure>& figures);

}  // namespace culprit
