#include "investigate/investigation_state.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/json_text.h"
#include "base/strings.h"
#include "bisect/bisect_runner.h"

namespace culprit {

namespace {
constexpr std::string_view kStatusNames[] = {"running", "stopped", "interrupted", "done"};
constexpr std::string_view kExplainStatusNames[] = {"explained", "not run", "failed"};
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
std::string_view InvestigationExplainStatusName(InvestigationExplain::Status status) {
  return NameIn(kExplainStatusNames, status);
}

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

namespace {

Json LaterChangesToJson(const std::vector<InvestigationState::LaterChange>& changes) {
  Json out = Json::array();
  for (const InvestigationState::LaterChange& c : changes) {
    out.push_back({{"commit", c.commit}, {"parent", c.parent}});
  }
  return out;
}

Json ExplainsToJson(const std::vector<InvestigationExplain>& explains) {
  Json out = Json::array();
  for (const InvestigationExplain& e : explains) {
    out.push_back({{"commit", e.commit},
                   {"parent", e.parent},
                   {"status", InvestigationExplainStatusName(e.status)},
                   {"record", e.record_id},
                   {"detail", e.detail},
                   {"text", e.text}});
  }
  return out;
}

std::vector<InvestigationExplain> ExplainsFromJson(const Json& a) {
  std::vector<InvestigationExplain> out;
  for (const Json& j : a) {
    InvestigationExplain e;
    e.commit = j.value("commit", "");
    e.parent = j.value("parent", "");
    e.status = Spelled<InvestigationExplain::Status>(kExplainStatusNames, j.value("status", ""),
                                                     "explain status");
    e.record_id = j.value("record", "");
    e.detail = j.value("detail", "");
    e.text = j.value("text", "");
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

std::string InvestigationStateToJson(const InvestigationState& s) {
  const InvestigateRequest& r = s.request;
  Json request = {{"good", r.good},      {"bad", r.bad},
                  {"query", r.query},    {"probe_query", r.probe_query},
                  {"plans", r.plans},    {"runs_per_visit", r.runs_per_visit},
                  {"explain", r.explain}};
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
            {"later_changes", LaterChangesToJson(s.later_changes)},
            {"explain_done", s.explain_done},
            {"explains", ExplainsToJson(s.explains)},
            {"on_path_culprit", s.on_path_culprit},
            {"on_path_subject", s.on_path_subject},
            {"on_path_detail", s.on_path_detail},
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

namespace {

/// The request the investigation was started with; throws on a missing or mistyped field.
InvestigateRequest RequestFromJson(const Json& r) {
  InvestigateRequest request;
  request.good = r.at("good").get<std::string>();
  request.bad = r.at("bad").get<std::string>();
  request.query = r.at("query").get<std::string>();
  request.probe_query = r.value("probe_query", "");
  request.plans = r.value("plans", std::vector<std::string>{});
  request.runs_per_visit = r.value("runs_per_visit", 3);
  request.explain = r.value("explain", true);
  if (r.contains("band")) request.flags.band = r["band"].get<double>();
  if (r.contains("min_pairs")) request.flags.min_pairs = r["min_pairs"].get<int>();
  if (r.contains("max_pairs")) request.flags.max_pairs = r["max_pairs"].get<int>();
  if (r.contains("warmup")) request.flags.warmup = r["warmup"].get<int>();
  if (r.contains("seed")) request.flags.seed = r["seed"].get<uint64_t>();
  return request;
}

/// The bisect's outcome into s: done, its records, the culprit, its parent and
/// files, and the changes found after it; throws on a mistyped field.
void BisectFromJson(const Json& j, InvestigationState& s) {
  s.bisect_done = j.value("bisect_done", false);
  s.bisect_record = j.value("bisect_record", "");
  s.bisect_records = j.value("bisect_records", std::vector<std::string>{});
  s.bisect_found = j.value("bisect_found", false);
  s.bisect_text = j.value("bisect_text", "");
  s.culprit = j.value("culprit", "");
  s.culprit_subject = j.value("culprit_subject", "");
  s.parent = j.value("parent", "");
  s.changed_files = j.value("changed_files", std::vector<std::string>{});
  // Absent from states saved before the ladder went on past an on-path culprit: none.
  for (const Json& c : j.value("later_changes", Json::array())) {
    s.later_changes.push_back({c.value("commit", ""), c.value("parent", "")});
  }
}

}  // namespace

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
    s.request = RequestFromJson(j.at("request"));
    s.config_digest = j.value("config_digest", "");
    if (j.contains("confirm")) s.confirm = StepFromJson(j["confirm"]);
    s.probes_done = j.value("probes_done", false);
    s.probes = StepsFromJson(j.value("probes", Json::array()));
    BisectFromJson(j, s);
    // A state saved before the ladder explained its changes: a finished bisect is not
    // followed by explains on --resume (they were never asked for).
    s.explain_done = j.value("explain_done", s.bisect_done);
    s.explains = ExplainsFromJson(j.value("explains", Json::array()));
    s.on_path_culprit = j.value("on_path_culprit", "");
    s.on_path_subject = j.value("on_path_subject", "");
    s.on_path_detail = j.value("on_path_detail", "");
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

}  // namespace culprit
