#pragma once

// One table sitting (`culprit table`): rows are queries, columns are arms, and
// every cell is measured in the same sitting. Each row runs in blocks (one run
// of every arm of the row, in an order balanced over each group of `arms`
// blocks, table_design.h); the rows take turns, so a drift of the host reaches
// every cell alike and cancels in every ratio. Each cell is the ratio of its
// arm to the row's baseline (arm 0), paired by block, with its interval and
// verdict; each row looks sequentially and stops once all its cells are
// decided, so the time goes to the rows still undecided. The error the cells
// may spend is split over the whole table (TableCellAlpha), so a table of many
// cells is not many chances of a false EFFECT. Calibration at the start and
// end, host state and drift warnings are those of a paired sitting.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probes/calibration.h"
#include "probes/host.h"
#include "probes/sitting.h"
#include "probes/table_design.h"
#include "probes/verdict.h"
#include "records/record.h"

namespace culprit {

struct TableSittingOptions {
  int rows = 1;
  int arms = 2;  ///< Arm 0 is the baseline; at least 2.
  int warmup = 1;
  /// A cell (or a row's baseline) none of whose warm-ups succeeded is retried this many times
  /// before it is not measured.
  int warmup_retries = 3;
  int min_blocks = 10;   ///< First look of each row (rounded up to whole groups).
  int max_blocks = 160;  ///< Last look of each row: its budget.
  double band = 0.05;
  double confidence = 0.95;  ///< Family-wise, over all the table's cells together.
  uint64_t seed = 0;         ///< 0 picks one (recorded either way).
  /// Measured runs of one cell's arm that may fail before the cell is not measured (for the
  /// baseline: the row); 0 means max(5, max_blocks / 4).
  int max_failed = 0;
};

/// The sample source's arm index of cell (row, arm): rows one after the other.
inline int TableSlot(int row, int arm, int arms) { return row * arms + arm; }

enum class CellStatus {
  kBaseline,     ///< Arm 0: what the row's other cells are divided by.
  kMeasured,     ///< Has samples; its verdict says what they showed.
  kNotMeasured,  ///< Its arm (or its row's baseline) kept failing: `error` says why.
};

struct TableCell {
  CellStatus status = CellStatus::kMeasured;
  std::string error;                   ///< Why it is not measured.
  std::optional<ShiftEstimate> shift;  ///< ln(arm / baseline), at the look that decided it.
  /// The mean of the log-ratios and the balance of the tails at the same look: a NULL needs
  /// them to agree with the shift (ClassifyWithTails), as in a paired sitting.
  std::optional<TailEvidence> tails;
  double nominal_confidence = 0;  ///< The confidence of that look, after spending.
  std::optional<VerdictResult> verdict;
  int decided_blocks = 0;        ///< The row's blocks at the look that decided it; 0: undecided.
  int pairs = 0;                 ///< Blocks in which both it and the baseline gave a number.
  int runs = 0, failed = 0;      ///< Its measured runs, and how many gave no number.
  std::optional<double> median;  ///< This sitting's median of its measured runs.
};

struct TableSittingResult {
  /// Every run in execution order: arm = TableSlot(row, arm), pair = the row's block (-1 for a
  /// warm-up). Failed runs stay, marked.
  std::vector<Sample> samples;
  std::vector<std::vector<TableCell>> cells;           ///< [row][arm].
  std::vector<int> row_blocks;                         ///< Blocks each row ran.
  std::vector<int> looks;                              ///< Block counts at which each row looks.
  double cell_alpha = 0;                               ///< What each cell spends over its looks.
  int cells_tested = 0;                                ///< rows × (arms - 1).
  std::vector<std::optional<GeometricMean>> geomeans;  ///< [arm]; [0] is empty.
  HostState start, end;
  std::optional<CalibrationCheck> calibration;
  bool interrupted = false;
  std::vector<std::string> notes;
  uint64_t seed = 0;
};

/// Runs the table. `source` runs TableSlot(row, arm); `host` and `progress` may be null. A
/// cell that keeps failing is not measured and the rest of the table goes on.
TableSittingResult RunTableSitting(SampleSource& source, const HostProbe* host,
                                   const TableSittingOptions& options, SittingProgress* progress);

}  // namespace culprit
