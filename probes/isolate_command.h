#pragma once

// `culprit isolate` and `culprit harness check` as library calls: the plan
// and the build chosen, the harness started from [harness], the sitting run
// and archived. Nothing here knows the command-line library.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "base/result.h"
#include "engine/harness_check.h"
#include "probes/isolation.h"
#include "probes/isolation_simulated.h"
#include "probes/measure_commands.h"

namespace culprit {

struct IsolateRequest {
  std::optional<std::string> revision;  ///< Nullopt: the engine's working tree.
  std::string plan;                     ///< [residency."NAME"]; empty: the only one (or -q's).
  std::string query;                    ///< Sent in `run QUERY N`; empty: the plan's.
  int runs_per_visit = 3;
  MeasureFlags flags;  ///< min/max pairs are rounds here.
  /// `--simulate METRIC`: after the sitting, each condition's METRIC (a cachegrind metric:
  /// ll_misses, d1_misses, instructions) per run of the query, from fresh harness processes
  /// under valgrind (probes/isolation_simulated.h); a secondary figure. Empty: none.
  std::string simulate;
  int simulate_samples = 3;  ///< `--simulate-samples`: samples per condition, 1..100.
};

struct IsolateOutcome {
  IsolationPlan plan;
  IsolationOptions options;
  IsolationResult result;
  Record record;
  std::filesystem::path record_path;
};

/// How many [harness] timeouts one process of `--simulate` may take under valgrind.
inline constexpr int kValgrindTimeoutFactor = 50;

/// The simulation `request.simulate` asks for (nullopt when none): usage error when it names
/// no metric cachegrind counts or --simulate-samples is not in 1..100, and an error naming
/// valgrind and how to install it when valgrind is not in `search_path` (nullopt: PATH).
Result<std::optional<SimulatedIsolationOptions>> MakeSimulationOptions(
    const IsolateRequest& request, std::optional<std::string_view> search_path = std::nullopt);

/// The plan named `name`; else the one plan whose query is `query`; else the
/// only plan. Usage errors list the plans.
Result<const ResidencyPlan*> SelectPlan(const ProbeSections& config, const std::string& name,
                                        const std::string& query);

/// The harness of `build` as a process: [harness] command expanded, run in
/// the config's directory. Usage error without [harness].
Result<ProcessSpec> MakeHarnessSpec(const ProbeSections& config, const ResolvedBuild& build);

/// Runs the isolation sitting and archives its record, whatever happened: a
/// broken engine gives a partial record (verdict ERROR), Ctrl-C an interrupted
/// one. Errors: bad request, no build, the harness cannot start, the record
/// cannot be written.
Result<IsolateOutcome> RunIsolate(const MeasureContext& context, const IsolateRequest& request);

/// Error when the engine broke or the sitting was interrupted, naming the record.
Status IsolateStatus(const IsolateOutcome& outcome);

/// The table of conditions, the reversibility, the conclusion, host drift and the record path.
std::string FormatIsolateSummary(const IsolateOutcome& outcome);

struct HarnessCheckRequest {
  std::optional<std::string> revision;
  std::string query;  ///< Empty: the first plan's query, else the only query.
  std::optional<std::chrono::milliseconds> timeout;  ///< Default [harness] timeout.
};

/// Checks the configured harness of the build against the protocol.
Result<HarnessCheckReport> RunHarnessCheck(const MeasureContext& context,
                                           const HarnessCheckRequest& request);

}  // namespace culprit
