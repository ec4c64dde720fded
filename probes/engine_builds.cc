#include "probes/engine_builds.h"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "engine/artifact_paths.h"
#include "engine/compiler_cache.h"

namespace culprit {
namespace {

// Without a revision the engine is measured as it stands: artifacts are the
// working tree's own files, and nothing is built.
ResolvedBuild WorktreeBuild(const EngineSections& config) {
  ResolvedBuild build;
  build.revision = "worktree";
  build.context.tree = config.engine.repo;
  for (const std::string& artifact : config.engine.artifacts) {
    build.context.artifacts[ArtifactName(artifact)] = config.engine.repo / artifact;
  }
  return build;
}

// Used when the engine's directory is not a git repository: the working tree
// can still be measured, and asking for a revision says why it cannot.
class WorktreeOnlyProvider : public BuildProvider {
 public:
  WorktreeOnlyProvider(const EngineSections& config, Error repo_error)
      : config_(config), repo_error_(std::move(repo_error)) {}

  Result<ResolvedBuild> Resolve(const std::optional<std::string>& revision) override {
    if (revision) {
      return repo_error_.WithContext(fmt::format("cannot build revision '{}'", *revision));
    }
    return WorktreeBuild(config_);
  }
  std::optional<bool> KnownBuildable(const std::string&) const override { return std::nullopt; }

 private:
  const EngineSections& config_;
  Error repo_error_;
};

}  // namespace

namespace {

const char* InheritedPath() {
  const char* path = std::getenv("PATH");
  return path != nullptr ? path : "";
}

/// ToolchainFingerprint of `path`, asked once per process: every cache a culprit opens would
/// otherwise run each compiler's --version again.
const std::string& Toolchain(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = known.find(path);
  if (found == known.end()) found = known.emplace(path, ToolchainFingerprint(path)).first;
  return found->second;
}

}  // namespace

BuildSettings MakeBuildSettings(const EngineSections& config) {
  BuildSettings settings;
  settings.repo = config.engine.repo;
  settings.steps = config.engine.build;
  settings.artifacts = config.engine.artifacts;
  settings.timeout = config.engine.build_timeout;
  settings.clean = config.engine.mode == BuildMode::kClean;
  settings.cache_dir = config.cache.dir;
  settings.toolchain = Toolchain(InheritedPath());
  settings.fetch = config.engine.fetch;
  if (config.engine.compiler_cache) {
    // EngineBuilds::Open refuses a configuration whose ccache cannot be found; elsewhere a
    // missing ccache leaves the steps as they are written.
    Result<CompilerCacheSettings> ccache = LocateCompilerCache(
        InheritedPath(), config.cache.dir / "ccache", config.engine.compiler_cache_remote);
    if (ccache) settings.compiler_cache = *ccache;
  }
  return settings;
}

Result<std::unique_ptr<EngineBuilds>> EngineBuilds::Open(const EngineSections& config, bool rebuild,
                                                         BuildProgress* progress) {
  if (!config.engine.present) {
    return Error::Usage(fmt::format("{} has no [engine] section: culprit cannot build the engine",
                                    config.file.string()))
        .WithHint(
            "add [engine] with repo and build = [[...]] (`culprit init` writes one) to measure "
            "revisions; without it, culprit measures the working tree as it stands");
  }
  // Where the file says it, before libgit2's less precise "no repository at or above".
  CULPRIT_TRY(CheckEngineRepository(config.engine, RepositoryUse::kBuild));
  if (config.engine.compiler_cache) {
    Result<CompilerCacheSettings> ccache = LocateCompilerCache(
        InheritedPath(), config.cache.dir / "ccache", config.engine.compiler_cache_remote);
    if (!ccache) return ccache.error().WithContext(config.file.string());
  }
  Result<GitRepo> repo = GitRepo::Open(config.engine.repo);
  if (!repo) return repo.error().WithContext("opening the engine's repository ([engine] repo)");
  return std::unique_ptr<EngineBuilds>(
      new EngineBuilds(config, std::move(*repo), rebuild, progress));
}

Result<std::unique_ptr<EngineBuilds>> EngineBuilds::OpenAdjusted(
    const EngineSections& config, BuildProgress* progress,
    const std::function<void(BuildSettings&)>& adjust) {
  Result<std::unique_ptr<EngineBuilds>> opened = Open(config, false, progress);
  if (!opened) return opened.error();
  return std::unique_ptr<EngineBuilds>(
      new EngineBuilds(config, std::move((*opened)->repo_), false, progress, adjust));
}

EngineBuilds::EngineBuilds(const EngineSections& config, GitRepo repo, bool rebuild,
                           BuildProgress* progress,
                           const std::function<void(BuildSettings&)>& adjust)
    : config_(config), repo_(std::move(repo)), rebuild_(rebuild), progress_(progress) {
  BuildSettings settings = MakeBuildSettings(config_);
  if (adjust) adjust(settings);
  cache_ = std::make_unique<BuildCache>(repo_, std::move(settings));
}

bool EngineBuilds::NeedsSourceTree() const {
  for (const auto& [name, query] : config_.queries) {
    if (query.cwd.find("{tree}") != std::string::npos) return true;
    for (const std::string& word : query.command) {
      if (word.find("{tree}") != std::string::npos) return true;
    }
  }
  return false;
}

Result<ResolvedBuild> EngineBuilds::Resolve(const std::optional<std::string>& revision) {
  if (!revision) {
    ResolvedBuild build = WorktreeBuild(config_);
    if (Result<std::string> head = repo_.Resolve("HEAD")) build.commit = *head;
    return build;
  }
  Result<std::string> commit = repo_.Resolve(*revision);
  if (!commit) return commit.error();
  Result<ResolvedBuild> build = ResolveCommit(*commit);
  if (!build) return build.error();
  build->revision = *revision;
  build->context.rev = *revision;
  return build;
}

Result<ResolvedBuild> EngineBuilds::ResolveCommit(const std::string& commit) {
  const bool rebuild = rebuild_ && !rebuilt_.contains(commit);
  Result<Build> made = cache_->Ensure(commit, rebuild, progress_);
  if (!made) return made.error();
  if (rebuild) rebuilt_.insert(commit);
  ResolvedBuild build;
  build.revision = commit;
  build.commit = made->commit;
  build.tree = made->tree;
  build.reused = made->reused;
  build.in_use = made->in_use;
  build.context.artifacts = made->artifacts;
  build.context.rev = commit;
  build.context.commit = made->commit;
  if (NeedsSourceTree()) {
    Result<std::filesystem::path> tree = cache_->SourceTree(*made);
    if (!tree) return tree.error();
    build.context.tree = *tree;
  } else {
    build.context.tree = made->dir;
  }
  return build;
}

std::unique_ptr<BuildProvider> MakeEngineBuildProvider(const EngineSections& config, bool rebuild,
                                                       BuildProgress* progress) {
  Result<std::unique_ptr<EngineBuilds>> builds = EngineBuilds::Open(config, rebuild, progress);
  if (!builds) return std::make_unique<WorktreeOnlyProvider>(config, builds.error());
  return std::move(*builds);
}

}  // namespace culprit
