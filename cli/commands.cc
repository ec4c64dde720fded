#include "cli/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "base/json_text.h"
#include "base/strings.h"
#include "cli/engine_opening.h"
#include "cli/starter_config.h"
#include "cli/stderr_build_progress.h"
#include "cli/terminal_progress.h"
#include "engine/compiler_cache.h"
#include "engine/metric_source.h"
#include "probes/calibration.h"
#include "probes/engine_builds.h"
#include "probes/host.h"
#include "probes/host_tuning.h"
#include "probes/summary.h"
#include "records/record_merge.h"
#include "records/record_store.h"
#include "records/report.h"

namespace culprit {
namespace {

int VerdictExitCode(const Record& record) {
  return record.verdict == Verdict::kEffect ? kExitEffectFound : 0;
}

// Prints a comparison's result (summary or JSON) and turns a broken or
// interrupted sitting into its error, after the record is safely archived.
Result<int> FinishComparison(const Result<ComparisonOutcome>& outcome, bool json,
                             TerminalProgress& progress) {
  progress.Finish();
  if (!outcome) return outcome.error();
  if (json) {
    fmt::print("{}\n", RecordToJson(outcome->record));
  } else {
    fmt::print("{}", FormatComparisonSummary(*outcome));
  }
  std::fflush(stdout);
  Status status = OutcomeStatus(*outcome);
  if (!status) return status.error();
  return VerdictExitCode(outcome->record);
}

Result<std::filesystem::path> RecordsDir(const GlobalOptions& global,
                                         const RecordsCommandOptions& options) {
  if (options.dir) {
    // A directory given by hand that does not exist is a typo, not an empty
    // archive (the configured one may not exist yet: nothing was archived).
    std::error_code ec;
    if (!std::filesystem::is_directory(*options.dir, ec)) {
      return Error::Usage(fmt::format("--dir {}: no such directory", *options.dir))
          .WithHint("give the records directory ([records] dir in culprit.toml)");
    }
    return std::filesystem::path(*options.dir);
  }
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) {
    return config.error().WithHint(
        "give --dir DIR to read a records directory without a configuration");
  }
  return config->records.dir;
}

void PrintProblems(const RecordStore::Listing& listing) {
  for (const Error& problem : listing.problems) {
    fmt::print(stderr, "culprit: warning: skipped {}\n", problem.message());
  }
}

Result<std::vector<Record>> FilteredRecords(const GlobalOptions& global,
                                            const RecordsCommandOptions& options) {
  Status valid = options.filter.Validate();
  if (!valid) return valid.error();
  Result<std::filesystem::path> dir = RecordsDir(global, options);
  if (!dir) return dir.error();
  RecordStore store(*dir);
  RecordStore::Listing listing = store.List();
  PrintProblems(listing);
  std::vector<Record> selected;
  for (Record& record : listing.records) {
    if (options.filter.Matches(record)) selected.push_back(std::move(record));
  }
  return selected;
}

Status WriteOutput(const std::optional<std::string>& output, const std::string& text) {
  if (!output) {
    fmt::print("{}", text);
    return {};
  }
  CULPRIT_TRY(WriteFileAtomically(*output, text));
  fmt::print(stderr, "wrote {}\n", *output);
  return {};
}

}  // namespace

Result<Config> LoadGlobalConfig(const GlobalOptions& global) {
  std::optional<std::filesystem::path> explicit_path;
  if (global.config) explicit_path = *global.config;
  Result<std::filesystem::path> path = FindConfig(explicit_path);
  if (!path) return path.error();
  Result<Config> config = LoadConfig(*path);
  if (config) config->records.invocation = global.invocation;
  return config;
}

Result<Config> LoadMeasureConfig(const GlobalOptions& global,
                                 const std::vector<std::string>& command, std::string* query) {
  if (command.empty()) return LoadGlobalConfig(global);
  if (!query->empty()) {
    return Error::Usage(
               fmt::format("query '{}' and a command after `--`: give one of them", *query))
        .WithHint(
            "`culprit run -q QUERY` measures a configured query; `culprit run -- CMD ARGS` a "
            "command");
  }
  // Like hyperfine, a command needs no configuration; when there is one, its
  // [measure], [records] and [overrides] apply.
  std::error_code ec;
  Result<Config> config = global.config || std::filesystem::exists("culprit.toml", ec)
                              ? LoadGlobalConfig(global)
                              : ParseConfig("", std::filesystem::current_path(ec) / "culprit.toml");
  if (!config) return config.error();
  config->records.invocation = global.invocation;
  QueryConfig adhoc;
  adhoc.adhoc = true;
  adhoc.name = std::filesystem::path(command.front()).filename().string();
  if (adhoc.name.empty() || config->queries.count(adhoc.name) != 0) adhoc.name = "command";
  for (int i = 2; config->queries.count(adhoc.name) != 0; ++i) {
    adhoc.name = fmt::format("command-{}", i);
  }
  // The words are the user's, not a template: braces in them are literal.
  for (const std::string& word : command) {
    std::string escaped;
    for (char c : word) {
      escaped += c;
      if (c == '{' || c == '}') escaped += c;
    }
    adhoc.command.push_back(std::move(escaped));
  }
  *query = adhoc.name;
  config->queries[adhoc.name] = std::move(adhoc);
  return config;
}

// Keeps culprit's own files in an engine's checkout out of `git status`: the configuration,
// the bisect's state (.culprit/) and the starter's records directory, added to the
// repository's .git/info/exclude (local to this clone, never committed) unless already there.
// What it did, as one line for the user ("" when nothing was added); an error when the file
// cannot be written. A worktree or submodule whose .git is a file is left alone.
namespace {

Result<std::string> ExcludeCulpritFiles(const std::filesystem::path& top,
                                        const std::filesystem::path& dir,
                                        const std::filesystem::path& config) {
  std::error_code ec;
  if (!std::filesystem::is_directory(top / ".git", ec)) return std::string();
  const std::filesystem::path relative = std::filesystem::relative(dir, top, ec);
  const std::string prefix =
      ec || relative.empty() || relative == "." ? "/" : "/" + relative.generic_string() + "/";
  const std::vector<std::string> wanted = {
      prefix + std::filesystem::path(config).filename().generic_string(), prefix + ".culprit/",
      prefix + "benchmarks/results-v1/"};
  const std::filesystem::path exclude = top / ".git" / "info" / "exclude";
  std::string text;
  if (std::filesystem::exists(exclude, ec)) {
    Result<std::string> read = ReadFile(exclude);
    if (!read) return read.error();
    text = *read;
  }
  std::vector<std::string> added;
  for (const std::string& line : wanted) {
    if (("\n" + text + "\n").find("\n" + line + "\n") == std::string::npos) added.push_back(line);
  }
  if (added.empty()) return std::string();
  if (!text.empty() && text.back() != '\n') text += "\n";
  text += "# culprit's own files (culprit init)\n";
  for (const std::string& line : added) text += line + "\n";
  std::filesystem::create_directories(exclude.parent_path(), ec);
  Status written = WriteFileAtomically(exclude, text, ExistingFile::kReplace);
  if (!written) return written.error().WithContext("keeping culprit's files out of git status");
  return fmt::format("added {} to {} (kept out of `git status`; delete the lines to track them)",
                     Join(added, ", "), exclude.string());
}

/// ccache on this host's PATH, with its compiler links, or why it cannot serve a build.
CompilerCacheOffer OfferCompilerCache() {
  const char* path = std::getenv("PATH");
  Result<CompilerCacheSettings> found = LocateCompilerCache(path ? path : "", {}, "");
  if (found) {
    return {true, fmt::format("{}, compiler links in {}", found->program.string(),
                              found->masquerade_dir.string())};
  }
  // The message reads "[engine] compiler_cache = ..., but <what is missing>": the starter
  // file needs only what is missing, and how to get it.
  std::string missing = found.error().message();
  if (size_t but = missing.find(", but "); but != std::string::npos) missing.erase(0, but + 6);
  return {false, missing + " (apt-get install ccache)"};
}

}  // namespace

Result<int> CommandInit(const InitOptions& options) {
  std::filesystem::path output = options.output;
  std::filesystem::path dir = std::filesystem::absolute(output).parent_path();
  BuildSystem build = DetectBuildSystem(dir);
  const CompilerCacheOffer ccache = OfferCompilerCache();
  Status written =
      WriteFileAtomically(output, StarterConfig(dir.filename().string(), build, ccache),
                          options.force ? ExistingFile::kReplace : ExistingFile::kRefuse);
  if (!written) {
    return Error::Usage(written.error().message()).WithHint("use --force to replace it");
  }
  if (build.name == "unknown") {
    fmt::print(
        "wrote {}: no build system recognised in {}; edit [engine] build and [queries], "
        "then try `culprit run`\n",
        output.string(), dir.string());
  } else {
    fmt::print(
        "wrote {}: build steps for the {} project here; check [engine] and [queries], "
        "then try `culprit run`\n",
        output.string(), build.name);
  }
  if (build.c_family && ccache.found) {
    fmt::print("ccache found ({}): the build steps run through it (compiler_cache in [engine])\n",
               ccache.detail);
  } else if (build.c_family) {
    fmt::print("no compiler cache: {}; every commit builds from scratch\n", ccache.detail);
  }
  // culprit builds commits from git: say so now, not at the first build.
  bool in_git = false;
  std::error_code ec;
  std::filesystem::path top;
  for (std::filesystem::path at = dir; !in_git; at = at.parent_path()) {
    in_git = std::filesystem::exists(at / ".git", ec);
    if (in_git) top = at;
    if (at == at.parent_path()) break;
  }
  if (in_git) {
    Result<std::string> excluded = ExcludeCulpritFiles(top, dir, output);
    if (!excluded) {
      fmt::print(stderr, "culprit: warning: {}\n", excluded.error().message());
    } else if (!excluded->empty()) {
      fmt::print("{}\n", *excluded);
    }
  }
  if (!in_git) {
    fmt::print(stderr,
               "culprit: warning: {} is not in a git repository: set [engine] repo to the "
               "engine's repository to build commits (the working tree can be measured as it is)\n",
               dir.string());
  }
  return 0;
}

Result<int> CommandHost(bool json) {
  std::unique_ptr<HostProbe> probe = MakeRealHostProbe();
  HostIdentity identity = probe->Identity();
  HostState snapshot = probe->Snapshot(/*calibrate=*/true);
  std::vector<std::string> warnings = HostWarnings(identity, snapshot);
  // One busy loop against two at once: what the cores give, not what they are called. Two
  // are enough to tell a host whose second core is its own from one that time-shares it.
  std::optional<ParallelismCheck> parallelism;
  if (identity.logical_cores >= 2) parallelism = MeasureParallelism(2);
  if (parallelism && ParallelismIsShort(*parallelism)) {
    warnings.push_back(DescribeParallelism(*parallelism));
  }
  if (json) {
    nlohmann::json doc = nlohmann::json::parse(HostToJson(identity, snapshot, warnings));
    doc["parallelism"] = nullptr;
    if (parallelism) {
      doc["parallelism"] = {{"threads", parallelism->threads},
                            {"single_ms", parallelism->single_ms},
                            {"parallel_ms", parallelism->parallel_ms},
                            {"effective", parallelism->effective}};
    }
    // Where instructions and simulated cache misses come from here, as the text says it:
    // instructions from the one choice (HostInstructionSource), the two others from
    // cachegrind; null where that source needs valgrind and there is none.
    const MetricSources sources = ProbeMetricSources();
    const InstructionSourceChoice& choice = sources.instructions;
    const bool counted = choice.source == MetricSource::kPerfEvent;
    const nlohmann::json cachegrind =
        sources.valgrind.empty() ? nlohmann::json(nullptr) : nlohmann::json("cachegrind");
    const nlohmann::json instructions =
        counted ? nlohmann::json(MetricSourceName(choice.source)) : cachegrind;
    nlohmann::json valgrind = nullptr;
    if (!sources.valgrind.empty()) {
      valgrind = {
          {"path", sources.valgrind},
          {"version", sources.valgrind_version.empty() ? nlohmann::json(nullptr)
                                                       : nlohmann::json(sources.valgrind_version)}};
    }
    doc["metric_sources"] = {
        {"metrics", {"instructions", "ll_misses", "d1_misses"}},
        // The source of instructions, the one metric whose source depends on the host.
        {"source", instructions},
        {"by_metric",
         {{"instructions", instructions}, {"ll_misses", cachegrind}, {"d1_misses", cachegrind}}},
        {"valgrind", valgrind},
        {"unavailable_because",
         sources.valgrind.empty() ? nlohmann::json(sources.missing) : nlohmann::json(nullptr)},
        // Whether a run of instructions reads a hardware counter (perf_event_open) here.
        {"hardware_counters_read", counted},
        // Whether a counter opens here: null when not tried (CULPRIT_INSTRUCTIONS=cachegrind);
        // why_not is the errno, or the setting, whenever counters are not read.
        {"hardware_counters",
         {{"usable", choice.forced ? nlohmann::json(nullptr) : nlohmann::json(counted)},
          {"why_not", counted ? nlohmann::json(nullptr) : nlohmann::json(choice.why)}}}};
    fmt::print("{}\n", ToJsonText(doc, 2));
  } else {
    fmt::print("{}", FormatHostReport(identity, snapshot, warnings));
    // The figures; the advice, when there is some, is among the warnings above.
    fmt::print("parallelism: {}\n",
               parallelism ? fmt::format("effective {:.2f} of {} threads (one busy loop {:.1f} ms "
                                         "a pass, {} at once {:.1f} ms)",
                                         parallelism->effective, parallelism->threads,
                                         parallelism->single_ms, parallelism->threads,
                                         parallelism->parallel_ms)
                           : std::string("unavailable (one core: nothing to compare)"));
    fmt::print("{}", FormatHostTuning(identity, snapshot));
  }
  return 0;
}

Result<int> CommandRun(const GlobalOptions& global, RunCommandOptions& options) {
  Result<Config> config = LoadMeasureConfig(global, global.adhoc_command, &options.request.query);
  if (!config) return config.error();
  options.request.revision = options.revision;
  std::unique_ptr<EngineOpening> engine = EngineOpening::ForMeasuring(*config, false);
  TerminalProgress progress(options.request.query.empty() ? "run" : options.request.query);
  MeasureContext context{*config, engine->builds(), engine->host(), &progress};
  Result<RunOutcome> outcome = RunQuery(context, options.request);
  progress.Finish();
  if (!outcome) return outcome.error();
  if (options.json) {
    fmt::print("{}\n", RecordToJson(outcome->record));
  } else {
    fmt::print("{}", FormatRunSummary(*outcome));
  }
  if (outcome->sitting.failure) {
    return outcome->sitting.failure->WithContext(
        fmt::format("the query kept failing (record {})", outcome->record_path.string()));
  }
  if (outcome->sitting.interrupted) {
    return Error::Interrupted(
        fmt::format("interrupted; what was measured is in {}", outcome->record_path.string()));
  }
  return 0;
}

Result<int> CommandProbe(const GlobalOptions& global, ProbeCommandOptions& options) {
  Result<Config> config = LoadMeasureConfig(global, global.adhoc_command, &options.request.query);
  if (!config) return config.error();
  options.request.revision = options.revision;
  std::unique_ptr<EngineOpening> engine = EngineOpening::ForMeasuring(*config, false);
  TerminalProgress progress("probe " + options.request.query);
  MeasureContext context{*config, engine->builds(), engine->host(), &progress};
  return FinishComparison(RunProbe(context, options.request), options.json, progress);
}

Result<int> CommandCompare(const GlobalOptions& global, CompareCommandOptions& options) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  std::unique_ptr<EngineOpening> engine = EngineOpening::ForMeasuring(*config, options.rebuild);
  TerminalProgress progress(
      fmt::format("compare {} {}", options.request.revision_a, options.request.revision_b));
  MeasureContext context{*config, engine->builds(), engine->host(), &progress};
  return FinishComparison(RunCompare(context, options.request), options.json, progress);
}

Result<int> CommandRecordsList(const GlobalOptions& global, const RecordsCommandOptions& options) {
  Result<std::vector<Record>> records = FilteredRecords(global, options);
  if (!records) return records.error();
  fmt::print("{}", MakeTextReporter()->RenderList(*records));
  return 0;
}

Result<int> CommandRecordsShow(const GlobalOptions& global, const RecordsCommandOptions& options) {
  Result<std::filesystem::path> dir = RecordsDir(global, options);
  if (!dir) return dir.error();
  Result<Record> record = RecordStore(*dir).Find(options.id);
  if (!record) return record.error();
  if (options.json) {
    fmt::print("{}\n", RecordToJson(*record));
  } else {
    fmt::print("{}", MakeTextReporter()->RenderOne(*record));
  }
  return 0;
}

Result<int> CommandRecordsReport(const GlobalOptions& global,
                                 const RecordsCommandOptions& options) {
  std::unique_ptr<RecordReporter> reporter =
      options.format == "html" ? MakeHtmlReporter() : MakeMarkdownReporter();
  std::string text;
  if (!options.id.empty()) {
    Result<std::filesystem::path> dir = RecordsDir(global, options);
    if (!dir) return dir.error();
    RecordStore store(*dir);
    Result<Record> record = store.Find(options.id);
    if (!record) return record.error();
    // A record that links to others (an investigation, an audit, a bisect) is
    // reported as a whole: the linked records come along, their links resolve.
    if (record->links.empty()) {
      text = reporter->RenderOne(*record);
    } else {
      RecordStore::Listing listing = store.List();
      PrintProblems(listing);
      text = reporter->RenderWhole(LinkedRecords(*record, listing.records));
    }
  } else {
    Result<std::vector<Record>> records = FilteredRecords(global, options);
    if (!records) return records.error();
    text = reporter->RenderList(*records);
  }
  CULPRIT_TRY(WriteOutput(options.output, text));
  return 0;
}

Result<int> CommandRecordsExport(const GlobalOptions& global,
                                 const RecordsCommandOptions& options) {
  Result<std::vector<Record>> records = FilteredRecords(global, options);
  if (!records) return records.error();
  fmt::print("{}\n", MakeJsonReporter()->RenderList(*records));
  return 0;
}

Result<int> CommandRecordsMerge(const GlobalOptions& global, const RecordsCommandOptions& options) {
  Result<std::filesystem::path> target = RecordsDir(global, options);
  if (!target) return target.error();
  bool complete = true;
  for (const std::string& source : options.merge_sources) {
    Result<RecordMergeReport> merged = MergeRecords(source, *target);
    if (!merged) return merged.error().WithContext("merging " + source);
    fmt::print("merged {} into {}: {} copied, {} already there\n", source, target->string(),
               CountOf(merged->copied.size(), "record"), merged->already_present);
    for (const RecordMergeReport::Conflict& c : merged->conflicts) {
      fmt::print(stderr,
                 "culprit: conflict: {} is a different record from {} under the same id; the "
                 "archive's is kept, this one is not copied\n",
                 c.source.string(), (*target / (c.id + ".json")).string());
    }
    for (const Error& problem : merged->problems) {
      fmt::print(stderr, "culprit: not copied: {}\n", problem.message());
    }
    complete = complete && merged->complete();
  }
  if (!complete) {
    return Error("some records were not merged (listed above); the rest are in the archive")
        .WithHint("compare a conflicting pair with `culprit records show --json ID` in each");
  }
  return 0;
}

}  // namespace culprit

namespace culprit {

Result<int> CommandBuild(const GlobalOptions& global, const BuildCommandOptions& options) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  Result<std::unique_ptr<EngineOpening>> engine =
      EngineOpening::WithHistory(*config, options.rebuild);
  if (!engine) return engine.error();
  EngineBuilds& builds = (*engine)->engine_builds();
  StderrBuildProgress& progress = (*engine)->build_progress();
  BuildCache& cache = builds.cache();

  if (options.prune_days) {
    std::vector<std::string> in_use;
    Result<int> removed =
        cache.Prune(std::chrono::hours(24 * *options.prune_days), true, &in_use, &progress);
    if (!removed) return removed.error();
    for (const std::string& kept : in_use) {
      fmt::print(stderr, "culprit: kept {}: a running measurement uses it\n", kept);
    }
    fmt::print("pruned {} builds older than {} days (and stale ones)\n", *removed,
               *options.prune_days);
  }
  if (options.list) {
    Result<std::vector<CachedBuildInfo>> entries = cache.List();
    if (!entries) return entries.error();
    uintmax_t total = 0;
    bool any_unbuildable = false;
    fmt::print("{:<12} {:<11} {:>10} {:>8}  {}\n", "commit", "status", "size", "build", "built at");
    for (const CachedBuildInfo& e : *entries) {
      total += e.bytes;
      std::string status = e.buildable ? "buildable" : e.timed_out ? "timed out" : "unbuildable";
      if (!e.buildable && e.current) any_unbuildable = true;
      if (!e.current) status += "*";
      fmt::print("{:<12} {:<11} {:>8.1f} M {:>7.1f}s  {}\n", ShortCommit(e.commit), status,
                 e.bytes / 1048576.0, e.seconds, e.built_at);
    }
    fmt::print("{} builds, {:.1f} MiB in {}{}\n", entries->size(), total / 1048576.0,
               cache.engine_dir().string(),
               entries->empty() ? "" : "  (* = made with other build steps: stale)");
    if (any_unbuildable) {
      fmt::print(
          "unbuildable commits are not tried again unless you pass --rebuild (timed-out ones "
          "also once build_timeout is longer)\n");
    }
  }
  if (options.revisions.empty() && !options.list && !options.prune_days) {
    return Error::Usage("nothing to build").WithHint("give revisions, --list or --prune-days");
  }

  // Every revision is tried; what failed is reported once, at the end, by
  // main (one error, one line per revision), not as it happens.
  std::vector<std::string> failures;
  for (const std::string& revision : options.revisions) {
    if (InterruptRequested()) return Error::Interrupted("interrupted");
    Result<ResolvedBuild> build = builds.Resolve(revision);
    if (!build) {
      if (build.error().kind() == ErrorKind::kInterrupted) return build.error();
      failures.push_back(fmt::format("{}: {}", revision, build.error().message()));
      continue;
    }
    fmt::print("{}  {}  {}\n", revision, ShortCommit(build->commit),
               build->reused ? "cached" : "built");
  }
  if (!failures.empty()) {
    return Error(fmt::format("{} of {} revisions could not be built:\n  {}", failures.size(),
                             options.revisions.size(), Join(failures, "\n  ")));
  }
  return 0;
}

}  // namespace culprit
