#include "investigate/audit_figures.h"

#include <algorithm>
#include <cmath>

#include "probes/log_interval.h"
#include "probes/verdict.h"

namespace culprit {

// The samples a sitting kept for `arm`: the ones its statistics used.
std::vector<double> KeptSamples(const SittingResult& sitting, int arm) {
  std::vector<double> values;
  for (const Sample& s : sitting.samples) {
    if (s.arm == arm && s.ok && !s.warmup && !s.dropped && s.value > 0) values.push_back(s.value);
  }
  return values;
}

AuditFactor FactorFromRecord(std::string name, const Record& record) {
  AuditFactor f;
  f.factor.name = std::move(name);
  f.record_id = record.id;
  f.verdict = record.verdict;
  if (!record.estimate || record.verdict == Verdict::kError || record.interrupted) {
    f.measured = false;
    f.note = record.interrupted ? "interrupted" : "no estimate: " + record.verdict_detail;
    return f;
  }
  f.factor.SetInterval(LogInterval::OfRatio(*record.estimate));
  return f;
}

AuditFactor UnmeasuredFactor(std::string name, std::string why) {
  AuditFactor f;
  f.factor.name = std::move(name);
  f.verdict = Verdict::kError;
  f.measured = false;
  f.note = std::move(why);
  return f;
}

/// Today's figure, the median of today in registry order, and its ratio to
/// the published figure (across sittings).
void SetTodayTotal(const PublishedNumber& published, const std::vector<double>& in_order,
                   const SittingOptions& options, AuditFigures& f) {
  f.today = Median(in_order);
  f.today_samples = static_cast<int>(in_order.size());
  Result<ShiftEstimate> total = CrossSittingShift(published, in_order, options.confidence);
  if (total) {
    f.total = MakeAuditFactor("today / published", *total, options.band);
    f.total.cross_sitting = true;
  } else {
    f.total = UnmeasuredFactor("today / published", total.error().message());
  }
}

/// With today's figure, every factor and the total measured, the move
/// decomposes into the factors and a remainder; without today the total is
/// not measured.
void DecomposeMove(AuditFigures& f) {
  if (!f.today)
    f.total = UnmeasuredFactor("today / published", "no samples of today in registry order");
  const bool all = f.total.measured && std::all_of(f.factors.begin(), f.factors.end(),
                                                   [](const AuditFactor& x) { return x.measured; });
  if (all) {
    std::vector<Factor> parts;
    for (const AuditFactor& x : f.factors) parts.push_back(x.factor);
    f.decomposition = Decompose(f.total.factor, parts, f.band);
  }
}

Result<ShiftEstimate> CrossSittingShift(const PublishedNumber& published,
                                        std::span<const double> now, double confidence) {
  std::vector<double> log_now;
  for (double v : now) {
    if (v > 0) log_now.push_back(std::log(v));
  }
  if (!published.samples.empty()) {
    std::vector<double> log_then;
    for (double v : published.samples) {
      if (v > 0) log_then.push_back(std::log(v));
    }
    return RankSumEstimate(log_then, log_now, confidence);
  }
  if (!(published.value > 0)) return Error::Usage("the published value is not a positive number");
  const double log_value = std::log(published.value);
  for (double& v : log_now) v -= log_value;
  return SignedRankEstimate(log_now, confidence);
}

AuditFactor MakeAuditFactor(std::string name, const ShiftEstimate& shift, double band) {
  AuditFactor f;
  f.factor.name = std::move(name);
  f.factor.SetInterval(LogInterval::Of(shift));
  VerdictResult verdict = Decide(shift, band);
  f.verdict = verdict.verdict;
  f.note = verdict.explanation;
  return f;
}

}  // namespace culprit
