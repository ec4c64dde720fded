#include "probes/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/interrupt.h"
#include "base/median.h"
#include "base/random_seed.h"
#include "probes/sequential.h"
#include "probes/statistics.h"

namespace culprit {
namespace {

VerdictResult Undecided(std::string why) {
  VerdictResult v;
  v.verdict = Verdict::kInconclusive;
  v.explanation = std::move(why);
  return v;
}

/// One row's progress through the sitting.
struct RowState {
  std::vector<std::vector<int>> orders;                // per block
  std::vector<std::vector<std::optional<double>>> by;  // [arm][block]: the value, if any
  std::vector<std::string> first_failure;              // [arm]
  int blocks = 0;
  size_t look = 0;
  bool active = true;
};

class TableRun {
 public:
  TableRun(SampleSource& source, const HostProbe* host, const TableSittingOptions& options,
           SittingProgress* progress, TableSittingResult& result)
      : source_(source), host_(host), o_(options), progress_(progress), r_(result) {
    r_.seed = RequestedOrFreshSeed(options.seed);
    r_.cells_tested = options.rows * (options.arms - 1);
    r_.cell_alpha = TableCellAlpha(1 - options.confidence, r_.cells_tested);
    r_.looks = TableLooks(options.min_blocks, options.max_blocks, options.arms, r_.cell_alpha);
    alphas_ = SpendAlpha(r_.cell_alpha, r_.looks, Spending::kPocock);
    trim_pairs_ = PairsToTrimTail(r_.cell_alpha);
    max_failed_ = options.max_failed > 0 ? options.max_failed : std::max(5, options.max_blocks / 4);
    r_.cells.assign(options.rows, std::vector<TableCell>(options.arms));
    rows_.resize(options.rows);
    for (int row = 0; row < options.rows; ++row) {
      r_.cells[row][0].status = CellStatus::kBaseline;
      RowState& state = rows_[row];
      state.orders = RowBlockOrders(options.arms, r_.looks.back(), r_.seed, row);
      state.by.assign(options.arms, std::vector<std::optional<double>>(r_.looks.back()));
      state.first_failure.assign(options.arms, "");
    }
  }

  void Run() {
    Snapshot("calibrating (start)", r_.start);
    if (host_ != nullptr && progress_ != nullptr) {
      if (std::optional<std::string> load = LoadAtStartWarning(host_->Identity(), r_.start)) {
        progress_->OnWarning(*load);
      }
    }
    if (progress_) progress_->OnPhase("warming up");
    for (int row = 0; row < o_.rows && !r_.interrupted; ++row) WarmUp(row);
    for (int round = 0; !r_.interrupted; ++round) {
      std::vector<int> active;
      for (int row = 0; row < o_.rows; ++row) {
        if (rows_[row].active) active.push_back(row);
      }
      if (active.empty()) break;
      for (int row : RoundRowOrder(active, r_.seed, round)) {
        if (!TakeBlock(row)) break;
        RowState& state = rows_[row];
        if (state.active && state.blocks >= r_.looks[state.look]) Look(row);
      }
      if (progress_) {
        // Blocks, not pairs: the live line says what a table counts.
        progress_->OnPhase(fmt::format("{}/{} blocks, {} of {} rows measuring", BlocksDone(),
                                       BlocksPlanned(), active.size(), o_.rows));
      }
    }
    Snapshot("calibrating (end)", r_.end);
    NoteSittingEnd(host_, r_.start, r_.end, r_.calibration, r_.notes);
    Conclude();
  }

 private:
  void Snapshot(const char* phase, HostState& into) {
    if (host_ == nullptr) return;
    if (progress_) progress_->OnPhase(phase);
    into = host_->Snapshot(/*calibrate=*/true);
  }

  int BlocksDone() const {
    int done = 0;
    for (const RowState& row : rows_) done += row.blocks;
    return done;
  }
  int BlocksPlanned() const {
    int planned = 0;
    for (const RowState& row : rows_) planned += row.active ? r_.looks.back() : row.blocks;
    return planned;
  }

  /// Runs (row, arm) once; returns the value when it gave one. Counts failures of measured runs.
  std::optional<double> Take(int row, int arm, int block) {
    SampleOutcome outcome = source_.Run(TableSlot(row, arm, o_.arms));
    // A timed-out run is a failed one here (not a censored observation, as in a paired
    // sitting): a table's cell is a ratio of medians that a timeout does not have.
    Sample sample = SampleFrom(outcome, static_cast<int>(r_.samples.size()),
                               TableSlot(row, arm, o_.arms), block, block < 0);
    std::optional<double> value;
    if (sample.ok) value = sample.value;
    if (!sample.ok && rows_[row].first_failure[arm].empty()) {
      rows_[row].first_failure[arm] = sample.failure;
    }
    if (!sample.warmup) {
      TableCell& cell = r_.cells[row][arm];
      ++cell.runs;
      cell.failed += sample.ok ? 0 : 1;
    }
    r_.samples.push_back(std::move(sample));
    return value;
  }

  void NotMeasured(int row, int arm, std::string why) {
    TableCell& cell = r_.cells[row][arm];
    if (arm == 0) {
      // Without its baseline, no cell of the row has anything to be divided by.
      for (int other = 1; other < o_.arms; ++other) {
        TableCell& c = r_.cells[row][other];
        if (c.status == CellStatus::kMeasured && c.decided_blocks == 0) {
          c.status = CellStatus::kNotMeasured;
          c.error = "the row's baseline: " + why;
        }
      }
      rows_[row].active = false;
      cell.error = why;
      return;
    }
    if (cell.status != CellStatus::kMeasured || cell.decided_blocks > 0) return;
    cell.status = CellStatus::kNotMeasured;
    cell.error = std::move(why);
    StopIfDecided(row);
  }

  bool Measuring(int row, int arm) const {
    const TableCell& cell = r_.cells[row][arm];
    return cell.status != CellStatus::kNotMeasured;
  }

  // Warm-up: every arm of the row alternately, `warmup` times; an arm with no successful
  // warm-up is retried, then not measured (the baseline: the whole row).
  void WarmUp(int row) {
    if (o_.warmup <= 0) return;
    std::vector<int> ok(o_.arms, 0), tries(o_.arms, 0);
    auto take = [&](int arm) {
      ++tries[arm];
      if (Take(row, arm, -1)) ++ok[arm];
    };
    for (int i = 0; i < o_.warmup; ++i) {
      for (int arm = 0; arm < o_.arms; ++arm) {
        if (InterruptRequested()) return Interrupted();
        take(arm);
      }
    }
    for (int retry = 0; retry < o_.warmup_retries; ++retry) {
      for (int arm = 0; arm < o_.arms; ++arm) {
        if (InterruptRequested()) return Interrupted();
        if (ok[arm] == 0) take(arm);
      }
    }
    for (int arm = 0; arm < o_.arms; ++arm) {
      if (ok[arm] > 0) continue;
      NotMeasured(row, arm,
                  fmt::format("every warm-up run failed ({} tries); first: {}", tries[arm],
                              rows_[row].first_failure[arm]));
      if (arm == 0) return;
    }
  }

  void Interrupted() { r_.interrupted = true; }

  // One block of `row`: each of its measuring arms once, in the block's balanced order.
  // False when interrupted.
  bool TakeBlock(int row) {
    RowState& state = rows_[row];
    const int block = state.blocks;
    for (int arm : state.orders[block]) {
      if (!state.active) break;
      if (!Measuring(row, arm)) continue;
      if (InterruptRequested()) {
        Interrupted();
        return false;
      }
      state.by[arm][block] = Take(row, arm, block);
      const TableCell& cell = r_.cells[row][arm];
      if (cell.failed >= max_failed_) {
        NotMeasured(row, arm,
                    fmt::format("{} of {} runs failed, the limit; first: {}", cell.failed,
                                cell.runs, state.first_failure[arm]));
      }
    }
    ++state.blocks;
    r_.row_blocks.resize(o_.rows);
    r_.row_blocks[row] = state.blocks;
    return true;
  }

  std::vector<double> LogRatios(int row, int arm) const {
    const RowState& state = rows_[row];
    std::vector<double> d;
    for (int b = 0; b < state.blocks; ++b) {
      if (state.by[0][b] && state.by[arm][b]) {
        d.push_back(std::log(*state.by[arm][b]) - std::log(*state.by[0][b]));
      }
    }
    return d;
  }

  // A planned look of one row: each undecided cell's interval at this look's share of the
  // cell's alpha, read with its tails (ClassifyWithTails: a slow tail is not a tie, and a tie
  // needs the pairs to have sighted one at the cell's whole alpha, one more when its mean
  // sets a pair aside at each end); EFFECT
  // decides it, and so does NULL while the failures give no hint that the arms differ (the
  // paired sitting's rule: p >= 0.5 before the last look, p >= alpha at it).
  void Look(int row) {
    RowState& state = rows_[row];
    const bool last = state.look + 1 == r_.looks.size();
    const double alpha = alphas_[state.look];
    for (int arm = 1; arm < o_.arms; ++arm) {
      TableCell& cell = r_.cells[row][arm];
      if (cell.status != CellStatus::kMeasured || cell.decided_blocks > 0) continue;
      std::vector<double> d = LogRatios(row, arm);
      Result<ShiftEstimate> shift = SignedRankEstimate(d, 1 - alpha);
      if (!shift) continue;
      cell.shift = *shift;
      // From PairsToTrimTail pairs on, the mean sets aside its largest and smallest pair: one
      // wild run (in the baseline it reaches every cell of the row) does not hold the row's
      // ties to the next doubling.
      const int trim = static_cast<int>(d.size()) >= trim_pairs_ ? 1 : 0;
      cell.tails = GatherTailEvidence(d, shift->estimate, 1 - alpha, o_.band, trim);
      // Whether the pairs could have missed a slow tail is asked once for the whole cell, at
      // its α: the sightings are nested, so the look's share would be spent for nothing.
      cell.tails->sighting_alpha = r_.cell_alpha;
      cell.nominal_confidence = 1 - alpha;
      cell.pairs = static_cast<int>(d.size());
      const Verdict verdict = ClassifyWithTails(*shift, *cell.tails, o_.band);
      const TableCell& base = r_.cells[row][0];
      const double p = FisherExactTwoSided(base.failed, base.runs, cell.failed, cell.runs);
      const bool null_ok = p >= (last ? alpha : 0.5);
      if (verdict == Verdict::kEffect || (verdict == Verdict::kNull && null_ok)) {
        cell.decided_blocks = state.blocks;
      }
    }
    ++state.look;
    if (state.look >= r_.looks.size()) state.active = false;
    StopIfDecided(row);
  }

  void StopIfDecided(int row) {
    bool open = false;
    for (int arm = 1; arm < o_.arms; ++arm) {
      const TableCell& cell = r_.cells[row][arm];
      open = open || (cell.status == CellStatus::kMeasured && cell.decided_blocks == 0);
    }
    if (!open) rows_[row].active = false;
  }

  void ConcludeCell(int row, int arm) {
    TableCell& cell = r_.cells[row][arm];
    cell.pairs = cell.shift ? cell.pairs : static_cast<int>(LogRatios(row, arm).size());
    if (cell.status != CellStatus::kMeasured) return;
    if (!cell.shift) {
      cell.verdict =
          Undecided(fmt::format("only {} pairs were kept, too few for an interval", cell.pairs));
    } else if (cell.decided_blocks == 0 && r_.interrupted) {
      cell.verdict = Undecided(fmt::format(
          "interrupted after {} blocks of its row, before it could decide", rows_[row].blocks));
    } else {
      cell.verdict =
          cell.tails ? Decide(*cell.shift, o_.band, *cell.tails) : Decide(*cell.shift, o_.band);
      if (cell.verdict->verdict == Verdict::kNull && cell.decided_blocks == 0) {
        cell.verdict = Undecided(cell.verdict->explanation +
                                 ", but its arm and the baseline failed at different rates");
      }
    }
  }

  void Conclude() {
    for (int row = 0; row < o_.rows; ++row) {
      for (int arm = 0; arm < o_.arms; ++arm) {
        std::vector<double> values;
        for (const Sample& s : r_.samples) {
          if (s.arm == TableSlot(row, arm, o_.arms) && s.ok && !s.warmup) {
            values.push_back(s.value);
          }
        }
        if (!values.empty()) r_.cells[row][arm].median = Median(values);
        if (arm > 0) ConcludeCell(row, arm);
      }
    }
    r_.row_blocks.resize(o_.rows);
    r_.geomeans.assign(o_.arms, std::nullopt);
    for (int arm = 1; arm < o_.arms; ++arm) {
      std::vector<CellInterval> intervals;
      for (int row = 0; row < o_.rows; ++row) {
        const TableCell& cell = r_.cells[row][arm];
        if (cell.status == CellStatus::kMeasured && cell.shift) {
          intervals.push_back({LogInterval::Of(*cell.shift), cell.nominal_confidence});
        }
      }
      r_.geomeans[arm] = GeometricMeanOfCells(intervals, o_.confidence);
    }
    if (r_.interrupted) r_.notes.push_back("interrupted: the cells show what was measured");
  }

  SampleSource& source_;
  const HostProbe* host_;
  const TableSittingOptions& o_;
  SittingProgress* progress_;
  TableSittingResult& r_;
  std::vector<RowState> rows_;
  std::vector<double> alphas_;
  int max_failed_ = 0;
  int trim_pairs_ = 0;  ///< PairsToTrimTail(cell_alpha).
};

}  // namespace

TableSittingResult RunTableSitting(SampleSource& source, const HostProbe* host,
                                   const TableSittingOptions& options, SittingProgress* progress) {
  TableSittingResult result;
  TableRun(source, host, options, progress, result).Run();
  return result;
}

}  // namespace culprit
