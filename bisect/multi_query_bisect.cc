#include "bisect/multi_query_bisect.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/interrupt.h"
#include "base/strings.h"
#include "base/timestamp.h"
#include "bisect/multi_query_report.h"
#include "bisect/range_split.h"
#include "probes/measure_commands.h"
#include "records/record_store.h"
#include "records/table_payload.h"

namespace culprit {
namespace {

BisectRequest QueueRequest(const BisectQueue& queue, const std::string& query) {
  BisectRequest request;
  request.good = queue.good;
  request.bad = queue.bad;
  request.query = query;
  if (queue.max_pairs > 0) request.flags.max_pairs = queue.max_pairs;
  if (queue.seed != 0) request.flags.seed = queue.seed;
  if (queue.band > 0) request.flags.band = queue.band;
  request.prove_first = queue.prove_first;
  return request;
}

std::string QueryHeading(const BisectQueue& queue, size_t i) {
  return fmt::format("=== query {} ({} of {}) ===\n", queue.queries[i], i + 1,
                     queue.queries.size());
}

Status RefuseUnfinished(const BisectSections& config) {
  if (MultiBisectPending(config)) {
    Result<BisectQueue> queue = LoadBisectQueue(BisectQueuePath(config));
    const std::string what =
        queue ? fmt::format("a bisect of {} queries over {}..{} is not finished ({} done)",
                            queue->queries.size(), queue->good, queue->bad, queue->done.size())
              : "a multi-query bisect is not finished";
    return Error::Usage(what).WithHint(
        "`culprit bisect resume` continues it; `culprit bisect reset` discards it");
  }
  if (!std::filesystem::exists(BisectStatePath(config))) return {};
  Result<BisectState> state = LoadBisectState(BisectStatePath(config));
  if (state && state->status != BisectStatus::kDone) {
    return Error::Usage(fmt::format("a bisect of {}..{} on {} is not finished ({} steps done)",
                                    state->good_rev, state->bad_rev, state->query,
                                    state->log.size()))
        .WithHint("`culprit bisect resume` continues it; `culprit bisect reset` discards it");
  }
  return {};
}

// The queries of `request` and of its table, each once, in order; each one configured.
Result<std::vector<std::string>> SelectQueries(const BisectSections& config,
                                               const MultiBisectRequest& request) {
  std::vector<std::string> names = request.queries;
  if (!request.from_table.empty()) {
    Result<Record> table = RecordStore(config.records).Find(request.from_table);
    if (!table) return Error::Usage(table.error().message()).WithContext("--from-table");
    Result<std::vector<std::string>> moved = QueriesThatMoved(*table);
    if (!moved) return moved.error().WithContext("--from-table");
    names.insert(names.end(), moved->begin(), moved->end());
  }
  std::vector<std::string> out;
  for (const std::string& name : names) {
    Result<const QueryConfig*> query = SelectQuery(config, name);
    if (!query) return query.error();
    if (std::find(out.begin(), out.end(), (*query)->name) == out.end()) {
      out.push_back((*query)->name);
    }
  }
  if (out.empty()) {
    return Error::Usage("no query to bisect")
        .WithHint("name them with -q, or give a table record where a cell moved");
  }
  return out;
}

}  // namespace

std::filesystem::path BisectQueuePath(const BisectSections& config) {
  return BisectDir(config) / "bisect-queue.json";
}

bool MultiBisectPending(const BisectSections& config) {
  std::error_code ec;
  if (!std::filesystem::exists(BisectQueuePath(config), ec)) return false;
  Result<BisectQueue> queue = LoadBisectQueue(BisectQueuePath(config));
  // A damaged queue is pending: resume then says what is wrong with it, reset removes it.
  return !queue || !queue->finished;
}

Result<std::vector<std::string>> QueriesThatMoved(const Record& table) {
  if (table.kind != RecordKind::kTable) {
    return Error::Usage(
        fmt::format("record {} is a {} record, not a table", table.id, RecordKindName(table.kind)));
  }
  std::optional<TableFacts> facts = ReadTableFacts(table);
  if (!facts) return Error::Usage(fmt::format("record {} holds no table", table.id));
  std::vector<std::string> out;
  for (int row = 0; row < static_cast<int>(facts->rows.size()); ++row) {
    for (int arm = 1; arm < static_cast<int>(facts->arms.size()); ++arm) {
      const TableCellFacts* cell = facts->Cell(row, arm);
      if (cell && cell->status == "measured" && cell->verdict == "EFFECT") {
        out.push_back(facts->rows[row].query);
        break;
      }
    }
  }
  if (out.empty()) {
    return Error::Usage(fmt::format("no cell of table {} moved against its baseline", table.id))
        .WithHint("a table whose cells tie has nothing to bisect");
  }
  return out;
}

MultiQueryBisect::MultiQueryBisect(const BisectSections& config, BisectRunner& runner,
                                   BisectReporter& reporter)
    : config_(config), runner_(runner), reporter_(reporter) {}

Result<MultiBisectReport> MultiQueryBisect::Run(const MultiBisectRequest& request) {
  Result<std::vector<std::string>> queries = SelectQueries(config_, request);
  if (!queries) return queries.error();
  CULPRIT_TRY(RefuseUnfinished(config_));
  BisectQueue queue;
  queue.started = NowIsoUtc();
  queue.good = request.request.good;
  queue.bad = request.request.bad;
  queue.from_table = request.from_table;
  queue.queries = std::move(*queries);
  queue.max_pairs = request.request.flags.max_pairs.value_or(0);
  queue.seed = request.request.flags.seed.value_or(0);
  queue.band = request.request.flags.band.value_or(0);
  queue.prove_first = request.request.prove_first;
  if (!request.request.first_parent) {
    return Error::Usage("--all-parents is not supported")
        .WithHint("`culprit bisect run --help` says why; each query's bisect descends into merges");
  }
  CULPRIT_TRY(SaveBisectQueue(BisectQueuePath(config_), queue));
  reporter_.Line(
      fmt::format("bisecting {} queries over {}..{}, one after another; a commit built "
                  "for one is not built again: {}",
                  queue.queries.size(), queue.good, queue.bad, Join(queue.queries, ", ")));
  return Continue(std::move(queue), false);
}

Result<MultiBisectReport> MultiQueryBisect::Resume() {
  Result<BisectQueue> queue = LoadBisectQueue(BisectQueuePath(config_));
  if (!queue) return queue.error();
  if (queue->finished) {
    return Error::Usage(fmt::format("the bisect of {} queries is finished (record {})",
                                    queue->queries.size(), queue->result_record))
        .WithHint("`culprit records show " + queue->result_record + "` shows its result");
  }
  return Continue(std::move(*queue), true);
}

Result<MultiBisectQueryFacts> MultiQueryBisect::OneQuery(const BisectQueue& queue, size_t i,
                                                         bool resuming, std::string& text) {
  const std::string& query = queue.queries[i];
  Result<BisectReport> report = Error("not run");
  std::optional<BisectState> saved;
  if (resuming && std::filesystem::exists(BisectStatePath(config_))) {
    Result<BisectState> state = LoadBisectState(BisectStatePath(config_));
    if (!state) return state.error();
    // Its own bisect: this query, started after the queue was (never an older one's).
    if (state->query == query && state->started >= queue.started) saved = std::move(*state);
  }
  if (saved && saved->status == BisectStatus::kDone) {
    reporter_.Line(
        fmt::format("query {}: its bisect had finished (record {})", query, saved->result_record));
    return QueryBisectFacts(query, *saved, nullptr, !VerifiedChanges(saved->segments).empty());
  }
  report = saved ? runner_.Resume() : runner_.Run(QueueRequest(queue, query));
  if (report) {
    text += QueryHeading(queue, i) + report->text + "\n";
    return QueryBisectFacts(query, report->state, &report->outcome, report->found);
  }
  if (report.error().kind() == ErrorKind::kInterrupted || InterruptRequested()) {
    return report.error();
  }
  std::string reason = report.error().message();
  const std::string aside = SetAsideFailedState(query, i);
  if (!aside.empty()) reason += fmt::format(" (its unfinished state is kept in {})", aside);
  reporter_.Line(fmt::format("query {}: its bisect failed: {}; the other queries still run", query,
                             report.error().message()));
  text += QueryHeading(queue, i) + "FAILED: " + reason + "\n\n";
  return FailedQueryFacts(query, reason);
}

std::string MultiQueryBisect::SetAsideFailedState(const std::string& query, size_t i) {
  const std::filesystem::path path = BisectStatePath(config_);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return "";
  Result<BisectState> state = LoadBisectState(path);
  if (!state || state->status == BisectStatus::kDone || state->query != query) return "";
  Result<FileLock> lock = LockBisect(config_);
  if (!lock) return "";
  const std::filesystem::path aside =
      BisectDir(config_) / fmt::format("bisect.failed-query-{}.json", i + 1);
  std::filesystem::rename(path, aside, ec);
  return ec ? "" : aside.string();
}

Result<MultiBisectReport> MultiQueryBisect::Continue(BisectQueue queue, bool resuming) {
  std::string text;
  for (size_t i = queue.done.size(); i < queue.queries.size(); ++i) {
    reporter_.Line(
        fmt::format("query {} ({} of {})", queue.queries[i], i + 1, queue.queries.size()));
    Result<MultiBisectQueryFacts> facts = OneQuery(queue, i, resuming, text);
    resuming = false;
    if (!facts) {
      const Status saved = SaveBisectQueue(BisectQueuePath(config_), queue);
      Error error = facts.error().WithContext(fmt::format(
          "bisecting {} queries: query {} ({} of {}); {} finished", queue.queries.size(),
          queue.queries[i], i + 1, queue.queries.size(), queue.done.size()));
      if (!saved)
        return error.WithContext("the queue could not be saved: " + saved.error().message());
      return error.WithHint(
          "`culprit bisect resume` continues where it stopped: this query's bisect, then the "
          "others; the finished ones are kept in " +
          BisectQueuePath(config_).string());
    }
    queue.done.push_back(std::move(*facts));
    CULPRIT_TRY(SaveBisectQueue(BisectQueuePath(config_), queue));
  }
  return Finish(queue, std::move(text));
}

Result<MultiBisectReport> MultiQueryBisect::Finish(BisectQueue& queue, std::string text) {
  MultiBisectReport report;
  report.facts.good = queue.good;
  report.facts.bad = queue.bad;
  report.facts.from_table = queue.from_table;
  report.facts.queries = queue.done;
  report.facts.changes = CoincidingChanges(report.facts.queries);
  report.exit_code = MultiBisectExitCode(report.facts);
  Record record = MultiBisectRecord(report.facts, config_.digest);
  RecordStore store(config_.records);
  Result<std::filesystem::path> path = store.Write(record);
  if (!path) {
    Result<std::filesystem::path> fallback = store.WriteFallback(record);
    if (!fallback) return path.error().WithContext("archiving the multi-query bisect");
    path = std::move(fallback);
  }
  report.record_path = *path;
  queue.finished = true;
  queue.result_record = record.id;
  CULPRIT_TRY(SaveBisectQueue(BisectQueuePath(config_), queue));
  report.text = std::move(text) + MultiBisectFactsText(report.facts) +
                fmt::format("archived as record {}\n", record.id);
  return report;
}

}  // namespace culprit
