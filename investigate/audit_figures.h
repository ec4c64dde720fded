#pragma once

// The figures of an audit (investigate/audit.h) and the pure functions that
// compute them from what its sittings measured: each factor's interval and
// verdict, the cross-sitting ratios to the published figure, today's figure
// and the decomposition of the move. No sitting, no store: tested on
// scripted samples.

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "investigate/published_table.h"
#include "probes/decomposition.h"
#include "probes/sitting.h"
#include "probes/statistics.h"
#include "records/record.h"

namespace culprit {

/// How the order factor ran the registry's order in one process.
enum class OrderWay { kCommand, kHarness };

/// One measured factor of an audit.
struct AuditFactor {
  Factor factor;  ///< name ("host drift", "code", "order") and log-scale interval.
  /// EFFECT, NULL, INCONCLUSIVE (ERROR: not measured; no interval).
  std::optional<Verdict> verdict;
  bool cross_sitting = false;
  std::string record_id;
  bool measured = true;  ///< false: `factor` holds no number (the reason is in `note`).
  std::string note;
};

/// The figures of one audit, as the waterfall and the conclusion use them (pure data).
struct AuditFigures {
  std::string query, unit;
  double published = 0;
  std::string published_revision;
  double today = 0;  ///< Median of today's samples in registry order.
  std::string today_revision;
  AuditFactor total;                           ///< today / published (cross-sitting).
  int today_samples = 0;                       ///< Today's samples behind `today` and `total`.
  std::vector<AuditFactor> factors;            ///< host drift, code, order.
  std::optional<Decomposition> decomposition;  ///< When every factor was measured.
  std::vector<std::string> predecessors;       ///< Queries the registry runs before `query`.
  double band = 0.05;
};

/// A finished audit of one published number.
struct AuditOutcome {
  PublishedNumber published;
  AuditFigures figures;
  OrderWay order_way = OrderWay::kCommand;
  std::optional<double> calibration_now_ms;
  std::vector<std::string> notes;  ///< Stated limits (another host, no calibration ...).
  std::string conclusion;
  Record record;
  std::filesystem::path record_path;
  /// (factor name, record file) in the order they were archived.
  std::vector<std::pair<std::string, std::filesystem::path>> factor_record_paths;
  /// A sitting broke or was interrupted: the records so far were written (the
  /// audit record says which factors are missing) and this is the error to return.
  std::optional<Error> failure;
};

/// A cross-sitting ratio: `now` (samples measured in this sitting) against a
/// published figure, on the log scale. With published samples, the two-sample
/// Hodges-Lehmann shift with its Mann-Whitney interval; with a value alone, the
/// Hodges-Lehmann pseudo-median of ln(now_i / value) with its Wilcoxon interval
/// (the published value taken as exact: its own noise is not in the interval).
Result<ShiftEstimate> CrossSittingShift(const PublishedNumber& published,
                                        std::span<const double> now, double confidence);

/// A factor from a log-scale shift, judged against band b (probes/verdict.h).
AuditFactor MakeAuditFactor(std::string name, const ShiftEstimate& shift, double band);

/// A factor that has no number (verdict ERROR), and why.
AuditFactor UnmeasuredFactor(std::string name, std::string why);

/// The factor a sitting's record gives: its estimate as the interval and its
/// verdict; not measured ("interrupted", or "no estimate: ...") when the record
/// has no estimate, is an ERROR or was interrupted.
AuditFactor FactorFromRecord(std::string name, const Record& record);

/// The samples a sitting kept for `arm`: the ones its statistics used (ok, not
/// warm-up, not dropped, positive).
std::vector<double> KeptSamples(const SittingResult& sitting, int arm);

/// Today's figure, the median of today's samples in registry order
/// (`in_order`, not empty), and its ratio to the published figure (across
/// sittings) as f.total, judged against options.band.
void SetTodayTotal(const PublishedNumber& published, const std::vector<double>& in_order,
                   const SittingOptions& options, AuditFigures& f);

/// With today's figure, every factor and the total measured, the move
/// decomposes into the factors and a remainder (f.decomposition); without
/// today the total is not measured.
void DecomposeMove(AuditFigures& f);

}  // namespace culprit
