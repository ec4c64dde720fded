#include "probes/table_design.h"

#include <cmath>
#include <random>

#include "probes/round_design.h"
#include "probes/sequential.h"
#include "probes/statistics.h"
#include "probes/verdict.h"

namespace culprit {

std::vector<std::vector<int>> RowBlockOrders(int arms, int blocks, uint64_t seed, int row) {
  const uint64_t row_seed = seed ^ (0xd1b54a32d192ed03ULL * static_cast<uint64_t>(row + 1));
  return BalancedRoundOrders(arms, blocks, row_seed);
}

std::vector<int> RoundRowOrder(std::vector<int> rows, uint64_t seed, int round) {
  std::mt19937_64 rng(seed ^ (0x94d049bb133111ebULL * static_cast<uint64_t>(round + 1)));
  // Fisher–Yates with the generator's own draws, not a standard distribution: the same on
  // every platform.
  for (size_t i = rows.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(rng() % i);
    std::swap(rows[i - 1], rows[j]);
  }
  return rows;
}

double TableCellAlpha(double alpha, int cells) { return alpha / (cells < 1 ? 1 : cells); }

std::vector<int> TableLooks(int min_blocks, int max_blocks, int arms, double cell_alpha) {
  const int group = arms < 1 ? 1 : arms;
  std::vector<int> looks = BlockAlignedLooks(LookSchedule(min_blocks, max_blocks), group);
  auto whole = [group](int pairs) { return (pairs + group - 1) / group * group; };
  const int sight = whole(PairsToSightTail(cell_alpha));
  for (size_t i = 1; i + 1 < looks.size(); ++i) {
    if (looks[i - 1] < sight && sight < looks[i]) {
      looks[i] = sight;
      break;
    }
  }
  // A look where a tie may first set aside one wild pair at each end, between two looks
  // (never past the last: the budget is the user's).
  const int trim = whole(PairsToTrimTail(cell_alpha));
  for (size_t i = 1; i < looks.size(); ++i) {
    if (looks[i - 1] < trim && trim < looks[i]) {
      looks.insert(looks.begin() + static_cast<std::ptrdiff_t>(i), trim);
      break;
    }
  }
  return StoppableLooks(std::move(looks), cell_alpha, Spending::kPocock, group);
}

std::optional<GeometricMean> GeometricMeanOfCells(std::span<const CellInterval> cells,
                                                  double confidence) {
  if (cells.empty()) return std::nullopt;
  double sum = 0, variance = 0;
  for (const CellInterval& cell : cells) {
    sum += cell.shift.estimate;
    const double z = NormalQuantile(1 - (1 - cell.confidence) / 2);
    const double se = z > 0 ? (cell.shift.high - cell.shift.low) / (2 * z) : 0;
    variance += se * se;
  }
  const double n = static_cast<double>(cells.size());
  GeometricMean mean;
  mean.cells = static_cast<int>(cells.size());
  mean.confidence = confidence;
  mean.shift.estimate = sum / n;
  const double half = NormalQuantile(1 - (1 - confidence) / 2) * std::sqrt(variance) / n;
  mean.shift.low = mean.shift.estimate - half;
  mean.shift.high = mean.shift.estimate + half;
  return mean;
}

}  // namespace culprit
