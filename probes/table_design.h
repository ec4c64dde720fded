#pragma once

// The design of a table sitting (`culprit table`), as pure functions: which
// order each block of a row runs its arms in, in which order the rows take
// their turns, at which block counts a row looks, and how much error each cell
// may spend so that the whole table keeps the stated family-wise rate. The same
// seed gives the same design on every platform.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "probes/log_interval.h"

namespace culprit {

/// The orders of `blocks` blocks of one row over `arms` arms (arm 0 the baseline): result[b]
/// is a permutation of 0..arms-1, the order block b runs its arms in. Every `arms` blocks form
/// a Latin square (BalancedRoundOrders), so after each whole group every arm has run in every
/// position equally often and a drift within the group cancels in every ratio. Rows get
/// independent squares: the row's index is mixed into `seed`.
std::vector<std::vector<int>> RowBlockOrders(int arms, int blocks, uint64_t seed, int row);

/// The order in which the rows still measuring (`rows`, any order) take their turn in round
/// `round`: a shuffle seeded by `seed` and `round`, so no row always runs right after another.
std::vector<int> RoundRowOrder(std::vector<int> rows, uint64_t seed, int round);

/// The error each cell may spend so that P(any cell of the table is wrong) <= alpha:
/// Bonferroni, alpha / cells (docs/statistics.md says why not Holm). `cells` < 1 counts as 1.
double TableCellAlpha(double alpha, int cells);

/// The block counts at which a row looks: LookSchedule(min_blocks, max_blocks), each rounded
/// up to a whole group of `arms` blocks (BlockAlignedLooks, so every look sees a balanced
/// design); the first look that could state a tie, the first at or past the blocks that sight
/// a slow tail at `cell_alpha` (PairsToSightTail, rounded up to a whole group), moved down to
/// those blocks unless it is the last look (a tie is not kept waiting for blocks that cannot
/// change it); a look added where a tie's mean may first set aside one pair at each end
/// (PairsToTrimTail, rounded up to a whole group) when that falls between two looks, so a row
/// that one wild run kept from its tie is not kept to the next doubling (15, 21, 39, 66, 81,
/// 162 for 10..160, 3 arms and 26 cells); then the first look moved up by whole groups until a
/// signed-rank interval exists at its share of `cell_alpha` (StoppableLooks, Pocock spending).
/// Requires 1 <= min_blocks, 1 <= max_blocks, arms >= 1 and cell_alpha in (0, 1).
std::vector<int> TableLooks(int min_blocks, int max_blocks, int arms, double cell_alpha);

/// One cell's interval on the log scale at the two-sided confidence it was computed at.
struct CellInterval {
  LogInterval shift;
  double confidence = 0.95;
};

/// A geometric mean of ratios with its interval, on the log scale.
struct GeometricMean {
  LogInterval shift;  ///< Mean of the cells' log estimates; the interval at `confidence`.
  double confidence = 0.95;
  int cells = 0;  ///< How many cells it averages.
};

/// The geometric mean of the cells' ratios, exp(mean of log estimates), and its interval at
/// `confidence`: each cell's standard error is read back from its interval (half-width over
/// z_{1-α/2} at the cell's own confidence), the cells are taken as independent (different
/// rows ran different processes), so the mean's standard error is sqrt(Σ se²) / n. A normal
/// approximation: it summarizes the table, it is not one of the table's tests. nullopt for no
/// cells.
std::optional<GeometricMean> GeometricMeanOfCells(std::span<const CellInterval> cells,
                                                  double confidence);

}  // namespace culprit
