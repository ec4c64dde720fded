#include "investigate/demo.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "base/atomic_file.h"
#include "base/strings.h"
#include "bisect/bisect_runner.h"
#include "engine/compiler_cache.h"
#include "engine/process.h"
#include "investigate/audit.h"
#include "investigate/config.h"
#include "investigate/demo_data.h"
#include "probes/summary.h"
#include "probes/table_command.h"

namespace culprit {
namespace {

// Forwards every build event to the caller's build progress (the terminal's, in the CLI;
// may be null) and adds up the builds' wall time.
class TimedBuilds : public BuildProgress {
 public:
  explicit TimedBuilds(BuildProgress* inner) : inner_(inner) {}
  void OnStart(const CommitInfo& commit) override {
    if (inner_ != nullptr) inner_->OnStart(commit);
  }
  void OnStep(const CommitInfo& commit, int step, int steps, const std::string& command,
              std::chrono::milliseconds elapsed) override {
    if (inner_ != nullptr) inner_->OnStep(commit, step, steps, command, elapsed);
  }
  void OnDone(const CommitInfo& commit, bool ok, std::chrono::milliseconds elapsed) override {
    if (inner_ != nullptr) inner_->OnDone(commit, ok, elapsed);
    total_ += elapsed;
    ++builds_;
  }
  void OnFetch(const CommitInfo& commit, bool ok, const std::string& why) override {
    if (inner_ != nullptr) inner_->OnFetch(commit, ok, why);
  }
  void OnCompilerCache(const CommitInfo& commit, const CompilerCacheStats& stats) override {
    if (inner_ != nullptr) inner_->OnCompilerCache(commit, stats);
  }
  void OnWaiting(const std::filesystem::path& scratch_dir) override {
    if (inner_ != nullptr) inner_->OnWaiting(scratch_dir);
  }
  void OnNote(const std::string& note) override {
    if (inner_ != nullptr) inner_->OnNote(note);
  }
  void OnOutput(const CommitInfo& commit, int step, int steps, std::string_view last_line,
                std::chrono::milliseconds elapsed) override {
    if (inner_ != nullptr) inner_->OnOutput(commit, step, steps, last_line, elapsed);
  }
  std::chrono::milliseconds total() const { return total_; }
  int builds() const { return builds_; }

 private:
  BuildProgress* inner_;
  std::chrono::milliseconds total_{0};
  int builds_ = 0;
};

// Passes the ladder's lines on and splits each step's wall time into the
// builds made during it and the rest (its measuring).
class TimedReporter : public InvestigationReporter {
 public:
  TimedReporter(DemoReporter& inner, const TimedBuilds& builds) : inner_(inner), builds_(builds) {}
  void Line(const std::string& text) override { inner_.Line(text); }
  void Result(const std::string& text) override { inner_.Result(text); }
  void StepTimed(InvestigationStep step, std::chrono::milliseconds wall) override {
    std::chrono::milliseconds built = builds_.total() - builds_at_last_step_;
    builds_at_last_step_ = builds_.total();
    measuring_[static_cast<int>(step)] += wall - std::min(wall, built);
  }
  /// Builds made before the ladder (for the table) are not any step's.
  void SkipBuilds(std::chrono::milliseconds built) { builds_at_last_step_ += built; }
  std::chrono::milliseconds measuring(InvestigationStep step) const {
    return measuring_[static_cast<int>(step)];
  }

 private:
  DemoReporter& inner_;
  const TimedBuilds& builds_;
  std::chrono::milliseconds builds_at_last_step_{0};
  std::chrono::milliseconds measuring_[5] = {};
};

std::string Seconds(std::chrono::milliseconds ms) {
  return fmt::format("{:.1f} s", ms.count() / 1000.0);
}

std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

Status CreateHistory(const std::filesystem::path& examples, const std::filesystem::path& repo,
                     DemoReporter& reporter) {
  if (std::filesystem::exists(repo / ".git")) {
    reporter.Line(fmt::format("using the demo history already in {}", repo.string()));
    return {};
  }
  if (std::filesystem::exists(repo)) {
    return Error(fmt::format("{} exists but is not the demo's git repository", repo.string()))
        .WithHint("remove it, or give another --dir");
  }
  reporter.Line(fmt::format("creating the demo engine's history in {}", repo.string()));
  ProcessSpec spec;
  spec.argv = {(examples / "eventstore" / "make-history").string(), repo.string()};
  spec.timeout = std::chrono::minutes(5);
  ProcessResult result = RunProcess(spec);
  if (!result.ok()) {
    return Error(fmt::format("make-history {}: {}\n{}", result.Describe(spec), repo.string(),
                             TailLines(result.stderr_text, 10)));
  }
  return {};
}

// The seed's three steps, as this run found them, from the saved state.
std::string Story(const InvestigationState& s, const DemoOptions& options) {
  std::string out = "\n== the story, as it happened ==\n";
  std::string gate = "not probed";
  for (const InvestigationStepRecord& p : s.probes) {
    if (p.name == "parallel_gate")
      gate = (p.verdict ? std::string(VerdictName(*p.verdict)) : "-") + ": " + p.sentence;
  }
  out += fmt::format("1. the plausible suspect, the parallelism gate (PARALLEL=1 at {}): {}\n",
                     options.bad, gate);
  if (!s.bisect_found) {
    return out + UndecidedBisectStory(s.bisect_text, s.bisect_record, options.work_dir);
  }
  if (!s.on_path_culprit.empty()) {
    out += fmt::format(
        "2. the bisect's culprit: {} \"{}\"; relevance: on path; its later change {} \"{}\": "
        "{}\n",
        ShortCommit(s.on_path_culprit), s.on_path_subject, ShortCommit(s.culprit),
        s.culprit_subject, CulpritRelevanceName(s.relevance));
  } else {
    out +=
        fmt::format("2. the bisect's culprit: {} \"{}\"; relevance: {}\n", ShortCommit(s.culprit),
                    s.culprit_subject, CulpritRelevanceName(s.relevance));
  }
  if (s.isolations.empty()) {
    return out + "3. not isolated: " +
           (s.relevance == CulpritRelevance::kOnPath ? "the commit changes code the scan runs"
                                                     : "no residency plan ran") +
           "\n";
  }
  for (const InvestigationStepRecord& i : s.isolations) {
    out += fmt::format("3. residency isolation '{}': {} ({})\n", i.name, i.sentence,
                       i.verdict ? VerdictName(*i.verdict) : "-");
  }
  return out;
}

std::chrono::milliseconds Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

/// The template's @COMPILER_CACHE@: the builds through ccache when this host has it (with its
/// compiler links) on PATH, else nothing (the demo never needs ccache; it builds slower).
std::string DemoCompilerCache() {
  const char* path = std::getenv("PATH");
  if (!LocateCompilerCache(path != nullptr ? path : "", {}, "")) {
    return "# compiler_cache: ccache was not found on PATH";
  }
  return "compiler_cache = \"ccache\"";
}

/// Writes the demo's configuration to `config_path` from the template, for
/// the history in `repo` (and `events` events, unless 0), and loads it.
Result<Config> WriteDemoConfig(const std::filesystem::path& template_path,
                               const std::filesystem::path& repo, int events,
                               const std::filesystem::path& config_path) {
  Result<std::string> config_text = ReadFile(template_path);
  if (!config_text) return config_text.error();
  std::string text = ReplaceAll(*config_text, "@DEMO_REPO@", repo.string());
  text = ReplaceAll(text, "@COMPILER_CACHE@", DemoCompilerCache());
  if (events > 0) {
    text = ReplaceAll(text, "\"1000000\"", fmt::format("\"{}\"", events));
  }
  // The demo keeps its builds beside it, so it never mixes with a user's cache.
  text += "\n[cache]\ndir = \"cache\"\n";
  CULPRIT_TRY(WriteFileAtomically(config_path, text));
  Result<Config> config = LoadConfig(config_path);
  if (!config) return config.error().WithContext("the demo's configuration");
  return config;
}

InvestigateRequest LadderRequest(const DemoOptions& options) {
  InvestigateRequest request;
  request.good = options.good;
  request.bad = options.bad;
  request.query = options.query;
  request.probe_query = options.probe_query;
  request.plans = {options.plan};
  request.stop_after = options.stop_after;
  request.invocation = {"culprit", "demo", "--dir", options.work_dir.string()};
  return request;
}

/// True when an earlier demo of the same question stopped before its ladder finished: it is
/// resumed, and the steps before it (the table) are not measured again.
Result<bool> ResumesLadder(const Config& config, const DemoOptions& options) {
  Result<std::optional<InvestigationState>> saved = LoadInvestigationState(config);
  if (!saved) return saved.error();
  return *saved && (*saved)->status != InvestigationStatus::kDone &&
         (*saved)->request.good == options.good && (*saved)->request.bad == options.bad &&
         (*saved)->request.query == options.query;
}

/// What the table says of its rows, in one line each after the table: the rows that moved,
/// which of them the ladder investigates, and what the cap left undecided.
std::string TableReading(const TableOutcome& table, const DemoOptions& options,
                         const std::filesystem::path& published) {
  std::string out;
  const TableFacts& facts = table.facts;
  const int arms = static_cast<int>(facts.arms.size());
  bool seed_moved = false;
  std::vector<std::string> undecided;
  for (size_t r = 0; r < facts.rows.size(); ++r) {
    const std::string& query = facts.rows[r].query;
    const TableCell& cell = table.sitting.cells[r][1];
    const TableCellFacts& shown = facts.cells[r * arms + 1];
    if (cell.status == CellStatus::kNotMeasured) {
      out += fmt::format("   {}: not measured ({})\n", query, cell.error);
      continue;
    }
    const Verdict verdict = cell.verdict ? cell.verdict->verdict : Verdict::kInconclusive;
    const std::string ratio = shown.ratio ? fmt::format("×{:.3f}", *shown.ratio) : "no ratio";
    if (verdict == Verdict::kEffect && query == options.audit_query) {
      seed_moved = true;
      out += fmt::format(
          "   {} moved ({}): the number the seed saw move; the ladder below "
          "investigates it ({}, the same run as the registry's)\n",
          query, ratio, options.query);
    } else if (verdict == Verdict::kEffect) {
      out += fmt::format(
          "   {} moved too ({}): `culprit audit -q {} --table {} --rev {}` splits its move into "
          "host, code and order\n",
          query, ratio, query, published.string(), options.bad);
    } else if (verdict == Verdict::kNull) {
      out += fmt::format("   {}: a tie ({}, inside the ±{:.0f}% band)\n", query, ratio,
                         100 * facts.band);
    } else {
      undecided.push_back(query);
      out += fmt::format("   {}: undecided within the demo's {} blocks ({})\n", query,
                         DemoOptions::kTableBlocks, ratio);
    }
  }
  if (!seed_moved) {
    out += fmt::format(
        "   {} did not come out moved here: the ladder confirms the seed's move on its own, in "
        "a sitting of its own\n",
        options.audit_query);
  }
  if (!undecided.empty()) {
    out += fmt::format("   to decide {}: culprit table --rev {} --rev {} --order registry",
                       Join(undecided, ", "), options.good, options.bad);
    for (const std::string& q : undecided) out += " -q " + q;
    out += " (up to 160 blocks a row)\n";
  }
  return out;
}

/// 0. The seed's check: the published table's queries, in the registry's order (as the table
/// was published: one process, each query after those before it), re-measured at the good
/// and the bad end in one sitting, at most kTableBlocks blocks a row. A sitting that broke is
/// `failure`, once the table is shown; the demo goes on either way.
Status RunDemoTable(const Config& config, const DemoOptions& options,
                    const std::filesystem::path& published, EngineBuilds& builds,
                    const HostProbe* host, DemoReporter& reporter, DemoReport& report,
                    std::optional<Error>& failure) {
  TableRequest request;
  request.revisions = {options.good, options.bad};
  request.registry = TableRequest::RegistryRun{config.registry.order, config.registry.command};
  request.flags.min_pairs = 10;
  request.flags.max_pairs = DemoOptions::kTableBlocks;
  reporter.Line(
      fmt::format("the table: culprit table --rev {} --rev {} --order registry --max-pairs {}",
                  options.good, options.bad, DemoOptions::kTableBlocks));
  MeasureContext context{config, builds, host, /*progress=*/nullptr};
  Result<TableOutcome> table = RunTable(context, request);
  if (!table) return table.error().WithContext("the demo's table");
  reporter.Result(
      fmt::format("\n0. the seed's check: the published {} table's queries, in its registry order, "
                  "re-measured at {} and {} in one sitting:\n{}",
                  options.good, options.good, options.bad, TableFactsText(table->facts)));
  if (!table->record.notes.empty()) reporter.Result("\n");
  for (const std::string& note : table->record.notes) reporter.Result("note: " + note + "\n");
  reporter.Result(TableReading(*table, options, published));
  report.table_record = table->record_path;
  for (size_t r = 0; r < table->facts.rows.size(); ++r) {
    const TableCell& cell = table->sitting.cells[r][1];
    report.table_verdicts.emplace_back(
        table->facts.rows[r].query,
        cell.verdict ? std::optional<Verdict>(cell.verdict->verdict) : std::nullopt);
  }
  Status status = TableOutcomeStatus(*table);
  if (!status) failure = status.error();
  return {};
}

/// The investigation's ladder. A demo interrupted earlier (Ctrl-C, kill)
/// continues where it stopped; otherwise each demo is a fresh investigation
/// (earlier records stay).
Result<InvestigationReport> RunLadder(const Config& config, const DemoOptions& options, bool resume,
                                      EngineBuilds& builds, const HostProbe* host,
                                      InvestigationReporter& timed, DemoReporter& reporter) {
  const InvestigateRequest request = LadderRequest(options);
  QueryMeasurer measurer(config);
  const InvestigationEngine engine = EngineInvestigation(builds, measurer);
  reporter.Line(fmt::format(
      "the ladder: culprit investigate --good {} --bad {} -q {} --probe-query {} --plan \"{}\"",
      request.good, request.bad, request.query, request.probe_query, options.plan));
  if (resume) {
    reporter.Line(
        "an earlier demo did not finish: resuming it (finished steps are not "
        "measured again)");
    return ResumeInvestigation(config, engine, host, timed, options.stop_after);
  }
  CULPRIT_TRY(DiscardInvestigationState(config));
  std::error_code ec;
  std::filesystem::remove(BisectStatePath(config), ec);
  return RunInvestigation(config, engine, host, timed, request);
}

/// The ladder's findings, into the demo's report.
void ReportLadder(const InvestigationState& s, DemoReport& report) {
  report.outcome = s.outcome;
  for (const InvestigationStepRecord& p : s.probes) {
    if (p.name == "parallel_gate") report.probe_verdict = p.verdict;
  }
  if (s.bisect_found) {
    // The bisect's culprit, also when the ladder went on with a later change off the path.
    const bool went_on = !s.on_path_culprit.empty();
    report.culprit_commit = went_on ? s.on_path_culprit : s.culprit;
    report.culprit_subject = went_on ? s.on_path_subject : s.culprit_subject;
    report.changed_files = s.changed_files;
    report.culprit_on_code_path = went_on || s.relevance == CulpritRelevance::kOnPath;
  }
  if (!s.isolations.empty()) report.isolation_conclusion = s.isolations[0].sentence;
}

/// 4. The number that was published moved: which part of the move is the
/// host, which the code and which the order the registry runs the queries in.
/// The builds are the ladder's. Skipped when the demo's events are not those
/// the table was measured with. An audit that cannot run is the error; a
/// sitting that broke is `failure`, once its summary is shown.
Status RunDemoAudit(const Config& config, const DemoOptions& options,
                    const std::filesystem::path& examples, TimedBuilds& builds,
                    DemoReporter& reporter, DemoReport& report, std::optional<Error>& failure) {
  if (options.events != 0 && options.events != DemoOptions::kPublishedEvents) {
    reporter.Result(fmt::format(
        "4. the audit of the published v1.0 table is skipped: it was measured with {} events, "
        "this demo uses {}\n",
        DemoOptions::kPublishedEvents, options.events));
    return {};
  }
  AuditRequest audit;
  audit.query = options.audit_query;
  audit.table = examples / "eventstore" / "published-v1.0.json";
  audit.revision = options.bad;
  audit.invocation = {"culprit", "audit",       "-q", audit.query, "--table", audit.table->string(),
                      "--rev",   audit.revision};
  reporter.Line(fmt::format("the audit: culprit audit -q {} --table {} --rev {}", audit.query,
                            audit.table->string(), audit.revision));
  Result<std::vector<AuditOutcome>> audited =
      AuditWithEngine(config, audit, /*progress=*/nullptr, &builds);
  if (!audited) return audited.error().WithContext("the demo's audit");
  for (const AuditOutcome& o : *audited) {
    reporter.Result(
        fmt::format("\n4. the audit of the published v1.0 table:\n{}", FormatAuditSummary(o)));
    report.audit_factors = o.figures.factors;
    report.audit_conclusion = o.conclusion;
    if (o.failure) failure = *o.failure;
  }
  return {};
}

/// Where the time went, measured in this process: builds (each build's wall
/// time), and each step's wall time less the builds made during it.
std::string WallTimes(std::chrono::milliseconds total, std::chrono::milliseconds history,
                      const TimedBuilds& builds, const TimedReporter& steps,
                      std::chrono::milliseconds table_runs, std::chrono::milliseconds explain,
                      std::chrono::milliseconds audit_pairs) {
  std::chrono::milliseconds confirm = steps.measuring(InvestigationStep::kConfirm);
  std::chrono::milliseconds probes = steps.measuring(InvestigationStep::kProbes);
  std::chrono::milliseconds bisect = steps.measuring(InvestigationStep::kBisect);
  std::chrono::milliseconds isolation = steps.measuring(InvestigationStep::kIsolation);
  std::chrono::milliseconds other = total - history - builds.total() - table_runs - confirm -
                                    probes - bisect - explain - isolation - audit_pairs;
  return fmt::format(
      "\nwall time {} (this process): history {}, builds {} ({} builds), table sitting {}, "
      "confirmation pairs {}, probe pairs {}, bisect pairs {}, explain runs {}, isolation rounds "
      "{}, audit sittings {}, the rest {}\n",
      Seconds(total), Seconds(history), Seconds(builds.total()), builds.builds(),
      Seconds(table_runs), Seconds(confirm), Seconds(probes), Seconds(bisect), Seconds(explain),
      Seconds(isolation), Seconds(audit_pairs), Seconds(other));
}

}  // namespace

std::string UndecidedBisectStory(std::string_view bisect_text, std::string_view record,
                                 const std::filesystem::path& work_dir) {
  std::string out = fmt::format(
      "2. the bisect named no verified culprit on this host, so the story stops there (its "
      "record: {}); it said:\n",
      record.empty() ? std::string("none") : std::string(record));
  bool host = false;
  bool verdict = false;
  for (std::string_view line : SplitLines(bisect_text)) {
    const std::string_view text = TrimBlanks(line);
    if (text.empty()) continue;
    const bool host_line = text.starts_with("HOST DRIFT") || text.starts_with("HOST NOISE");
    // The verdict is the report's first line; what the host did and how to settle it follow.
    if (!verdict || host_line || text.starts_with("to settle it")) {
      out += fmt::format("   {}\n", text);
    }
    verdict = true;
    host = host || host_line;
  }
  if (host) {
    out += fmt::format(
        "   the host's own noise left the bisect undecided, not the demo's history: on a quieter "
        "host, `culprit demo --dir {}` runs the demo again\n",
        work_dir.string());
  }
  return out;
}

Status ParseDemoStopAfter(std::string_view what, DemoOptions& options) {
  if (what == "history") {
    options.stop_after_history = true;
    return {};
  }
  if (what == "table") {
    options.stop_after_table = true;
    return {};
  }
  Result<InvestigationStep> step = ParseInvestigationStep(what);
  if (!step) {
    return Error::Usage(fmt::format(
        "--stop-after {}: expected history, table, confirm, probes, bisect, relevance or "
        "isolation",
        what));
  }
  options.stop_after = *step;
  return {};
}

namespace {

/// The demo's start: its examples found, the work directory made, the engine's history
/// written and the configuration beside it.
struct DemoStart {
  std::filesystem::path examples, repo;
  std::chrono::milliseconds history{0};  ///< Writing the history took this long.
  Config config;
};

Result<DemoStart> StartDemo(const DemoOptions& options, DemoReporter& reporter,
                            DemoReport& report) {
  DemoStart start;
  Result<std::filesystem::path> found =
      FindDemoExamples(RunningDemoDataPlaces(options.examples_dir));
  if (!found) return found.error();
  start.examples = *found;
  std::error_code ec;
  std::filesystem::path work = std::filesystem::absolute(options.work_dir);
  std::filesystem::create_directories(work, ec);
  if (ec) return Error(fmt::format("cannot create {}: {}", work.string(), ec.message()));
  start.repo = work / "eventstore";

  reporter.Line(fmt::format("== culprit demo: why did {} get slower between {} and {}? ==",
                            options.query, options.good, options.bad));
  reporter.Line(fmt::format("the demo engine: {}", (start.examples / "eventstore").string()));
  const auto history_start = std::chrono::steady_clock::now();
  CULPRIT_TRY(CreateHistory(start.examples, start.repo, reporter));
  start.history = Since(history_start);

  report.config_path = work / "culprit.toml";
  Result<Config> config = WriteDemoConfig(start.examples / "eventstore" / "culprit.toml.in",
                                          start.repo, options.events, report.config_path);
  if (!config) return config.error();
  start.config = std::move(*config);
  start.config.records.invocation = options.invocation;
  reporter.Line(fmt::format("configuration: {}", report.config_path.string()));
  return start;
}

/// The time the ladder's explain step took (the explains run within the bisect's step; the
/// ladder keeps their time apart), or zero.
std::chrono::milliseconds ExplainTime(const InvestigationState& state) {
  for (const auto& [step, ms] : state.step_wall_ms) {
    if (step == "explain") return std::chrono::milliseconds(ms);
  }
  return std::chrono::milliseconds{0};
}

}  // namespace

Result<DemoReport> RunDemo(const DemoOptions& options, DemoReporter& reporter,
                           BuildProgress* build_progress) {
  const auto demo_start = std::chrono::steady_clock::now();
  DemoReport report;
  Result<DemoStart> start = StartDemo(options, reporter, report);
  if (!start) return start.error();
  const std::filesystem::path& examples = start->examples;
  const std::filesystem::path& repo = start->repo;
  const std::chrono::milliseconds history = start->history;
  const Config& config = start->config;
  if (options.stop_after_history) {
    reporter.Result(fmt::format(
        "stopped after the history, as asked: the demo engine's history is in {} and its "
        "configuration in {}; nothing was built or measured\n",
        repo.string(), report.config_path.string()));
    return report;
  }

  TimedBuilds timed_builds(build_progress);
  Result<std::unique_ptr<EngineBuilds>> builds = EngineBuilds::Open(config, false, &timed_builds);
  if (!builds) return builds.error();
  std::unique_ptr<HostProbe> host = MakeRealHostProbe();
  TimedReporter timed(reporter, timed_builds);
  Result<bool> resume = ResumesLadder(config, options);
  if (!resume) return resume.error();
  std::chrono::milliseconds table_runs{0};
  std::optional<Error> table_failure;
  if (*resume) {
    reporter.Line(
        "the table: measured by the earlier demo this one resumes (its record is with the "
        "others)");
  } else {
    const auto table_start = std::chrono::steady_clock::now();
    const std::chrono::milliseconds builds_before_table = timed_builds.total();
    CULPRIT_TRY(RunDemoTable(config, options, examples / "eventstore" / "published-v1.0.json",
                             **builds, host.get(), reporter, report, table_failure));
    const std::chrono::milliseconds table_wall = Since(table_start);
    const std::chrono::milliseconds table_builds = timed_builds.total() - builds_before_table;
    table_runs = table_wall - std::min(table_wall, table_builds);
    timed.SkipBuilds(table_builds);
    if (options.stop_after_table) {
      reporter.Result(
          fmt::format("the demo stopped there; `culprit demo --dir {}` runs the whole demo (the "
                      "table again first)\n",
                      options.work_dir.string()));
      if (table_failure) return *table_failure;
      return report;
    }
  }
  Result<InvestigationReport> ladder =
      RunLadder(config, options, *resume, **builds, host.get(), timed, reporter);
  if (!ladder) return ladder.error();
  ReportLadder(ladder->state, report);
  if (ladder->stopped) {
    reporter.Result(fmt::format("the demo stopped there; `culprit demo --dir {}` continues it\n",
                                options.work_dir.string()));
    return report;
  }
  reporter.Result(Story(ladder->state, options));

  const auto audit_start = std::chrono::steady_clock::now();
  const std::chrono::milliseconds builds_before_audit = timed_builds.total();
  std::optional<Error> audit_failure;
  CULPRIT_TRY(
      RunDemoAudit(config, options, examples, timed_builds, reporter, report, audit_failure));
  const std::chrono::milliseconds audit_builds = timed_builds.total() - builds_before_audit;
  const std::chrono::milliseconds audit_wall = Since(audit_start);
  const std::chrono::milliseconds audit_pairs = audit_wall - std::min(audit_wall, audit_builds);

  reporter.Result(WallTimes(Since(demo_start), history, timed_builds, timed, table_runs,
                            ExplainTime(ladder->state), audit_pairs));
  // Everything measured is archived and shown; a broken table or audit sitting is still an
  // error.
  if (table_failure) return *table_failure;
  if (audit_failure) return *audit_failure;
  return report;
}

}  // namespace culprit
