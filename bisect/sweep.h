#pragma once

// A sweep of history (`culprit sweep GOOD..BAD`), as pure functions: which
// commits of the range to measure, and, from one query's series of ratios to
// the range's start (measured in one table sitting, every point against the
// start, paired by block), where the series moves. The change points are
// located with the bisect's own model taken apart the bisect's way: a part of
// the series whose ends differ beyond the band is searched with the bisect's
// single-change posterior (bisect/search_model.h) over its measured points, the
// most probable step is verified against the band (the step's own paired
// interval, as a culprit is verified against its parent), and the parts it does
// not explain are checked and searched again (bisect/range_split.h's segment
// recursion). docs/statistics.md "How a sweep locates its changes" says why and
// what multiplicity applies.

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "probes/table.h"

namespace culprit {

/// The indexes of the commits to measure among `last` + 1 commits (0 the range's start, `last`
/// its end, first-parent order): every `every`-th from the start, or `points` evenly spaced,
/// always both ends, ascending, each once. Exactly one of `every` (>= 1) and `points` (>= 2)
/// is given; neither: 10 points. Usage errors: `last` < 1, every < 1, points < 2, or both.
Result<std::vector<int>> SelectSweepPoints(int last, std::optional<int> every,
                                           std::optional<int> points);

/// One measured (or not) point of one query's series.
struct SweepPoint {
  bool measured = true;  ///< False: its build or its runs failed; the series goes around it.
  /// ln(point / start) of each block of the sitting, nullopt where either run gave no number.
  /// The start's own point has every block 0.
  std::vector<std::optional<double>> blocks;
};

struct SweepSeries {
  std::vector<SweepPoint> points;  ///< In range order; [0] is the start.
  double band = 0.05;
  /// What each step's (and each part's) interval may spend: the table's per-cell share of the
  /// error at its looks (docs/statistics.md).
  double alpha = 0.05;
};

enum class SweepFindingKind {
  kChange,     ///< One step between two consecutive measured points moved beyond the band.
  kTie,        ///< The part's ends and every point between tie: no change beyond the band.
  kUndecided,  ///< The part moves or may move, but no single step is beyond the band.
};

/// What one part of the series showed. `from` < `to` index SweepSeries::points (both measured).
struct SweepFinding {
  SweepFindingKind kind = SweepFindingKind::kTie;
  int from = 0, to = 0;
  /// ln(to / from) of the step (kChange) or the part, with its interval; nullopt when too few
  /// blocks gave numbers for an interval.
  std::optional<double> log_ratio, log_low, log_high;
  /// kChange: the posterior mass of the step in its part's search (1 for a part of one step).
  double mass = 1;
};

/// Row `row` of a table sitting whose arm a is the a-th point (arm 0 the start) as a series:
/// each block's ln(point / start) from the runs both gave numbers in; a point is not measured
/// when its cell (or the start's) is not. Each step spends what one cell spent at one look
/// (1 - the row's highest nominal confidence), `fallback_alpha` when no cell has an interval.
SweepSeries SweepSeriesOfTable(const TableSittingResult& sitting, int row, int arms, double band,
                               double fallback_alpha);

/// The changes of one query's series and what its other parts showed, ordered by `from`.
/// Points not measured are stepped over: a change next to one spans it.
std::vector<SweepFinding> LocateSweepChanges(const SweepSeries& series);

/// The paired interval of ln(point b / point a) from the blocks both gave numbers for, at
/// 1 - alpha (the signed-rank interval every cell uses); an error when too few blocks.
struct SweepStep {
  double log_ratio = 0, low = 0, high = 0;
};
Result<SweepStep> SweepStepBetween(const SweepSeries& series, int a, int b);

/// `culprit bisect run --good GOOD --bad BAD -q QUERY`: the command for a sub-range.
std::string SweepBisectCommand(const std::string& good, const std::string& bad,
                               const std::string& query);

}  // namespace culprit
