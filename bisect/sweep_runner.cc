#include "bisect/sweep_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/strings.h"
#include "bisect/sweep.h"
#include "probes/table.h"
#include "records/record_store.h"
#include "records/sweep_details.h"
#include "records/table_payload.h"

namespace culprit {
namespace {

std::string Selection(const SweepRequest& request, size_t selected) {
  if (request.every) {
    return *request.every == 1 ? "every commit" : fmt::format("every {} commits", *request.every);
  }
  return fmt::format("{} evenly spaced points", selected);
}

/// The sweep's verdict: EFFECT when a change is located; NULL when every part of every query
/// ties; ERROR when no query has a measured part; else INCONCLUSIVE.
std::pair<Verdict, std::string> SweepVerdict(const SweepFacts& facts) {
  int changes = 0, ties = 0, undecided = 0, parts = 0;
  for (const SweepQueryFacts& q : facts.queries) {
    for (const SweepPartFacts& p : q.parts) {
      ++parts;
      changes += p.kind == "change";
      ties += p.kind == "tie";
      undecided += p.kind == "undecided";
    }
  }
  // "query" is the one noun here whose plural is not an added s.
  std::string detail = fmt::format("{} located, {} tied, {} undecided, over {} quer{}",
                                   CountOf(changes, "change"), CountOf(ties, "part"), undecided,
                                   facts.queries.size(), facts.queries.size() == 1 ? "y" : "ies");
  if (changes > 0) return {Verdict::kEffect, detail};
  if (parts == 0) return {Verdict::kError, detail};
  if (ties == parts) return {Verdict::kNull, detail};
  return {Verdict::kInconclusive, detail};
}

/// The range's start and its first-parent commits up to `bad`: index 0 is the start.
Result<std::vector<CommitInfo>> SweepCommits(const History& history, const SweepRequest& request,
                                             std::string& good, std::string& bad) {
  Result<std::string> resolved_good = history.Resolve(request.good);
  if (!resolved_good) return resolved_good.error().WithContext("the range's start");
  Result<std::string> resolved_bad = history.Resolve(request.bad);
  if (!resolved_bad) return resolved_bad.error().WithContext("the range's end");
  good = *resolved_good;
  bad = *resolved_bad;
  Result<bool> ancestor = history.IsAncestor(good, bad);
  if (!ancestor) return ancestor.error();
  if (!*ancestor || good == bad) {
    return Error::Usage(
        fmt::format("{} is not an ancestor of {}: nothing to sweep", request.good, request.bad));
  }
  Result<CommitInfo> start = history.Commit(good);
  if (!start) return start.error();
  Result<std::vector<CommitInfo>> range = history.Range(good, bad, /*first_parent=*/true);
  if (!range) return range.error();
  std::vector<CommitInfo> commits = {*start};
  commits.insert(commits.end(), range->begin(), range->end());
  return commits;
}

/// Each measured commit of one row: its cell against the start (none for the start itself).
std::vector<SweepPointFacts> SweepPoints(const TableFacts& tf, const SweepSeries& series, int row,
                                         const std::vector<CommitInfo>& commits,
                                         const std::vector<int>& selected) {
  std::vector<SweepPointFacts> points;
  for (int a = 0; a < static_cast<int>(selected.size()); ++a) {
    const CommitInfo& c = commits[selected[a]];
    SweepPointFacts p;
    p.index = selected[a];
    p.commit = c.id;
    p.short_id = c.short_id;
    p.subject = c.subject;
    p.measured = series.points[a].measured;
    if (const TableCellFacts* cell = tf.Cell(row, a)) {
      p.error = cell->error;
      if (a > 0) {
        p.ratio = cell->ratio;
        p.low = cell->low;
        p.high = cell->high;
        p.verdict = cell->verdict;
      }
    }
    if (!p.measured && p.error.empty()) p.error = "its row's start was not measured";
    points.push_back(std::move(p));
  }
  return points;
}

/// What one row's series showed, part by part, with the bisect of each part that is not a tie.
std::vector<SweepPartFacts> SweepParts(const SweepSeries& series, const std::string& query,
                                       const std::vector<CommitInfo>& commits,
                                       const std::vector<int>& selected) {
  std::vector<SweepPartFacts> parts;
  for (const SweepFinding& f : LocateSweepChanges(series)) {
    SweepPartFacts part;
    part.kind = f.kind == SweepFindingKind::kChange ? "change"
                : f.kind == SweepFindingKind::kTie  ? "tie"
                                                    : "undecided";
    part.from = f.from;
    part.to = f.to;
    part.commits = selected[f.to] - selected[f.from];
    if (f.log_ratio) part.ratio = std::exp(*f.log_ratio);
    if (f.log_low) part.low = std::exp(*f.log_low);
    if (f.log_high) part.high = std::exp(*f.log_high);
    part.mass = f.mass;
    if (f.kind != SweepFindingKind::kTie) {
      part.command = SweepBisectCommand(commits[selected[f.from]].short_id,
                                        commits[selected[f.to]].short_id, query);
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

/// The sweep's facts from the table sitting of its points: each query's series and parts.
SweepFacts SweepFactsOf(const SweepRequest& request, const TableOutcome& table,
                        const std::vector<CommitInfo>& commits, const std::vector<int>& selected) {
  const TableFacts& tf = table.facts;
  SweepFacts facts;
  facts.good = request.good;
  facts.bad = request.bad;
  facts.commits = static_cast<int>(commits.size()) - 1;
  facts.selection = Selection(request, selected.size());
  facts.band = tf.band;
  double step_alpha = 0;
  for (size_t row = 0; row < tf.rows.size(); ++row) {
    SweepSeries series =
        SweepSeriesOfTable(table.sitting, static_cast<int>(row), static_cast<int>(selected.size()),
                           tf.band, tf.cell_alpha);
    step_alpha = std::max(step_alpha, series.alpha);
    SweepQueryFacts q;
    q.query = tf.rows[row].query;
    q.points = SweepPoints(tf, series, static_cast<int>(row), commits, selected);
    q.parts = SweepParts(series, q.query, commits, selected);
    facts.queries.push_back(std::move(q));
  }
  facts.step_confidence = 1 - (step_alpha > 0 ? step_alpha : tf.cell_alpha);
  return facts;
}

}  // namespace

Result<std::pair<std::string, std::string>> ParseSweepRange(const std::string& spec) {
  const size_t dots = spec.find("..");
  if (dots == std::string::npos || dots == 0 || dots + 2 >= spec.size() ||
      spec.find("..", dots + 2) != std::string::npos || spec[dots + 2] == '.') {
    return Error::Usage(fmt::format("range '{}': expected GOOD..BAD", spec))
        .WithHint("culprit sweep v1.0..v1.3 --every 4");
  }
  return std::make_pair(spec.substr(0, dots), spec.substr(dots + 2));
}

Result<SweepOutcome> RunSweep(const MeasureContext& context, const History& history,
                              const SweepRequest& request) {
  std::string good, bad;
  Result<std::vector<CommitInfo>> commits = SweepCommits(history, request, good, bad);
  if (!commits) return commits.error();
  const int last = static_cast<int>(commits->size()) - 1;
  Result<std::vector<int>> selected = SelectSweepPoints(last, request.every, request.points);
  if (!selected) return selected.error();

  TableRequest table;
  table.queries = request.queries;
  table.flags = request.flags;
  table.archive = false;
  for (int index : *selected) {
    table.revisions.push_back((*commits)[index].id);
    table.names.push_back(fmt::format("#{} {}", index, (*commits)[index].short_id));
  }
  Result<TableOutcome> measured = RunTable(context, table);
  if (!measured) return measured.error();

  SweepOutcome outcome;
  outcome.table = std::move(*measured);
  outcome.facts = SweepFactsOf(request, outcome.table, *commits, *selected);
  const SweepFacts& facts = outcome.facts;
  outcome.record = outcome.table.record;
  Record& record = outcome.record;
  record.kind = RecordKind::kSweep;
  record.hypothesis =
      fmt::format("where {}..{} moved, {} of its {} commits measured against its start",
                  request.good, request.bad, selected->size() - 1, last);
  SweepDetails details;
  details.good = good;
  details.bad = bad;
  details.selection = facts.selection;
  details.step_alpha = 1 - facts.step_confidence;
  details.change_model = std::string(kSweepChangeModelBisectPosterior);
  details.WriteTo(&record.details);
  record.details_json = SweepFactsToJson(record.details_json, facts);
  auto [verdict, detail] = SweepVerdict(facts);
  record.verdict = verdict;
  record.verdict_detail = detail;
  RecordStore::Archived archived = RecordStore(context.config.records).WriteOrFallback(record);
  outcome.record_path = archived.path;
  outcome.archive_error = archived.error;
  return outcome;
}

Status SweepOutcomeStatus(const SweepOutcome& outcome) {
  if (outcome.archive_error) return *outcome.archive_error;
  if (outcome.table.sitting.interrupted) {
    return Error::Interrupted(
        fmt::format("interrupted; what was measured is in {}", outcome.record_path.string()));
  }
  return {};
}

}  // namespace culprit
