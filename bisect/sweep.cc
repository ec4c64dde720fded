#include "bisect/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bisect/search_model.h"
#include "probes/statistics.h"
#include "probes/table.h"
#include "probes/verdict.h"

namespace culprit {
namespace {

constexpr int kDefaultPoints = 10;
/// The posterior mass an undecided part's span holds: where the move most probably is.
constexpr double kSpanMass = 0.95;

/// ln(b / a) per block, for the blocks where both points gave a number.
std::vector<double> BlockDifferences(const SweepSeries& series, int a, int b) {
  const SweepPoint& pa = series.points[a];
  const SweepPoint& pb = series.points[b];
  std::vector<double> d;
  const size_t n = std::min(pa.blocks.size(), pb.blocks.size());
  for (size_t k = 0; k < n; ++k) {
    if (pa.blocks[k] && pb.blocks[k]) d.push_back(*pb.blocks[k] - *pa.blocks[k]);
  }
  return d;
}

struct Locator {
  const SweepSeries& series;
  std::vector<int> measured;  ///< Series indexes of the measured points, ascending.
  double tau = 0;
  std::vector<SweepFinding> findings;

  std::optional<SweepStep> Step(int a, int b) const {
    Result<SweepStep> step = SweepStepBetween(series, measured[a], measured[b]);
    if (!step) return std::nullopt;
    return *step;
  }
  Verdict Of(const std::optional<SweepStep>& step) const {
    return step ? Classify(step->low, step->high, tau) : Verdict::kInconclusive;
  }

  void Add(SweepFindingKind kind, int a, int b, const std::optional<SweepStep>& step,
           double mass = 1) {
    SweepFinding f;
    f.kind = kind;
    f.from = measured[a];
    f.to = measured[b];
    if (step) {
      f.log_ratio = step->log_ratio;
      f.log_low = step->low;
      f.log_high = step->high;
    }
    f.mass = mass;
    findings.push_back(f);
  }

  /// A part [a, b] (positions in `measured`) whose ends differ beyond the band: the bisect's
  /// posterior over its steps, the most probable one verified against the band.
  void Search(int a, int b, const SweepStep& whole, std::vector<std::pair<int, int>>& todo) {
    const int steps = b - a;
    if (steps == 1) {
      Add(SweepFindingKind::kChange, a, b, whole);
      return;
    }
    std::vector<Observation> observations;
    for (int k = 1; k <= steps; ++k) {
      Observation o;
      o.commit = k;
      o.baseline = 0;
      o.d = BlockDifferences(series, measured[a], measured[a + k]);
      if (!o.d.empty()) observations.push_back(std::move(o));
    }
    const ModelFit fit = FitSearchModel(steps, observations);
    const int j = static_cast<int>(
        std::max_element(fit.posterior.begin() + 1, fit.posterior.end()) - fit.posterior.begin());
    const std::optional<SweepStep> step = Step(a + j - 1, a + j);
    const bool same_way = step && (step->log_ratio > 0) == (whole.log_ratio > 0);
    if (Of(step) == Verdict::kEffect && same_way) {
      Add(SweepFindingKind::kChange, a + j - 1, a + j, step, fit.posterior[j]);
      if (a + j - 1 > a) todo.emplace_back(a, a + j - 1);
      if (b > a + j) todo.emplace_back(a + j, b);
      return;
    }
    // No single step is beyond the band (a move spread over several, or one too small per
    // step to show): the span of steps holding most of the posterior, said undecided.
    int lo = j, hi = j;
    double mass = fit.posterior[j];
    while (mass < kSpanMass && (lo > 1 || hi < steps)) {
      const double left = lo > 1 ? fit.posterior[lo - 1] : -1;
      const double right = hi < steps ? fit.posterior[hi + 1] : -1;
      if (left >= right) {
        mass += fit.posterior[--lo];
      } else {
        mass += fit.posterior[++hi];
      }
    }
    Add(SweepFindingKind::kUndecided, a + lo - 1, a + hi, Step(a + lo - 1, a + hi), mass);
  }

  void Run() {
    std::vector<std::pair<int, int>> todo;
    if (measured.size() >= 2) todo.emplace_back(0, static_cast<int>(measured.size()) - 1);
    while (!todo.empty()) {
      auto [a, b] = todo.back();
      todo.pop_back();
      const std::optional<SweepStep> whole = Step(a, b);
      const Verdict verdict = Of(whole);
      if (verdict == Verdict::kEffect) {
        Search(a, b, *whole, todo);
      } else if (verdict == Verdict::kNull) {
        // Ends that tie may hide a move and its return (+7% then -4%): a point between them
        // beyond the band from the part's start splits the part there.
        int split = -1;
        for (int i = a + 1; i < b && split < 0; ++i) {
          if (Of(Step(a, i)) == Verdict::kEffect) split = i;
        }
        if (split < 0) {
          Add(SweepFindingKind::kTie, a, b, whole);
        } else {
          todo.emplace_back(split, b);
          todo.emplace_back(a, split);
        }
      } else {
        Add(SweepFindingKind::kUndecided, a, b, whole);
      }
    }
    std::sort(findings.begin(), findings.end(),
              [](const SweepFinding& x, const SweepFinding& y) { return x.from < y.from; });
  }
};

}  // namespace

Result<std::vector<int>> SelectSweepPoints(int last, std::optional<int> every,
                                           std::optional<int> points) {
  if (last < 1) {
    return Error::Usage("the range holds no commit after its start: nothing to sweep");
  }
  if (every && points) {
    return Error::Usage("--every and --points both given: choose one");
  }
  std::vector<int> out;
  if (every) {
    if (*every < 1) return Error::Usage(fmt::format("--every {}: must be at least 1", *every));
    for (int i = 0; i < last; i += *every) out.push_back(i);
    out.push_back(last);
    return out;
  }
  const int n = points.value_or(kDefaultPoints);
  if (n < 2) {
    return Error::Usage(fmt::format("--points {}: a sweep needs at least its two ends", n));
  }
  const int count = std::min(n, last + 1);
  for (int i = 0; i < count; ++i) {
    const int index = static_cast<int>(std::llround(static_cast<double>(i) * last / (count - 1)));
    if (out.empty() || out.back() != index) out.push_back(index);
  }
  return out;
}

Result<SweepStep> SweepStepBetween(const SweepSeries& series, int a, int b) {
  std::vector<double> d = BlockDifferences(series, a, b);
  Result<ShiftEstimate> shift = SignedRankEstimate(d, 1 - series.alpha);
  if (!shift) return shift.error();
  return SweepStep{shift->estimate, shift->low, shift->high};
}

SweepSeries SweepSeriesOfTable(const TableSittingResult& sitting, int row, int arms, double band,
                               double fallback_alpha) {
  SweepSeries series;
  series.band = band;
  const int blocks =
      row < static_cast<int>(sitting.row_blocks.size()) ? sitting.row_blocks[row] : 0;
  std::vector<std::vector<std::optional<double>>> values(
      arms, std::vector<std::optional<double>>(std::max(blocks, 0)));
  for (const Sample& s : sitting.samples) {
    if (s.warmup || !s.ok || s.dropped || s.pair < 0 || s.pair >= blocks || s.value <= 0) continue;
    if (s.arm / arms != row) continue;
    values[s.arm % arms][s.pair] = s.value;
  }
  double confidence = 0;
  for (int a = 0; a < arms; ++a) {
    SweepPoint point;
    const TableCell& cell = sitting.cells[row][a];
    const TableCell& base = sitting.cells[row][0];
    point.measured =
        cell.status != CellStatus::kNotMeasured && base.status != CellStatus::kNotMeasured;
    for (int b = 0; b < blocks; ++b) {
      if (values[a][b] && values[0][b]) {
        point.blocks.push_back(std::log(*values[a][b]) - std::log(*values[0][b]));
      } else {
        point.blocks.push_back(std::nullopt);
      }
    }
    if (a > 0 && cell.status == CellStatus::kMeasured) {
      confidence = std::max(confidence, cell.nominal_confidence);
    }
    series.points.push_back(std::move(point));
  }
  // Every step spends what one cell spends at one look (the least any cell of the row spent).
  series.alpha = confidence > 0 ? 1 - confidence : fallback_alpha;
  return series;
}

std::vector<SweepFinding> LocateSweepChanges(const SweepSeries& series) {
  Locator locator{series, {}, BandEdge(series.band), {}};
  for (size_t i = 0; i < series.points.size(); ++i) {
    if (series.points[i].measured) locator.measured.push_back(static_cast<int>(i));
  }
  locator.Run();
  return locator.findings;
}

std::string SweepBisectCommand(const std::string& good, const std::string& bad,
                               const std::string& query) {
  return fmt::format("culprit bisect run --good {} --bad {} -q {}", good, bad, query);
}

}  // namespace culprit
