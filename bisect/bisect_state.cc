#include "bisect/bisect_state.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "base/atomic_file.h"
#include "base/json_text.h"
#include "base/strings.h"

namespace culprit {

using nlohmann::json;

namespace {

// Each enum's spellings, in the enum's order: the table is the one place they are written.
constexpr std::string_view kStatusNames[] = {"running", "interrupted", "done"};
constexpr std::string_view kCheckNames[] = {"", "same", "tie", "opposite", "undecided"};
constexpr std::string_view kOutcomeNames[] = {"", "change", "range", "inconclusive", "unsearched"};

// Thrown inside BisectStateFromJson and caught there with nlohmann's errors.
struct BadName : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename Enum, size_t N>
Enum Require(const std::string_view (&names)[N], const json& j, const char* key) {
  const std::string text = j.at(key).get<std::string>();
  if (auto value = ParseIn<Enum>(names, text)) return *value;
  throw BadName(fmt::format("'{}' is not a {} this culprit writes", text, key));
}

// A step's kind, whose spellings are records' (ParseBisectStepKind).
BisectStepKind RequireStepKind(const json& j) {
  const std::string text = j.at("kind").get<std::string>();
  if (std::optional<BisectStepKind> kind = ParseBisectStepKind(text)) return *kind;
  throw BadName(fmt::format("'{}' is not a kind this culprit writes", text));
}

}  // namespace

std::string_view BisectStatusName(BisectStatus status) { return NameIn(kStatusNames, status); }
std::string_view SegmentCheckName(SegmentCheck check) { return NameIn(kCheckNames, check); }
std::string_view SegmentOutcomeName(SegmentOutcome outcome) {
  return NameIn(kOutcomeNames, outcome);
}
void PrintTo(BisectStatus status, std::ostream* out) { *out << BisectStatusName(status); }
void PrintTo(SegmentCheck check, std::ostream* out) {
  *out << '"' << SegmentCheckName(check) << '"';
}
void PrintTo(SegmentOutcome outcome, std::ostream* out) {
  *out << '"' << SegmentOutcomeName(outcome) << '"';
}

std::optional<BisectStatus> ParseBisectStatus(std::string_view name) {
  return ParseIn<BisectStatus>(kStatusNames, name);
}
std::optional<SegmentCheck> ParseSegmentCheck(std::string_view name) {
  return ParseIn<SegmentCheck>(kCheckNames, name);
}
std::optional<SegmentOutcome> ParseSegmentOutcome(std::string_view name) {
  return ParseIn<SegmentOutcome>(kOutcomeNames, name);
}

namespace {

// The samples are written as a record's are (one format for every sample culprit keeps): a
// record of two arms that holds nothing else.
json PendingStepToJson(const BisectPendingStep& p, const std::string& time) {
  Record carrier;
  carrier.id = "pending-step";
  carrier.kind = RecordKind::kBisectStep;
  carrier.time = time.empty() ? "-" : time;
  carrier.arms.resize(2);
  carrier.arms[0].name = "baseline";
  carrier.arms[1].name = "candidate";
  carrier.samples = p.samples;
  return {{"kind", BisectStepKindName(p.kind)},
          {"index", p.index},
          {"baseline", p.baseline},
          {"pairs", p.pairs},
          {"d", p.d},
          {"samples", json::parse(RecordToJson(carrier))}};
}

// A check's runs that gave no number, per arm (arm 0 the good end).
json FailuresToJson(const FailureComparison& f) {
  return json({{"failed", {f.failed[0], f.failed[1]}},
               {"timed_out", {f.timed_out[0], f.timed_out[1]}},
               {"runs", {f.runs[0], f.runs[1]}},
               {"p_value", f.p_value},
               {"differ", f.differ}});
}

// Counts a sitting could have made: none negative, no arm with more runs without a number
// than runs. Throws on a missing or mistyped field, as the rest of the state's reading does.
std::optional<FailureComparison> FailuresFromJson(const json& g) {
  FailureComparison f;
  for (int arm : {0, 1}) {
    f.failed[arm] = g.at("failed").at(arm).get<int>();
    f.timed_out[arm] = g.at("timed_out").at(arm).get<int>();
    f.runs[arm] = g.at("runs").at(arm).get<int>();
    if (f.failed[arm] < 0 || f.timed_out[arm] < 0 || f.Unmeasured(arm) > f.runs[arm]) {
      return std::nullopt;
    }
  }
  f.p_value = g.at("p_value").get<double>();
  f.differ = g.at("differ").get<bool>();
  if (!(f.p_value >= 0 && f.p_value <= 1)) return std::nullopt;
  return f;
}

// One segment as the state keeps it.
json SegmentToJson(const BisectSegment& g) {
  return json({{"lo", g.lo},
               {"hi", g.hi},
               {"check", SegmentCheckName(g.check)},
               {"ratio", g.ratio},
               {"low", g.low},
               {"high", g.high},
               {"confidence", g.confidence},
               {"pairs", g.pairs},
               {"check_record", g.check_record},
               {"search", g.search_json.empty() ? json() : json::parse(g.search_json)},
               {"outcome", SegmentOutcomeName(g.outcome)},
               {"first", g.first},
               {"change", g.change},
               {"log_ratio", g.log_ratio},
               {"log_low", g.log_low},
               {"log_high", g.log_high},
               {"verify_confidence", g.verify_confidence},
               {"verification_pairs", g.verification_pairs},
               {"probability", g.probability},
               {"reason", g.reason},
               {"tie_sought", g.tie_sought},
               {"tie_pairs_needed", g.tie_pairs_needed},
               {"tie_budget", g.tie_budget},
               {"tie_short", g.tie_short},
               {"tie_earns_label", g.tie_earns_label},
               {"alternative", g.alternative},
               {"ruled_out", g.ruled_out},
               {"rule_out_pairs_needed", g.rule_out_pairs_needed},
               {"small_move_suspected", g.small_move_suspected},
               {"recheck", SegmentCheckName(g.recheck)},
               {"recheck_record", g.recheck_record},
               {"check_failures", FailuresToJson(g.check_failures)}});
}

}  // namespace

std::string BisectStateToJson(const BisectState& s) {
  json log = json::array();
  for (const BisectStepLog& step : s.log) {
    log.push_back({{"step", step.step},
                   {"kind", BisectStepKindName(step.kind)},
                   {"index", step.index},
                   {"baseline", step.baseline},
                   {"commit", step.commit},
                   {"pairs", step.pairs},
                   {"ratio", step.ratio},
                   {"low", step.low},
                   {"high", step.high},
                   {"has_interval", step.has_interval},
                   {"mass_at_or_before", step.mass_at_or_before},
                   {"best_commit", step.best_commit},
                   {"best_probability", step.best_probability},
                   {"record_id", step.record_id},
                   {"note", step.note},
                   {"calibrated", step.calibrated},
                   {"drift", step.drift}});
    if (step.shared_runs != 0) log.back()["shared_runs"] = step.shared_runs;
    if (step.bursts) {
      log.back()["bursts"] = {{"slow", {step.bursts->slow[0], step.bursts->slow[1]}},
                              {"runs", {step.bursts->runs[0], step.bursts->runs[1]}},
                              {"factor", step.bursts->factor}};
    }
  }
  json segments = json::array();
  for (const BisectSegment& g : s.segments) segments.push_back(SegmentToJson(g));
  json j = {{"schema", s.schema},
            {"run_id", s.run_id},
            {"status", BisectStatusName(s.status)},
            {"started", s.started},
            {"updated", s.updated},
            {"good_rev", s.good_rev},
            {"bad_rev", s.bad_rev},
            {"query", s.query},
            {"first_parent", s.first_parent},
            {"descended_from", s.descended_from},
            {"max_pairs", s.max_pairs},
            {"seed", s.seed},
            {"prove_first", s.prove_first},
            {"speedup", s.speedup},
            {"commits", s.commits},
            {"search", s.search_json.empty() ? json() : json::parse(s.search_json)},
            {"log", log},
            {"records", s.records},
            {"result_record", s.result_record},
            {"config_digest", s.config_digest},
            {"segments", segments},
            {"active_segment", s.active_segment}};
  if (s.pending_step) j["pending_step"] = PendingStepToJson(*s.pending_step, s.updated);
  if (!s.run_reuse_json.empty()) j["run_reuse"] = json::parse(s.run_reuse_json);
  // A note or a revision may carry a Latin-1 commit subject: replaced, not thrown on.
  return ToJsonText(j, 2) + "\n";
}

namespace {

// A state file that cannot be read back as written: the one remedy is a reset.
Error Damaged(std::string_view source, std::string_view what) {
  return Error(fmt::format("{}: damaged bisect state: {}", source, what))
      .WithHint("`culprit bisect reset` discards it");
}

// One step of the log. Throws json::exception or BadName as the caller's parse does.
BisectStepLog StepLogFromJson(const json& step) {
  BisectStepLog l;
  l.step = step.at("step").get<int>();
  l.kind = RequireStepKind(step);
  l.index = step.at("index").get<int>();
  l.baseline = step.at("baseline").get<int>();
  l.commit = step.at("commit").get<std::string>();
  l.pairs = step.at("pairs").get<int>();
  l.ratio = step.at("ratio").get<double>();
  l.low = step.at("low").get<double>();
  l.high = step.at("high").get<double>();
  // Absent in states written before a step could have too few pairs for an interval.
  l.has_interval = step.value("has_interval", true);
  l.mass_at_or_before = step.at("mass_at_or_before").get<double>();
  l.best_commit = step.at("best_commit").get<std::string>();
  l.best_probability = step.at("best_probability").get<double>();
  l.record_id = step.at("record_id").get<std::string>();
  l.note = step.at("note").get<std::string>();
  // Absent in states written before steps were calibrated.
  l.calibrated = step.value("calibrated", false);
  l.drift = step.value("drift", 0.0);
  // Absent for a step that shared no runs, and in states written before any could.
  l.shared_runs = step.value("shared_runs", 0);
  // Absent in states written before bursts were kept, and for a step without any.
  if (step.contains("bursts")) {
    const json& b = step.at("bursts");
    SlowRunBursts bursts;
    for (int arm : {0, 1}) {
      bursts.slow[arm] = b.at("slow").at(arm).get<int>();
      bursts.runs[arm] = b.at("runs").at(arm).get<int>();
    }
    bursts.factor = b.at("factor").get<double>();
    l.bursts = bursts;
  }
  return l;
}

// What makes step `l` of a range of `n` commits damage, or nullopt.
std::optional<std::string> StepDamage(const BisectStepLog& l, int n) {
  if (l.index < 0 || l.index > n || l.baseline < 0 || l.baseline > n) {
    return fmt::format("step {} measures commit {} against {}, outside the range 0..{}", l.step,
                       l.index, l.baseline, n);
  }
  // A check shares one arm's runs: at most one a pair, and its warm-up and retries.
  if (l.shared_runs < 0 || l.shared_runs > l.pairs + kMaxSharedRunsBesidePairs) {
    return fmt::format("step {} shares {} runs over {} pairs", l.step, l.shared_runs, l.pairs);
  }
  return std::nullopt;
}

// One segment of a range of `n` commits; a segment outside it is damage. Throws as above.
Result<BisectSegment> SegmentFromJson(const json& g, int n, std::string_view source) {
  BisectSegment seg;
  seg.lo = g.at("lo").get<int>();
  seg.hi = g.at("hi").get<int>();
  if (seg.lo < 0 || seg.hi > n || seg.lo >= seg.hi) {
    return Damaged(source,
                   fmt::format("a segment {}..{} outside the range 0..{}", seg.lo, seg.hi, n));
  }
  seg.check = Require<SegmentCheck>(kCheckNames, g, "check");
  seg.ratio = g.at("ratio").get<double>();
  seg.low = g.at("low").get<double>();
  seg.high = g.at("high").get<double>();
  seg.confidence = g.at("confidence").get<double>();
  seg.pairs = g.at("pairs").get<int>();
  seg.check_record = g.at("check_record").get<std::string>();
  if (!g.at("search").is_null()) seg.search_json = g.at("search").dump();
  seg.outcome = Require<SegmentOutcome>(kOutcomeNames, g, "outcome");
  seg.first = g.at("first").get<int>();
  seg.change = g.at("change").get<int>();
  seg.log_ratio = g.at("log_ratio").get<double>();
  seg.log_low = g.at("log_low").get<double>();
  seg.log_high = g.at("log_high").get<double>();
  seg.verify_confidence = g.at("verify_confidence").get<double>();
  seg.verification_pairs = g.at("verification_pairs").get<int>();
  seg.probability = g.at("probability").get<double>();
  seg.reason = g.at("reason").get<std::string>();
  // Absent in states written before a check's tie was planned: it was always sought.
  seg.tie_sought = g.value("tie_sought", true);
  seg.tie_pairs_needed = g.value("tie_pairs_needed", 0);
  seg.tie_budget = g.value("tie_budget", 0);
  seg.tie_short = g.value("tie_short", false);
  // Absent in states written before an unearned tie was skipped: every tie was weighed by cost.
  seg.tie_earns_label = g.value("tie_earns_label", true);
  // Absent in states written before a check hunted against an alternative: none was.
  seg.alternative = g.value("alternative", 0.0);
  seg.ruled_out = g.value("ruled_out", false);
  seg.rule_out_pairs_needed = g.value("rule_out_pairs_needed", 0);
  seg.small_move_suspected = g.value("small_move_suspected", false);
  // Absent in states written before a part's move was re-checked: none was.
  if (g.contains("recheck")) seg.recheck = Require<SegmentCheck>(kCheckNames, g, "recheck");
  seg.recheck_record = g.value("recheck_record", std::string());
  // Absent in states written before a check's failure counts were kept: the ending then
  // says nothing of them, as it did.
  if (g.contains("check_failures")) {
    std::optional<FailureComparison> failures = FailuresFromJson(g.at("check_failures"));
    if (!failures) {
      return Damaged(source, fmt::format("segment {}..{}: check failure counts no sitting makes",
                                         seg.lo, seg.hi));
    }
    seg.check_failures = *failures;
  }
  // A verified change lies inside its segment, first..change, both past the good end; a
  // segment without one has neither. Anything else would index past the range's commits.
  const bool none = seg.first == -1 && seg.change == -1;
  const bool inside = seg.lo < seg.first && seg.first <= seg.change && seg.change <= seg.hi;
  if (!none && !inside) {
    return Damaged(source, fmt::format("segment {}..{} names a change {}..{} outside it", seg.lo,
                                       seg.hi, seg.first, seg.change));
  }
  return seg;
}

// The step in flight of a range of `n` commits. Throws as above.
Result<BisectPendingStep> PendingStepFromJson(const json& p, int n, std::string_view source) {
  BisectPendingStep step;
  step.kind = RequireStepKind(p);
  step.index = p.at("index").get<int>();
  step.baseline = p.at("baseline").get<int>();
  step.pairs = p.at("pairs").get<int>();
  step.d = p.at("d").get<std::vector<double>>();
  if (step.index < 0 || step.index > n || step.baseline < 0 || step.baseline > n ||
      step.pairs != static_cast<int>(step.d.size())) {
    return Damaged(source, fmt::format("a step in flight of commit {} against {} with {} pairs "
                                       "and {} values, in a range of {} commits",
                                       step.index, step.baseline, step.pairs, step.d.size(), n));
  }
  Result<Record> carrier = RecordFromJson(p.at("samples").dump(), "its step in flight");
  if (!carrier) return Damaged(source, carrier.error().message());
  step.samples = std::move(carrier->samples);
  return step;
}

}  // namespace

Result<BisectState> BisectStateFromJson(std::string_view text, std::string_view source) {
  // Depth-limited first: a damaged state nested 100k deep would overflow the stack in the
  // dumps below (issue 26), where every other damage is reported.
  if (JsonNestsDeeperThan(text)) return Damaged(source, JsonTooDeepMessage());
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Damaged(source, "not a JSON object");
  std::string schema = j.value("schema", "");
  if (schema != kBisectStateSchema) {
    return Error(fmt::format("{}: bisect state schema '{}' is not supported (reads {})", source,
                             schema, kBisectStateSchema))
        .WithHint("`culprit bisect reset` discards it");
  }
  try {
    BisectState s;
    s.run_id = j.at("run_id").get<std::string>();
    s.status = Require<BisectStatus>(kStatusNames, j, "status");
    s.started = j.at("started").get<std::string>();
    s.updated = j.at("updated").get<std::string>();
    s.good_rev = j.at("good_rev").get<std::string>();
    s.bad_rev = j.at("bad_rev").get<std::string>();
    s.query = j.at("query").get<std::string>();
    s.first_parent = j.at("first_parent").get<bool>();
    // Absent in states written before merges were descended.
    s.descended_from = j.value("descended_from", "");
    // Absent in states written before run's flags were kept.
    s.max_pairs = j.value("max_pairs", 0);
    s.seed = j.value("seed", uint64_t{0});
    s.prove_first = j.value("prove_first", false);
    s.speedup = j.at("speedup").get<bool>();
    s.commits = j.at("commits").get<std::vector<std::string>>();
    if (s.commits.size() < 2) {
      return Damaged(source,
                     fmt::format("it names {}, not a range", CountOf(s.commits.size(), "commit")));
    }
    if (!j.at("search").is_null()) s.search_json = j.at("search").dump();
    for (const json& step : j.at("log")) s.log.push_back(StepLogFromJson(step));
    s.records = j.at("records").get<std::vector<std::string>>();
    s.result_record = j.at("result_record").get<std::string>();
    s.config_digest = j.at("config_digest").get<std::string>();
    // Absent in states written before a range was taken apart into segments.
    if (j.contains("segments")) {
      const int n = static_cast<int>(s.commits.size()) - 1;
      for (const json& g : j.at("segments")) {
        Result<BisectSegment> seg = SegmentFromJson(g, n, source);
        if (!seg) return seg.error();
        s.segments.push_back(std::move(*seg));
      }
      s.active_segment = j.at("active_segment").get<int>();
      if (!s.segments.empty() &&
          (s.active_segment < 0 || s.active_segment >= static_cast<int>(s.segments.size()))) {
        return Damaged(source,
                       fmt::format("active segment {} of {}", s.active_segment, s.segments.size()));
      }
    }
    const int n = static_cast<int>(s.commits.size()) - 1;
    for (const BisectStepLog& l : s.log) {
      if (std::optional<std::string> why = StepDamage(l, n)) return Damaged(source, *why);
    }
    // Absent in states written before a step in flight was kept, and between steps.
    if (j.contains("pending_step")) {
      Result<BisectPendingStep> pending = PendingStepFromJson(j.at("pending_step"), n, source);
      if (!pending) return pending.error();
      s.pending_step = std::move(*pending);
    }
    // Absent in states written before runs were re-used, and when none are kept.
    if (j.contains("run_reuse")) s.run_reuse_json = j.at("run_reuse").dump();
    return s;
  } catch (const json::exception& e) {
    return Damaged(source, e.what());
  } catch (const BadName& e) {
    return Damaged(source, e.what());
  }
}

Result<BisectState> LoadBisectState(const std::filesystem::path& path) {
  Result<std::string> text = ReadFile(path);
  if (!text) return text.error();
  return BisectStateFromJson(*text, path.string());
}

Status SaveBisectState(const std::filesystem::path& path, const BisectState& state) {
  return WriteFileAtomically(path, BisectStateToJson(state));
}

}  // namespace culprit
