#include "investigate/investigation.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "base/json_text.h"
#include "base/run_id.h"
#include "base/strings.h"
#include "base/timestamp.h"
#include "bisect/bisect_runner.h"
#include "bisect/relevance.h"
#include "probes/code_path.h"
#include "probes/comparison.h"
#include "probes/isolate_command.h"
#include "probes/summary.h"
#include "records/record_store.h"

namespace culprit {

namespace {
constexpr std::string_view kStatusNames[] = {"running", "stopped", "interrupted", "done"};
constexpr std::string_view kRelevanceNames[] = {"", "on path", "off path", "unknown"};
constexpr std::string_view kOutcomeNames[] = {"",           "not reproducible", "not confirmed",
                                              "no culprit", "on path",          "relevance unknown",
                                              "no plan",    "isolated"};
}  // namespace

std::string_view InvestigationStatusName(InvestigationStatus status) {
  return NameIn(kStatusNames, status);
}
std::string_view CulpritRelevanceName(CulpritRelevance relevance) {
  return NameIn(kRelevanceNames, relevance);
}
std::string_view LadderOutcomeName(LadderOutcome outcome) { return NameIn(kOutcomeNames, outcome); }

std::string_view InvestigationStepName(InvestigationStep step) {
  return kInvestigationStepNames[static_cast<int>(step)];
}

Result<InvestigationStep> ParseInvestigationStep(std::string_view name) {
  for (int i = 0; i < static_cast<int>(std::size(kInvestigationStepNames)); ++i) {
    if (kInvestigationStepNames[i] == name) return static_cast<InvestigationStep>(i);
  }
  std::vector<std::string> names(std::begin(kInvestigationStepNames),
                                 std::end(kInvestigationStepNames));
  return Error::Usage(fmt::format("unknown step '{}'{}", name, DidYouMean(name, names)))
      .WithHint("steps: " + Join(names, ", "));
}

// ---------------------------------------------------------------- state file

namespace {

using Json = nlohmann::json;

// The value spelled `text` in `names`; a spelling this culprit never writes is a damaged file.
template <typename Enum, size_t N>
Enum Spelled(const std::string_view (&names)[N], const std::string& text, const char* key) {
  if (auto value = ParseIn<Enum>(names, text)) return *value;
  throw std::runtime_error(fmt::format("'{}' is not a {} this culprit writes", text, key));
}

Json StepToJson(const InvestigationStepRecord& s) {
  Json j = {{"name", s.name},
            {"record", s.record_id},
            {"verdict", s.verdict ? VerdictName(*s.verdict) : ""},
            {"sentence", s.sentence}};
  if (s.ratio) j["ratio"] = *s.ratio;
  if (s.low) j["low"] = *s.low;
  if (s.high) j["high"] = *s.high;
  return j;
}

InvestigationStepRecord StepFromJson(const Json& j) {
  InvestigationStepRecord s;
  s.name = j.value("name", "");
  s.record_id = j.value("record", "");
  s.verdict = ParseVerdict(j.value("verdict", ""));
  s.sentence = j.value("sentence", "");
  if (j.contains("ratio")) s.ratio = j["ratio"].get<double>();
  if (j.contains("low")) s.low = j["low"].get<double>();
  if (j.contains("high")) s.high = j["high"].get<double>();
  return s;
}

Json StepsToJson(const std::vector<InvestigationStepRecord>& steps) {
  Json a = Json::array();
  for (const InvestigationStepRecord& s : steps) a.push_back(StepToJson(s));
  return a;
}

std::vector<InvestigationStepRecord> StepsFromJson(const Json& a) {
  std::vector<InvestigationStepRecord> steps;
  for (const Json& j : a) steps.push_back(StepFromJson(j));
  return steps;
}

}  // namespace

std::string InvestigationStateToJson(const InvestigationState& s) {
  const InvestigateRequest& r = s.request;
  Json request = {{"good", r.good},   {"bad", r.bad},
                  {"query", r.query}, {"probe_query", r.probe_query},
                  {"plans", r.plans}, {"runs_per_visit", r.runs_per_visit}};
  if (r.flags.band) request["band"] = *r.flags.band;
  if (r.flags.min_pairs) request["min_pairs"] = *r.flags.min_pairs;
  if (r.flags.max_pairs) request["max_pairs"] = *r.flags.max_pairs;
  if (r.flags.warmup) request["warmup"] = *r.flags.warmup;
  if (r.flags.seed) request["seed"] = *r.flags.seed;
  Json j = {{"schema", s.schema},
            {"run_id", s.run_id},
            {"status", InvestigationStatusName(s.status)},
            {"started", s.started},
            {"updated", s.updated},
            {"request", request},
            {"config_digest", s.config_digest},
            {"probes_done", s.probes_done},
            {"probes", StepsToJson(s.probes)},
            {"bisect_done", s.bisect_done},
            {"bisect_record", s.bisect_record},
            {"bisect_records", s.bisect_records},
            {"bisect_found", s.bisect_found},
            {"bisect_text", s.bisect_text},
            {"culprit", s.culprit},
            {"culprit_subject", s.culprit_subject},
            {"parent", s.parent},
            {"changed_files", s.changed_files},
            {"relevance_done", s.relevance_done},
            {"relevance", CulpritRelevanceName(s.relevance)},
            {"relevance_detail", s.relevance_detail},
            {"on_path", s.on_path},
            {"off_path", s.off_path},
            {"isolation_done", s.isolation_done},
            {"isolations", StepsToJson(s.isolations)},
            {"outcome", LadderOutcomeName(s.outcome)},
            {"conclusion", s.conclusion},
            {"result_record", s.result_record},
            {"partial_records", s.partial_records}};
  if (s.confirm) j["confirm"] = StepToJson(*s.confirm);
  Json walls = Json::array();
  for (const auto& [step, ms] : s.step_wall_ms) walls.push_back({{"step", step}, {"ms", ms}});
  j["step_wall_ms"] = walls;
  // A Latin-1 file name or commit subject is replaced (U+FFFD), not thrown on:
  // dump() would throw, and every later run and --resume would fail with it.
  return ToJsonText(j, 2) + "\n";
}

Result<InvestigationState> InvestigationStateFromJson(std::string_view json,
                                                      std::string_view source) {
  // Depth-limited, like every JSON culprit reads: a damaged state is reported, never a crash.
  Result<Json> parsed = ParseJsonText<Json>(json);
  if (!parsed) {
    return Error(
               fmt::format("{}: damaged investigation state: {}", source, parsed.error().message()))
        .WithHint("`culprit investigate --restart` discards it (the records stay)");
  }
  try {
    const Json& j = *parsed;
    std::string schema = j.value("schema", "");
    if (schema != kInvestigationStateSchema) {
      return Error(fmt::format("{}: schema '{}' is not supported by this culprit (reads {})",
                               source, schema, kInvestigationStateSchema))
          .WithHint("`culprit investigate --restart` discards it (the records stay)");
    }
    InvestigationState s;
    s.run_id = j.at("run_id").get<std::string>();
    s.status =
        Spelled<InvestigationStatus>(kStatusNames, j.at("status").get<std::string>(), "status");
    s.started = j.value("started", "");
    s.updated = j.value("updated", "");
    const Json& r = j.at("request");
    s.request.good = r.at("good").get<std::string>();
    s.request.bad = r.at("bad").get<std::string>();
    s.request.query = r.at("query").get<std::string>();
    s.request.probe_query = r.value("probe_query", "");
    s.request.plans = r.value("plans", std::vector<std::string>{});
    s.request.runs_per_visit = r.value("runs_per_visit", 3);
    if (r.contains("band")) s.request.flags.band = r["band"].get<double>();
    if (r.contains("min_pairs")) s.request.flags.min_pairs = r["min_pairs"].get<int>();
    if (r.contains("max_pairs")) s.request.flags.max_pairs = r["max_pairs"].get<int>();
    if (r.contains("warmup")) s.request.flags.warmup = r["warmup"].get<int>();
    if (r.contains("seed")) s.request.flags.seed = r["seed"].get<uint64_t>();
    s.config_digest = j.value("config_digest", "");
    if (j.contains("confirm")) s.confirm = StepFromJson(j["confirm"]);
    s.probes_done = j.value("probes_done", false);
    s.probes = StepsFromJson(j.value("probes", Json::array()));
    s.bisect_done = j.value("bisect_done", false);
    s.bisect_record = j.value("bisect_record", "");
    s.bisect_records = j.value("bisect_records", std::vector<std::string>{});
    s.bisect_found = j.value("bisect_found", false);
    s.bisect_text = j.value("bisect_text", "");
    s.culprit = j.value("culprit", "");
    s.culprit_subject = j.value("culprit_subject", "");
    s.parent = j.value("parent", "");
    s.changed_files = j.value("changed_files", std::vector<std::string>{});
    s.relevance_done = j.value("relevance_done", false);
    s.relevance = Spelled<CulpritRelevance>(kRelevanceNames, j.value("relevance", ""), "relevance");
    s.relevance_detail = j.value("relevance_detail", "");
    s.on_path = j.value("on_path", std::vector<std::string>{});
    s.off_path = j.value("off_path", std::vector<std::string>{});
    s.isolation_done = j.value("isolation_done", false);
    s.isolations = StepsFromJson(j.value("isolations", Json::array()));
    s.outcome = Spelled<LadderOutcome>(kOutcomeNames, j.value("outcome", ""), "outcome");
    s.conclusion = j.value("conclusion", "");
    s.result_record = j.value("result_record", "");
    s.partial_records = j.value("partial_records", std::vector<std::string>{});
    for (const Json& w : j.value("step_wall_ms", Json::array())) {
      s.step_wall_ms.emplace_back(w.at("step").get<std::string>(), w.at("ms").get<long long>());
    }
    return s;
  } catch (const std::exception& e) {
    return Error(fmt::format("{}: damaged investigation state: {}", source, e.what()))
        .WithHint("`culprit investigate --restart` discards it (the records stay)");
  }
}

std::filesystem::path InvestigationStatePath(const BisectSections& config) {
  return BisectDir(config) / "investigate.json";
}

Result<std::optional<InvestigationState>> LoadInvestigationState(const BisectSections& config) {
  std::filesystem::path path = InvestigationStatePath(config);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<InvestigationState>();
  Result<std::string> text = ReadFile(path);
  if (!text) return text.error();
  Result<InvestigationState> state = InvestigationStateFromJson(*text, path.string());
  if (!state) return state.error();
  return std::optional<InvestigationState>(std::move(*state));
}

std::filesystem::path InvestigationLockPath(const BisectSections& config) {
  return BisectDir(config) / "investigate.lock";
}

Result<FileLock> LockInvestigation(const BisectSections& config) {
  const std::filesystem::path path = InvestigationLockPath(config);
  Result<std::optional<FileLock>> lock = FileLock::TryAcquire(path);
  if (!lock) return lock.error();
  if (!*lock) {
    // The holder wrote its pid into the lock file; a holder between truncating and
    // writing it leaves nothing to read, and the message then goes without it.
    std::string holder;
    if (Result<std::string> text = ReadFile(path); text) {
      std::string_view digits = *text;
      while (!digits.empty() && (digits.back() == '\n' || digits.back() == ' ')) {
        digits.remove_suffix(1);
      }
      long pid = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
      if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size() && pid > 0) {
        holder = fmt::format(" (pid {})", pid);
      }
    }
    return Error(fmt::format("another culprit investigate holds the lock{} on this engine", holder))
        .WithHint(
            fmt::format("its state in {} is in use: wait for it, or stop it (Ctrl-C) and `culprit "
                        "investigate --resume` later",
                        InvestigationStatePath(config).string()));
  }
  // Who holds it, for the message above. The lock is advisory on the open file
  // description: rewriting the file's content does not touch it.
  {
    std::ofstream out(path, std::ios::trunc);
    out << static_cast<long>(::getpid()) << "\n";
  }
  return std::move(**lock);
}

Status DiscardInvestigationState(const BisectSections& config) {
  Result<FileLock> lock = LockInvestigation(config);
  if (!lock) return lock.error();
  std::error_code ec;
  std::filesystem::remove(InvestigationStatePath(config), ec);
  if (ec) {
    return Error(
        fmt::format("cannot remove {}: {}", InvestigationStatePath(config).string(), ec.message()));
  }
  return {};
}

// ---------------------------------------------------------------- the ladder

namespace {

std::string RatioText(const InvestigationStepRecord& s) {
  if (!s.ratio) return "no estimate";
  return fmt::format("ratio {:.3f} [{:.3f}, {:.3f}]", *s.ratio, s.low.value_or(*s.ratio),
                     s.high.value_or(*s.ratio));
}

InvestigationStepRecord StepFromRecord(std::string name, const Record& record) {
  InvestigationStepRecord s;
  s.name = std::move(name);
  s.record_id = record.id;
  s.verdict = record.verdict;
  if (record.estimate) {
    s.ratio = record.estimate->ratio;
    s.low = record.estimate->low;
    s.high = record.estimate->high;
  }
  return s;
}

class BisectLines : public BisectReporter {
 public:
  explicit BisectLines(InvestigationReporter& reporter) : reporter_(reporter) {}
  void Line(const std::string& text) override { reporter_.Line("  " + text); }

 private:
  InvestigationReporter& reporter_;
};

// A long sitting's progress as plain lines, one per look, so the ladder shows
// what it does even when its output goes to a file.
class LookLines : public SittingProgress {
 public:
  explicit LookLines(InvestigationReporter& reporter) : reporter_(reporter) {}
  void OnProgress(int done, int target, std::optional<double> ratio) override {
    // The target moves on exactly when a look was taken.
    if (target != target_ && ratio) {
      reporter_.Line(fmt::format("  look at {} pairs: ratio {:.3f}", done, *ratio));
    }
    target_ = target;
  }
  void OnPhase(const std::string& phase) override { reporter_.Line("  " + phase); }

 private:
  InvestigationReporter& reporter_;
  int target_ = 0;
};

// Every record of the run, in the order the ladder wrote them.
std::vector<std::string> AllRecords(const InvestigationState& s) {
  std::vector<std::string> ids;
  auto add = [&](const std::string& id) {
    if (!id.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  };
  if (s.confirm) add(s.confirm->record_id);
  for (const InvestigationStepRecord& p : s.probes) add(p.record_id);
  for (const std::string& id : s.bisect_records) add(id);
  add(s.bisect_record);
  for (const InvestigationStepRecord& i : s.isolations) add(i.record_id);
  for (const std::string& id : s.partial_records) add(id);
  return ids;
}

class Session {
 public:
  Session(const BisectSections& config, EngineBuilds& builds, const HostProbe* host,
          InvestigationReporter& reporter, InvestigationState state,
          std::optional<InvestigationStep> stop_after)
      : config_(config),
        builds_(builds),
        host_(host),
        reporter_(reporter),
        store_(config.records.dir),
        look_lines_(reporter),
        state_(std::move(state)),
        stop_after_(stop_after) {}

  Result<InvestigationReport> Run();

 private:
  MeasureContext Context() { return MeasureContext{config_, builds_, host_, &look_lines_}; }
  Status Save();
  // Each step: Ok(true) when the ladder goes on, Ok(false) when it ended.
  Result<bool> Confirm();
  Result<bool> Probes();
  Result<bool> Bisect();
  Result<bool> Relevance();
  Result<bool> Isolation();
  Result<bool> Timed(InvestigationStep step, Result<bool> (Session::*body)());
  Status AdoptBisect(const std::string& result_record, std::vector<std::string> records,
                     std::string text);
  std::vector<const ResidencyPlan*> Plans() const;
  std::string Conclusion() const;
  Result<InvestigationReport> Finish();
  Error Stop(const Error& error, InvestigationStep step);

  const BisectSections& config_;
  EngineBuilds& builds_;
  const HostProbe* host_;
  InvestigationReporter& reporter_;
  RecordStore store_;
  LookLines look_lines_;
  InvestigationState state_;
  std::optional<InvestigationStep> stop_after_;
};

Status Session::Save() {
  state_.updated = NowIsoUtc();
  Status saved =
      WriteFileAtomically(InvestigationStatePath(config_), InvestigationStateToJson(state_));
  if (!saved) return saved.error().WithContext("saving the investigation state");
  return {};
}

// An error ends this process's part of the ladder: the state is saved so
// --resume retries the step, and Ctrl-C also leaves an interrupted
// investigation record linking what was measured so far.
Error Session::Stop(const Error& error, InvestigationStep step) {
  state_.status = InvestigationStatus::kInterrupted;
  const Status saved = Save();
  // What a resume can rely on: never claimed when the state could not be written.
  const std::string unsaved =
      saved ? ""
            : "; the investigation state could not be saved: " + saved.error().message() +
                  " (a resume continues from the last state that was)";
  if (error.kind() != ErrorKind::kInterrupted) {
    Error stopped =
        error.WithContext(fmt::format("investigation step {}", InvestigationStepName(step)));
    return Error(stopped.message() + unsaved, stopped.kind())
        .WithHint(error.hint().empty() ? "fix the cause, then `culprit investigate --resume`"
                                       : error.hint() + "; then `culprit investigate --resume`");
  }
  Record record;
  record.kind = RecordKind::kInvestigation;
  record.query = state_.request.query;
  record.interrupted = true;
  record.culprit_version = CULPRIT_VERSION;
  record.config_digest = config_.digest;
  record.invocation = state_.request.invocation;
  record.links = AllRecords(state_);
  record.details["investigation_run"] = state_.run_id;
  record.details["interrupted_at"] = std::string(InvestigationStepName(step));
  record.verdict_detail = fmt::format(
      "interrupted during the {} step; the steps before it are done and archived; "
      "`culprit investigate --resume` continues without measuring them again",
      InvestigationStepName(step));
  if (host_) record.end = host_->Snapshot(/*calibrate=*/false);
  std::string where;
  RecordStore::Archived archived = store_.WriteOrFallback(record);
  if (!archived.path.empty()) where = "; record " + archived.path.string();
  return Error::Interrupted(fmt::format("investigation interrupted during the {} step{}{}",
                                        InvestigationStepName(step), where, unsaved))
      .WithHint(fmt::format("`culprit investigate --resume` continues from {} without "
                            "re-measuring the steps before it",
                            InvestigationStatePath(config_).string()));
}

Result<bool> Session::Timed(InvestigationStep step, Result<bool> (Session::*body)()) {
  if (InterruptRequested()) return Stop(Error::Interrupted("interrupted"), step);
  auto start = std::chrono::steady_clock::now();
  Result<bool> result = (this->*body)();
  auto wall = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  const std::string name(InvestigationStepName(step));
  auto it = std::find_if(state_.step_wall_ms.begin(), state_.step_wall_ms.end(),
                         [&](const auto& p) { return p.first == name; });
  if (it == state_.step_wall_ms.end()) {
    state_.step_wall_ms.emplace_back(name, wall.count());
  } else {
    it->second += wall.count();
  }
  reporter_.StepTimed(step, wall);
  if (!result) return Stop(result.error(), step);
  CULPRIT_TRY(Save());
  return result;
}

// 1. good vs bad, interleaved, one sitting: the move must be an EFFECT here.
Result<bool> Session::Confirm() {
  if (state_.confirm) {
    reporter_.Line(
        fmt::format("step 1 done: the move was confirmed ({})", RatioText(*state_.confirm)));
    return state_.confirm->verdict == Verdict::kEffect;
  }
  const InvestigateRequest& r = state_.request;
  reporter_.Line(
      fmt::format("step 1: confirm the move in one sitting (culprit compare {} {} --query {})",
                  r.good, r.bad, r.query));
  CompareRequest compare;
  compare.revision_a = r.good;
  compare.revision_b = r.bad;
  compare.query = r.query;
  compare.flags = r.flags;
  Result<ComparisonOutcome> outcome = RunCompare(Context(), compare);
  if (!outcome) return outcome.error();
  Status status = OutcomeStatus(*outcome);
  if (!status) {
    state_.partial_records.push_back(outcome->record.id);
    return status.error();
  }
  reporter_.Result(FormatComparisonSummary(*outcome));
  InvestigationStepRecord step = StepFromRecord("confirm", outcome->record);
  if (step.verdict == Verdict::kEffect) {
    step.sentence = fmt::format("confirmed: {} moved {} between {} and {} in one sitting", r.query,
                                PercentChange(*step.ratio), r.good, r.bad);
  } else if (step.verdict == Verdict::kNull) {
    step.sentence = fmt::format(
        "NOT REPRODUCIBLE: {} and {} tie on {} here ({}). Either the host drifted since the "
        "number was taken, or the move was never what it was said to be",
        r.good, r.bad, r.query, RatioText(step));
  } else {
    step.sentence = fmt::format(
        "NOT CONFIRMED: the move between {} and {} on {} is neither an EFFECT nor a tie within "
        "the pair budget ({}, INCONCLUSIVE). More pairs (--max-pairs) or a quieter host could "
        "settle it; nothing was bisected on an unconfirmed move",
        r.good, r.bad, r.query, RatioText(step));
  }
  reporter_.Result("=> " + step.sentence + "\n\n");
  state_.confirm = step;
  if (step.verdict != Verdict::kEffect) {
    state_.outcome = step.verdict == Verdict::kNull ? LadderOutcome::kNotReproducible
                                                    : LadderOutcome::kNotConfirmed;
    return false;
  }
  return true;
}

// 2. Each [overrides] hypothesis, forced at the bad end, same build.
Result<bool> Session::Probes() {
  const InvestigateRequest& r = state_.request;
  const std::string& query = r.probe_query.empty() ? r.query : r.probe_query;
  if (config_.overrides.empty()) {
    reporter_.Line("step 2: no [overrides] hypotheses are configured: nothing to probe");
  }
  int number = 0;
  for (const auto& [name, named] : config_.overrides) {
    ++number;
    auto done =
        std::find_if(state_.probes.begin(), state_.probes.end(),
                     // An init-capture: clang before 16 cannot capture a
                     // structured binding (the fuzz build uses clang 14).
                     [&name = name](const InvestigationStepRecord& p) { return p.name == name; });
    if (done != state_.probes.end()) {
      reporter_.Line(fmt::format("step 2.{} done: {} {}", number, name, done->sentence));
      continue;
    }
    if (InterruptRequested()) return Error::Interrupted("interrupted");
    reporter_.Line(fmt::format(
        "step 2.{}: hypothesis \"{}\": force it at {} (culprit probe --override {} --rev {} "
        "--query {})",
        number, named.hypothesis, r.bad, name, r.bad, query));
    ProbeRequest probe;
    probe.query = query;
    probe.revision = r.bad;
    probe.overrides = {name};
    probe.flags = r.flags;
    Result<ComparisonOutcome> outcome = RunProbe(Context(), probe);
    if (!outcome) return outcome.error();
    InvestigationStepRecord step = StepFromRecord(name, outcome->record);
    Status status = OutcomeStatus(*outcome);
    if (!status) {
      if (status.error().kind() == ErrorKind::kInterrupted || outcome->archive_error) {
        state_.partial_records.push_back(outcome->record.id);
        return status.error();
      }
      // Its runs kept failing: a fact about the probe, archived, not a verdict.
      step.verdict = Verdict::kError;
      step.sentence = "not tested: " + FirstLine(status.error().message());
    } else if (step.verdict == Verdict::kNull) {
      step.sentence = "ruled out: forcing it changes nothing measurable (" + RatioText(step) + ")";
    } else if (step.verdict == Verdict::kEffect) {
      step.sentence = "supported: this knob moves it (" + RatioText(step) + ")";
    } else {
      step.sentence = "not settled: neither ruled out nor supported within the pair budget (" +
                      RatioText(step) + ")";
    }
    reporter_.Result(FormatComparisonSummary(*outcome));
    reporter_.Result(fmt::format("=> {}: {}\n\n", name, step.sentence));
    state_.probes.push_back(step);
    CULPRIT_TRY(Save());
  }
  state_.probes_done = true;
  return true;
}

// The bisect's result as the ladder keeps it, from the bisect's own record.
Status Session::AdoptBisect(const std::string& result_record, std::vector<std::string> records,
                            std::string text) {
  Result<Record> bisect = store_.Find(result_record);
  if (!bisect) return bisect.error().WithContext("reading the bisect's record");
  state_.bisect_record = bisect->id;
  state_.bisect_records = std::move(records);
  state_.bisect_text = std::move(text);
  state_.culprit = bisect->Detail("culprit_commit");
  state_.bisect_found = bisect->verdict == Verdict::kEffect && !state_.culprit.empty();
  state_.culprit_subject = bisect->Detail("culprit_subject");
  for (const Arm& arm : bisect->arms) {
    if (arm.name == "parent") state_.parent = arm.commit;
  }
  state_.changed_files.clear();
  if (state_.bisect_found) {
    Result<std::vector<std::string>> changed = builds_.repo().ChangedFiles(state_.culprit);
    if (!changed) return changed.error();
    state_.changed_files = *changed;
  }
  state_.bisect_done = true;
  return {};
}

// 3. The noise-aware bisect, verified. A bisect this investigation started
// and that did not finish (Ctrl-C, kill -9) is resumed, not started again.
Result<bool> Session::Bisect() {
  const InvestigateRequest& r = state_.request;
  if (!state_.bisect_done) {
    BisectLines lines(reporter_);
    QueryMeasurer measurer(config_);
    BisectRunner runner(config_, {builds_.repo(), builds_, measurer}, host_, lines);
    Result<BisectReport> report = Error("not run");
    std::optional<BisectState> ours;
    if (std::filesystem::exists(BisectStatePath(config_))) {
      Result<BisectState> saved = LoadBisectState(BisectStatePath(config_));
      // Started after this investigation, on its range and query: its own.
      if (saved && saved->good_rev == r.good && saved->bad_rev == r.bad &&
          saved->query == r.query && saved->started >= state_.started) {
        ours = *saved;
      }
    }
    if (ours && ours->status == BisectStatus::kDone) {
      reporter_.Line("step 3: the bisect had finished before the investigation stopped");
      CULPRIT_TRY(AdoptBisect(ours->result_record, ours->records,
                              "bisect record " + ours->result_record + "\n"));
    } else {
      if (ours) {
        reporter_.Line(fmt::format("step 3: resuming the bisect (culprit bisect resume)"));
        report = runner.Resume();
      } else {
        BisectRequest request;
        request.good = r.good;
        request.bad = r.bad;
        request.query = r.query;
        request.flags.band = r.flags.band;
        // Step 1 measured these endpoints in one sitting: the bisect adopts it instead of
        // confirming the same move again (it says so, and why not when it cannot).
        if (state_.confirm) request.confirmed_by = state_.confirm->record_id;
        // The command a user would type for the same bisect, adoption included.
        reporter_.Line(fmt::format(
            "step 3: bisect {}..{} on {} (culprit bisect run --good {} --bad {} --query {}{})",
            r.good, r.bad, r.query, r.good, r.bad, r.query,
            request.confirmed_by.empty() ? "" : " --confirmed-by " + request.confirmed_by));
        report = runner.Run(request);
      }
      if (!report) {
        // What the bisect archived before it stopped is linked too.
        Result<BisectState> saved = LoadBisectState(BisectStatePath(config_));
        if (saved && saved->started >= state_.started) {
          for (const std::string& id : saved->records) state_.partial_records.push_back(id);
        }
        return report.error();
      }
      CULPRIT_TRY(AdoptBisect(report->state.result_record, report->state.records, report->text));
    }
  } else {
    reporter_.Line("step 3 done: bisect record " + state_.bisect_record);
  }
  reporter_.Result(state_.bisect_text);
  if (!state_.bisect_found) {
    state_.outcome = LadderOutcome::kNoCulprit;
    reporter_.Result("=> the bisect named no verified culprit; the ladder stops here.\n\n");
    return false;
  }
  return true;
}

// 4. Is the culprit on the query's code path?
Result<bool> Session::Relevance() {
  const QueryConfig& query = config_.queries.at(state_.request.query);
  if (!state_.relevance_done) {
    // Globs as written, or measured at the culprit (coverage, or the
    // code_path command): never guessed (probes/code_path.h).
    StderrBuildProgress build_progress;
    Result<CodePath> path = FindCodePath(config_, query, state_.culprit, &build_progress);
    if (!path) return path.error();
    culprit::Relevance relevance = CheckRelevance(state_.changed_files, *path);
    state_.on_path = relevance.on_path;
    state_.off_path = relevance.off_path;
    if (!relevance.known) {
      state_.relevance = CulpritRelevance::kUnknown;
      state_.relevance_detail = fmt::format(
          "the code path of {} is {}, so whether the culprit changes code it runs is unknown; "
          "give code_path globs, \"auto\" (coverage) or a command to decide",
          query.name, relevance.how_known);
    } else if (relevance.relevant()) {
      state_.relevance = CulpritRelevance::kOnPath;
      state_.relevance_detail =
          fmt::format("it changes code {} runs: {} (code path: {})", query.name,
                      Join(relevance.on_path, ", "), relevance.how_known);
    } else {
      state_.relevance = CulpritRelevance::kOffPath;
      state_.relevance_detail = fmt::format(
          "it touches nothing on {}'s code path ({}): changed {}. A commit that cannot slow "
          "the query, unless something it keeps alive does",
          query.name, relevance.how_known, Join(state_.changed_files, ", "));
    }
    state_.relevance_done = true;
  }
  reporter_.Result(fmt::format("=> culprit {} \"{}\"\n   {}\n\n", ShortCommit(state_.culprit),
                               state_.culprit_subject, state_.relevance_detail));
  if (state_.relevance == CulpritRelevance::kOnPath) {
    state_.outcome = LadderOutcome::kOnPath;
    return false;
  }
  if (state_.relevance == CulpritRelevance::kUnknown) {
    state_.outcome = LadderOutcome::kRelevanceUnknown;
    return false;
  }
  if (Plans().empty()) {
    state_.outcome = LadderOutcome::kNoPlan;
    return false;
  }
  return true;
}

std::vector<const ResidencyPlan*> Session::Plans() const {
  std::vector<const ResidencyPlan*> plans;
  if (!state_.request.plans.empty()) {
    for (const std::string& name : state_.request.plans) {
      auto it = config_.residency.find(name);
      if (it != config_.residency.end()) plans.push_back(&it->second);
    }
    return plans;
  }
  for (const auto& [name, plan] : config_.residency) {
    if (plan.query == state_.request.query) plans.push_back(&plan);
  }
  return plans;
}

// 5. Off the path: each plan in one engine process, on the culprit and on its parent.
Result<bool> Session::Isolation() {
  const std::vector<std::pair<std::string, std::string>> builds = {{"culprit", state_.culprit},
                                                                   {"parent", state_.parent}};
  int number = 0;
  for (const ResidencyPlan* plan : Plans()) {
    for (const auto& [role, commit] : builds) {
      ++number;
      if (commit.empty()) continue;
      const std::string name = fmt::format("{} on {}", plan->name, role);
      auto done = std::find_if(state_.isolations.begin(), state_.isolations.end(),
                               [&](const InvestigationStepRecord& i) { return i.name == name; });
      if (done != state_.isolations.end()) {
        reporter_.Line(fmt::format("step 5.{} done: {}: {}", number, name, done->sentence));
        continue;
      }
      if (InterruptRequested()) return Error::Interrupted("interrupted");
      reporter_.Line(fmt::format(
          "step 5.{}: residency isolation '{}' on the {} {} (culprit isolate --rev {} --plan "
          "\"{}\")",
          number, plan->name, role, ShortCommit(commit), ShortCommit(commit), plan->name));
      IsolateRequest request;
      request.revision = commit;
      request.plan = plan->name;
      request.runs_per_visit = state_.request.runs_per_visit;
      request.flags = state_.request.flags;
      // The parent is the contrast, not the verdict: nothing held there is
      // expected to cost, so it has [measure]'s budget, not the extra rounds a
      // plan may carry for the released condition's tie on the culprit (the
      // demo's 320 took the ladder past ten minutes). --max-pairs still rules.
      if (role == "parent" && !request.flags.max_pairs &&
          plan->max_rounds > config_.measure.max_pairs &&
          request.flags.min_pairs.value_or(0) <= config_.measure.max_pairs) {
        request.flags.max_pairs = config_.measure.max_pairs;
      }
      Result<IsolateOutcome> outcome = RunIsolate(Context(), request);
      if (!outcome) return outcome.error();
      reporter_.Result(FormatIsolateSummary(*outcome));
      InvestigationStepRecord step = StepFromRecord(name, outcome->record);
      Status status = IsolateStatus(*outcome);
      if (!status) {
        if (status.error().kind() == ErrorKind::kInterrupted) {
          state_.partial_records.push_back(outcome->record.id);
          return status.error();
        }
        // A broken engine is archived (a partial record) and named; no verdict.
        step.sentence = "no verdict, the engine broke: " + FirstLine(status.error().message());
      } else {
        step.sentence = outcome->result.conclusion;
      }
      reporter_.Result(fmt::format("=> {}: {}\n\n", name, step.sentence));
      state_.isolations.push_back(step);
      CULPRIT_TRY(Save());
    }
  }
  state_.isolation_done = true;
  state_.outcome = LadderOutcome::kIsolated;
  return true;
}

std::string Session::Conclusion() const {
  const InvestigateRequest& r = state_.request;
  std::string out = state_.confirm ? state_.confirm->sentence + "." : "";
  if (state_.outcome == LadderOutcome::kNotReproducible ||
      state_.outcome == LadderOutcome::kNotConfirmed)
    return out;
  for (const InvestigationStepRecord& p : state_.probes) {
    out += fmt::format(" Override {}: {}.", p.name, p.sentence);
  }
  if (!state_.bisect_found) {
    return out + " The bisect named no verified culprit (see its record " + state_.bisect_record +
           "), so the ladder stopped there.";
  }
  out += fmt::format(" The bisect names {} \"{}\", verified against its parent.",
                     ShortCommit(state_.culprit), state_.culprit_subject);
  std::string relevance = state_.relevance_detail;
  if (!relevance.empty()) relevance[0] = static_cast<char>(std::toupper(relevance[0]));
  out += " " + relevance + ".";
  if (state_.outcome == LadderOutcome::kOnPath) {
    return out + " The commit changes code the query runs: read those files' diff.";
  }
  if (state_.outcome == LadderOutcome::kRelevanceUnknown) return out;
  if (state_.outcome == LadderOutcome::kNoPlan) {
    std::vector<std::string> plans;
    for (const auto& [name, plan] : config_.residency) {
      plans.push_back(fmt::format("'{}' on {}", name, plan.query));
    }
    return out + fmt::format(
                     " No [residency] plan measures {}, so the ladder stops after the relevance "
                     "step without isolating anything{}. Add a plan for the structure the commit "
                     "keeps alive (docs/usage.md), or name one with --plan.",
                     r.query, plans.empty() ? "" : " (plans: " + Join(plans, ", ") + ")");
  }
  for (const InvestigationStepRecord& i : state_.isolations) {
    out += fmt::format(" Isolation '{}': {}.", i.name, i.sentence);
  }
  return out;
}

Result<InvestigationReport> Session::Finish() {
  state_.conclusion = Conclusion();
  Record record;
  record.kind = RecordKind::kInvestigation;
  record.query = state_.request.query;
  record.culprit_version = CULPRIT_VERSION;
  record.config_digest = config_.digest;
  record.invocation = state_.request.invocation;
  record.links = AllRecords(state_);
  if (state_.confirm) {
    record.verdict = state_.confirm->verdict;
    if (state_.confirm->ratio) {
      Estimate e;
      e.ratio = *state_.confirm->ratio;
      e.low = state_.confirm->low.value_or(e.ratio);
      e.high = state_.confirm->high.value_or(e.ratio);
      record.estimate = e;
    }
    if (Result<Record> confirm = store_.Find(state_.confirm->record_id)) {
      record.band = confirm->band;
      record.unit = confirm->unit;
      record.start = confirm->start;
      record.host = confirm->host;
      if (record.estimate && confirm->estimate) record.estimate = confirm->estimate;
    }
  }
  record.verdict_detail = state_.conclusion;
  record.details["investigation_run"] = state_.run_id;
  record.details["good"] = state_.request.good;
  record.details["bad"] = state_.request.bad;
  record.details["outcome"] = LadderOutcomeName(state_.outcome);
  if (!state_.culprit.empty()) record.details["culprit_commit"] = state_.culprit;
  if (state_.relevance != CulpritRelevance::kNotChecked) {
    record.details["relevance"] = CulpritRelevanceName(state_.relevance);
  }
  for (const auto& [step, ms] : state_.step_wall_ms) {
    record.details["wall_ms." + step] = std::to_string(ms);
  }
  record.notes.push_back(
      "the move's ratio and interval are the confirmation's (good vs bad, one sitting)");
  if (host_) record.end = host_->Snapshot(/*calibrate=*/false);
  RecordStore::Archived archived = store_.WriteOrFallback(record);
  InvestigationReport report;
  report.record_path = archived.path;
  state_.result_record = record.id;
  state_.status = InvestigationStatus::kDone;
  CULPRIT_TRY(Save());
  reporter_.Result("conclusion: " + state_.conclusion + "\n");
  reporter_.Result("investigation record " + archived.path.string() + " links " +
                   std::to_string(record.links.size()) + " records (culprit records report " +
                   record.id + ")\n");
  if (archived.error) return *archived.error;
  report.state = state_;
  return report;
}

Result<InvestigationReport> Session::Run() {
  state_.status = InvestigationStatus::kRunning;
  CULPRIT_TRY(Save());
  struct Stage {
    InvestigationStep step;
    Result<bool> (Session::*body)();
  };
  const Stage stages[] = {{InvestigationStep::kConfirm, &Session::Confirm},
                          {InvestigationStep::kProbes, &Session::Probes},
                          {InvestigationStep::kBisect, &Session::Bisect},
                          {InvestigationStep::kRelevance, &Session::Relevance},
                          {InvestigationStep::kIsolation, &Session::Isolation}};
  for (const Stage& stage : stages) {
    Result<bool> go_on = Timed(stage.step, stage.body);
    if (!go_on) return go_on.error();
    if (!*go_on) break;
    // Stopping after the last step is finishing.
    if (stop_after_ == stage.step && stage.step != InvestigationStep::kIsolation) {
      state_.status = InvestigationStatus::kStopped;
      CULPRIT_TRY(Save());
      reporter_.Result(fmt::format(
          "stopped after the {} step, as asked; `culprit investigate --resume` continues\n",
          InvestigationStepName(stage.step)));
      InvestigationReport report;
      report.state = state_;
      report.stopped = true;
      return report;
    }
  }
  return Finish();
}

// Everything a request names is checked before anything is built or measured.
Status CheckRequest(const BisectSections& config, EngineBuilds& builds,
                    const InvestigateRequest& request) {
  if (request.good.empty() || request.bad.empty()) {
    return Error::Usage("investigate needs --good and --bad");
  }
  Result<const QueryConfig*> query = SelectQuery(config, request.query);
  if (!query) return query.error();
  if (!request.probe_query.empty()) {
    Result<const QueryConfig*> probe = SelectQuery(config, request.probe_query);
    if (!probe) return probe.error().WithContext("--probe-query");
  }
  for (const std::string& plan : request.plans) {
    Result<const ResidencyPlan*> found = SelectPlan(config, plan, "");
    if (!found) return found.error();
  }
  if (request.runs_per_visit < 1 || request.runs_per_visit > 1000) {
    return Error::Usage(fmt::format("--runs {} is not in 1..1000", request.runs_per_visit));
  }
  Result<std::string> good = builds.repo().Resolve(request.good);
  if (!good) return good.error().WithContext("--good");
  Result<std::string> bad = builds.repo().Resolve(request.bad);
  if (!bad) return bad.error().WithContext("--bad");
  CULPRIT_TRY(RecordStore(config.records.dir).CheckWritable());
  return {};
}

}  // namespace

Result<InvestigationReport> RunInvestigation(const BisectSections& config, EngineBuilds& builds,
                                             const HostProbe* host, InvestigationReporter& reporter,
                                             const InvestigateRequest& request) {
  // Held until the session ends: nothing else may rewrite the state meanwhile.
  Result<FileLock> lock = LockInvestigation(config);
  if (!lock) return lock.error();
  Result<std::optional<InvestigationState>> saved = LoadInvestigationState(config);
  if (!saved) return saved.error();
  if (*saved && (*saved)->status != InvestigationStatus::kDone) {
    const InvestigationState& s = **saved;
    return Error::Usage(fmt::format("an investigation of {}..{} on {} is not finished ({})",
                                    s.request.good, s.request.bad, s.request.query,
                                    InvestigationStatusName(s.status)))
        .WithHint(
            "`culprit investigate --resume` continues it; `--restart` discards it and "
            "starts this one (its records stay)");
  }
  CULPRIT_TRY(CheckRequest(config, builds, request));
  std::error_code ec;
  std::filesystem::create_directories(BisectDir(config), ec);
  InvestigationState state;
  state.run_id = NewRunId();
  state.started = NowIsoUtc();
  state.request = request;
  state.request.query = (*SelectQuery(config, request.query))->name;
  state.config_digest = config.digest;
  reporter.Line(fmt::format("== investigate: why did {} move between {} and {}? ==",
                            state.request.query, request.good, request.bad));
  Session session(config, builds, host, reporter, std::move(state), request.stop_after);
  return session.Run();
}

Result<InvestigationReport> ResumeInvestigation(const BisectSections& config, EngineBuilds& builds,
                                                const HostProbe* host,
                                                InvestigationReporter& reporter,
                                                std::optional<InvestigationStep> stop_after) {
  // Held until the session ends: a live investigation is never taken over.
  Result<FileLock> lock = LockInvestigation(config);
  if (!lock) return lock.error();
  Result<std::optional<InvestigationState>> saved = LoadInvestigationState(config);
  if (!saved) return saved.error();
  if (!*saved || (*saved)->status == InvestigationStatus::kDone) {
    return Error::Usage("no unfinished investigation to resume here")
        .WithHint("start one with `culprit investigate --good G --bad B -q QUERY`");
  }
  InvestigationState state = std::move(**saved);
  if (state.config_digest != config.digest) {
    reporter.Line(
        "note: culprit.toml changed since the investigation started; the finished steps keep "
        "what they measured under the old file");
  }
  CULPRIT_TRY(CheckRequest(config, builds, state.request));
  reporter.Line(fmt::format("== investigate (resumed): why did {} move between {} and {}? ==",
                            state.request.query, state.request.good, state.request.bad));
  Session session(config, builds, host, reporter, std::move(state), stop_after);
  return session.Run();
}

}  // namespace culprit
