#include "investigate/explain.h"

#include <fmt/format.h>

#include <chrono>

#include "base/strings.h"
#include "engine/cachegrind.h"
#include "probes/measure_commands.h"
#include "records/record_store.h"

namespace culprit {
namespace {

std::string MetricName(MetricRule::Kind kind) {
  std::string_view named = NamedMetricName(kind);
  if (!named.empty()) return std::string(named);
  return kind == MetricRule::Kind::kRegex ? "regex" : "json";
}

/// The query, refused when -q names a [residency] plan: measured inside the harness.
Result<const QueryConfig*> ExplainedQuery(const ProbeSections& config, const std::string& name) {
  if (!config.queries.contains(name)) {
    auto plan = config.residency.find(name);
    if (plan != config.residency.end()) {
      return Error::Usage(
                 fmt::format("'{}' is a [residency] plan, measured inside the one long-lived "
                             "[harness] process that every run of every condition shares: "
                             "valgrind counts a whole process, so no run there has a "
                             "per-function count of its own",
                             name))
          .WithHint(fmt::format(
              "explain the plan's query as a process of its own: culprit explain ... -q {}",
              plan->second.query));
    }
  }
  return SelectQuery(config, name);
}

/// The cachegrind run's kind: instructions, or with the cache simulation the query's miss
/// count (ll_misses when the query is measured otherwise).
MetricRule::Kind RunKind(const QueryConfig& query, bool cache_sim) {
  const MetricRule::Kind kind = query.metric.kind;
  if (kind == MetricRule::Kind::kLlMisses || kind == MetricRule::Kind::kD1Misses) return kind;
  return cache_sim ? MetricRule::Kind::kLlMisses : MetricRule::Kind::kInstructions;
}

struct Commits {
  CommitInfo parent, change;
};

Result<Commits> ResolveCommits(const GitRepo& repo, const ExplainRequest& request) {
  Commits c;
  Result<CommitInfo> change = repo.Commit(request.change);
  if (!change) return change.error();
  c.change = std::move(*change);
  std::string parent = request.parent.value_or("");
  if (!request.parent) {
    if (c.change.parents.empty()) {
      return Error::Usage(fmt::format("{} is a root commit: it has no parent to explain it against",
                                      c.change.short_id))
          .WithHint("give one: culprit explain " + request.change + " --parent REV -q ...");
    }
    parent = c.change.parents[0];
  }
  Result<CommitInfo> info = repo.Commit(parent);
  if (!info) return info.error();
  c.parent = std::move(*info);
  return c;
}

/// One side: built, run once under cachegrind with ASLR off, its out files read.
Result<ExplainSide> RunSide(const ExplainContext& context, const QueryConfig& query,
                            const CommitInfo& commit, MetricRule::Kind kind,
                            const std::filesystem::path& valgrind) {
  if (context.say) context.say(fmt::format("building {}", commit.short_id));
  Result<ResolvedBuild> build = context.builds.ResolveCommit(commit.id);
  if (!build) return build.error().WithContext(fmt::format("building {}", commit.short_id));
  Result<ProcessArm> arm = MakeQueryArm(context.config, query, *build, {}, {});
  if (!arm) return arm.error();
  ProcessSpec spec = arm->process;
  spec.placement.aslr = false;  // As measured runs by instructions: the count repeats.
  if (context.say) {
    context.say(fmt::format("running {} under cachegrind at {}", query.name, commit.short_id));
  }
  CachegrindRun run = RunUnderCachegrind(spec, kind, valgrind);
  if (run.process.outcome == ProcessOutcome::kInterrupted) {
    return Error::Interrupted("interrupted while the query ran under valgrind");
  }
  if (!run.value) {
    return Error(fmt::format("query '{}' at {} failed under valgrind: {}", query.name,
                             commit.short_id, run.failure))
        .WithHint(
            "explain counts instructions under valgrind and nothing else (never wall time): "
            "make the query run under `valgrind --tool=cachegrind`, or explain another query");
  }
  ExplainSide side;
  side.commit = commit;
  side.command = spec.argv;
  side.wall_ms = run.process.wall_ms;
  for (size_t i = 0; i < run.out_files.size(); ++i) {
    Result<FunctionProfile> one = ParseFunctionProfile(run.out_files[i]);
    if (!one) {
      return one.error().WithContext(fmt::format("cachegrind's out file {} of {} at {}", i + 1,
                                                 run.out_files.size(), commit.short_id));
    }
    MergeFunctionProfile(side.profile, *one);
  }
  Result<std::vector<std::string>> files = context.builds.repo().Files(commit.id);
  if (!files) return files.error();
  side.repository_files = std::set<std::string>(files->begin(), files->end());
  return side;
}

/// The query's path as configured: globs as written, a command's files at the change; "auto"
/// and no code_path leave it unknown, for the profiles to say (a coverage build would
/// measure what the two runs already show).
Result<CodePath> ConfiguredPath(const ExplainContext& context, const QueryConfig& query,
                                const std::string& change) {
  if (!query.code_path_command.empty()) {
    return FindCodePath(context.config, query, change, context.build_progress);
  }
  CodePath path;
  if (!query.code_path.empty()) {
    path.source = CodePath::Source::kGlobs;
    path.globs = query.code_path;
  }
  return path;
}

}  // namespace

Result<ExplainOutcome> RunExplain(const ExplainContext& context, const ExplainRequest& request) {
  Result<const QueryConfig*> query = ExplainedQuery(context.config, request.query);
  if (!query) return query.error();
  const MetricRule::Kind kind = RunKind(**query, request.cache_sim);
  Result<std::filesystem::path> valgrind = FindValgrind(kind);
  if (!valgrind) return valgrind.error();
  Result<std::string> version = ValgrindVersion(*valgrind);
  if (!version) return version.error();
  Result<Commits> commits = ResolveCommits(context.builds.repo(), request);
  if (!commits) return commits.error();
  RecordStore store(context.config.records);
  CULPRIT_TRY(store.CheckWritable());

  ExplainInputs in;
  in.query = (*query)->name;
  in.metric = MetricName((*query)->metric.kind);
  in.valgrind = *version;
  in.cache_sim = kind != MetricRule::Kind::kInstructions;
  HostState start;
  if (context.host) start = context.host->Snapshot(/*calibrate=*/false);
  Result<ExplainSide> parent = RunSide(context, **query, commits->parent, kind, *valgrind);
  if (!parent) return parent.error();
  in.parent = std::move(*parent);
  Result<ExplainSide> change = RunSide(context, **query, commits->change, kind, *valgrind);
  if (!change) return change.error();
  in.change = std::move(*change);
  Result<std::vector<std::string>> changed =
      context.builds.repo().ChangedFilesBetween(commits->parent.id, commits->change.id);
  if (!changed) return changed.error();
  in.changed_files = std::move(*changed);
  Result<CodePath> path = ConfiguredPath(context, **query, commits->change.id);
  if (!path) return path.error();
  in.code_path = std::move(*path);

  ExplainOutcome outcome;
  outcome.facts = MakeExplainFacts(in);
  outcome.record = MakeExplainRecord(in, outcome.facts, context.config.digest);
  outcome.record.start = start;
  if (context.host) {
    outcome.record.host = context.host->Identity();
    outcome.record.end = context.host->Snapshot(/*calibrate=*/false);
  }
  RecordStore::Archived archived = store.WriteOrFallback(outcome.record);
  outcome.record_path = archived.path;
  if (archived.error) return *archived.error;
  return outcome;
}

std::string ExplainOutcomeText(const ExplainOutcome& outcome, size_t top) {
  return ExplainFactsText(outcome.facts, top) +
         fmt::format("record {}\n", outcome.record_path.string());
}

}  // namespace culprit
