#pragma once

// `culprit explain C [--parent P] -q Q`: why a change moved a query, at the function level.
// Builds C and its parent (C's first parent unless P is given) with the build cache, runs
// the query once at each under valgrind's cachegrind (engine/cachegrind.h; ASLR off,
// instructions, with the cache simulation when asked or when the query's metric is a
// simulated miss count), diffs the two runs per function (engine/function_profile.h) and
// places each function against the change: in a file the change touched, on the query's
// path but untouched (the "impossible" culprit's fingerprint), or neither
// (investigate/explain_report.h). Archives an `explain` record (records/explain_payload.h).
//
// One run per side: instruction counts under cachegrind repeat within 0.1% from run to run
// (docs/usage.md), far below the moves worth explaining. A run that fails under valgrind is
// an error that says so; nothing falls back to wall time.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "engine/build_cache.h"
#include "investigate/explain_report.h"
#include "probes/engine_builds.h"
#include "probes/host.h"
#include "probes/probe_sections.h"

namespace culprit {

struct ExplainRequest {
  std::string change;                 ///< C, any revision git understands.
  std::optional<std::string> parent;  ///< --parent P; default: C's first parent.
  std::string query;                  ///< -q Q; may be empty when only one query exists.
  bool cache_sim = false;             ///< --cache-sim: simulated D1 and LL misses as well.
};

struct ExplainContext {
  const ProbeSections& config;
  EngineBuilds& builds;
  const HostProbe* host = nullptr;          ///< Null: no host facts in the record (tests).
  BuildProgress* build_progress = nullptr;  ///< For a code_path command's build.
  /// Told each step as it starts ("running series.count under cachegrind at 1a2b3c4d5e");
  /// may be empty.
  std::function<void(std::string_view)> say;
};

struct ExplainOutcome {
  ExplainFacts facts;
  Record record;
  std::filesystem::path record_path;
};

/// Refused before anything is built: a query that is not configured (did-you-mean), a
/// [residency] plan's name (it is measured inside the one harness process, which valgrind
/// cannot count per run), no valgrind (named, with `apt install valgrind`), a revision that
/// does not exist, a root commit without --parent, an archive that cannot be written. After
/// that: a build that fails, and a run that fails under valgrind (its reason), are errors;
/// an archive that fails at the end leaves the record in a fallback file, said.
Result<ExplainOutcome> RunExplain(const ExplainContext& context, const ExplainRequest& request);

/// What `culprit explain` prints: the facts with the `top` functions that moved most, then
/// the record's path.
std::string ExplainOutcomeText(const ExplainOutcome& outcome, size_t top);

}  // namespace culprit
