#include "probes/table_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "base/strings.h"
#include "engine/process.h"
#include "overrides/override_set.h"
#include "probes/host_tuning.h"
#include "probes/log_interval.h"
#include "probes/query_sample_source.h"
#include "records/record_store.h"
#include "records/table_details.h"

namespace culprit {
namespace {

constexpr std::string_view kQueryPlaceholder = "{query}";

/// One column as planned: what the record and the heading say it is.
struct Column {
  std::string name, setup;
  std::optional<std::string> revision;  ///< Configured columns: nullopt is the working tree.
  OverrideSet overrides;
  std::vector<std::string> command;  ///< Ad-hoc columns: argv, {query} not yet substituted.
  const OtherEngineConfig* engine = nullptr;  ///< Another engine's column ([engines.NAME]).
};

/// One cell's process, or why it cannot run (then every run of it fails with that reason).
struct CellPlan {
  ProcessArm process;
  std::optional<std::string> error;
  std::string revision, commit, tree;
};

/// The table's SampleSource: slot TableSlot(row, arm) runs that cell's process.
class CellSource : public SampleSource {
 public:
  explicit CellSource(const std::vector<CellPlan>& cells) : cells_(cells) {
    std::vector<ProcessArm> arms;
    for (const CellPlan& cell : cells) arms.push_back(cell.process);
    inner_ = std::make_unique<QuerySampleSource>(std::move(arms));
  }
  SampleOutcome Run(int slot) override {
    if (cells_[slot].error) {
      SampleOutcome failed;
      failed.failure = *cells_[slot].error;
      return failed;
    }
    return inner_->Run(slot);
  }

 private:
  const std::vector<CellPlan>& cells_;
  std::unique_ptr<QuerySampleSource> inner_;
};

bool HasPlaceholder(const std::vector<std::vector<std::string>>& commands) {
  for (const auto& command : commands) {
    for (const std::string& word : command) {
      if (word.find(kQueryPlaceholder) != std::string::npos) return true;
    }
  }
  return false;
}

/// The argv of an ad-hoc command: one word with a blank in it is a shell line, as hyperfine
/// takes it; several words are the argv as given.
std::vector<std::string> AdHocArgv(const std::vector<std::string>& words) {
  if (words.size() == 1 && words[0].find_first_of(" \t") != std::string::npos) {
    return {"/bin/sh", "-c", words[0]};
  }
  return words;
}

std::string ProgramName(const std::vector<std::string>& words) {
  std::string first = words.empty() ? "command" : words[0];
  first = first.substr(0, first.find_first_of(" \t"));
  std::string name = std::filesystem::path(first).filename().string();
  return name.empty() ? "command" : name;
}

std::vector<Column> AdHocColumns(const TableRequest& request) {
  std::vector<Column> columns;
  std::map<std::string, int> seen;
  for (const std::vector<std::string>& words : request.commands) {
    Column column;
    column.name = ProgramName(words);
    if (++seen[column.name] > 1) column.name += fmt::format("-{}", seen[column.name]);
    column.command = AdHocArgv(words);
    column.setup = words.size() == 1 ? words[0] : FormatCommand(words);
    columns.push_back(std::move(column));
  }
  return columns;
}

/// One column per --engine, after the engine's own columns.
Status AddEngineColumns(const ProbeSections& config, const TableRequest& request,
                        std::vector<Column>* columns) {
  std::vector<std::string> known;
  for (const auto& [name, engine] : config.engines) known.push_back(name);
  for (const std::string& name : request.engines) {
    auto it = config.engines.find(name);
    if (it == config.engines.end()) {
      return Error::Usage(fmt::format("--engine {}: {} has no [engines.{}]{}", name,
                                      config.file.string(), name, DidYouMean(name, known)))
          .WithHint(known.empty() ? "describe it: [engines.NAME] with command = [..., \"{query}\"]"
                                  : "its engines: " + Join(known, ", "));
    }
    Column column;
    column.name = name;
    column.engine = &it->second;
    column.setup = "engine " + name;
    if (!it->second.command.empty()) column.setup += ": " + FormatCommand(it->second.command);
    columns->push_back(std::move(column));
  }
  return {};
}

Result<std::vector<Column>> ConfiguredColumns(const ProbeSections& config,
                                              const TableRequest& request) {
  std::vector<std::optional<std::string>> revisions;
  for (const std::string& rev : request.revisions) revisions.push_back(rev);
  if (revisions.empty()) revisions.push_back(std::nullopt);
  std::vector<TableArmSet> sets;
  for (const std::string& spec : request.arms) {
    Result<TableArmSet> set = ParseTableArm(spec, config.overrides);
    if (!set) return set.error();
    sets.push_back(std::move(*set));
  }
  if (sets.empty()) sets.push_back({"default", {}});
  std::vector<Column> columns;
  for (const std::optional<std::string>& rev : revisions) {
    for (const TableArmSet& set : sets) {
      Column column;
      column.revision = rev;
      column.overrides = set.overrides;
      const std::string rev_name = rev.value_or("worktree");
      if (revisions.size() > 1 && sets.size() > 1) {
        column.name = rev_name + " " + set.name;
      } else {
        column.name = revisions.size() > 1 ? rev_name : set.name;
      }
      column.setup = "revision " + rev_name;
      if (!set.overrides.empty()) column.setup += " · " + set.overrides.Label();
      columns.push_back(std::move(column));
    }
  }
  CULPRIT_TRY(AddEngineColumns(config, request, &columns));
  return columns;
}

Result<std::vector<std::string>> Rows(const ProbeSections& config, const TableRequest& request) {
  if (!request.commands.empty()) {
    if (HasPlaceholder(request.commands)) {
      if (request.queries.empty()) {
        return Error::Usage("the commands hold {query} but no -q says what to put there")
            .WithHint(
                "give each row with -q: culprit table -q q1 -q q2 -- './ours {query}' -- "
                "'./theirs {query}'");
      }
      return request.queries;
    }
    if (!request.queries.empty()) {
      return Error::Usage("-q with ad-hoc commands needs {query} in them: each -q is a row")
          .WithHint("culprit table -q q1 -q q2 -- './ours {query}' -- './theirs {query}'");
    }
    return std::vector<std::string>{"command"};
  }
  std::vector<std::string> rows = request.queries;
  if (rows.empty() && request.registry) rows = request.registry->order;
  if (rows.empty()) {
    for (const auto& [name, query] : config.queries) rows.push_back(name);
  }
  if (request.registry) {
    const std::vector<std::string>& order = request.registry->order;
    for (const std::string& row : rows) {
      if (std::find(order.begin(), order.end(), row) == order.end()) {
        return Error::Usage(fmt::format("-q {}: --order registry runs the queries of [registry] "
                                        "order, and {} is not one of them",
                                        row, row))
            .WithHint("its order: " + Join(order, ", "));
      }
    }
  }
  if (rows.empty()) {
    return Error::Usage(fmt::format("{} defines no queries", config.file.string()))
        .WithHint(
            "add [queries.\"NAME\"] tables, or measure commands: culprit table -- CMD -- CMD");
  }
  for (const std::string& row : rows) {
    Result<const QueryConfig*> query = SelectQuery(config, row);
    if (!query) return query.error();
  }
  return rows;
}

std::string Substituted(std::string word, const std::string& row) {
  for (size_t at = word.find(kQueryPlaceholder); at != std::string::npos;
       at = word.find(kQueryPlaceholder, at + row.size())) {
    word.replace(at, kQueryPlaceholder.size(), row);
  }
  return word;
}

/// The ad-hoc query of one cell: the command with {query} filled in, every other brace the
/// user's (escaped for the placeholder expansion), measured by wall time.
QueryConfig AdHocQuery(const Column& column, const std::string& row) {
  QueryConfig query;
  query.adhoc = true;
  query.name = row;
  for (const std::string& word : column.command) {
    std::string escaped;
    for (char c : Substituted(word, row)) {
      escaped += c;
      if (c == '{' || c == '}') escaped += c;
    }
    query.command.push_back(std::move(escaped));
  }
  return query;
}

/// `query` (the row's, as the flags measure it) as another engine runs it: the engine's
/// command, directory and environment; its own metric unless --metric names every cell's.
/// An error when the engine has no command for the query, or when its metric is in another
/// unit than the row's (a ratio of the two would mean nothing).
Result<QueryConfig> EngineQuery(const QueryConfig& query, const OtherEngineConfig& engine,
                                const MeasureFlags& flags) {
  std::optional<std::vector<std::string>> argv = engine.CommandFor(query.name);
  if (!argv) {
    return Error(fmt::format("engine {} has no command for query {}", engine.name, query.name))
        .WithHint(fmt::format(
            "add it to [engines.{}.queries], or give [engines.{}] a command with {{query}}",
            engine.name, engine.name));
  }
  QueryConfig out = query;
  out.adhoc = true;  // nothing of it is built
  out.command = std::move(*argv);
  out.cwd = engine.cwd;
  out.env = engine.env;
  out.code_path.clear();
  out.code_path_command.clear();
  if (!engine.metric || flags.metric) return out;
  out.metric = *engine.metric;
  if (std::optional<std::string_view> fixed = FixedMetricUnit(out.metric.kind)) {
    if (*fixed != query.unit) {
      return Error(fmt::format("engine {} measures {} in {}, query {} is in {}", engine.name,
                               NamedMetricName(out.metric.kind), *fixed, query.name, query.unit));
    }
  } else if (out.metric.kind == MetricRule::Kind::kWall) {
    Result<double> scale = WallUnitsPerMillisecond(query.unit);
    if (!scale) {
      return Error(fmt::format("engine {} measures wall time, query {} is in {}", engine.name,
                               query.name, query.unit));
    }
    out.metric.wall_units_per_ms = *scale;
  }
  return out;
}

CellPlan PlanCell(const ProbeSections& config, const QueryConfig& query, const Column& column,
                  const Result<ResolvedBuild>& build) {
  CellPlan cell;
  if (!build) {
    cell.error = "its build: " + build.error().message();
    return cell;
  }
  cell.revision = build->revision;
  cell.commit = build->commit;
  cell.tree = build->tree;
  Result<ProcessArm> arm =
      MakeQueryArm(config, query, *build, column.overrides.set, column.overrides.unset);
  if (!arm) {
    cell.error = arm.error().message();
  } else {
    cell.process = std::move(*arm);
  }
  return cell;
}

TableCellFacts CellFacts(const TableCell& cell, int row, int arm) {
  TableCellFacts f;
  f.row = row;
  f.arm = arm;
  f.status = cell.status == CellStatus::kBaseline      ? "baseline"
             : cell.status == CellStatus::kNotMeasured ? "not measured"
                                                       : "measured";
  f.error = cell.error;
  if (cell.status == CellStatus::kMeasured && cell.verdict) {
    f.verdict = std::string(VerdictName(cell.verdict->verdict));
    f.explanation = cell.verdict->explanation;
  }
  if (cell.status == CellStatus::kMeasured && cell.shift) {
    Estimate e = RatioEstimate(*cell.shift);
    f.ratio = e.ratio;
    f.low = e.low;
    f.high = e.high;
    f.confidence = cell.nominal_confidence;
  }
  f.pairs = cell.pairs;
  f.decided_blocks = cell.decided_blocks;
  f.runs = cell.runs;
  f.failed = cell.failed;
  f.median = cell.median;
  return f;
}

TableFacts MakeFacts(const TableSittingResult& sitting, const std::vector<std::string>& rows,
                     const std::vector<std::string>& units, const std::vector<Column>& columns,
                     const TableSittingOptions& options) {
  TableFacts facts;
  for (size_t r = 0; r < rows.size(); ++r) {
    facts.rows.push_back(
        {rows[r], units[r], r < sitting.row_blocks.size() ? sitting.row_blocks[r] : 0});
  }
  for (const Column& column : columns) facts.arms.push_back({column.name, column.setup});
  for (size_t r = 0; r < sitting.cells.size(); ++r) {
    for (size_t a = 0; a < sitting.cells[r].size(); ++a) {
      facts.cells.push_back(
          CellFacts(sitting.cells[r][a], static_cast<int>(r), static_cast<int>(a)));
    }
  }
  for (size_t a = 1; a < sitting.geomeans.size(); ++a) {
    if (!sitting.geomeans[a]) continue;
    const GeometricMean& m = *sitting.geomeans[a];
    facts.means.push_back({static_cast<int>(a), std::exp(m.shift.estimate), std::exp(m.shift.low),
                           std::exp(m.shift.high), m.confidence, m.cells});
  }
  facts.band = options.band;
  facts.confidence = options.confidence;
  facts.cell_alpha = sitting.cell_alpha;
  facts.cells_tested = sitting.cells_tested;
  facts.looks = sitting.looks;
  facts.seed = sitting.seed;
  return facts;
}

/// The table's verdict: EFFECT when a cell is one; NULL when every cell is measured and a tie;
/// ERROR when no cell could be measured; else INCONCLUSIVE.
std::pair<Verdict, std::string> TableVerdict(const TableFacts& facts) {
  std::map<std::string, int> counts;
  int cells = 0;
  for (const TableCellFacts& c : facts.cells) {
    if (c.status == "baseline") continue;
    ++cells;
    ++counts[c.status == "not measured" ? "not measured" : c.verdict];
  }
  std::vector<std::string> parts;
  for (const char* key : {"EFFECT", "NULL", "INCONCLUSIVE", "not measured"}) {
    if (counts[key] > 0) parts.push_back(fmt::format("{} {}", counts[key], key));
  }
  std::string detail = fmt::format("{} of {} cells", Join(parts, ", "), cells);
  if (counts["EFFECT"] > 0) return {Verdict::kEffect, detail};
  if (counts["not measured"] == cells) return {Verdict::kError, detail};
  if (counts["NULL"] == cells) return {Verdict::kNull, detail};
  return {Verdict::kInconclusive, detail};
}

Record MakeTableRecord(const TableSittingResult& sitting, const TableFacts& facts,
                       const std::vector<Column>& columns, const std::vector<CellPlan>& cells,
                       const HostIdentity& host, const std::string& digest) {
  Record record;
  record.kind = RecordKind::kTable;
  std::vector<std::string> queries;
  for (const TableRowFacts& row : facts.rows) queries.push_back(row.query);
  record.query = Join(queries, ",");
  record.unit = facts.rows.empty() ? "ms" : facts.rows[0].unit;
  record.band = facts.band;
  const int arms = static_cast<int>(columns.size());
  for (size_t slot = 0; slot < cells.size(); ++slot) {
    const int row = static_cast<int>(slot) / arms, arm = static_cast<int>(slot) % arms;
    Arm out;
    out.name = fmt::format("{} · {}", facts.rows[row].query, columns[arm].name);
    out.label = columns[arm].name;
    out.revision = cells[slot].revision;
    out.commit = cells[slot].commit;
    out.tree = cells[slot].tree;
    out.env = columns[arm].overrides.set;
    out.unset = columns[arm].overrides.unset;
    out.command = cells[slot].process.process.argv;
    const TableCellFacts* f = facts.Cell(row, arm);
    if (f && f->median) out.median = *f->median;
    out.ok_samples = f ? f->runs - f->failed : 0;
    out.failed_samples = f ? f->failed : 0;
    record.arms.push_back(std::move(out));
  }
  record.samples = sitting.samples;
  record.start = sitting.start;
  record.end = sitting.end;
  record.host = host;
  record.culprit_version = CULPRIT_VERSION;
  record.config_digest = digest;
  record.interrupted = sitting.interrupted;
  record.notes = sitting.notes;
  TableDetails details;
  details.sitting.seed = sitting.seed;
  details.cells_tested = sitting.cells_tested;
  details.cell_alpha = sitting.cell_alpha;
  details.multiplicity = std::string(kBonferroni);
  if (!cells.empty()) RecordPlacement(cells.front().process.process.placement, &record);
  details.sitting.alpha_spending = std::string(kPocockIncrements);
  // A tie's tail sighting is asked at the cell's whole alpha, once (docs/statistics.md).
  details.tail_sighting = std::string(kTailSightingCellAlpha);
  if (sitting.calibration) details.sitting.calibration_change = sitting.calibration->change;
  details.WriteTo(&record.details);
  auto [verdict, detail] = TableVerdict(facts);
  record.verdict = verdict;
  record.verdict_detail = detail;
  record.details_json = TableFactsToJson(facts);
  return record;
}

/// Every cell's process, row-major, and each row's unit. Each revision is built once, before
/// anything is measured; a build that fails makes its column's cells fail with its error.
struct CellPlans {
  std::vector<CellPlan> cells;
  std::vector<std::string> units;
};
Result<CellPlans> PlanCells(const MeasureContext& context, const TableRequest& request,
                            const std::vector<std::string>& rows,
                            const std::vector<Column>& columns) {
  const ProbeSections& config = context.config;
  std::map<std::string, Result<ResolvedBuild>> builds;
  for (const Column& column : columns) {
    if (!request.commands.empty()) break;
    if (column.engine) continue;  // another engine: nothing to build
    const std::string key = column.revision.value_or("");
    if (builds.count(key) == 0) builds.emplace(key, context.builds.Resolve(column.revision));
    if (!builds.at(key) && builds.at(key).error().kind() == ErrorKind::kInterrupted) {
      return builds.at(key).error();
    }
  }
  CellPlans plans;
  for (const std::string& row : rows) {
    // --metric names the metric of every cell; its unit is then the row's.
    Result<QueryConfig> measured = WithMetricFlag(
        request.commands.empty() ? config.queries.at(row) : QueryConfig{}, request.flags);
    if (!measured) return measured.error();
    std::optional<QueryConfig> in_order;
    if (request.registry) {
      in_order = *measured;
      in_order->command.clear();
      for (const std::string& word : request.registry->command) {
        in_order->command.push_back(Substituted(word, row));
      }
    }
    plans.units.push_back(measured->unit);  // An ad-hoc command's default query: wall, ms.
    for (const Column& column : columns) {
      if (column.engine) {
        // Not usable for this row: the cell is not measured, and the error says why.
        Result<QueryConfig> query = EngineQuery(*measured, *column.engine, request.flags);
        plans.cells.push_back(
            query ? PlanCell(config, *query, column, ResolvedBuild{})
                  : CellPlan{
                        {},
                        query.error().message() +
                            (query.error().hint().empty() ? "" : " (" + query.error().hint() + ")"),
                        "",
                        "",
                        ""});
      } else if (request.commands.empty()) {
        plans.cells.push_back(PlanCell(config, in_order ? *in_order : *measured, column,
                                       builds.at(column.revision.value_or(""))));
      } else {
        Result<QueryConfig> adhoc = WithMetricFlag(AdHocQuery(column, row), request.flags);
        if (!adhoc) return adhoc.error();
        plans.cells.push_back(PlanCell(config, *adhoc, column, ResolvedBuild{}));
      }
    }
  }
  return plans;
}

/// Which cells pay for what runs before them: "in [registry] order, one process per run: q2
/// after q1; q3 after q1, q2 (q1 runs first)".
std::string RegistryOrderNote(const std::vector<std::string>& order,
                              const std::vector<std::string>& rows) {
  std::vector<std::string> parts, first;
  for (const std::string& row : rows) {
    const auto at = std::find(order.begin(), order.end(), row);
    const std::vector<std::string> before(order.begin(), at);
    if (before.empty()) {
      first.push_back(row);
    } else {
      parts.push_back(fmt::format("{} after {}", row, Join(before, ", ")));
    }
  }
  std::string note = "in [registry] order, one process per run (the [registry] command)";
  if (!parts.empty()) note += ": " + Join(parts, "; ");
  if (!first.empty()) note += fmt::format(" ({} runs first)", Join(first, ", "));
  return note +
         "; by wall time a cell pays for the queries before it, by a figure the engine "
         "prints only for what they leave behind";
}

/// The request a `--check` measures: the published rows (or the -q among them) and, with no
/// column given, each published heading as a revision; the headings name the columns.
Result<TableRequest> CheckedRequest(const TableRequest& request) {
  if (!request.check) return request;
  const PublishedGrid& grid = *request.check;
  TableRequest out = request;
  if (!request.commands.empty() && !HasPlaceholder(request.commands)) {
    return Error::Usage("with --check, the commands need {query}: each published row is a query")
        .WithHint("culprit table --check FILE -- './ours {query}' -- './theirs {query}'");
  }
  if (out.queries.empty()) out.queries = grid.rows;
  for (const std::string& query : out.queries) {
    if (grid.Row(query) < 0) {
      return Error::Usage(fmt::format("-q {}: the published table {} has no such row{}", query,
                                      grid.name, DidYouMean(query, grid.rows)))
          .WithHint("its rows: " + Join(grid.rows, ", "));
    }
  }
  if (out.revisions.empty() && out.arms.empty() && out.commands.empty() && out.engines.empty()) {
    out.revisions = grid.columns;
  }
  if (out.names.empty()) out.names = grid.columns;
  return out;
}

Status CheckColumnCount(const TableRequest& request, size_t columns) {
  if (!request.check || request.check->columns.size() == columns) return {};
  return Error::Usage(
             fmt::format("the published table {} has {} columns ({}), the table's flags give {}",
                         request.check->name, request.check->columns.size(),
                         Join(request.check->columns, ", "), columns))
      .WithHint(
          "give one --rev, --arm or command per published column, in its order, or none (each "
          "heading is then a revision)");
}

std::vector<TableClaimFacts> ClaimFacts(const PublishedGrid& grid,
                                        const std::vector<std::string>& rows,
                                        const std::vector<Claim>& claims) {
  std::vector<TableClaimFacts> out;
  for (const Claim& c : claims) {
    TableClaimFacts f;
    f.row = c.row;
    f.arm = c.arm;
    f.label = std::string(ClaimLabelName(c.label));
    const std::vector<PublishedCell>& values = grid.cells[grid.Row(rows[c.row])];
    f.published = values[c.arm].value;
    f.published_baseline = values[0].value;
    f.published_ratio = c.published_ratio;
    f.sittings = std::string(ClaimSittingsName(c.sittings));
    f.explanation = c.explanation;
    out.push_back(std::move(f));
  }
  return out;
}

/// The table's columns from the request: its revisions, arms, engines or ad-hoc commands,
/// named by --name; a usage error for flags that do not go together or fewer than two.
Result<std::vector<Column>> TableColumns(const ProbeSections& config, const TableRequest& request) {
  if (request.registry && (!request.commands.empty() || !request.engines.empty())) {
    return Error::Usage(
               "--order registry runs the engine's [registry] command; ad-hoc commands and "
               "other engines have none")
        .WithHint("measure them in a table of their own, each query alone");
  }
  if (!request.commands.empty() && !request.engines.empty()) {
    return Error::Usage(
               "--engine takes its commands from culprit.toml's [engines]; ad-hoc "
               "commands are columns of their own")
        .WithHint(
            "give each program as a command: culprit table -- './ours {query}' -- "
            "'./theirs {query}'");
  }
  Result<std::vector<Column>> columns =
      request.commands.empty() ? ConfiguredColumns(config, request) : AdHocColumns(request);
  if (!columns) return columns.error();
  CULPRIT_TRY(CheckColumnCount(request, columns->size()));
  if (!request.names.empty()) {
    if (request.names.size() != columns->size()) {
      return Error::Usage(fmt::format("--name was given {} for {}: name every column or none",
                                      CountOf(request.names.size(), "time"),
                                      CountOf(columns->size(), "column")));
    }
    for (size_t i = 0; i < columns->size(); ++i) (*columns)[i].name = request.names[i];
  }
  if (columns->size() < 2) {
    return Error::Usage(fmt::format("a table needs at least two columns, got {}", columns->size()))
        .WithHint(
            "give two --rev, two --arm (e.g. --arm default --arm PARALLEL=1), or two "
            "commands after `--`");
  }
  return columns;
}

/// The sitting's options: [measure] with the flags, read through the first row's query. A
/// misspelt --metric is refused here, before anything is built.
Result<TableSittingOptions> TableOptions(const ProbeSections& config, const TableRequest& request,
                                         const std::vector<std::string>& rows, size_t columns) {
  QueryConfig first;
  if (request.commands.empty()) first = config.queries.at(rows.front());
  if (Result<QueryConfig> measured = WithMetricFlag(first, request.flags); !measured) {
    return measured.error();
  }
  Result<SittingOptions> sitting = MakeSittingOptions(config.measure, first, request.flags);
  if (!sitting) return sitting.error();
  TableSittingOptions options;
  options.rows = static_cast<int>(rows.size());
  options.arms = static_cast<int>(columns);
  options.warmup = sitting->warmup;
  options.min_blocks = sitting->min_pairs;
  options.max_blocks = sitting->max_pairs;
  options.band = sitting->band;
  options.confidence = sitting->confidence;
  options.seed = sitting->seed;
  return options;
}

/// What the request adds to the table's record: a check's hypothesis, and a note for ad-hoc
/// commands, the registry's order and each other engine.
void NoteRequest(const ProbeSections& config, const TableRequest& request,
                 const std::vector<std::string>& rows, Record& record) {
  if (request.check) {
    record.hypothesis =
        fmt::format("the published table {} still says what it said", request.check->name);
    TableDetails details;
    details.check = request.check->name;
    details.WriteTo(&record.details);
  }
  if (!request.commands.empty()) {
    record.notes.push_back(fmt::format(
        "ad-hoc commands, run as given from the current directory (no engine build); its "
        "records go to {}",
        config.records.dir.string()));
  }
  if (request.registry) {
    TableDetails details;
    details.order = std::string(kRegistryOrder);
    details.WriteTo(&record.details);
    record.notes.push_back(RegistryOrderNote(request.registry->order, rows));
  }
  for (const std::string& engine : request.engines) {
    record.notes.push_back(fmt::format(
        "column {}: another engine, run by its [engines.{}] commands (culprit built nothing "
        "of it)",
        engine, engine));
  }
}

}  // namespace

Result<TableArmSet> ParseTableArm(const std::string& spec,
                                  const std::map<std::string, NamedOverride>& named) {
  if (spec == "default") return TableArmSet{"default", {}};
  const size_t colon = spec.find(':');
  std::string name;
  std::vector<std::string> items;
  if (colon == std::string::npos) {
    items.push_back(spec);
  } else {
    name = spec.substr(0, colon);
    if (name.empty() || name.find('=') != std::string::npos) {
      return Error::Usage(fmt::format("--arm '{}': expected NAME:K=V[,K=V]", spec));
    }
    std::string_view rest = std::string_view(spec).substr(colon + 1);
    while (!rest.empty()) {
      const size_t comma = std::min(rest.find(','), rest.size());
      if (comma > 0) items.emplace_back(rest.substr(0, comma));
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
  }
  Result<OverrideSet> set = BuildOverrideSet(items, {}, named);
  if (!set) return set.error().WithContext(fmt::format("--arm '{}'", spec));
  if (set->empty()) {
    return Error::Usage(fmt::format("--arm '{}' changes nothing", spec))
        .WithHint("give --arm default for the unchanged environment");
  }
  return TableArmSet{name.empty() ? set->Label() : name, std::move(*set)};
}

Result<TableOutcome> RunTable(const MeasureContext& context, const TableRequest& asked) {
  const ProbeSections& config = context.config;
  Result<TableRequest> checked = CheckedRequest(asked);
  if (!checked) return checked.error();
  const TableRequest& request = *checked;
  Result<std::vector<std::string>> rows = Rows(config, request);
  if (!rows) return rows.error();
  Result<std::vector<Column>> columns = TableColumns(config, request);
  if (!columns) return columns.error();
  Result<TableSittingOptions> options = TableOptions(config, request, *rows, columns->size());
  if (!options) return options.error();
  CULPRIT_TRY(RecordStore(config.records).CheckWritable());

  Result<CellPlans> plans = PlanCells(context, request, *rows, *columns);
  if (!plans) return plans.error();
  const std::vector<CellPlan>& cells = plans->cells;
  CellSource source(cells);
  TableOutcome outcome;
  outcome.sitting = RunTableSitting(source, context.host, *options, context.progress);
  outcome.facts = MakeFacts(outcome.sitting, *rows, plans->units, *columns, *options);
  if (request.check) {
    outcome.facts.check_source = request.check->name;
    outcome.facts.claims = ClaimFacts(*request.check, *rows,
                                      CheckClaims(*request.check, *rows, outcome.sitting.cells));
  }
  HostIdentity identity;
  if (context.host != nullptr) identity = context.host->Identity();
  outcome.record =
      MakeTableRecord(outcome.sitting, outcome.facts, *columns, cells, identity, config.digest);
  NoteRequest(config, request, *rows, outcome.record);
  if (!request.archive) return outcome;
  RecordStore store(config.records);
  RecordStore::Archived archived = store.WriteOrFallback(outcome.record);
  outcome.record_path = archived.path;
  outcome.archive_error = archived.error;
  return outcome;
}

Status TableOutcomeStatus(const TableOutcome& outcome) {
  if (outcome.archive_error) return *outcome.archive_error;
  if (outcome.sitting.interrupted) {
    return Error::Interrupted(
        fmt::format("interrupted; what was measured is in {}", outcome.record_path.string()));
  }
  int missing = 0;
  for (const TableCellFacts& c : outcome.facts.cells) missing += c.status == "not measured";
  if (missing > 0) {
    return Error(fmt::format("{} of the table could not be measured (record {})",
                             CountOf(missing, "cell"), outcome.record_path.string()));
  }
  return {};
}

bool TableCheckFails(const TableOutcome& outcome) {
  for (const TableClaimFacts& c : outcome.facts.claims) {
    if (c.label == ClaimLabelName(ClaimLabel::kTie) ||
        c.label == ClaimLabelName(ClaimLabel::kReversed)) {
      return true;
    }
  }
  return false;
}

}  // namespace culprit
