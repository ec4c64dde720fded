#include "investigate/audit_report.h"

#include <fmt/format.h>

#include <cmath>

#include "base/strings.h"
#include "probes/log_interval.h"
#include "records/audit_details.h"
#include "records/audit_payload.h"

namespace culprit {
namespace {

std::string Ratio(double log_ratio) { return fmt::format("×{:.3f}", std::exp(log_ratio)); }

std::string Signed(double log_ratio) { return PercentChange(std::exp(log_ratio)); }

std::string VerdictWord(const AuditFactor& f) {
  if (!f.measured) return "not measured";
  if (f.verdict == Verdict::kNull) return "NULL (tie)";
  return f.verdict ? std::string(VerdictName(*f.verdict)) : "";
}

AuditFactorPayload FactorPayload(const AuditFactor& f) {
  AuditFactorPayload p;
  p.name = f.factor.name;
  if (f.measured) {
    const Estimate e = f.factor.Interval().ToRatioEstimate();
    p.ratio = e.ratio;
    p.low = e.low;
    p.high = e.high;
  }
  p.verdict = f.verdict;
  p.cross_sitting = f.cross_sitting;
  p.record = f.record_id;
  p.note = f.note;
  return p;
}

}  // namespace

// The drift record: the published figure as arm A (its samples when it came
// from a record), the published commit re-measured now as arm B (the code
// sitting's arm A samples, which it names), and the cross-sitting estimate.
Record MakeDriftRecord(const PublishedNumber& published, const Record& code,
                       const std::optional<ShiftEstimate>& shift, const AuditFactor& factor,
                       double band) {
  Record r;
  r.kind = RecordKind::kCompare;
  r.query = code.query;
  r.unit = code.unit;
  r.band = band;
  r.hypothesis =
      "host drift: the published commit re-measured now against the published value (a ratio "
      "across sittings)";
  r.start = code.start;
  r.end = code.end;
  r.host = code.host;
  r.culprit_version = code.culprit_version;
  r.config_digest = code.config_digest;
  r.links = {code.id};
  AuditDetails details;
  details.audit_factor = AuditFactorKind::kHostDrift;
  details.cross_sitting = true;
  details.published_value = published.value;
  details.published_source = published.source;
  details.now_samples_from = code.id;
  details.published_calibration_ms = published.calibration_ms;
  details.WriteTo(&r.details);
  Arm then;
  then.name = "published";
  then.label = "published " + published.revision;
  then.revision = published.revision;
  then.commit = published.commit;
  then.median = published.value;
  then.ok_samples = static_cast<int>(published.samples.size());
  Arm now;
  if (!code.arms.empty()) now = code.arms[0];
  now.name = "now";
  now.label = "re-measured now";
  int sequence = 0;
  for (double v : published.samples) {
    Sample s;
    s.sequence = sequence++;
    s.arm = 0;
    s.value = v;
    r.samples.push_back(s);
  }
  for (const Sample& s : code.samples) {
    if (s.arm != 0) continue;
    Sample copy = s;
    copy.sequence = sequence++;
    copy.arm = 1;
    copy.pair = -1;
    r.samples.push_back(copy);
  }
  r.arms = {then, now};
  r.notes.push_back(
      "CROSS-SITTING: the published figure was measured in another sitting (another day, "
      "perhaps another host); this is the one ratio of the audit that is not paired. It is "
      "still informative: the same commit, the same query, so what moved is the host and its "
      "state, not the engine. Its interval covers only this sitting's noise" +
      std::string(published.samples.empty() ? " (the published value is taken as exact)."
                                            : " and the published samples'."));
  r.notes.push_back("the re-measured samples are the code sitting's arm A (record " + code.id +
                    ")");
  if (shift) {
    Estimate e = RatioEstimate(*shift);
    e.method = published.samples.empty() ? "one-sample Hodges-Lehmann vs the published value"
                                         : "two-sample Hodges-Lehmann (Mann-Whitney)";
    r.estimate = e;
    r.verdict = factor.verdict;
    r.verdict_detail = "cross-sitting: " + factor.note;
  } else {
    r.verdict = Verdict::kError;
    r.verdict_detail = factor.note;
  }
  return r;
}

Record MakeAuditRecord(const AuditOutcome& o, const Record* code, const Record* order,
                       const std::vector<std::string>& invocation, const std::string& config_digest,
                       double confidence) {
  const AuditFigures& f = o.figures;
  Record r;
  r.kind = RecordKind::kAudit;
  r.query = f.query;
  r.unit = f.unit;
  r.band = f.band;
  r.config_digest = config_digest;
  r.invocation = invocation;
  r.hypothesis = fmt::format("published {:.4g} {} at {} → today at {}: host drift × code × order",
                             f.published, f.unit, f.published_revision, f.today_revision);
  if (code) {
    r.start = code->start;
    r.host = code->host;
    r.culprit_version = code->culprit_version;
  }
  if (order) r.end = order->end;
  for (const AuditFactor& factor : f.factors) {
    if (!factor.record_id.empty()) r.links.push_back(factor.record_id);
  }
  if (f.total.measured) {
    Estimate e = f.total.factor.Interval().ToRatioEstimate();
    e.confidence = confidence;
    e.method = "today in registry order vs the published figure (cross-sitting)";
    e.pairs = f.today_samples;  // unpaired: the samples of today behind the ratio
    r.estimate = e;
  }
  r.verdict = o.failure ? Verdict::kError : f.total.verdict;
  r.verdict_detail = o.failure ? o.failure->message() : o.conclusion;
  r.interrupted = o.failure && o.failure->kind() == ErrorKind::kInterrupted;
  r.notes = o.notes;
  AuditDetails details;
  details.published_value = f.published;
  details.published_revision = f.published_revision;
  details.published_commit = o.published.commit;
  details.published_source = o.published.source;
  if (!o.published.record_id.empty()) details.published_record = o.published.record_id;
  details.today_revision = f.today_revision;
  details.order_way =
      o.order_way == OrderWay::kCommand ? AuditOrderWay::kRegistryCommand : AuditOrderWay::kHarness;
  details.registry_before = f.predecessors;
  details.published_calibration_ms = o.published.calibration_ms;
  details.calibration_now_ms = o.calibration_now_ms;
  details.WriteTo(&r.details);
  AuditPayload payload;
  payload.published = f.published;
  if (f.today > 0) payload.today = f.today;
  for (const AuditFactor& factor : f.factors) payload.factors.push_back(FactorPayload(factor));
  if (f.decomposition) {
    const Estimate rem = f.decomposition->remainder.Interval().ToRatioEstimate();
    payload.remainder_ratio = rem.ratio;
    payload.remainder_low = rem.low;
    payload.remainder_high = rem.high;
  }
  payload.conclusion = o.conclusion;
  r.details_json = AuditPayloadToJson(payload);
  return r;
}

/// How much of the host drift the calibration loop's change explains (CPU
/// speed), and the rest once the drift is measured.
std::string CalibrationNote(double now_ms, double published_ms, const AuditFactor& drift) {
  const double explained = now_ms / published_ms;
  std::string line = fmt::format(
      "calibration now {:.1f} ms against {:.1f} ms published: the CPU-bound loop is ×{:.3f}, "
      "the drift that CPU speed explains",
      now_ms, published_ms, explained);
  if (drift.measured) {
    line += fmt::format(
        "; the rest of the drift is ×{:.3f} (memory, caches, load: what the "
        "loop does not exercise)",
        std::exp(drift.factor.log_ratio) / explained);
  }
  return line;
}

std::string FormatWaterfall(const AuditFigures& f) {
  std::string out;
  const std::string unit = f.unit.empty() ? "" : " " + f.unit;
  out += fmt::format("  {:<14} {:>10.2f}{}   ({})\n", "published", f.published, unit,
                     f.published_revision);
  double running = f.published;
  for (const AuditFactor& factor : f.factors) {
    if (!factor.measured) {
      out += fmt::format("  × {:<12} {:>10}      not measured: {}\n", factor.factor.name, "?",
                         factor.note);
      continue;
    }
    running *= std::exp(factor.factor.log_ratio);
    out += fmt::format("  × {:<12} {:>10.2f}{}   {} {}  {}{}\n", factor.factor.name, running, unit,
                       FormatFactor(factor.factor), Signed(factor.factor.log_ratio),
                       VerdictWord(factor), factor.cross_sitting ? "  (cross-sitting)" : "");
  }
  if (f.decomposition) {
    const Decomposition& d = *f.decomposition;
    running *= std::exp(d.remainder.log_ratio);
    const char* where =
        d.remainder_class == RemainderClass::kTie      ? "inside the band: fully explained"
        : d.remainder_class == RemainderClass::kBeyond ? "beyond the band: not accounted for"
                                                       : "undecided: the intervals are too wide";
    out += fmt::format("  × {:<12} {:>10.2f}{}   {} {}  {}\n", "unexplained", running, unit,
                       FormatFactor(d.remainder), Signed(d.remainder.log_ratio), where);
  } else {
    out += "  × unexplained           ?      not computed: a factor was not measured\n";
  }
  if (f.today > 0) {
    out += fmt::format("  {:<14} {:>10.2f}{}   ({} in registry order; today / published {})\n",
                       "= today", f.today, unit, f.today_revision,
                       f.total.measured ? FormatFactor(f.total.factor) : std::string("?"));
  }
  return out;
}

std::string AuditConclusion(const AuditFigures& f) {
  std::vector<std::string> effects, ties, undecided, missing;
  for (const AuditFactor& factor : f.factors) {
    const std::string text =
        factor.measured ? fmt::format("{} {}", factor.factor.name, Ratio(factor.factor.log_ratio)) +
                              (factor.cross_sitting ? " (cross-sitting)" : "")
                        : factor.factor.name;
    if (!factor.measured) {
      missing.push_back(text);
    } else if (factor.verdict == Verdict::kEffect) {
      effects.push_back(text);
    } else if (factor.verdict == Verdict::kNull) {
      ties.push_back(text);
    } else {
      undecided.push_back(text);
    }
  }
  // With no sample of today (its sitting failed), there is no today's figure to print: a 0
  // would read as a measurement.
  std::string out = f.today > 0 ? fmt::format("{}: published {:.4g} → today {:.4g} {}", f.query,
                                              f.published, f.today, f.unit)
                                : fmt::format("{}: published {:.4g} {} → today not measured",
                                              f.query, f.published, f.unit);
  if (f.total.measured) out += fmt::format(" ({})", Ratio(f.total.factor.log_ratio));
  out += ". ";
  auto list = [](const std::vector<std::string>& items) { return Join(items, ", "); };
  std::vector<std::string> parts;
  if (!effects.empty()) parts.push_back("real (EFFECT): " + list(effects));
  if (!ties.empty()) parts.push_back("ties (inside the band): " + list(ties));
  if (!undecided.empty()) parts.push_back("undecided (INCONCLUSIVE): " + list(undecided));
  if (!missing.empty()) parts.push_back("not measured: " + list(missing));
  out += Join(parts, "; ") + ".";
  if (f.decomposition) {
    switch (f.decomposition->remainder_class) {
      case RemainderClass::kTie:
        out += fmt::format(
            " The remainder {} is inside the band: the factors fully explain "
            "the move.",
            FormatFactor(f.decomposition->remainder));
        break;
      case RemainderClass::kBeyond:
        out += fmt::format(
            " The remainder {} is beyond the band: something else moved the "
            "number too.",
            FormatFactor(f.decomposition->remainder));
        break;
      case RemainderClass::kUndecided:
        out += fmt::format(
            " The remainder {} is undecided: the intervals are too wide to say "
            "whether the factors explain the whole move.",
            FormatFactor(f.decomposition->remainder));
        break;
    }
  }
  for (const AuditFactor& factor : f.factors) {
    if (!factor.measured || factor.verdict != Verdict::kEffect) continue;
    if (factor.factor.name == "code") {
      out += fmt::format(
          " Next for the code change: culprit investigate --good {} --bad {} --query {} (or "
          "culprit bisect run --good {} --bad {} --query {}).",
          f.published_revision, f.today_revision, f.query, f.published_revision, f.today_revision,
          f.query);
    } else if (factor.factor.name == "order") {
      out += fmt::format(
          " The order effect comes from what runs before {} in the registry: {}. Next: "
          "culprit isolate --rev {} with a [residency] plan for what they leave resident.",
          f.query,
          f.predecessors.empty() ? "no query (the registry's own way of running it)"
                                 : Join(f.predecessors, ", "),
          f.today_revision);
    } else if (factor.factor.name == "host drift") {
      out +=
          " The host drift is this host now against the publisher's sitting: re-publish "
          "from this host, or compare calibrations, before blaming the engine.";
    }
  }
  return out;
}

std::string FormatAuditSummary(const AuditOutcome& o) {
  const AuditFigures& f = o.figures;
  std::string out =
      fmt::format("audit {}: published {:.4g} {} at {} ({}) → today at {}\n\n", f.query,
                  f.published, f.unit, f.published_revision, o.published.source, f.today_revision);
  out += FormatWaterfall(f);
  out += "\n";
  out +=
      "host drift is the one CROSS-SITTING ratio: the published commit measured now against "
      "a number from another sitting. It is still informative (same commit, same query: what "
      "moved is the host), but its interval holds only this sitting's noise.\n";
  out += fmt::format("order was measured {}.\n",
                     o.order_way == OrderWay::kCommand
                         ? "with [registry] command (the engine runs the order in one process)"
                         : "through the harness (run each query before it once, then the "
                           "measured query)");
  for (const std::string& note : o.notes) out += "note: " + note + "\n";
  out += "\n" + o.conclusion + "\n\n";
  for (const auto& [name, path] : o.factor_record_paths) {
    out += fmt::format("{} record {}\n", name, path.string());
  }
  out += "audit record " + o.record_path.string() + "\n";
  return out;
}

}  // namespace culprit
