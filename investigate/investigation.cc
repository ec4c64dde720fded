#include "investigate/investigation.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "base/run_id.h"
#include "base/strings.h"
#include "base/timestamp.h"
#include "bisect/bisect_runner.h"
#include "bisect/relevance.h"
#include "engine/cachegrind.h"
#include "investigate/explain.h"
#include "probes/code_path.h"
#include "probes/comparison.h"
#include "probes/isolate_command.h"
#include "probes/measure_commands.h"
#include "probes/summary.h"
#include "records/bisect_details.h"
#include "records/bisect_payload.h"
#include "records/record_store.h"

namespace culprit {

// ---------------------------------------------------------------- the ladder

namespace {

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

class Session {
 public:
  Session(const BisectSections& config, const InvestigationEngine& engine, const HostProbe* host,
          InvestigationReporter& reporter, InvestigationState state,
          std::optional<InvestigationStep> stop_after)
      : config_(config),
        engine_(engine),
        host_(host),
        reporter_(reporter),
        store_(config.records),
        look_lines_(reporter),
        state_(std::move(state)),
        stop_after_(stop_after) {}

  Result<InvestigationReport> Run();

 private:
  MeasureContext Context() { return MeasureContext{config_, engine_.builds, host_, &look_lines_}; }
  Status Save();
  // Each step: Ok(true) when the ladder goes on, Ok(false) when it ended.
  Result<bool> Confirm();
  Result<bool> Probes();
  Result<bool> Bisect();
  Status Explain();
  /// `number`: k of step 3.k, the change's place among those explained.
  Result<InvestigationExplain> ExplainChange(const std::string& commit, const std::string& parent,
                                             int number);
  void ShowExplain(const InvestigationExplain& e);
  Result<bool> Relevance();
  Status GoOnWithAChangeOffThePath();
  Result<bool> Isolation();
  Result<bool> Timed(InvestigationStep step, Result<bool> (Session::*body)());
  Status AdoptBisect(const std::string& result_record, std::vector<std::string> records,
                     std::string text);
  std::vector<const ResidencyPlan*> Plans() const;
  Result<InvestigationReport> Finish();
  Error Stop(const Error& error, InvestigationStep step);

  const BisectSections& config_;
  const InvestigationEngine& engine_;
  const HostProbe* host_;
  InvestigationReporter& reporter_;
  RecordStore store_;
  LookLines look_lines_;
  InvestigationState state_;
  std::optional<InvestigationStep> stop_after_;
  /// Wall time of the explains in the step running now: their own entry in step_wall_ms,
  /// not the bisect's (so that the bisect's pairs are timed alone).
  std::chrono::milliseconds explain_wall_{0};
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
  std::optional<HostState> end;
  if (host_) end = host_->Snapshot(/*calibrate=*/false);
  Record record = MakeInterruptedInvestigationRecord(state_, step, config_.digest, end);
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
  explain_wall_ = std::chrono::milliseconds(0);
  Result<bool> result = (this->*body)();
  auto wall = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start) -
              explain_wall_;
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
    reporter_.Line(fmt::format("step 1 done: the move was confirmed ({})",
                               InvestigationRatioText(*state_.confirm)));
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
  MeasureContext context = Context();
  context.measurer = &engine_.measurer;
  Result<ComparisonOutcome> outcome = RunCompare(context, compare);
  if (!outcome) return outcome.error();
  Status status = OutcomeStatus(*outcome);
  if (!status) {
    state_.partial_records.push_back(outcome->record.id);
    return status.error();
  }
  reporter_.Result(FormatComparisonSummary(*outcome));
  InvestigationStepRecord step = StepFromRecord("confirm", outcome->record);
  step.sentence = ConfirmSentence(r, step, outcome->bursts);
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
    } else {
      step.sentence = ProbeSentence(step, outcome->bursts);
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
  const BisectDetails details = BisectDetails::FromRecord(*bisect);
  state_.culprit = details.culprit_commit.value_or("");
  state_.bisect_found = bisect->verdict == Verdict::kEffect && !state_.culprit.empty();
  state_.culprit_subject = details.culprit_subject.value_or("");
  for (const Arm& arm : bisect->arms) {
    if (arm.name == "parent") state_.parent = arm.commit;
  }
  state_.changed_files.clear();
  if (state_.bisect_found) {
    Result<std::vector<std::string>> changed = engine_.history.ChangedFiles(state_.culprit);
    if (!changed) return changed.error();
    state_.changed_files = *changed;
  }
  // The other changes the bisect verified the way the range moved (details_json.changes).
  state_.later_changes.clear();
  const std::optional<BisectPayload> payload = ReadBisectPayload(*bisect);
  if (state_.bisect_found && payload) {
    for (const BisectChangePayload& c : payload->changes) {
      if (c.direction != ChangeDirection::kRange) continue;
      if (c.commit.empty() || c.commit == state_.culprit || c.parent_commit.empty()) continue;
      state_.later_changes.push_back({c.commit, c.parent_commit});
    }
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
    BisectRunner runner(config_, {engine_.history, engine_.builds, engine_.measurer}, host_, lines);
    BisectRequest request;
    request.good = r.good;
    request.bad = r.bad;
    request.query = r.query;
    request.flags.band = r.flags.band;
    // Step 1 measured these endpoints in one sitting: the bisect adopts it instead of
    // confirming the same move again (it says so, and why not when it cannot).
    if (state_.confirm) request.confirmed_by = state_.confirm->record_id;
    // A bisect of this range and query started since this investigation is its own.
    BisectAttempt attempt = runner.RunOrResume(request, state_.started, [&](BisectEntry entry) {
      if (entry == BisectEntry::kFinished) {
        reporter_.Line("step 3: the bisect had finished before the investigation stopped");
      } else if (entry == BisectEntry::kResumed) {
        reporter_.Line("step 3: resuming the bisect (culprit bisect resume)");
      } else {
        // The command a user would type for the same bisect, adoption included.
        reporter_.Line(fmt::format(
            "step 3: bisect {}..{} on {} (culprit bisect run --good {} --bad {} --query {}{})",
            r.good, r.bad, r.query, r.good, r.bad, r.query,
            request.confirmed_by.empty() ? "" : " --confirmed-by " + request.confirmed_by));
      }
    });
    if (!attempt.report) {
      // What the bisect archived before it stopped is linked too.
      for (const std::string& id : attempt.records) state_.partial_records.push_back(id);
      return attempt.report.error();
    }
    CULPRIT_TRY(AdoptBisect(attempt.report->state.result_record, std::move(attempt.records),
                            attempt.report->text));
  } else {
    reporter_.Line("step 3 done: bisect record " + state_.bisect_record);
  }
  reporter_.Result(state_.bisect_text);
  if (!state_.bisect_found) {
    state_.outcome = LadderOutcome::kNoCulprit;
    reporter_.Result("=> the bisect named no verified culprit; the ladder stops here.\n\n");
    return false;
  }
  CULPRIT_TRY(Explain());
  return true;
}

// 3, after the verified bisect: each change it verified (its culprit, then the later changes
// the way the range moved) explained against its parent at the function level. An explain
// that cannot run or fails is said in one line and kept; it never turns the verdict.
Status Session::Explain() {
  if (state_.explain_done) {
    for (const InvestigationExplain& e : state_.explains) ShowExplain(e);
    return {};
  }
  std::vector<InvestigationState::LaterChange> changes = {{state_.culprit, state_.parent}};
  changes.insert(changes.end(), state_.later_changes.begin(), state_.later_changes.end());
  const auto start = std::chrono::steady_clock::now();
  Status status;
  int number = 0;
  for (const InvestigationState::LaterChange& change : changes) {
    ++number;
    auto done =
        std::find_if(state_.explains.begin(), state_.explains.end(),
                     [&](const InvestigationExplain& e) { return e.commit == change.commit; });
    if (done != state_.explains.end()) {
      ShowExplain(*done);
      continue;
    }
    if (InterruptRequested()) {
      status = Error::Interrupted("interrupted");
      break;
    }
    Result<InvestigationExplain> explained = ExplainChange(change.commit, change.parent, number);
    if (!explained) {
      status = explained.error();
      break;
    }
    state_.explains.push_back(std::move(*explained));
    ShowExplain(state_.explains.back());
    if (status = Save(); !status) break;
  }
  const auto wall = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  explain_wall_ += wall;
  auto it = std::find_if(state_.step_wall_ms.begin(), state_.step_wall_ms.end(),
                         [](const auto& p) { return p.first == "explain"; });
  if (it == state_.step_wall_ms.end()) {
    state_.step_wall_ms.emplace_back("explain", wall.count());
  } else {
    it->second += wall.count();
  }
  if (!status) return status;
  state_.explain_done = true;
  return {};
}

// One change's explain; an error only when interrupted (the rest is a fact, kept).
Result<InvestigationExplain> Session::ExplainChange(const std::string& commit,
                                                    const std::string& parent, int number) {
  InvestigationExplain e;
  e.commit = commit;
  e.parent = parent;
  const std::string& query = state_.request.query;
  const std::string by_hand = fmt::format("culprit explain {} --parent {} -q {}",
                                          ShortCommit(commit), ShortCommit(parent), query);
  if (!state_.request.explain) {
    e.status = InvestigationExplain::Status::kNotRun;
    e.detail = "--no-explain; `" + by_hand + "` runs it";
    return e;
  }
  if (!FindValgrind(MetricRule::Kind::kInstructions)) {
    e.status = InvestigationExplain::Status::kNotRun;
    e.detail =
        "valgrind not found — install valgrind (apt install valgrind; "
        "scripts/install-deps does), then `" +
        by_hand + "`";
    return e;
  }
  if (!engine_.engine_builds) {
    e.status = InvestigationExplain::Status::kNotRun;
    e.detail =
        "this engine has no build cache to build under cachegrind; `" + by_hand + "` runs it";
    return e;
  }
  reporter_.Line(fmt::format("step 3.{}: explain {} against its parent {} ({})", number,
                             ShortCommit(commit), ShortCommit(parent), by_hand));
  ExplainContext context{
      config_, *engine_.engine_builds, host_, engine_.progress,
      [this](std::string_view step) { reporter_.Line(fmt::format("  explain: {}", step)); }};
  ExplainRequest request;
  request.change = commit;
  request.parent = parent;
  request.query = query;
  Result<ExplainOutcome> outcome = RunExplain(context, request);
  if (!outcome) {
    if (outcome.error().kind() == ErrorKind::kInterrupted) return outcome.error();
    e.status = InvestigationExplain::Status::kFailed;
    e.detail = FirstLine(outcome.error().message());
    return e;
  }
  e.record_id = outcome->record.id;
  e.detail = ExplainDetail(outcome->facts);
  e.text = ExplainOutcomeText(*outcome, kInvestigationExplainTop);
  return e;
}

void Session::ShowExplain(const InvestigationExplain& e) {
  if (e.status == InvestigationExplain::Status::kExplained) {
    reporter_.Result(e.text);
    reporter_.Result("=> " + InvestigationExplainLine(e) + "\n\n");
  } else {
    reporter_.Result(InvestigationExplainLine(e) + "\n\n");
  }
}

// 4. Is the culprit on the query's code path?
Result<bool> Session::Relevance() {
  const QueryConfig& query = config_.queries.at(state_.request.query);
  if (!state_.relevance_done) {
    reporter_.Line(fmt::format("step 4: relevance: does {} change code {} runs?",
                               ShortCommit(state_.culprit), query.name));
    // Globs as written, or measured at the culprit (coverage, or the
    // code_path command): never guessed (probes/code_path.h).
    Result<CodePath> path = FindCodePath(config_, query, state_.culprit, engine_.progress);
    if (!path) return path.error();
    culprit::Relevance relevance = CheckRelevance(state_.changed_files, *path);
    state_.on_path = relevance.on_path;
    state_.off_path = relevance.off_path;
    state_.relevance = !relevance.known       ? CulpritRelevance::kUnknown
                       : relevance.relevant() ? CulpritRelevance::kOnPath
                                              : CulpritRelevance::kOffPath;
    state_.relevance_detail =
        RelevanceDetail(state_.relevance, query.name, relevance, state_.changed_files);
    if (state_.relevance == CulpritRelevance::kOnPath) CULPRIT_TRY(GoOnWithAChangeOffThePath());
    state_.relevance_done = true;
  }
  if (!state_.on_path_culprit.empty()) {
    // The culprit's code explains its own part of the move; the ladder went on with a later
    // change that touches nothing the query runs, which only isolation can explain.
    reporter_.Result(fmt::format("=> culprit {} \"{}\"\n   {}\n\n",
                                 ShortCommit(state_.on_path_culprit), state_.on_path_subject,
                                 state_.on_path_detail));
    reporter_.Result(fmt::format(
        "=> change {} \"{}\", the bisect's other verified change the way the range moved\n"
        "   {}\n\n",
        ShortCommit(state_.culprit), state_.culprit_subject, state_.relevance_detail));
  } else {
    reporter_.Result(fmt::format("=> culprit {} \"{}\"\n   {}\n\n", ShortCommit(state_.culprit),
                                 state_.culprit_subject, state_.relevance_detail));
  }
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

// The culprit is on the query's path. When the bisect verified later changes the way the
// range moved, the first of them that is off the path becomes the ladder's subject (the
// culprit is kept in on_path_*): its part of the move is what code cannot explain.
Status Session::GoOnWithAChangeOffThePath() {
  const QueryConfig& query = config_.queries.at(state_.request.query);
  for (const InvestigationState::LaterChange& later : state_.later_changes) {
    Result<std::vector<std::string>> changed = engine_.history.ChangedFiles(later.commit);
    if (!changed) return changed.error();
    Result<CodePath> path = FindCodePath(config_, query, later.commit, engine_.progress);
    if (!path) return path.error();
    culprit::Relevance relevance = CheckRelevance(*changed, *path);
    if (!relevance.known || relevance.relevant()) continue;
    Result<CommitInfo> info = engine_.history.Commit(later.commit);
    if (!info) return info.error();
    state_.on_path_culprit = state_.culprit;
    state_.on_path_subject = state_.culprit_subject;
    state_.on_path_detail = state_.relevance_detail;
    state_.culprit = later.commit;
    state_.culprit_subject = info->subject;
    state_.parent = later.parent;
    state_.changed_files = *changed;
    state_.on_path = relevance.on_path;
    state_.off_path = relevance.off_path;
    state_.relevance = CulpritRelevance::kOffPath;
    state_.relevance_detail =
        RelevanceDetail(state_.relevance, query.name, relevance, state_.changed_files);
    return {};
  }
  return {};
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
  // "culprit" only for the bisect's culprit: a later change the ladder went on with is not one.
  const std::string subject = state_.on_path_culprit.empty() ? "culprit" : "change";
  const std::vector<std::pair<std::string, std::string>> builds = {{subject, state_.culprit},
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

Result<InvestigationReport> Session::Finish() {
  state_.conclusion = InvestigationConclusion(state_, config_.residency);
  // What the record says is the confirmation's sitting, read from its record (kept in the
  // store), and the host now: fetched here, so that the record is built without I/O.
  std::optional<Record> confirm;
  if (state_.confirm) {
    if (Result<Record> found = store_.Find(state_.confirm->record_id)) confirm = *found;
  }
  std::optional<HostState> end;
  if (host_) end = host_->Snapshot(/*calibrate=*/false);
  Record record =
      MakeInvestigationRecord(state_, confirm ? &*confirm : nullptr, config_.digest, end);
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
Status CheckRequest(const BisectSections& config, const InvestigationEngine& engine,
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
  Result<std::string> good = engine.history.Resolve(request.good);
  if (!good) return good.error().WithContext("--good");
  Result<std::string> bad = engine.history.Resolve(request.bad);
  if (!bad) return bad.error().WithContext("--bad");
  CULPRIT_TRY(RecordStore(config.records).CheckWritable());
  return {};
}

}  // namespace

InvestigationEngine EngineInvestigation(EngineBuilds& builds, Measurer& measurer) {
  return InvestigationEngine{builds.repo(), builds, measurer, builds.progress(), &builds};
}

Result<InvestigationReport> RunInvestigation(const BisectSections& config,
                                             const InvestigationEngine& engine,
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
  CULPRIT_TRY(CheckRequest(config, engine, request));
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
  Session session(config, engine, host, reporter, std::move(state), request.stop_after);
  return session.Run();
}

Result<InvestigationReport> ResumeInvestigation(const BisectSections& config,
                                                const InvestigationEngine& engine,
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
  CULPRIT_TRY(CheckRequest(config, engine, state.request));
  reporter.Line(fmt::format("== investigate (resumed): why did {} move between {} and {}? ==",
                            state.request.query, state.request.good, state.request.bad));
  Session session(config, engine, host, reporter, std::move(state), stop_after);
  return session.Run();
}

}  // namespace culprit
