#include "investigate/audit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "base/atomic_file.h"
#include "base/strings.h"
#include "engine/cachegrind.h"
#include "engine/harness_client.h"
#include "probes/comparison.h"
#include "probes/host_tuning.h"
#include "probes/isolate_command.h"
#include "probes/query_sample_source.h"
#include "probes/slow_run_bursts.h"
#include "probes/verdict.h"
#include "records/audit_details.h"
#include "records/record_store.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

constexpr int kHarnessRunsPerSample = 3;

// ---- the order factor's engine processes ----

// Each sample is a fresh harness process: arm 0 sends only `run QUERY n`,
// arm 1 first sends `run P 1` for each query the registry runs before it.
// The value is the median of the n values, as `culprit isolate` visits are.
class HarnessOrderSource : public SampleSource {
 public:
  HarnessOrderSource(ProcessSpec spec, std::chrono::milliseconds timeout, std::string query,
                     std::vector<std::string> predecessors)
      : spec_(std::move(spec)),
        timeout_(timeout),
        query_(std::move(query)),
        predecessors_(std::move(predecessors)) {}

  SampleOutcome Run(int arm) override {
    SampleOutcome outcome;
    Result<std::unique_ptr<HarnessClient>> client = HarnessClient::Start(spec_, timeout_);
    if (!client) {
      outcome.failure = client.error().message();
      return outcome;
    }
    if (arm == 1) {
      for (const std::string& before : predecessors_) {
        Result<std::vector<double>> ran = (*client)->Run(before, 1);
        if (!ran) {
          outcome.failure = ran.error().message();
          return outcome;
        }
      }
    }
    Result<std::vector<double>> values = (*client)->Run(query_, kHarnessRunsPerSample);
    Status quit = (*client)->Quit();
    if (!values) {
      outcome.failure = values.error().message();
      return outcome;
    }
    if (!quit) {
      outcome.failure = quit.error().message();
      return outcome;
    }
    outcome.ok = true;
    outcome.value = Median(*values);
    return outcome;
  }

 private:
  ProcessSpec spec_;
  std::chrono::milliseconds timeout_;
  std::string query_;
  std::vector<std::string> predecessors_;
};

std::vector<std::string> Predecessors(const RegistryConfig& registry, const std::string& query) {
  auto it = std::find(registry.order.begin(), registry.order.end(), query);
  return std::vector<std::string>(registry.order.begin(), it);
}

Status CheckRegistry(const Config& config, const std::string& query) {
  if (config.registry.order.empty()) {
    return Error::Usage(
               fmt::format(
                   "{} has no [registry] order: the order factor (the query alone against the "
                   "query after the queries the published table runs before it) cannot be measured",
                   config.file.string()))
        .WithHint(
            "add [registry] order = [...] listing the published table's queries in the "
            "order they run (docs/audit.md)");
  }
  if (std::find(config.registry.order.begin(), config.registry.order.end(), query) ==
      config.registry.order.end()) {
    return Error::Usage(fmt::format("[registry] order does not contain query '{}' ({}): the "
                                    "published table does not run it, so it has no order",
                                    query, Join(config.registry.order, ", ")))
        .WithHint("add it to registry.order where the published table runs it");
  }
  if (config.registry.command.empty() && config.harness.command.empty()) {
    return Error::Usage(
               "the order factor needs a way to run the registry's order in one process: "
               "[registry] command, or the engine's [harness]")
        .WithHint("docs/audit.md describes both");
  }
  if (config.registry.command.empty()) {
    // The harness runs every query in one long-lived process: valgrind has no count of one
    // run there, and its times must not be labelled instructions.
    auto measured = config.queries.find(query);
    if (measured != config.queries.end()) {
      Status in_process = CheckInProcessMetric(measured->second.metric.kind, query);
      if (!in_process) {
        return Error::Usage("the order factor would run through the [harness]: " +
                            in_process.error().message())
            .WithHint(
                "give [registry] a command (the engine runs the order in a process per run), "
                "or audit a wall-time metric");
      }
    }
  }
  return {};
}

Status CheckPublished(const Config& config, const PublishedNumber& published,
                      const QueryConfig& query) {
  if (!published.query.empty() && published.query != query.name) {
    return Error::Usage(fmt::format("{} is a published number of query '{}', not '{}'",
                                    published.source, published.query, query.name))
        .WithHint("audit it with -q " + published.query + ", or give the record of " + query.name);
  }
  if (!published.unit.empty() && published.unit != query.unit) {
    return Error::Usage(fmt::format("{} is in {}, but query '{}' measures {}", published.source,
                                    published.unit, query.name, query.unit));
  }
  if (!(published.value > 0) || !std::isfinite(published.value)) {
    return Error::Usage(
        fmt::format("{}: the published value is not a positive number", published.source));
  }
  return {};
}

Result<ComparisonOutcome> MeasureOrder(const AuditContext& context, const QueryConfig& query,
                                       const ResolvedBuild& today, const SittingOptions& options,
                                       const std::vector<std::string>& predecessors,
                                       OrderWay* way) {
  const Config& config = context.config;
  Result<ProcessArm> alone = MakeQueryArm(config, query, today, {}, {});
  if (!alone) return alone.error();
  ComparisonPlan plan;
  plan.kind = RecordKind::kCompare;
  plan.query = query.name;
  plan.unit = query.unit;
  plan.better = query.better;
  plan.better_note = query.better_note;
  plan.options = options;
  plan.config_digest = config.digest;
  AuditDetails details;
  details.audit_factor = AuditFactorKind::kOrder;
  details.registry_before = predecessors;
  details.WriteTo(&plan.details);
  const std::string before = predecessors.empty() ? "no other query" : Join(predecessors, ", ");
  plan.hypothesis = fmt::format(
      "order: {} measured after the queries the registry runs before it ({}), in one process, "
      "against {} alone in a fresh process",
      query.name, before, query.name);
  if (predecessors.empty()) {
    plan.notes.push_back(query.name +
                         " is first in [registry] order: no query runs before it, so this "
                         "sitting measures only the registry's way of running it");
  }
  if (!config.registry.command.empty()) {
    *way = OrderWay::kCommand;
    QueryConfig registry_query = query;
    registry_query.command = RegistryCommandFor(config.registry.command, query.name);
    Result<ProcessArm> in_order = MakeQueryArm(config, registry_query, today, {}, {});
    if (!in_order) return in_order.error().WithContext("[registry] command");
    details.order_way = AuditOrderWay::kRegistryCommand;
    details.WriteTo(&plan.details);
    plan.a = MakeComparisonArm("alone", "alone (fresh process)", *alone, today);
    plan.b = MakeComparisonArm("in registry order", "in registry order", *in_order, today);
    QuerySampleSource source({*alone, *in_order});
    RecordStore store(config.records);
    return RunComparison(plan, source, context.host, store, context.progress);
  }
  // As CheckRegistry, for a metric given by --metric.
  CULPRIT_TRY(CheckInProcessMetric(query.metric.kind, query.name));
  *way = OrderWay::kHarness;
  Result<ProcessSpec> spec = MakeHarnessSpec(config, today);
  if (!spec) return spec.error();
  details.order_way = AuditOrderWay::kHarness;
  details.runs_per_sample = kHarnessRunsPerSample;
  details.WriteTo(&plan.details);
  plan.notes.push_back(
      fmt::format("each sample is a fresh harness process; its value is the median of `run {} {}`",
                  query.name, kHarnessRunsPerSample));
  ProcessArm harness_arm{*spec, query.metric};
  plan.a = MakeComparisonArm("alone", "alone (fresh harness)", harness_arm, today);
  plan.b = MakeComparisonArm("in registry order", "after " + before, harness_arm, today);
  HarnessOrderSource source(*spec, config.harness.timeout, query.name, predecessors);
  RecordStore store(config.records);
  return RunComparison(plan, source, context.host, store, context.progress);
}

// ---- one audit's steps ----

/// The outcome before anything is measured: the published figure, the query
/// and the revisions it compares.
AuditOutcome UnmeasuredOutcome(const PublishedNumber& published, const QueryConfig& query,
                               const SittingOptions& options, const RegistryConfig& registry,
                               const AuditRequest& request) {
  AuditOutcome o;
  o.published = published;
  AuditFigures& f = o.figures;
  f.query = query.name;
  f.unit = query.unit;
  f.published = published.value;
  f.band = options.band;
  f.predecessors = Predecessors(registry, f.query);
  f.published_revision = published.revision;
  f.today_revision = request.revision;
  return o;
}

/// Both builds first: a commit that does not exist or does not build is an
/// error before anything is measured, never a factor. Returns today's build;
/// the published one is resolved only to be checked (the code sitting
/// resolves it again).
Result<ResolvedBuild> ResolveAuditBuilds(BuildProvider& builds, const PublishedNumber& published,
                                         const std::string& published_rev,
                                         const std::string& today_rev) {
  Result<ResolvedBuild> then = builds.Resolve(published_rev);
  if (!then) {
    return then.error().WithContext(
        fmt::format("the published commit {} ({})", published.revision, published.source));
  }
  Result<ResolvedBuild> today = builds.Resolve(today_rev);
  if (!today) return today.error().WithContext("today's commit " + today_rev);
  if (!published.commit.empty() && then->commit != published.commit) {
    return Error::Usage(fmt::format("{} names commit {}, but it resolves to {} here",
                                    published.source, published.commit, then->commit));
  }
  return today;
}

/// Code: the published commit against today's, paired, one sitting.
Result<ComparisonOutcome> MeasureCode(const AuditContext& context, const PublishedNumber& published,
                                      const std::string& published_rev, const AuditRequest& request,
                                      const std::string& query) {
  CompareRequest compare;
  compare.revision_a = published_rev;
  compare.revision_b = request.revision;
  compare.query = query;
  compare.flags = request.flags;
  MeasureContext measure{context.config, context.builds, context.host, context.progress};
  if (context.progress)
    context.progress->OnPhase("code: " + published.revision + " vs " + request.revision);
  return RunCompare(measure, compare);
}

/// Drift: the code sitting's arm A is the published commit measured now,
/// compared across sittings with the published figure. The factor's record is
/// archived in `store`; `o` keeps today's calibration, the calibration note
/// and the record's path.
AuditFactor MeasureDrift(const PublishedNumber& published, const ComparisonOutcome& code,
                         const SittingOptions& options, RecordStore& store, AuditOutcome& o) {
  std::vector<double> now = KeptSamples(code.sitting, 0);
  o.calibration_now_ms = code.sitting.start.calibration_ms;
  AuditFactor drift = UnmeasuredFactor("host drift", "no samples of the published commit");
  std::optional<ShiftEstimate> drift_shift;
  if (!now.empty()) {
    Result<ShiftEstimate> shift = CrossSittingShift(published, now, options.confidence);
    if (shift) {
      drift_shift = *shift;
      drift = MakeAuditFactor("host drift", *shift, options.band);
    } else {
      drift = UnmeasuredFactor("host drift", shift.error().message());
    }
  }
  drift.cross_sitting = true;
  if (published.calibration_ms && o.calibration_now_ms) {
    o.notes.push_back(CalibrationNote(*o.calibration_now_ms, *published.calibration_ms, drift));
  }
  if (published.record_start) {
    // Two sittings under different tuning differ for that reason too: say which.
    for (const std::string& difference :
         TuningDifferences(*published.record_start, published.record_placement, code.record.start,
                           PlacementOfRecord(code.record))) {
      o.notes.push_back(fmt::format(
          "the published record ran under other tuning: {}; the host drift factor includes it",
          difference));
    }
  }
  Record drift_record = MakeDriftRecord(published, code.record, drift_shift, drift, options.band);
  RecordStore::Archived archived = store.WriteOrFallback(drift_record);
  drift.record_id = drift_record.id;
  o.factor_record_paths.emplace_back("host drift", archived.path);
  return drift;
}

/// Order: today's build alone against it in registry order, and from its
/// in-order samples today's figure. A sitting that fails or breaks sets
/// o.failure; the order factor is added either way. Returns the sitting, if
/// it ran.
std::optional<ComparisonOutcome> MeasureOrderFactor(
    const AuditContext& context, const QueryConfig& query, const ResolvedBuild& today,
    const SittingOptions& options, const PublishedNumber& published, AuditOutcome& o) {
  AuditFigures& f = o.figures;
  if (context.progress) context.progress->OnPhase("order: alone vs in registry order");
  Result<ComparisonOutcome> measured =
      MeasureOrder(context, query, today, options, f.predecessors, &o.order_way);
  if (!measured) {
    o.failure = measured.error();
    f.factors.push_back(UnmeasuredFactor("order", measured.error().message()));
    return std::nullopt;
  }
  o.factor_record_paths.emplace_back("order", measured->record_path);
  f.factors.push_back(FactorFromRecord("order", measured->record));
  AddFactorBurstsNote("order", *measured, o.notes);
  Status order_status = OutcomeStatus(*measured);
  if (!order_status) o.failure = order_status.error();
  std::vector<double> in_order = KeptSamples(measured->sitting, 1);
  if (!in_order.empty()) SetTodayTotal(published, in_order, options, f);
  return std::move(*measured);
}

}  // namespace

void AddFactorBurstsNote(std::string_view factor, const ComparisonOutcome& outcome,
                         std::vector<std::string>& notes) {
  if (!outcome.bursts) return;
  notes.push_back(
      fmt::format("the {} factor's sitting: {}", factor, DescribeSlowRunBursts(*outcome.bursts)));
}

void AddProvenanceNotes(const PublishedNumber& published, const HostProbe* host,
                        std::vector<std::string>& notes) {
  HostIdentity identity;
  if (host) identity = host->Identity();
  // Another machine: another name or CPU, or, when both records know it, another machine
  // identity (two hosts of one name, or one host renamed, are told apart by it).
  const bool other_machine =
      published.host && !published.host->machine_id.empty() && !identity.machine_id.empty()
          ? published.host->machine_id != identity.machine_id
          : false;
  if (published.host && !published.host->hostname.empty() &&
      (published.host->hostname != identity.hostname ||
       published.host->cpu_model != identity.cpu_model || other_machine)) {
    notes.push_back(fmt::format(
        "the published number comes from another host ({}, {}); this is {} ({}): the host "
        "drift factor includes the change of machine",
        published.host->hostname, published.host->cpu_model, identity.hostname,
        identity.cpu_model));
  }
  if (!published.calibration_ms) {
    notes.push_back(
        "no published calibration: the host drift cannot be split into CPU speed and the rest "
        "(give --published-calibration MS, or publish with culprit run)");
  }
}

Result<std::vector<PublishedNumber>> ResolvePublished(const Config& config,
                                                      const AuditRequest& request) {
  const int sources = (request.published_value ? 1 : 0) + (request.published_record ? 1 : 0) +
                      (request.table ? 1 : 0);
  if (sources != 1) {
    return Error::Usage(sources == 0 ? "an audit needs the published number"
                                     : "give one published source, not several")
        .WithHint(
            "--published VALUE --published-rev REV, --published-record ID|FILE, or "
            "--table FILE");
  }
  if (!request.published_value && (request.published_revision || request.published_calibration)) {
    return Error::Usage("--published-rev and --published-calibration go with --published VALUE");
  }
  if (request.published_value) {
    PublishedNumber n;
    Result<double> value = ParsePublishedValue(*request.published_value, "--published");
    if (!value) return value.error();
    n.value = *value;
    if (!request.published_revision || request.published_revision->empty()) {
      return Error::Usage("--published needs --published-rev REV: the commit it was measured at")
          .WithHint("the host drift factor re-measures that commit now");
    }
    n.revision = *request.published_revision;
    if (request.published_calibration) {
      Result<double> calibration =
          ParsePublishedValue(*request.published_calibration, "--published-calibration");
      if (!calibration) return calibration.error();
      n.calibration_ms = *calibration;
    }
    n.source = "--published";
    return std::vector<PublishedNumber>{n};
  }
  if (request.published_record) {
    const std::string& given = *request.published_record;
    std::error_code ec;
    Result<Record> record = Error("");
    if (fs::is_regular_file(given, ec)) {
      Result<std::string> text = ReadFile(given);
      if (!text) return Error::Usage(text.error().message());
      record = RecordFromJson(*text, given);
    } else {
      record = RecordStore(config.records).Find(given);
    }
    if (!record) {
      return Error::Usage(record.error().message())
          .WithHint(record.error().hint().empty()
                        ? "give a record id from `culprit records list --kind run`, or its file"
                        : record.error().hint());
    }
    Result<PublishedNumber> n = PublishedFromRecord(*record, "record " + record->id);
    if (!n) return n.error();
    return std::vector<PublishedNumber>{*n};
  }
  Result<std::vector<PublishedNumber>> table = ReadPublishedTable(*request.table);
  if (!table) return table.error();
  if (request.query.empty()) return table;
  Result<PublishedNumber> row = FindPublishedRow(*table, request.query, request.table->string());
  if (!row) return row.error();
  return std::vector<PublishedNumber>{*row};
}

Result<AuditOutcome> RunAudit(const AuditContext& context, const PublishedNumber& published,
                              const std::string& query_name, const AuditRequest& request) {
  const Config& config = context.config;
  Result<const QueryConfig*> query =
      SelectQuery(config, query_name.empty() ? published.query : query_name);
  if (!query) return query.error();
  CULPRIT_TRY(CheckPublished(config, published, **query));
  CULPRIT_TRY(CheckRegistry(config, (*query)->name));
  Result<SittingOptions> options = MakeSittingOptions(config.measure, **query, request.flags);
  if (!options) return options.error();
  CULPRIT_TRY(RecordStore(config.records).CheckWritable());

  AuditOutcome o = UnmeasuredOutcome(published, **query, *options, config.registry, request);
  AuditFigures& f = o.figures;
  const std::string published_rev =
      published.commit.empty() ? published.revision : published.commit;
  Result<ResolvedBuild> today =
      ResolveAuditBuilds(context.builds, published, published_rev, request.revision);
  if (!today) return today.error();
  AddProvenanceNotes(published, context.host, o.notes);

  Result<ComparisonOutcome> code = MeasureCode(context, published, published_rev, request, f.query);
  if (!code) return code.error();
  o.factor_record_paths.emplace_back("code", code->record_path);
  AddFactorBurstsNote("code", *code, o.notes);
  AuditFactor code_factor = FactorFromRecord("code", code->record);
  RecordStore store(config.records);
  AuditFactor drift = MeasureDrift(published, *code, *options, store, o);
  f.factors = {drift, code_factor};

  Status code_status = OutcomeStatus(*code);
  std::optional<ComparisonOutcome> order;
  if (code_status) {
    order = MeasureOrderFactor(context, **query, *today, *options, published, o);
  } else {
    o.failure = code_status.error();
    f.factors.push_back(UnmeasuredFactor("order", "not measured: the code sitting did not finish"));
  }
  DecomposeMove(f);
  o.conclusion = AuditConclusion(f);
  o.record = MakeAuditRecord(o, &code->record, order ? &order->record : nullptr, request.invocation,
                             config.digest, config.measure.confidence);
  RecordStore::Archived audit = store.WriteOrFallback(o.record);
  o.record_path = audit.path;
  if (audit.error && !o.failure) o.failure = *audit.error;
  return o;
}

Result<std::vector<AuditOutcome>> RunAudits(const AuditContext& context,
                                            const AuditRequest& request) {
  Result<std::vector<PublishedNumber>> published = ResolvePublished(context.config, request);
  if (!published) return published.error();
  // Every row is checked before the first is measured: a table with a query
  // culprit cannot run fails at once, not after an hour of measuring.
  for (const PublishedNumber& row : *published) {
    const std::string name = request.query.empty() ? row.query : request.query;
    Result<const QueryConfig*> query = SelectQuery(context.config, name);
    if (!query) return query.error().WithContext(row.source);
    CULPRIT_TRY(CheckPublished(context.config, row, **query));
    CULPRIT_TRY(CheckRegistry(context.config, (*query)->name));
  }
  std::vector<AuditOutcome> outcomes;
  for (const PublishedNumber& row : *published) {
    Result<AuditOutcome> outcome = RunAudit(context, row, request.query, request);
    if (!outcome) return outcome.error();
    outcomes.push_back(std::move(*outcome));
    if (outcomes.back().failure) break;
  }
  return outcomes;
}

Result<std::vector<AuditOutcome>> AuditWithEngine(const Config& config, const AuditRequest& request,
                                                  SittingProgress* progress,
                                                  BuildProgress* build_progress) {
  std::unique_ptr<HostProbe> host = MakeRealHostProbe();
  std::unique_ptr<BuildProvider> builds = MakeEngineBuildProvider(config, false, build_progress);
  AuditContext context{config, *builds, host.get(), progress};
  return RunAudits(context, request);
}

Result<std::vector<PublishedNumber>> RunPublish(const AuditContext& context,
                                                const PublishRequest& request) {
  const Config& config = context.config;
  if (request.revision.empty()) {
    return Error::Usage(
        "publish needs --rev REV: a published number names the commit it "
        "was measured at");
  }
  std::vector<std::string> queries = request.queries;
  if (queries.empty()) queries = config.registry.order;
  if (queries.empty()) {
    for (const auto& [name, unused] : config.queries) queries.push_back(name);
  }
  for (const std::string& name : queries) {
    Result<const QueryConfig*> query = SelectQuery(config, name);
    if (!query) return query.error();
  }
  MeasureContext measure{config, context.builds, context.host, context.progress};
  std::vector<PublishedNumber> rows;
  for (const std::string& name : queries) {
    RunRequest run;
    run.query = name;
    run.revision = request.revision;
    run.samples = request.samples;
    run.flags = request.flags;
    if (context.progress) context.progress->OnPhase("publish " + name);
    Result<RunOutcome> outcome = RunQuery(measure, run);
    if (!outcome) return outcome.error().WithContext("publishing " + name);
    Result<PublishedNumber> row =
        PublishedFromRecord(outcome->record, "record " + outcome->record.id);
    if (!row) {
      return Error(row.error().message())
          .WithContext(
              fmt::format("publishing {} (record {})", name, outcome->record_path.string()));
    }
    row->revision = request.revision;
    row->samples.clear();  // the table keeps the value; the record keeps the samples
    rows.push_back(std::move(*row));
  }
  return rows;
}

}  // namespace culprit
