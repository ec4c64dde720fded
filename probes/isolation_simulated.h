#pragma once

// Simulated figures of a residency plan (`culprit isolate --simulate METRIC`): each
// condition's instructions or simulated cache misses per run of the query, counted by
// valgrind's cachegrind (engine/cachegrind.h).
//
// cachegrind counts a whole process, and a sitting's runs all share one long-lived harness
// process, so no run has a count of its own there. Here each sample of a condition is two
// fresh harness processes under cachegrind, fed a script on stdin:
//   prefix:   the condition's holds, its releases, `run QUERY S` (S settling runs), quit
//   measured: the same, then `run QUERY N`, quit
// and the sample is (measured - prefix) / N: the start-up, the set-up, the settling runs
// and the exit are in both and cancel, so what is left is the N measured runs with the
// condition set up, whatever threads of the process did meanwhile. Counts under cachegrind
// are nearly deterministic, so a few samples suffice.
//
// Threads: valgrind runs one thread at a time, and its default lock lets the thread running
// the query keep it, so a background thread of the engine (a checkpointer, a compactor) hardly
// runs while the query does, unlike on a host with cores. Every process here runs with
// valgrind's --fair-sched=yes (threads take turns, in order), added to VALGRIND_OPTS: then
// what such a thread does while the query runs is in the count, as on a host. On the demo
// engine that is the difference between x1.00 and x5.9 (docs/usage.md, `culprit isolate`).

#include <filesystem>
#include <string>
#include <string_view>

#include "base/result.h"
#include "engine/process.h"
#include "probes/isolation_result.h"
#include "probes/sitting.h"

namespace culprit {

struct SimulatedIsolationOptions {
  MetricRule::Kind kind = MetricRule::Kind::kLlMisses;  ///< A cachegrind metric.
  int samples = 3;                                      ///< Per condition.
  int runs = 3;                                         ///< N of the measured `run QUERY N`.
  int settle_runs = 1;  ///< S: runs in both processes before the measured ones.
  std::filesystem::path valgrind = "valgrind";
  std::string valgrind_version;  ///< Recorded as given.
};

/// valgrind's option that makes the threads of a process take turns (see above).
inline constexpr std::string_view kFairScheduling = "--fair-sched=yes";

/// `inherited` (a VALGRIND_OPTS value, maybe empty) with kFairScheduling appended, unless it
/// already chooses a --fair-sched.
std::string ValgrindOptsWithFairScheduling(const std::string& inherited);

/// The lines a sample's process is fed: the condition's `hold`s, its `release`s,
/// `run QUERY settle_runs` (when > 0), `run QUERY measured_runs` (when > 0), `quit`.
std::string SimulatedScript(const ResidencyCondition& condition, const std::string& query,
                            int settle_runs, int measured_runs);

/// Checks the harness's answers (`stdout`) to `script`: one line per command but `quit`,
/// none of them `error ...`, a `run Q N` answered by `ms` and N values. The error names the
/// command and what came back.
Status CheckScriptAnswers(const std::string& script, const std::string& stdout_text);

/// Every sample of every condition of `plan`, in rounds (each round a sample of each
/// condition, in the plan's order), with `harness` the harness's process (its argv run under
/// valgrind). Stops at the first process that fails or at Ctrl-C, with what it had and
/// `failure` saying why. `progress` may be null.
SimulatedIsolation RunSimulatedIsolation(const ProcessSpec& harness, const IsolationPlan& plan,
                                         const SimulatedIsolationOptions& options,
                                         SittingProgress* progress);

}  // namespace culprit
