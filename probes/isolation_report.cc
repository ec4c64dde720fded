#include "probes/isolation_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/strings.h"
#include "probes/isolation_simulated.h"
#include "probes/isolation_verdict.h"
#include "probes/log_interval.h"
#include "records/isolation_details.h"
#include "records/isolation_payload.h"

namespace culprit {
namespace {

std::string Interval(const ShiftEstimate& s) {
  const Estimate e = LogInterval::Of(s).ToRatioEstimate();
  return fmt::format("{} [{}, {}]", PercentChange(e.ratio), PercentChange(e.low),
                     PercentChange(e.high));
}

std::string VerdictWord(Verdict v) {
  switch (v) {
    case Verdict::kEffect:
      return "effect";
    case Verdict::kNull:
      return "tie";
    case Verdict::kInconclusive:
      break;
    case Verdict::kError:
      return "error";
  }
  return "inconclusive";
}

// "`a`, `b` (64.0 MiB)"
std::string Structures(const ConditionOutcome& c) {
  std::vector<std::string> names;
  uint64_t total = 0;
  bool all_sized = true;
  for (const std::string& name : c.condition.hold) {
    names.push_back("`" + name + "`");
    auto it = c.bytes.find(name);
    if (it == c.bytes.end()) {
      all_sized = false;
    } else {
      total += it->second;
    }
  }
  std::string out = Join(names, " + ");
  if (all_sized && !names.empty()) out += " (" + FormatBytes(total) + ")";
  return out;
}

}  // namespace

std::string OutcomeText(const ConditionOutcome& c) {
  if (!c.shift) return "no estimate";
  std::string out = Interval(*c.shift);
  if (c.verdict) out += " (" + VerdictWord(c.verdict->verdict) + ")";
  return out;
}

std::string DescribeLook(const IsolationResult& r) {
  std::vector<std::string> parts;
  for (int c = 1; c < static_cast<int>(r.conditions.size()); ++c) {
    const ConditionOutcome& outcome = r.conditions[c];
    std::optional<double> ratio = RatioNow(r, c);
    std::string part = fmt::format("{} {}", outcome.condition.name,
                                   ratio ? PercentChange(*ratio) : std::string("(too few rounds)"));
    if (outcome.verdict) part += fmt::format(" ({})", VerdictWord(outcome.verdict->verdict));
    parts.push_back(std::move(part));
  }
  return fmt::format("look at {} rounds: {}", r.rounds_done,
                     parts.empty() ? std::string("baseline only") : Join(parts, ", "));
}

namespace {

// ---- the isolate record ----

/// The record's hypothesis: what the suspect condition holds, or only the plan
/// when it has no suspect.
std::string IsolationHypothesis(const IsolationPlan& plan, int suspect) {
  if (suspect <= 0) return fmt::format("residency plan '{}'", plan.name);
  return fmt::format("holding {} in the engine slows {} (residency plan '{}')",
                     Join(plan.conditions[suspect].hold, " + "), plan.query, plan.name);
}

/// Condition `c`'s arm: where the engine came from, the median of its visits
/// over the complete rounds, and its measured samples (warm-ups left out)
/// counted ok or failed.
Arm ConditionArm(const IsolationPlan& plan, const IsolationResult& result,
                 const IsolationProvenance& provenance, size_t c) {
  Arm arm;
  arm.name = plan.conditions[c].name;
  arm.label = plan.conditions[c].name;
  arm.condition = plan.conditions[c].name;
  arm.revision = provenance.revision;
  arm.commit = provenance.commit;
  arm.tree = provenance.tree;
  arm.command = provenance.command;
  std::vector<double> visits;
  for (int r = 0; r < result.rounds_done; ++r) visits.push_back(result.visit_values[r][c]);
  if (!visits.empty()) arm.median = Median(visits);
  for (const Sample& s : result.samples) {
    if (s.arm != static_cast<int>(c) || s.warmup) continue;
    if (s.ok) {
      ++arm.ok_samples;
    } else {
      ++arm.failed_samples;
    }
  }
  return arm;
}

/// The suspect's shift (log scale) as the record's ratio estimate.
Estimate SuspectEstimate(const ShiftEstimate& shift) {
  Estimate e = RatioEstimate(shift);
  e.method = "paired by round, Hodges-Lehmann";
  return e;
}

/// ERROR when the engine broke (the details name the condition and the
/// command, and mark the record partial: IsolationDetailsOf), else the suspect's
/// verdict, else INCONCLUSIVE. `suspect` may be null.
void SetIsolationVerdict(const IsolationResult& result, const ConditionOutcome* suspect,
                         Record& record) {
  if (result.failure) {
    record.verdict = Verdict::kError;
    record.verdict_detail = result.failure->message();
  } else if (suspect && suspect->verdict) {
    record.verdict = suspect->verdict->verdict;
    record.verdict_detail = result.conclusion;
  } else {
    record.verdict = Verdict::kInconclusive;
    record.verdict_detail = result.conclusion;
  }
}

/// The flat details: the plan, the design, the correction and the outcome, and where the
/// engine broke when it did.
IsolationDetails IsolationDetailsOf(const IsolationPlan& plan, const IsolationOptions& options,
                                    const IsolationResult& result) {
  IsolationDetails d;
  d.plan = plan.name;
  d.conclusion = result.conclusion;
  d.sitting.seed = result.seed;
  d.design = std::string(kIsolationDesign);
  d.rounds = result.rounds_done;
  d.max_rounds = options.max_rounds;
  d.runs_per_visit = options.runs_per_visit;
  d.settle_runs = options.settle_runs;
  d.sample_tags = std::string(kIsolationSampleTags);
  d.correction = std::string(kBonferroniCorrection);
  d.condition_alpha = result.condition_alpha;
  d.sitting.alpha_spending = std::string(kPocockIncrements);
  d.reversibility = result.reversibility.verdict;
  if (result.suspect > 0) d.suspect = plan.conditions[result.suspect].name;
  if (result.calibration) d.sitting.calibration_change = result.calibration->change;
  if (result.failure) {
    d.partial = true;
    d.failed_condition = result.failed_condition;
    d.failed_command = result.failed_command;
  }
  return d;
}

/// One condition of the payload: its holds and releases, the sizes the engine
/// answered, and its verdict and interval when it has them.
IsolationConditionPayload ConditionPayload(const ConditionOutcome& o, bool baseline) {
  IsolationConditionPayload c;
  c.name = o.condition.name;
  c.hold = o.condition.hold;
  c.release = o.condition.release;
  c.bytes.insert(o.bytes.begin(), o.bytes.end());
  c.baseline = baseline;
  if (o.verdict) {
    c.verdict = o.verdict->verdict;
    c.explanation = o.verdict->explanation;
  }
  if (o.shift) {
    const Estimate e = RatioEstimate(*o.shift);
    c.ratio = e.ratio;
    c.low = e.low;
    c.high = e.high;
    c.confidence = e.confidence;
    c.nominal_confidence = o.nominal_confidence;
    c.rounds = o.decided_at;
  }
  return c;
}

/// The simulated figures as the record keeps them, labelled with their source.
IsolationSimulatedPayload SimulatedPayload(const SimulatedIsolation& s) {
  IsolationSimulatedPayload out;
  out.metric = std::string(NamedMetricName(s.kind));
  // Worded as `isolate` prints it (probes/isolate_command.cc), so the reports say the same.
  out.source = "simulated (cachegrind, " +
               (s.valgrind_version.empty() ? "" : s.valgrind_version + ", ") +
               std::string(kFairScheduling) + ")";
  out.samples = s.samples;
  out.runs = s.runs;
  out.settle_runs = s.settle_runs;
  out.values = s.values;
  out.failure = s.failure;
  return out;
}

/// The structured payload (details_json): the design and its orders, the
/// looks, the correction, every condition, the reversibility verdict and the
/// calibrations.
IsolationPayload MakeIsolationPayload(const IsolationResult& result) {
  IsolationPayload p;
  p.seed = result.seed;
  p.orders = result.orders;
  p.looks = result.looks;
  p.comparisons = std::max<int>(0, static_cast<int>(result.conditions.size()) - 1);
  p.condition_alpha = result.condition_alpha;
  for (size_t c = 0; c < result.conditions.size(); ++c) {
    p.conditions.push_back(ConditionPayload(result.conditions[c], c == 0));
  }
  p.suspect = result.suspect;
  p.reversibility = result.reversibility.verdict;
  p.reversibility_condition = result.reversibility.condition;
  p.reversibility_sentence = result.reversibility.sentence;
  p.calibration_start_ms = result.start.calibration_ms;
  p.calibration_end_ms = result.end.calibration_ms;
  p.checkpoint_calibrations_ms = result.checkpoint_calibrations_ms;
  p.partial = result.failure.has_value();
  p.conclusion = result.conclusion;
  if (result.simulated) p.simulated = SimulatedPayload(*result.simulated);
  return p;
}

// What follows when a control costs too (an EFFECT of its own). The suspect may still cost
// far more than any control: when the low end of the suspect's interval lies beyond the high
// end of every costly control's by more than the band, the suspect's own share is shown, at
// least that factor (both intervals hold together with at least 1 - 2 · condition_alpha:
// Bonferroni). Otherwise the controls explain as much as the suspect, as far as these rounds
// can tell.
std::string ControlsCostTooText(const IsolationResult& result, const std::string& names,
                                double band) {
  const ConditionOutcome& s = result.conditions[result.suspect];
  double largest_high = -INFINITY;
  std::string largest;
  for (size_t i = 1; i < result.conditions.size(); ++i) {
    const ConditionOutcome& c = result.conditions[i];
    if (static_cast<int>(i) == result.suspect ||
        static_cast<int>(i) == result.reversibility.condition) {
      continue;
    }
    if (!c.verdict || c.verdict->verdict != Verdict::kEffect || !c.shift) continue;
    if (c.shift->high > largest_high) {
      largest_high = c.shift->high;
      largest = c.condition.hold.empty() ? "`" + c.condition.name + "`" : Structures(c);
    }
  }
  // No costly control with an interval (or no suspect interval): nothing to bound the share by.
  const double beyond = s.shift && !largest.empty() ? s.shift->low - largest_high : -INFINITY;
  if (!(beyond > std::log1p(band))) {
    return fmt::format("holding the controls moves it too: memory held in general, not {} alone",
                       names);
  }
  return fmt::format(
      "holding the controls moves it too, but {} costs at least x{:.3f} more than {}, the "
      "costliest (the low end of its interval over the high end of theirs): a residency effect "
      "mostly of {} itself, a little of memory held in general",
      names, std::exp(beyond), largest, names);
}

}  // namespace

std::string FormatBytes(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", bytes / 1073741824.0);
  if (bytes >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  if (bytes >= (uint64_t{1} << 10)) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{} B", bytes);
}

std::string IsolationConclusion(const IsolationResult& result, const std::string& query,
                                double band) {
  if (result.failure) {
    return fmt::format("no conclusion: the engine broke ({})", result.failure->message());
  }
  if (result.interrupted) return "no conclusion: interrupted before the sitting could decide";
  const int suspect = result.suspect;
  if (suspect < 0) return "no conclusion: the plan holds nothing to compare with the baseline";
  const ConditionOutcome& s = result.conditions[suspect];
  std::vector<std::string> parts;
  const bool suspect_effect = s.verdict && s.verdict->verdict == Verdict::kEffect;
  if (suspect_effect && s.shift && s.shift->estimate > 0) {
    parts.push_back(
        fmt::format("holding {} costs {} {}", Structures(s), query, Interval(*s.shift)));
  } else {
    parts.push_back(fmt::format("holding {}: {} {}", Structures(s), query, OutcomeText(s)));
  }
  bool control_effect = false;
  int controls = 0;
  for (size_t i = 1; i < result.conditions.size(); ++i) {
    const ConditionOutcome& c = result.conditions[i];
    if (static_cast<int>(i) == suspect || static_cast<int>(i) == result.reversibility.condition) {
      continue;
    }
    ++controls;
    if (c.verdict && c.verdict->verdict == Verdict::kEffect) control_effect = true;
    std::string what = c.condition.hold.empty() ? "`" + c.condition.name + "`" : Structures(c);
    if (!c.condition.release.empty()) what += " released";
    parts.push_back(fmt::format("{} {}", what, OutcomeText(c)));
  }
  if (result.reversibility.condition >= 0) {
    const ConditionOutcome& rel = result.conditions[result.reversibility.condition];
    parts.push_back("released: " + (rel.verdict && rel.verdict->verdict == Verdict::kNull
                                        ? std::string("tie")
                                        : OutcomeText(rel)));
  }
  std::string names;
  for (const std::string& n : s.condition.hold) names += (names.empty() ? "`" : ", `") + n + "`";
  std::string then;
  const Reversibility rev = result.reversibility.verdict;
  if (!s.verdict || s.verdict->verdict == Verdict::kInconclusive) {
    then = fmt::format(
        "undecided: the sitting could not tell whether holding {} moves {} "
        "beyond the band (more rounds, --max-pairs, may settle it)",
        names, query);
  } else if (s.verdict->verdict == Verdict::kNull) {
    then = fmt::format("holding {} does not move {} beyond the band: not a residency effect", names,
                       query);
  } else if (rev == Reversibility::kNotReversible) {
    then = "the cost stays after release: damage or a leak, not residency";
  } else if (control_effect) {
    then = ControlsCostTooText(result, names, band);
  } else if (rev == Reversibility::kReversible) {
    then =
        controls > 0
            ? fmt::format("a residency effect of {} itself, not of memory held in general", names)
            : fmt::format(
                  "a residency effect of {}, not damage (no control of comparable "
                  "weight in the plan)",
                  names);
  } else {
    then = fmt::format("holding {} moves {}; reversibility {}, so residency is not shown", names,
                       query, ReversibilityName(rev));
  }
  return Join(parts, "; ") + " → " + then;
}

Record MakeIsolationRecord(const IsolationPlan& plan, const IsolationOptions& options,
                           const IsolationResult& result, const IsolationProvenance& provenance,
                           const HostIdentity& host) {
  Record record;
  record.kind = RecordKind::kIsolate;
  record.query = plan.query;
  record.unit = "ms";
  record.band = options.band;
  record.hypothesis = IsolationHypothesis(plan, result.suspect);
  for (size_t c = 0; c < result.conditions.size(); ++c) {
    record.arms.push_back(ConditionArm(plan, result, provenance, c));
  }
  record.samples = result.samples;
  // Samples of a round that did not complete were not analysed.
  for (Sample& s : record.samples) {
    if (!s.warmup && s.pair >= result.rounds_done) s.dropped = true;
  }
  record.start = result.start;
  record.end = result.end;
  record.host = host;
  record.culprit_version = CULPRIT_VERSION;
  record.config_digest = provenance.config_digest;
  record.interrupted = result.interrupted;
  record.notes = provenance.notes;
  record.notes.insert(record.notes.end(), result.notes.begin(), result.notes.end());

  const ConditionOutcome* suspect =
      result.suspect > 0 ? &result.conditions[result.suspect] : nullptr;
  if (suspect && suspect->shift) record.estimate = SuspectEstimate(*suspect->shift);
  SetIsolationVerdict(result, suspect, record);
  IsolationDetailsOf(plan, options, result).WriteTo(&record.details);
  record.details_json = IsolationPayloadToJson(MakeIsolationPayload(result));
  return record;
}

}  // namespace culprit
