#include "probes/isolation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "base/interrupt.h"
#include "base/random_seed.h"
#include "base/strings.h"
#include "probes/comparison.h"
#include "probes/log_interval.h"
#include "probes/round_design.h"
#include "probes/sequential.h"

namespace culprit {
namespace {

std::set<std::string> AsSet(const std::vector<std::string>& names) {
  return std::set<std::string>(names.begin(), names.end());
}

bool HoldsOnly(const ResidencyCondition& c) { return !c.hold.empty() && c.release.empty(); }

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

// "+1.0% [-1.0%, +3.0%] (tie)", or why there is no number.
std::string Outcome(const ConditionOutcome& c) {
  if (!c.shift) return "no estimate";
  std::string out = Interval(*c.shift);
  if (c.verdict) out += " (" + VerdictWord(c.verdict->verdict) + ")";
  return out;
}

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string JsonStrings(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const std::string& s : items) quoted.push_back(JsonString(s));
  return "[" + Join(quoted, ",") + "]";
}

std::string JsonNumber(double value) {
  if (!std::isfinite(value)) return "null";
  return fmt::format("{:.6g}", value);
}

class IsolationRun {
 public:
  IsolationRun(HarnessSession& harness, const IsolationPlan& plan, const IsolationOptions& options,
               IsolationResult& result)
      : harness_(harness), plan_(plan), options_(options), r_(result) {}

  /// One visit of condition `c` in round `round` (-1: warm-up): set up, settle, measure,
  /// undo. Returns its median value, or nullopt when it failed or was interrupted (r_ says
  /// which).
  std::optional<double> Visit(int c, int round) {
    std::set<std::string> held;
    if (!SetUp(c, held)) return std::nullopt;
    if (options_.settle_runs > 0 && round >= 0 && !Settle(c, round)) return std::nullopt;
    const std::string command = fmt::format("run {} {}", plan_.query, options_.runs_per_visit);
    std::optional<std::vector<double>> values = Measure(c, round, command);
    if (!values || !Undo(c, held)) return std::nullopt;
    const double median = Median(*values);
    if (!(median > 0)) {
      Fail(c, command,
           Error(fmt::format("'{}': the median of the answer is {} ms, not a positive time",
                             command, median)));
      return std::nullopt;
    }
    return median;
  }

  /// Round `round`: a visit of each condition in `order`. Returns the visits'
  /// medians by condition, or nullopt at the first visit that failed or was
  /// interrupted.
  std::optional<std::vector<double>> Round(int round, const std::vector<int>& order) {
    std::vector<double> values(plan_.conditions.size(), std::nan(""));
    for (int c : order) {
      std::optional<double> v = Visit(c, round);
      if (!v) return std::nullopt;
      values[c] = *v;
    }
    return values;
  }

 private:
  /// The condition's holds, then its releases; `held` is what stays resident.
  bool SetUp(int c, std::set<std::string>& held) {
    const ResidencyCondition& condition = plan_.conditions[c];
    for (const std::string& name : condition.hold) {
      if (!Step(c, "hold " + name, [&] {
            Result<HoldReply> reply = harness_.Hold(name);
            if (reply && reply->bytes) r_.conditions[c].bytes[name] = *reply->bytes;
            if (reply) held.insert(name);
            return reply ? Status() : Status(reply.error());
          })) {
        return false;
      }
    }
    for (const std::string& name : condition.release) {
      if (!Step(c, "release " + name, [&] {
            Status done = harness_.Release(name);
            if (done) held.erase(name);
            return done;
          })) {
        return false;
      }
    }
    return true;
  }

  /// The settling runs after the set-up (`run QUERY settle_runs`): recorded as warm-ups of
  /// the round, not analysed, so what the set-up itself disturbs (caches, page faults) is
  /// not measured as the condition.
  bool Settle(int c, int round) {
    const std::string settle = fmt::format("run {} {}", plan_.query, options_.settle_runs);
    std::vector<double> settled;
    if (!Step(c, settle, [&] {
          Result<std::vector<double>> got = harness_.Run(plan_.query, options_.settle_runs);
          if (!got) return Status(got.error());
          settled = std::move(*got);
          return Status();
        })) {
      return false;
    }
    for (double v : settled) {
      Sample s;
      s.sequence = static_cast<int>(r_.samples.size());
      s.arm = c;
      s.pair = round;
      s.warmup = true;  // a settling run: recorded, not analysed
      s.value = v;
      r_.samples.push_back(std::move(s));
    }
    return true;
  }

  /// The visit's measured runs (`command`), each recorded as a sample; a failed request is
  /// recorded as one failed sample. Returns the values, or nullopt.
  std::optional<std::vector<double>> Measure(int c, int round, const std::string& command) {
    const int n = options_.runs_per_visit;
    std::vector<double> values;
    double round_trip_ms = 0;
    bool ran = Step(c, command, [&] {
      const auto start = std::chrono::steady_clock::now();
      Result<std::vector<double>> got = harness_.Run(plan_.query, n);
      round_trip_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      if (!got) return Status(got.error());
      values = std::move(*got);
      return Status();
    });
    if (!ran) {
      Sample failed;
      failed.sequence = static_cast<int>(r_.samples.size());
      failed.arm = c;
      failed.pair = round;
      failed.warmup = round < 0;
      failed.ok = false;
      failed.failure = r_.failure ? r_.failure->message() : "interrupted";
      r_.samples.push_back(std::move(failed));
      return std::nullopt;
    }
    for (double v : values) {
      Sample s;
      s.sequence = static_cast<int>(r_.samples.size());
      s.arm = c;
      s.pair = round;
      s.warmup = round < 0;
      s.value = v;
      // The client's round trip, shared out over the values it carried.
      s.wall_ms = round_trip_ms / n;
      if (!(v > 0)) {
        s.ok = false;
        s.failure = fmt::format("{} ms is not a positive time", v);
      }
      r_.samples.push_back(std::move(s));
    }
    return values;
  }

  /// Undo: release what the visit holds still.
  bool Undo(int c, const std::set<std::string>& held) {
    for (const std::string& name : plan_.conditions[c].hold) {
      if (held.count(name) == 0) continue;
      if (!Step(c, "release " + name, [&] { return harness_.Release(name); })) return false;
    }
    return true;
  }

  template <typename F>
  bool Step(int c, const std::string& command, F&& f) {
    if (InterruptRequested()) {
      r_.interrupted = true;
      return false;
    }
    Status done = f();
    if (done) return true;
    if (done.error().kind() == ErrorKind::kInterrupted || InterruptRequested()) {
      r_.interrupted = true;
      return false;
    }
    Fail(c, command, done.error());
    return false;
  }

  void Fail(int c, const std::string& command, const Error& error) {
    r_.failed_condition = plan_.conditions[c].name;
    r_.failed_command = command;
    r_.failure = error.WithContext(fmt::format("condition '{}'", plan_.conditions[c].name));
  }

  HarnessSession& harness_;
  const IsolationPlan& plan_;
  const IsolationOptions& options_;
  IsolationResult& r_;
};

void TakeSnapshot(const HostProbe* host, SittingProgress* progress, const char* phase,
                  HostState& into) {
  if (host == nullptr) return;
  if (progress) progress->OnPhase(phase);
  into = host->Snapshot(/*calibrate=*/true);
}

VerdictResult Inconclusive(std::string why) {
  VerdictResult v;
  v.verdict = Verdict::kInconclusive;
  v.explanation = std::move(why);
  return v;
}

// ---- the sitting's rounds and looks ----

/// The result before the first visit: the seed, one outcome per condition,
/// the suspect, each comparison's alpha and the looks.
IsolationResult PlannedResult(const IsolationPlan& plan, const IsolationOptions& options) {
  IsolationResult r;
  const int k = static_cast<int>(plan.conditions.size());
  r.seed = RequestedOrFreshSeed(options.seed);
  for (const ResidencyCondition& c : plan.conditions) {
    ConditionOutcome outcome;
    outcome.condition = c;
    r.conditions.push_back(std::move(outcome));
  }
  r.suspect = SuspectCondition(plan.conditions);
  const int comparisons = std::max(0, k - 1);
  r.condition_alpha = PerConditionAlpha(options.confidence, comparisons);
  r.looks = comparisons == 0
                ? std::vector<int>{std::max(1, options.min_rounds)}
                // Split over the comparisons, the first look's alpha is small (0.0013 at
                // 10 of 160 rounds, five conditions), beyond any interval on 10 rounds:
                // that look moves up by whole blocks of rounds until it can stop.
                : StoppableLooks(
                      BlockAlignedLooks(LookSchedule(options.min_rounds, options.max_rounds), k),
                      r.condition_alpha, Spending::kPocock, k);
  return r;
}

/// A look at `alpha`: each condition not yet decided gets its interval over
/// the complete rounds, and its verdict when the interval is decisive.
/// Returns how many conditions this look decided.
int DecideAtLook(IsolationResult& r, double alpha, double band, std::vector<bool>& decided) {
  int newly_decided = 0;
  for (int c = 1; c < static_cast<int>(r.conditions.size()); ++c) {
    if (decided[c]) continue;
    ConditionOutcome& outcome = r.conditions[c];
    outcome.log_ratios = PairedLogRatios(r.visit_values, c, r.rounds_done);
    Result<ShiftEstimate> shift = SignedRankEstimate(outcome.log_ratios, 1 - alpha);
    if (!shift) continue;
    outcome.shift = *shift;
    outcome.nominal_confidence = 1 - alpha;
    outcome.decided_at = r.rounds_done;
    if (IsDecisive(*shift, band)) {
      outcome.verdict = Decide(*shift, band);
      decided[c] = true;
      ++newly_decided;
    }
  }
  return newly_decided;
}

void CalibrateBetweenLooks(const HostProbe& host, SittingProgress* progress, IsolationResult& r) {
  if (progress) progress->OnPhase("calibrating (between looks)");
  HostState checkpoint = host.Snapshot(true);
  if (checkpoint.calibration_ms) {
    r.checkpoint_calibrations_ms.push_back(*checkpoint.calibration_ms);
  }
}

/// Condition `c`'s ratio to the baseline on every complete round so far (the
/// Hodges–Lehmann estimate, as the intervals use); nullopt before two rounds.
/// Not the estimate of the look that decided it: progress says what the
/// sitting knows now, and a decided condition keeps being measured while the
/// others are not decided yet.
std::optional<double> RatioNow(const IsolationResult& r, int c) {
  const std::vector<double> d = PairedLogRatios(r.visit_values, c, r.rounds_done);
  if (d.size() < 2) return std::nullopt;
  std::vector<double> walsh;
  walsh.reserve(d.size() * (d.size() + 1) / 2);
  for (size_t i = 0; i < d.size(); ++i) {
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  }
  return std::exp(Median(walsh));
}

/// The rounds done, the next look's round count, and the suspect's ratio now.
void ReportProgress(SittingProgress& progress, const IsolationResult& r, size_t look) {
  std::optional<double> ratio;
  if (r.suspect > 0) ratio = RatioNow(r, r.suspect);
  progress.OnProgress(r.rounds_done, look < r.looks.size() ? r.looks[look] : r.rounds_done, ratio);
}

}  // namespace

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

/// The rounds of the balanced design, with a look each time the complete
/// rounds reach the next look. Stops when every condition is decided (a plan
/// of the baseline alone runs to the last look), after the last look, or when
/// a visit fails or is interrupted. Returns the index of the next look.
size_t RunRounds(IsolationRun& run, const std::vector<double>& alphas, const HostProbe* host,
                 const IsolationOptions& options, SittingProgress* progress, IsolationResult& r) {
  const int k = static_cast<int>(r.conditions.size());
  const std::vector<std::vector<int>> design = BalancedRoundOrders(k, r.looks.back(), r.seed);
  size_t look = 0;
  std::vector<bool> decided(k, false);
  decided[0] = true;
  int undecided = std::max(0, k - 1);
  while (!r.failure && !r.interrupted && look < r.looks.size() && (undecided > 0 || k == 1)) {
    if (InterruptRequested()) {
      r.interrupted = true;
      break;
    }
    const int round = r.rounds_done;
    r.orders.push_back(design[round]);
    std::optional<std::vector<double>> values = run.Round(round, design[round]);
    if (!values) break;
    r.visit_values.push_back(std::move(*values));
    ++r.rounds_done;

    if (r.rounds_done >= r.looks[look]) {
      undecided -= DecideAtLook(r, alphas[look], options.band, decided);
      ++look;
      // Every condition as it stands, decided or not: one line per look.
      if (progress) progress->OnPhase(DescribeLook(r));
      if (undecided > 0 && look < r.looks.size() && options.calibrate_between_looks && host) {
        CalibrateBetweenLooks(*host, progress, r);
      }
      if (k == 1 && look >= r.looks.size()) break;
    }
    if (progress) ReportProgress(*progress, r, look);
  }
  return look;
}

/// Never a verdict built on a broken process; what was measured stays in the samples.
void DropVerdicts(IsolationResult& r) {
  for (ConditionOutcome& c : r.conditions) {
    c.verdict.reset();
    c.shift.reset();
  }
  r.notes.push_back(
      fmt::format("partial: the engine broke after {} complete rounds", r.rounds_done));
}

/// After an interrupt, which is not a planned look: each condition's estimate
/// at `alpha` (the next look's) once it has two rounds, and no verdict.
void EstimateWithoutVerdict(IsolationResult& r, double alpha) {
  for (int c = 1; c < static_cast<int>(r.conditions.size()); ++c) {
    ConditionOutcome& outcome = r.conditions[c];
    outcome.log_ratios = PairedLogRatios(r.visit_values, c, r.rounds_done);
    if (outcome.log_ratios.size() >= 2) {
      Result<ShiftEstimate> shift = SignedRankEstimate(outcome.log_ratios, 1 - alpha);
      if (shift) {
        outcome.shift = *shift;
        outcome.nominal_confidence = 1 - alpha;
        outcome.decided_at = r.rounds_done;
      }
    }
    outcome.verdict = Inconclusive(
        fmt::format("interrupted after {} rounds, before the sitting could decide", r.rounds_done));
  }
  r.notes.push_back(fmt::format("interrupted after {} complete rounds; no verdict", r.rounds_done));
}

/// After the last look: a condition no look decided gets the verdict of its
/// last interval, INCONCLUSIVE when it never had one.
void DecideTheUndecided(IsolationResult& r, double band) {
  for (int c = 1; c < static_cast<int>(r.conditions.size()); ++c) {
    ConditionOutcome& outcome = r.conditions[c];
    if (outcome.verdict) continue;
    if (outcome.shift) {
      outcome.verdict = Decide(*outcome.shift, band);
    } else {
      outcome.verdict = Inconclusive(
          fmt::format("only {} rounds, too few for an interval at this confidence", r.rounds_done));
    }
  }
}

/// Notes on the calibration drift between the sitting's two snapshots and on
/// what changed on the host meanwhile (a sitting's NoteHostChangeWarnings does only the
/// second). `host` may be null.
void NoteDriftAndHostChanges(const HostProbe* host, IsolationResult& r) {
  if (r.start.calibration_ms && r.end.calibration_ms) {
    r.calibration = CheckCalibration(*r.start.calibration_ms, *r.end.calibration_ms);
    if (r.calibration->drifted || !r.calibration->valid) r.notes.push_back(r.calibration->message);
  }
  if (host != nullptr && !r.start.time.empty() && !r.end.time.empty()) {
    for (std::string& w : HostChangeWarnings(host->Identity(), r.start, r.end)) {
      r.notes.push_back(std::move(w));
    }
  }
}

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
/// command, and mark the record partial), else the suspect's verdict, else
/// INCONCLUSIVE. `suspect` may be null.
void SetIsolationVerdict(const IsolationResult& result, const ConditionOutcome* suspect,
                         Record& record) {
  if (result.failure) {
    record.verdict = Verdict::kError;
    record.verdict_detail = result.failure->message();
    record.details["partial"] = "true";
    record.details["failed_condition"] = result.failed_condition;
    record.details["failed_command"] = result.failed_command;
  } else if (suspect && suspect->verdict) {
    record.verdict = suspect->verdict->verdict;
    record.verdict_detail = result.conclusion;
  } else {
    record.verdict = Verdict::kInconclusive;
    record.verdict_detail = result.conclusion;
  }
}

/// The flat details: the plan, the design, the correction and the outcome.
void AddIsolationDetails(const IsolationPlan& plan, const IsolationOptions& options,
                         const IsolationResult& result,
                         std::map<std::string, std::string>& details) {
  details["plan"] = plan.name;
  details["conclusion"] = result.conclusion;
  details["seed"] = std::to_string(result.seed);
  details["design"] = "random Latin square per block of rounds";
  details["rounds"] = std::to_string(result.rounds_done);
  details["max_rounds"] = std::to_string(options.max_rounds);
  details["runs_per_visit"] = std::to_string(options.runs_per_visit);
  details["settle_runs"] = std::to_string(options.settle_runs);
  details["sample_tags"] =
      "arm = condition, pair = round (-1: warm-up visit); warmup = true with a round: the "
      "settling run after the condition was set up";
  details["correction"] = "bonferroni";
  details["condition_alpha"] = fmt::format("{:.6g}", result.condition_alpha);
  details["alpha_spending"] = "pocock-increments";
  details["reversibility"] = std::string(ReversibilityName(result.reversibility.verdict));
  if (result.suspect > 0) details["suspect"] = plan.conditions[result.suspect].name;
  if (result.calibration) {
    details["calibration_change"] = fmt::format("{:+.4f}", result.calibration->change);
  }
}

std::string JsonInts(const std::vector<int>& items) {
  std::vector<std::string> texts;
  for (int i : items) texts.push_back(std::to_string(i));
  return "[" + Join(texts, ",") + "]";
}

std::string JsonNumbers(const std::vector<double>& items) {
  std::vector<std::string> texts;
  for (double v : items) texts.push_back(JsonNumber(v));
  return "[" + Join(texts, ",") + "]";
}

std::string OptionalJsonNumber(const std::optional<double>& value) {
  return value ? JsonNumber(*value) : std::string("null");
}

/// One condition of the payload: its holds and releases, the sizes the engine
/// answered, and its verdict and interval when it has them.
std::string ConditionJson(const ConditionOutcome& o, bool baseline) {
  std::vector<std::string> bytes;
  for (const auto& [name, size] : o.bytes) {
    bytes.push_back(JsonString(name) + ":" + std::to_string(size));
  }
  std::string item =
      fmt::format("{{\"name\":{},\"hold\":{},\"release\":{},\"bytes\":{{{}}},\"baseline\":{}",
                  JsonString(o.condition.name), JsonStrings(o.condition.hold),
                  JsonStrings(o.condition.release), Join(bytes, ","), baseline ? "true" : "false");
  if (o.verdict) {
    item += fmt::format(",\"verdict\":{},\"explanation\":{}",
                        JsonString(VerdictName(o.verdict->verdict)),
                        JsonString(o.verdict->explanation));
  }
  if (o.shift) {
    const Estimate e = RatioEstimate(*o.shift);
    item += fmt::format(
        ",\"ratio\":{},\"low\":{},\"high\":{},\"confidence\":{},\"nominal_confidence\":{},"
        "\"rounds\":{}",
        JsonNumber(e.ratio), JsonNumber(e.low), JsonNumber(e.high), JsonNumber(e.confidence),
        JsonNumber(o.nominal_confidence), o.decided_at);
  }
  return item + "}";
}

/// The structured payload (details_json): the design and its orders, the
/// looks, the correction, every condition, the reversibility verdict and the
/// calibrations.
std::string IsolationPayload(const IsolationResult& result) {
  std::vector<std::string> orders;
  for (const std::vector<int>& order : result.orders) orders.push_back(JsonInts(order));
  std::vector<std::string> conditions;
  for (size_t c = 0; c < result.conditions.size(); ++c) {
    conditions.push_back(ConditionJson(result.conditions[c], c == 0));
  }
  return fmt::format(
      "{{\"design\":{{\"method\":\"random Latin square per block of rounds\",\"seed\":{},"
      "\"conditions\":{},\"orders\":[{}]}},\"looks\":{},\"correction\":{{\"method\":"
      "\"bonferroni\",\"comparisons\":{},\"condition_alpha\":{}}},\"conditions\":[{}],"
      "\"suspect\":{},\"reversibility\":{{\"verdict\":{},\"condition\":{},\"sentence\":{}}},"
      "\"calibration\":{{\"start_ms\":{},\"end_ms\":{},\"checkpoints_ms\":{}}},"
      "\"partial\":{},\"conclusion\":{}}}",
      JsonString(std::to_string(result.seed)), result.conditions.size(), Join(orders, ","),
      JsonInts(result.looks), std::max<int>(0, static_cast<int>(result.conditions.size()) - 1),
      JsonNumber(result.condition_alpha), Join(conditions, ","), result.suspect,
      JsonString(ReversibilityName(result.reversibility.verdict)), result.reversibility.condition,
      JsonString(result.reversibility.sentence), OptionalJsonNumber(result.start.calibration_ms),
      OptionalJsonNumber(result.end.calibration_ms), JsonNumbers(result.checkpoint_calibrations_ms),
      result.failure ? "true" : "false", JsonString(result.conclusion));
}

}  // namespace

std::string_view ReversibilityName(Reversibility r) {
  switch (r) {
    case Reversibility::kReversible:
      return "reversible";
    case Reversibility::kNotReversible:
      return "not reversible";
    case Reversibility::kUndecided:
      return "undecided";
    case Reversibility::kNotTested:
      break;
  }
  return "not tested";
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", bytes / 1073741824.0);
  if (bytes >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  if (bytes >= (uint64_t{1} << 10)) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{} B", bytes);
}

std::vector<double> PairedLogRatios(const std::vector<std::vector<double>>& visit_values,
                                    int condition, int rounds) {
  std::vector<double> d;
  for (int r = 0; r < rounds && r < static_cast<int>(visit_values.size()); ++r) {
    d.push_back(std::log(visit_values[r][condition]) - std::log(visit_values[r][0]));
  }
  return d;
}

double PerConditionAlpha(double confidence, int comparisons) {
  return (1 - confidence) / std::max(1, comparisons);
}

int SuspectCondition(const std::vector<ResidencyCondition>& conditions) {
  for (const ResidencyCondition& c : conditions) {
    if (c.release.empty()) continue;
    const std::set<std::string> suspects = AsSet(c.release);
    for (size_t i = 1; i < conditions.size(); ++i) {
      if (HoldsOnly(conditions[i]) && AsSet(conditions[i].hold) == suspects) {
        return static_cast<int>(i);
      }
    }
  }
  for (size_t i = conditions.size(); i-- > 1;) {
    if (HoldsOnly(conditions[i])) return static_cast<int>(i);
  }
  return -1;
}

ReversibilityResult JudgeReversibility(const std::vector<ConditionOutcome>& conditions,
                                       int suspect) {
  ReversibilityResult out;
  std::set<std::string> suspects;
  if (suspect >= 0) suspects = AsSet(conditions[suspect].condition.hold);
  for (size_t i = 1; i < conditions.size(); ++i) {
    const ResidencyCondition& c = conditions[i].condition;
    if (c.release.empty()) continue;
    if (out.condition < 0 || (!suspects.empty() && AsSet(c.release) == suspects)) {
      out.condition = static_cast<int>(i);
      if (!suspects.empty() && AsSet(c.release) == suspects) break;
    }
  }
  if (out.condition < 0) {
    out.verdict = Reversibility::kNotTested;
    out.sentence = "no condition holds and then releases: reversibility not tested";
    return out;
  }
  const ConditionOutcome& released = conditions[out.condition];
  if (!released.verdict) {
    out.verdict = Reversibility::kUndecided;
    out.sentence = "released: no verdict";
  } else if (released.verdict->verdict == Verdict::kNull) {
    out.verdict = Reversibility::kReversible;
    out.sentence = "released: tie → a residency effect, not damage";
  } else if (released.verdict->verdict == Verdict::kEffect) {
    out.verdict = Reversibility::kNotReversible;
    out.sentence = fmt::format(
        "released: {} → the cost stays after release: damage or a leak, "
        "not residency",
        Outcome(released));
  } else {
    out.verdict = Reversibility::kUndecided;
    out.sentence = fmt::format("released: {}: reversibility undecided", Outcome(released));
  }
  return out;
}

std::string IsolationConclusion(const IsolationResult& result, const std::string& query) {
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
    parts.push_back(fmt::format("holding {}: {} {}", Structures(s), query, Outcome(s)));
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
    parts.push_back(fmt::format("{} {}", what, Outcome(c)));
  }
  if (result.reversibility.condition >= 0) {
    const ConditionOutcome& rel = result.conditions[result.reversibility.condition];
    parts.push_back("released: " + (rel.verdict && rel.verdict->verdict == Verdict::kNull
                                        ? std::string("tie")
                                        : Outcome(rel)));
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
    then = fmt::format("holding the controls moves it too: memory held in general, not {} alone",
                       names);
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

IsolationResult RunIsolationSitting(HarnessSession& harness, const IsolationPlan& plan,
                                    const HostProbe* host, const IsolationOptions& options,
                                    SittingProgress* progress) {
  IsolationResult r = PlannedResult(plan, options);
  const int k = static_cast<int>(plan.conditions.size());
  // Pocock-type spending, as `probe`: a large effect can stop at an early look.
  const std::vector<double> alphas = SpendAlpha(r.condition_alpha, r.looks, Spending::kPocock);
  IsolationRun run(harness, plan, options, r);

  // Warm-up first: the first request also waits for the engine to load, and
  // calibrating while it loads would time the loader, not the host.
  if (options.warmup > 0 && progress) progress->OnPhase("warming up");
  for (int w = 0; w < options.warmup && !r.failure && !r.interrupted; ++w) {
    for (int c = 0; c < k && !r.failure && !r.interrupted; ++c) run.Visit(c, -1);
  }
  if (!r.failure && !r.interrupted) TakeSnapshot(host, progress, "calibrating (start)", r.start);

  const size_t look = RunRounds(run, alphas, host, options, progress, r);

  if (r.failure) {
    DropVerdicts(r);
  } else {
    TakeSnapshot(host, progress, "calibrating (end)", r.end);
    if (r.interrupted) {
      EstimateWithoutVerdict(r, alphas[std::min(look, r.looks.size() - 1)]);
    } else {
      DecideTheUndecided(r, options.band);
    }
    Status quit = harness.Quit();
    if (!quit) r.notes.push_back("the engine did not quit cleanly: " + quit.error().message());
  }
  NoteDriftAndHostChanges(host, r);
  r.reversibility = JudgeReversibility(r.conditions, r.suspect);
  r.conclusion = IsolationConclusion(r, plan.query);
  return r;
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
  AddIsolationDetails(plan, options, result, record.details);
  record.details_json = IsolationPayload(result);
  return record;
}

}  // namespace culprit
