#pragma once

// `culprit investigate`: the whole ladder of DESIGN.md, each step archived,
// each step's outcome deciding the next:
//   1. confirm the move: good vs bad in one sitting (`compare` record);
//      NULL or INCONCLUSIVE stops the ladder here (not reproducible);
//   2. probe every [overrides] hypothesis at the bad end (`probe` records);
//   3. bisect, verified (bisect/bisect_runner.h, as it is);
//   4. relevance: the culprit's changed files against the query's code_path;
//   5. off the path: every residency plan of the query isolated on the
//      culprit build and on its parent (`isolate` records); on the path: the
//      files it changes that the query runs;
//   6. one `investigation` record linking every record of the run, with the
//      conclusion in a few sentences.
// The ladder runs on the interfaces the bisect runs on (InvestigationEngine:
// history, builds, measurer), so tests run it on a scripted world, and it
// takes the bisect up through BisectRunner::RunOrResume, never reading the
// bisect's state file itself.
// The state lives in <config dir>/.culprit/investigate.json, rewritten
// atomically after every step, so `--resume` after Ctrl-C or kill -9
// measures no finished step again (an interrupted bisect resumes inside
// itself: bisect resume).
//
// The ladder is here; what it knows and keeps across --resume is
// investigate/investigation_state.h; what it says (each step's sentence, the
// conclusion, the investigation record) is investigate/investigation_report.h,
// pure functions of the state.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "base/result.h"
#include "bisect/bisect_config.h"
#include "engine/history.h"
#include "investigate/investigation_report.h"
#include "investigate/investigation_state.h"
#include "probes/build_provider.h"
#include "probes/engine_builds.h"
#include "probes/host.h"
#include "probes/measurer.h"

namespace culprit {

/// Progress (stderr) and findings (stdout), for the user.
class InvestigationReporter {
 public:
  virtual ~InvestigationReporter() = default;
  virtual void Line(const std::string& text) = 0;
  virtual void Result(const std::string& text) = 0;
  /// A step ended after `wall` of measured wall time in this process.
  virtual void StepTimed(InvestigationStep step, std::chrono::milliseconds wall) {}
};

/// What the ladder runs on: the bisect's interfaces (BisectEngine). The confirmation, the
/// bisect and the relevance step use nothing else; the probes and the isolations take
/// their builds from `builds` and run the engine their own way (an override's environment,
/// the harness). Every part must outlive the ladder.
struct InvestigationEngine {
  const History& history;
  BuildProvider& builds;
  Measurer& measurer;
  BuildProgress* progress = nullptr;  ///< Where a code path's coverage build is said; may be null.
  /// The engine's repository and build cache, where the explain step builds under cachegrind;
  /// null (a scripted world): each explain is said not run.
  EngineBuilds* engine_builds = nullptr;
};

/// The real engine: `builds`' repository, `builds` itself and `measurer` (a QueryMeasurer of
/// the same configuration), which must outlive what is returned.
InvestigationEngine EngineInvestigation(EngineBuilds& builds, Measurer& measurer);

struct InvestigationReport {
  InvestigationState state;
  bool stopped = false;               ///< Stopped after request.stop_after; --resume continues.
  std::filesystem::path record_path;  ///< The investigation record (when the ladder ended).
};

/// Starts a new investigation. An unfinished one is a usage error that says
/// to --resume or --restart it.
Result<InvestigationReport> RunInvestigation(const BisectSections& config,
                                             const InvestigationEngine& engine,
                                             const HostProbe* host, InvestigationReporter& reporter,
                                             const InvestigateRequest& request);

/// Continues the saved investigation at its first unfinished step;
/// `stop_after` as in the request. Usage error when there is none to resume.
Result<InvestigationReport> ResumeInvestigation(const BisectSections& config,
                                                const InvestigationEngine& engine,
                                                const HostProbe* host,
                                                InvestigationReporter& reporter,
                                                std::optional<InvestigationStep> stop_after);

}  // namespace culprit
