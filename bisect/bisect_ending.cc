// The bisect's ending: the facts its report is written from, gathered here (git for the
// verified changes' commits, the step records for the runs they re-used), then handed to the
// pure report of bisect_report.cc, archived and saved. Apart from the ladder in
// bisect_runner.cc so that the ladder reads as the ladder.

#include <fmt/format.h>

#include <map>

#include "base/strings.h"
#include "bisect/bisect_report.h"
#include "bisect/bisect_runner.h"
#include "bisect/bisect_session.h"
#include "bisect/claims.h"
#include "bisect/range_split.h"
#include "records/bisect_step_details.h"

namespace culprit {

Record BisectRunner::Session::ResultRecord() const {
  Record record = BisectResultRecord(state_, *query_, options_.band, config_.digest);
  record.start = start_snapshot_;
  if (host_) {
    record.host = host_->Identity();
    record.end = host_->Snapshot(/*calibrate=*/true);
  }
  return record;
}

std::map<std::string, CommitFacts> BisectRunner::Session::ChangeFacts() const {
  std::vector<int> changes = VerifiedChanges(state_.segments);
  if (changes.empty()) return {};
  if (EarliestChange(state_.segments) >= 0) changes.push_back(EarliestChange(state_.segments));
  std::map<std::string, CommitFacts> facts;
  for (int k : changes) {
    const BisectSegment& change = state_.segments[k];
    const std::string& id = state_.commits[change.change];
    if (facts.contains(id)) continue;
    CommitFacts& f = facts[id];
    if (Result<CommitInfo> info = engine_.history.Commit(id)) f.info = std::move(*info);
    if (Result<std::vector<std::string>> changed = engine_.history.ChangedFiles(id)) {
      f.changed_files = std::move(*changed);
    }
    // A range is never reported as a merge: only a change's commit is asked.
    if (change.outcome == SegmentOutcome::kChange) f.merge = MergeBranch(id);
  }
  return facts;
}

ReusedRunFacts BisectRunner::Session::GatherReusedRuns() const {
  ReusedRunFacts reused;
  for (const std::string& id : state_.records) {
    Result<Record> record = store_.Find(id);
    if (!record || record->kind != RecordKind::kBisectStep) continue;
    for (const Sample& s : record->samples) reused.runs += s.warmup ? 0 : 1;
    const BisectStepDetails details = BisectStepDetails::FromRecord(*record);
    reused.reused += details.reused_runs_a.value_or(0) + details.reused_runs_b.value_or(0);
    if (details.step_kind == BisectStepKind::kVerify && details.reused_runs &&
        details.candidate_commit) {
      std::string& what = reused.verifications[*details.candidate_commit];
      what += (what.empty() ? "" : "; ") + *details.reused_runs;
    }
  }
  return reused;
}

Result<BisectReport> BisectRunner::Session::Finish(const std::string& confirm_summary) {
  BisectReport report;
  Record record = ResultRecord();
  const ReusedRunFacts reused = GatherReusedRuns();
  std::string text;
  if (!search_) {
    // The endpoints did not confirm the move.
    text = UnconfirmedEnding(state_, unconfirmed_, confirm_summary, record, report);
  } else {
    SearchedFacts facts;
    facts.state = &state_;
    facts.query = query_;
    facts.band = options_.band;
    facts.max_total_pairs = config_.bisect.max_total_pairs;
    facts.commits = ChangeFacts();
    facts.reused = reused;
    Result<std::string> searched = SearchedEnding(facts, record, report);
    if (!searched) return searched.error().WithContext(BisectStatePath(config_).string());
    text = *searched;
  }
  text += DriftEnding(state_.log, record);
  text += BurstsEnding(state_.log, record);
  text += ReusedRunsText(reused);
  Result<std::filesystem::path> path = store_.Write(record);
  if (!path) return path.error().WithContext("archiving the bisect");
  report.record_path = *path;
  text += "record " + path->string() + "\n";
  state_.result_record = record.id;
  state_.status = BisectStatus::kDone;
  CULPRIT_TRY(Save());
  report.state = state_;
  report.text = text;
  return report;
}

std::optional<MergeDescent> BisectRunner::Session::MergeBranch(const std::string& id) const {
  Result<CommitInfo> info = engine_.history.Commit(id);
  if (!info || info->parents.size() < 2) return std::nullopt;
  // The second parent's own first-parent chain, down to the commit it forked from (the first
  // one the merge's first parent also holds). Further parents of an octopus merge are left
  // to the hint: the second is the branch a pull request or a `git merge` brings.
  Result<std::vector<CommitInfo>> chain =
      engine_.history.Range(info->parents[0], info->parents[1], /*first_parent=*/true);
  if (!chain || chain->empty() || chain->front().parents.empty()) return std::nullopt;
  Result<std::vector<CommitInfo>> brought =
      engine_.history.Range(info->parents[0], id, /*first_parent=*/false);
  MergeDescent descent;
  descent.merge = id;
  descent.good = chain->front().parents[0];
  descent.bad = info->parents[1];
  descent.brought_in = brought ? static_cast<int>(brought->size()) - 1 : 0;
  return descent;
}

BisectRunner::BisectRunner(const BisectSections& config, BisectEngine engine, const HostProbe* host,
                           BisectReporter& reporter)
    : config_(config), engine_(engine), host_(host), reporter_(reporter) {}

}  // namespace culprit
