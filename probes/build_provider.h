#pragma once

// Where an arm's binaries come from: the engine's working tree as it stands
// (no revision), or the build cache's build of a commit. Measuring code asks
// this interface, so tests and the bisect simulator need no git or compiler.

#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "engine/engine_config.h"
#include "engine/query_command.h"

namespace culprit {

class BuildProgress;
class FileLock;

/// The placeholders and provenance of one arm's build.
struct ResolvedBuild {
  ArmContext context;
  std::string revision;  ///< As given; "worktree" for the working tree.
  std::string commit;    ///< Full id; for the working tree, HEAD's id when known.
  std::string tree;      ///< Tree id; "" for the working tree (it may hold uncommitted changes).
  bool reused = false;   ///< Served from the build cache without building.
  /// Holds the cache entry while this build (or a copy) lives, so that no
  /// prune or rebuild, here or in another culprit, changes the binaries a
  /// sitting measures (see Build::in_use). Null for the working tree.
  std::shared_ptr<const FileLock> in_use;
};

class BuildProvider {
 public:
  virtual ~BuildProvider() = default;
  /// The build for `revision`, or the working tree when it is nullopt. Keep
  /// it for as long as its binaries are run: it holds them (in_use).
  virtual Result<ResolvedBuild> Resolve(const std::optional<std::string>& revision) = 0;
  /// Whether `revision` is known to build (false: it failed with the current
  /// steps and is remembered as unbuildable); nullopt when never tried. A
  /// failed Resolve of a commit whose KnownBuildable is not false says nothing
  /// about the commit (a step that cannot start, Ctrl-C).
  virtual std::optional<bool> KnownBuildable(const std::string& revision) const = 0;
};

/// The real provider: the working tree of config.engine.repo, or builds made
/// and cached by the BuildCache under config.cache.dir. `progress` may be null.
std::unique_ptr<BuildProvider> MakeEngineBuildProvider(const EngineSections& config, bool rebuild,
                                                       BuildProgress* progress);

}  // namespace culprit
