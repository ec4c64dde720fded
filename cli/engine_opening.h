#pragma once

// What a command that builds the engine and measures on this host opens first, in one
// place: the terminal's build progress, the host probe and the engine's builds. About ten
// commands opened these three by hand, each a little differently (one without a build
// progress, so that a wait for another culprit's build went unsaid); one opening makes
// every command say builds, waits and the engine layer's notes alike.

#include <memory>

#include "base/result.h"
#include "cli/stderr_build_progress.h"
#include "probes/build_provider.h"
#include "probes/engine_builds.h"
#include "probes/host.h"

namespace culprit {

/// Not movable: the builds hold a pointer to the build progress, so an opening lives where
/// it was made (OpenEngine returns it on the heap).
class EngineOpening {
 public:
  EngineOpening(const EngineOpening&) = delete;
  EngineOpening& operator=(const EngineOpening&) = delete;

  /// For the commands that walk the engine's history (bisect, investigate, sweep, explain,
  /// build): the engine's repository and build cache must open, else their error.
  static Result<std::unique_ptr<EngineOpening>> WithHistory(const EngineSections& config,
                                                            bool rebuild);
  /// For the commands that measure a revision or the working tree (run, probe, compare,
  /// table, audit, isolate): builds when the engine's repository opens, else the working
  /// tree alone, and a revision is then refused with the repository's error when it is
  /// asked for (MakeEngineBuildProvider), so that an ad-hoc command needs no repository.
  static std::unique_ptr<EngineOpening> ForMeasuring(const EngineSections& config, bool rebuild);

  StderrBuildProgress& build_progress() { return build_progress_; }
  /// The real host (/proc, /sys).
  HostProbe* host() { return host_.get(); }
  BuildProvider& builds() { return *builds_; }
  /// The engine's builds; only of an opening WithHistory (asserted).
  EngineBuilds& engine_builds();

 private:
  EngineOpening();

  StderrBuildProgress build_progress_;  ///< Declared first: outlives the builds.
  std::unique_ptr<HostProbe> host_;
  std::unique_ptr<BuildProvider> builds_;
  EngineBuilds* engine_builds_ = nullptr;  ///< builds_, when WithHistory opened it.
};

}  // namespace culprit
