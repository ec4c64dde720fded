#pragma once

// The engine's builds for measuring: its git repository and build cache,
// opened from the configuration, behind the BuildProvider interface.

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "base/result.h"
#include "engine/build_cache.h"
#include "engine/engine_config.h"
#include "engine/git_repo.h"
#include "probes/build_provider.h"

namespace culprit {

/// [engine] and [cache] as the build cache's settings.
BuildSettings MakeBuildSettings(const EngineSections& config);

class EngineBuilds : public BuildProvider {
 public:
  /// Opens the engine's repository (an error names it when it is not a git
  /// repository) and its build cache. `progress` may be null.
  static Result<std::unique_ptr<EngineBuilds>> Open(const EngineSections& config, bool rebuild,
                                                    BuildProgress* progress);
  /// As Open, for builds made another way: `adjust` edits the build settings
  /// (more steps, variables, artifacts) before the cache opens, so they are
  /// entries of their own. `config.cache.dir` chooses the cache.
  static Result<std::unique_ptr<EngineBuilds>> OpenAdjusted(
      const EngineSections& config, BuildProgress* progress,
      const std::function<void(BuildSettings&)>& adjust);

  Result<ResolvedBuild> Resolve(const std::optional<std::string>& revision) override;
  std::optional<bool> KnownBuildable(const std::string& revision) const override {
    return cache_->KnownBuildable(revision);
  }

  /// Builds (or reuses) one commit; the error of an unbuildable commit is the
  /// cache's, and KnownBuildable(commit) is then false. With `rebuild`, a
  /// commit is rebuilt the first time only.
  Result<ResolvedBuild> ResolveCommit(const std::string& commit);

  GitRepo& repo() { return repo_; }
  BuildCache& cache() { return *cache_; }
  /// Where this provider's builds are said (as opened; may be null): for a caller that builds
  /// through another path (a coverage build for the code path) and should say it alike.
  BuildProgress* progress() const { return progress_; }

 private:
  EngineBuilds(const EngineSections& config, GitRepo repo, bool rebuild, BuildProgress* progress,
               const std::function<void(BuildSettings&)>& adjust = {});
  bool NeedsSourceTree() const;

  /// A copy: OpenAdjusted's callers pass a configuration of their own making.
  EngineSections config_;
  GitRepo repo_;
  std::unique_ptr<BuildCache> cache_;
  bool rebuild_;
  /// The commits rebuilt so far: `rebuild` builds each once per provider. A
  /// second arm of the same commit (compare X X) reuses that build, rather
  /// than rebuild under the first arm, which holds it.
  std::set<std::string> rebuilt_;
  BuildProgress* progress_;
};

}  // namespace culprit
