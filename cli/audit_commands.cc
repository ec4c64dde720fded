// audit: take a published number apart into host drift, code and order.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <memory>

#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/strings.h"
#include "cli/command_options.h"
#include "cli/commands.h"
#include "cli/engine_opening.h"
#include "cli/terminal_progress.h"
#include "engine/build_cache.h"
#include "investigate/audit.h"
#include "probes/engine_builds.h"
#include "probes/host.h"

namespace culprit {
namespace {

Result<int> CommandAudit(const GlobalOptions& global, AuditCommandOptions& options,
                         std::vector<std::string> invocation) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  if (options.table) options.request.table = std::filesystem::path(*options.table);
  options.request.invocation = std::move(invocation);
  std::unique_ptr<EngineOpening> engine = EngineOpening::ForMeasuring(*config, options.rebuild);
  TerminalProgress progress("audit " + options.request.query);
  AuditContext context{*config, engine->builds(), engine->host(), &progress};
  Result<std::vector<AuditOutcome>> outcomes = RunAudits(context, options.request);
  progress.Finish();
  if (!outcomes) return outcomes.error();
  bool effect = false;
  for (const AuditOutcome& outcome : *outcomes) {
    if (options.json) {
      fmt::print("{}\n", RecordToJson(outcome.record));
    } else {
      fmt::print("{}\n", FormatAuditSummary(outcome));
    }
    std::fflush(stdout);
    if (outcome.failure) return *outcome.failure;
    effect = effect || outcome.record.verdict == Verdict::kEffect;
  }
  return effect ? kExitEffectFound : 0;
}

Result<int> CommandPublish(const GlobalOptions& global, PublishCommandOptions& options,
                           const std::vector<std::string>& invocation) {
  Result<Config> config = LoadGlobalConfig(global);
  if (!config) return config.error();
  std::unique_ptr<EngineOpening> engine = EngineOpening::ForMeasuring(*config, options.rebuild);
  TerminalProgress progress("publish " + options.request.revision);
  AuditContext context{*config, engine->builds(), engine->host(), &progress};
  Result<std::vector<PublishedNumber>> rows = RunPublish(context, options.request);
  progress.Finish();
  if (!rows) return rows.error();
  // "culprit ..." rather than the binary's path, which says nothing on another machine.
  std::vector<std::string> words = invocation;
  if (!words.empty()) words[0] = "culprit";
  std::string produced_by = Join(words, " ");
  Status written = WriteFileAtomically(options.output, PublishedTableToJson(*rows, produced_by));
  if (!written) return written.error();
  for (const PublishedNumber& row : *rows) {
    fmt::print("{}  {:.6g} {}  at {}  calibration {}  ({})\n", row.query, row.value, row.unit,
               row.revision,
               row.calibration_ms ? fmt::format("{:.1f} ms", *row.calibration_ms)
                                  : std::string("unavailable"),
               row.source);
  }
  fmt::print("published table {}\n", options.output);
  return 0;
}

}  // namespace

void AddAuditCommands(CLI::App& app, GlobalOptions& global, std::function<Result<int>()>& action,
                      AuditCommandsOptions& options, int argc, char** argv) {
  AuditCommandOptions& o = options.audit;
  CLI::App* audit = app.add_subcommand(
      "audit", "why a published number is not today's: host drift × code × order, measured");
  audit->add_option("--query,-q", o.request.query,
                    "query (with --table: only its row; default every row)");
  audit->add_option("--published", o.request.published_value,
                    "the published value, in the query's unit");
  audit->add_option("--published-rev", o.request.published_revision,
                    "the commit or tag the published value was measured at");
  audit->add_option("--published-calibration", o.request.published_calibration,
                    "the publisher's calibration, in ms (culprit's calibration line)");
  audit->add_option("--published-record", o.request.published_record,
                    "a `culprit run` record (id, unique part of it, or file) that was published");
  audit->add_option("--table", o.table, "a published table (.json or .csv, docs/audit.md)");
  audit->add_option("--rev", o.request.revision, "today's commit (default HEAD)");
  audit->add_option("--band", o.request.flags.band, "reproducibility band b")
      ->check(CLI::Range(0.0001, 0.9999));
  audit->add_option("--min-pairs", o.request.flags.min_pairs, "pairs at the first look");
  audit->add_option("--max-pairs", o.request.flags.max_pairs, "pairs at the last look");
  audit->add_option("--warmup", o.request.flags.warmup, "warm-up runs per arm");
  audit->add_option("--seed", o.request.flags.seed, "seed of the pair order");
  audit->add_flag("--rebuild", o.rebuild, "rebuild even if cached");
  audit->add_flag("--json", o.json, "print the audit record as JSON on stdout");
  audit->footer(
      "Exit status: 0 today's number ties the published one, 3 it moved (EFFECT), 1 error "
      "(records of what was measured are kept), 2 usage, 130 interrupted.");
  std::vector<std::string> invocation(argv, argv + argc);
  audit->callback([&action, &global, &o, invocation] {
    action = [&global, &o, invocation] { return CommandAudit(global, o, invocation); };
  });

  PublishCommandOptions& p = options.publish;
  CLI::App* publish = app.add_subcommand(
      "publish", "measure queries at one commit and write a published table for `audit --table`");
  publish->add_option("--rev", p.request.revision, "the commit or tag to publish")->required();
  publish->add_option("--query,-q", p.request.queries,
                      "a query (repeatable; default [registry] order, else every query)");
  publish->add_option("--output,-o", p.output, "the table file to write (.json)")->required();
  publish->add_option("--samples,-n", p.request.samples, "samples per query (default: min_pairs)")
      ->check(CLI::Range(2, 100000));
  publish->add_option("--warmup", p.request.flags.warmup, "warm-up runs per query");
  publish->add_flag("--rebuild", p.rebuild, "rebuild even if cached");
  publish->callback([&action, &global, &p, invocation] {
    action = [&global, &p, invocation] { return CommandPublish(global, p, invocation); };
  });
}

}  // namespace culprit
