#include "engine/build_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "base/json_text.h"
#include "base/strings.h"
#include "base/timestamp.h"
#include "engine/artifact_paths.h"
#include "engine/build_attempt.h"
#include "engine/build_entry.h"
#include "engine/file_lock.h"
#include "engine/leftover_step.h"

namespace culprit {
namespace fs = std::filesystem;
namespace {

std::string ConfigKey(const BuildSettings& settings) {
  // Length-prefixed, so that ["a b"] and ["a", "b"] differ.
  std::string text = "culprit.build/v1\n";
  for (const auto& step : settings.steps) {
    text += fmt::format("step {}\n", step.size());
    for (const std::string& arg : step) text += fmt::format("{}:{}\n", arg.size(), arg);
  }
  for (const std::string& artifact : settings.artifacts) {
    text += fmt::format("artifact {}:{}\n", artifact.size(), artifact);
  }
  // Absent when empty, so that the keys of existing caches stay the same.
  for (const auto& [name, value] : settings.env) {
    text += fmt::format("env {}:{}={}:{}\n", name.size(), name, value.size(), value);
  }
  if (!settings.toolchain.empty()) {
    text += fmt::format("toolchain {}:{}\n", settings.toolchain.size(), settings.toolchain);
  }
  return fmt::format("{:016x}", Fnv1a64(text)).substr(0, 12);
}

std::string EngineKey(const fs::path& workdir) {
  std::error_code ec;
  fs::path absolute = fs::weakly_canonical(workdir, ec);
  if (ec) absolute = fs::absolute(workdir);
  std::string name;
  for (char c : absolute.filename().string()) {
    name +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  }
  if (name.empty()) name = "engine";
  return fmt::format("{}-{:08x}", name, Fnv1a64(absolute.string()) & 0xffffffffu);
}

uintmax_t DirectoryBytes(const fs::path& dir) {
  uintmax_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) total += it->file_size(ec);
  }
  return total;
}

/// Takes the scratch directory's lock, saying so if another culprit holds it,
/// then stops a build step that a killed culprit left running there.
Result<FileLock> LockScratch(const fs::path& scratch, BuildProgress* progress) {
  Result<FileLock> lock = FileLock::Acquire(scratch / "lock", [&] {
    if (progress != nullptr) progress->OnWaiting(scratch);
  });
  if (!lock) return lock.error();
  if (std::optional<std::string> stopped = StopLeftoverStep(scratch / "step-group")) {
    if (progress != nullptr) progress->OnNote(*stopped);
  }
  // A culprit killed between starting a step and writing its group down left no record;
  // the step's processes still carry the marker of this scratch directory.
  if (std::optional<std::string> stopped = StopMarkedSteps(scratch)) {
    if (progress != nullptr) progress->OnNote(*stopped);
  }
  return lock;
}

}  // namespace

BuildCache::BuildCache(const GitRepo& repo, BuildSettings settings)
    : repo_(repo), settings_(std::move(settings)) {
  engine_dir_ = settings_.cache_dir / EngineKey(repo_.workdir());
  config_key_ = ConfigKey(settings_);
}

fs::path BuildCache::EntryDir(const std::string& commit) const {
  return engine_dir_ / "builds" / (commit + "-" + config_key_);
}

fs::path BuildCache::EntryLock(const std::string& entry_name) const {
  // Beside builds/, not in it: an entry's directory is emptied when it is
  // rebuilt, and Prune takes what is in builds/ for entries.
  return engine_dir_ / "entry-locks" / (entry_name + ".lock");
}

std::optional<Result<Build>> BuildCache::FromCacheHeld(const CommitInfo& commit,
                                                       BuildProgress* progress) const {
  // Locked before the entry is read: once held, no rebuild or prune can
  // change it, so what FromCache finds is what the holder measures.
  Result<FileLock> lock = FileLock::Acquire(
      EntryLock(EntryDir(commit.id).filename().string()),
      [&] {
        if (progress != nullptr) {
          progress->OnNote(fmt::format("waiting for another culprit building {}", commit.short_id));
        }
      },
      LockMode::kShared);
  if (!lock && lock.error().kind() == ErrorKind::kInterrupted) return Result<Build>(lock.error());
  std::optional<Result<Build>> cached = FromCache(commit);
  // A lock that cannot be had at all (a read-only cache) protects nothing, and
  // is no reason to refuse a build that is there.
  if (lock && cached && *cached)
    (*cached)->in_use = std::make_shared<const FileLock>(std::move(*lock));
  return cached;
}

std::optional<Result<Build>> BuildCache::FromCache(const CommitInfo& commit) const {
  fs::path dir = EntryDir(commit.id);
  std::optional<nlohmann::json> entry = ReadEntry(dir);
  if (!entry) return std::nullopt;
  switch (Recall(*entry, settings_.timeout)) {
    case Memory::kRetry:
      return std::nullopt;
    case Memory::kUnbuildable:
      return UnbuildableError(commit, RememberedFailure(commit.id, dir, *entry),
                              entry->value("built_at", "?"));
    case Memory::kBuildable:
      break;
  }
  Build build;
  build.commit = commit.id;
  build.tree = commit.tree_id;
  build.dir = dir;
  build.reused = true;
  build.build_seconds = entry->value("seconds", 0.0);
  build.fetched = entry->value("fetched", false);
  if (auto cached = entry->find("compiler_cache"); cached != entry->end() && cached->is_object()) {
    CompilerCacheStats stats;
    stats.hits = cached->value("hits", 0);
    stats.misses = cached->value("misses", 0);
    stats.remote_hits = cached->value("remote_hits", 0);
    stats.remote_errors = cached->value("remote_errors", 0);
    stats.uncacheable = cached->value("uncacheable", 0);
    build.compiler_cache = stats;
  }
  std::error_code ec;
  for (const std::string& artifact : settings_.artifacts) {
    std::string name = ArtifactName(artifact);
    fs::path cached = dir / "artifacts" / name;
    // Someone deleted part of the cache: rebuild rather than fail.
    if (!fs::exists(cached, ec)) return std::nullopt;
    build.artifacts[name] = cached;
  }
  return build;
}

Result<Build> BuildCache::Ensure(std::string_view revision, bool rebuild, BuildProgress* progress) {
  if (std::optional<ArtifactProblem> problem = FindArtifactProblem(settings_.artifacts)) {
    const std::string& artifact = settings_.artifacts[problem->index];
    if (problem->kind == ArtifactProblem::Kind::kNotRelative && !problem->name.empty()) {
      return Error::Usage(
          fmt::format("artifact '{}' is not a path relative to the engine's checkout", artifact));
    }
    return Error::Usage(fmt::format("artifact '{}' has an empty or duplicate file name", artifact))
        .WithHint(
            "artifacts are looked up by file name ({artifact:NAME}); give each a "
            "distinct one");
  }
  for (const auto& step : settings_.steps) {
    if (step.empty()) return Error::Usage("a build step is an empty command");
  }
  Result<CommitInfo> commit = repo_.Commit(revision);
  if (!commit) return commit.error();

  if (!rebuild) {
    // A usable build, or a remembered failure (an unbuildable commit).
    if (std::optional<Result<Build>> cached = FromCacheHeld(*commit, progress))
      return std::move(*cached);
  }

  Result<FileLock> lock = LockScratch(engine_dir_ / "scratch", progress);
  if (!lock) return lock.error();
  if (!rebuild) {
    // Another process may have built it while this one waited for the lock.
    // (Waiting for the entry's lock here cannot deadlock: whoever holds it
    // exclusive also holds the scratch lock, which is this process's now.)
    if (std::optional<Result<Build>> cached = FromCacheHeld(*commit, progress))
      return std::move(*cached);
  }
  return BuildNow(*commit, rebuild, progress);
}

Result<Build> BuildCache::BuildNow(const CommitInfo& commit, bool rebuild,
                                   BuildProgress* progress) {
  // The entry is emptied and made again: not under a sitting that measures it.
  const fs::path entry_lock = EntryLock(EntryDir(commit.id).filename().string());
  Result<std::optional<FileLock>> exclusive = FileLock::TryAcquire(entry_lock);
  if (!exclusive) return exclusive.error();
  if (!exclusive->has_value()) {
    return Error(fmt::format("cannot {} {} ({}): a running measurement uses its build, whose "
                             "artifacts would change or vanish under it",
                             rebuild ? "rebuild" : "build", commit.short_id, commit.subject))
        .WithHint(fmt::format(
            "run again once that measurement has ended (another culprit, or an earlier arm of "
            "this one); the entry is {}",
            EntryDir(commit.id).string()));
  }
  CULPRIT_TRY(RunBuildAttempt(repo_, commit, settings_, EntryDir(commit.id),
                              engine_dir_ / "scratch", progress, build_steps_run_));
  // The entry is made, from here on as any reader holds it. The conversion is not atomic,
  // but only a holder of the scratch lock (held here) ever takes it exclusive.
  CULPRIT_TRY((*exclusive)->ConvertToShared());
  std::optional<Result<Build>> build = FromCache(commit);
  if (!build || !*build) {
    return Error(fmt::format("the cache entry {} vanished", EntryDir(commit.id).string()));
  }
  (*build)->reused = false;
  (*build)->in_use = std::make_shared<const FileLock>(std::move(**exclusive));
  return std::move(*build);
}

std::optional<bool> BuildCache::KnownBuildable(std::string_view revision) const {
  Result<std::string> commit = repo_.Resolve(revision);
  if (!commit) return std::nullopt;
  std::optional<nlohmann::json> entry = ReadEntry(EntryDir(*commit));
  if (!entry) return std::nullopt;
  switch (Recall(*entry, settings_.timeout)) {
    case Memory::kBuildable:
      return true;
    case Memory::kUnbuildable:
      return false;
    case Memory::kRetry:
      break;
  }
  return std::nullopt;
}

std::optional<BuildFailure> BuildCache::Failure(std::string_view revision) const {
  Result<std::string> commit = repo_.Resolve(revision);
  if (!commit) return std::nullopt;
  fs::path dir = EntryDir(*commit);
  std::optional<nlohmann::json> entry = ReadEntry(dir);
  if (!entry || Recall(*entry, settings_.timeout) != Memory::kUnbuildable) return std::nullopt;
  return RememberedFailure(*commit, dir, *entry);
}

Result<fs::path> BuildCache::SourceTree(Build& build) const {
  fs::path dir = engine_dir_ / "sources" / build.tree;
  Result<std::string> stamp = ReadFile(dir / GitRepo::kTreeStampFile);
  if (!stamp || *stamp != build.tree + "\n") {
    Result<FileLock> lock = FileLock::Acquire(engine_dir_ / "sources" / (build.tree + ".lock"));
    if (!lock) return lock.error();
    CULPRIT_TRY(repo_.Materialize(build.commit, dir));
  }
  build.source_dir = dir;
  return dir;
}

Result<std::vector<CachedBuildInfo>> BuildCache::List() const {
  std::vector<std::pair<int64_t, CachedBuildInfo>> found;
  std::error_code ec;
  fs::path builds = engine_dir_ / "builds";
  if (!fs::exists(builds, ec)) return std::vector<CachedBuildInfo>();
  for (const fs::directory_entry& dir : fs::directory_iterator(builds, ec)) {
    std::optional<nlohmann::json> entry = ReadEntry(dir.path());
    if (!entry) continue;
    CachedBuildInfo info;
    info.commit = entry->value("commit", "");
    info.tree = entry->value("tree", "");
    info.buildable = entry->value("status", "") == "buildable";
    info.timed_out =
        !info.buildable && entry->value("failure", kFailed) == std::string_view(kTimedOut);
    info.current = dir.path().filename().string() == info.commit + "-" + config_key_;
    info.bytes = DirectoryBytes(dir.path());
    info.built_at = entry->value("built_at", "");
    info.seconds = entry->value("seconds", 0.0);
    info.dir = dir.path();
    found.emplace_back(entry->value("built_at_unix", int64_t{0}), std::move(info));
  }
  if (ec) return Error(fmt::format("cannot list {}: {}", builds.string(), ec.message()));
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<CachedBuildInfo> infos;
  for (auto& [time, info] : found) infos.push_back(std::move(info));
  return infos;
}

Result<int> BuildCache::Prune(std::chrono::hours older_than, bool stale_too,
                              std::vector<std::string>* in_use, BuildProgress* progress) {
  Result<FileLock> lock = LockScratch(engine_dir_ / "scratch", progress);
  if (!lock) return lock.error();
  std::error_code ec;
  fs::path builds = engine_dir_ / "builds";
  int removed = 0;
  auto now = static_cast<int64_t>(std::time(nullptr));
  std::set<std::string> kept_trees;
  if (fs::exists(builds, ec)) {
    for (const fs::directory_entry& dir : fs::directory_iterator(builds, ec)) {
      std::optional<nlohmann::json> entry = ReadEntry(dir.path());
      bool remove = !entry;  // an interrupted or failed-to-start build
      if (entry) {
        int64_t age = now - entry->value("built_at_unix", int64_t{0});
        bool current =
            dir.path().filename().string() == entry->value("commit", "") + "-" + config_key_;
        remove = age >= std::chrono::duration_cast<std::chrono::seconds>(older_than).count() ||
                 (stale_too && !current);
        if (!remove) kept_trees.insert(entry->value("tree", ""));
      }
      if (!remove) continue;
      // Held exclusive while it goes; an entry a measurement holds stays.
      Result<std::optional<FileLock>> owned =
          FileLock::TryAcquire(EntryLock(dir.path().filename().string()));
      if (!owned) return owned.error();
      if (!owned->has_value()) {
        const std::string commit = entry ? entry->value("commit", "") : std::string();
        if (entry) kept_trees.insert(entry->value("tree", ""));
        if (in_use != nullptr) {
          in_use->push_back(commit.empty() ? dir.path().filename().string() : commit);
        }
        continue;
      }
      fs::remove_all(dir.path(), ec);
      if (ec) return Error(fmt::format("cannot remove {}: {}", dir.path().string(), ec.message()));
      if (entry) ++removed;
    }
  }
  // Pristine source trees no remaining build refers to.
  fs::path sources = engine_dir_ / "sources";
  if (fs::exists(sources, ec)) {
    for (const fs::directory_entry& dir : fs::directory_iterator(sources, ec)) {
      std::string name = dir.path().filename().string();
      if (name.ends_with(".lock")) name.resize(name.size() - 5);
      if (!kept_trees.contains(name)) fs::remove_all(dir.path(), ec);
    }
  }
  return removed;
}

}  // namespace culprit
