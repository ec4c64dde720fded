#include "engine/build_cache.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "base/strings.h"
#include "engine/artifact_paths.h"
#include "engine/file_lock.h"
#include "engine/process.h"

namespace culprit {
namespace fs = std::filesystem;
namespace {

constexpr const char* kEntrySchema = "culprit.build/v1";
constexpr const char* kEntryFile = "entry.json";
constexpr const char* kLogFile = "build.log";
constexpr size_t kLogTailLines = 20;
// Build logs of big engines are long; what is kept per stream is bounded so a
// runaway build cannot fill memory, and the log says how much was dropped.
constexpr size_t kStepOutputLimit = 16 << 20;

uint64_t Fnv1a(std::string_view data, uint64_t hash = 14695981039346656037ull) {
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

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
  return fmt::format("{:016x}", Fnv1a(text)).substr(0, 12);
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
  return fmt::format("{}-{:08x}", name, Fnv1a(absolute.string()) & 0xffffffffu);
}

std::string IsoUtc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::optional<nlohmann::json> ReadEntry(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir / kEntryFile, ec)) return std::nullopt;
  Result<std::string> text = ReadFile(dir / kEntryFile);
  if (!text) return std::nullopt;
  nlohmann::json entry = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  // An entry culprit cannot read is treated as absent: rebuilding is always
  // safe. That includes a field of the wrong type, which json::value() below
  // would otherwise throw on.
  if (!entry.is_object()) return std::nullopt;
  for (const char* key : {"schema", "status", "reason", "built_at", "commit", "tree"}) {
    if (entry.contains(key) && !entry[key].is_string()) return std::nullopt;
  }
  for (const char* key : {"seconds", "built_at_unix"}) {
    if (entry.contains(key) && !entry[key].is_number()) return std::nullopt;
  }
  if (entry.value("schema", "") != kEntrySchema) return std::nullopt;
  return entry;
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

std::string LogTail(const fs::path& log) {
  Result<std::string> text = ReadFile(log);
  return text ? TailLines(*text, kLogTailLines) : std::string();
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::chrono::milliseconds Millis(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

Error UnbuildableError(const CommitInfo& commit, const BuildFailure& failure,
                       std::string_view remembered) {
  // The log ends with culprit's own line repeating the reason: leave it out.
  std::string tail = failure.log_tail;
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  if (size_t last = tail.rfind('\n'); std::string_view(tail)
                                          .substr(last == std::string::npos ? 0 : last + 1)
                                          .starts_with("culprit: ")) {
    tail.resize(last == std::string::npos ? 0 : last);
  }
  return Error(fmt::format("commit {} ({}) does not build{}: {}{}{}", commit.short_id,
                           commit.subject, remembered, failure.reason,
                           tail.empty() ? "" : "\nlast lines of the build log:\n", tail))
      .WithHint(fmt::format(
          "the whole log is at {}; culprit will not try this commit again unless you pass "
          "--rebuild",
          failure.log.string()));
}

/// Removes a directory tree on scope exit (the clean-mode checkout).
class RemoveOnExit {
 public:
  explicit RemoveOnExit(fs::path path) : path_(std::move(path)) {}
  ~RemoveOnExit() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  RemoveOnExit(const RemoveOnExit&) = delete;
  RemoveOnExit& operator=(const RemoveOnExit&) = delete;

 private:
  fs::path path_;
};

}  // namespace

void StderrBuildProgress::OnStart(const CommitInfo& commit) {
  fmt::print(stderr, "culprit: building {} ({})\n", commit.short_id, commit.subject);
}

void StderrBuildProgress::OnStep(const CommitInfo& commit, int step, int steps,
                                 const std::string& command, std::chrono::milliseconds elapsed) {
  fmt::print(stderr, "culprit: building {}: step {}/{} at {:.1f} s: {}\n", commit.short_id, step,
             steps, elapsed.count() / 1000.0, command);
}

void StderrBuildProgress::OnDone(const CommitInfo& commit, bool ok,
                                 std::chrono::milliseconds elapsed) {
  if (ok) {
    fmt::print(stderr, "culprit: built {} in {:.1f} s\n", commit.short_id,
               elapsed.count() / 1000.0);
  } else {
    fmt::print(stderr, "culprit: {} does not build ({:.1f} s)\n", commit.short_id,
               elapsed.count() / 1000.0);
  }
}

void StderrBuildProgress::OnWaiting(const fs::path& scratch_dir) {
  fmt::print(stderr, "culprit: waiting for another culprit building in {}\n", scratch_dir.string());
}

BuildCache::BuildCache(const GitRepo& repo, BuildSettings settings)
    : repo_(repo), settings_(std::move(settings)) {
  engine_dir_ = settings_.cache_dir / EngineKey(repo_.workdir());
  config_key_ = ConfigKey(settings_);
}

fs::path BuildCache::EntryDir(const std::string& commit) const {
  return engine_dir_ / "builds" / (commit + "-" + config_key_);
}

std::optional<Result<Build>> BuildCache::FromCache(const CommitInfo& commit) const {
  fs::path dir = EntryDir(commit.id);
  std::optional<nlohmann::json> entry = ReadEntry(dir);
  if (!entry) return std::nullopt;
  if (entry->value("status", "") != "buildable") {
    BuildFailure failure{commit.id, entry->value("reason", "the build failed"), dir / kLogFile,
                         LogTail(dir / kLogFile)};
    return UnbuildableError(
        commit, failure,
        fmt::format(" (remembered from the attempt at {})", entry->value("built_at", "?")));
  }
  Build build;
  build.commit = commit.id;
  build.tree = commit.tree_id;
  build.dir = dir;
  build.reused = true;
  build.build_seconds = entry->value("seconds", 0.0);
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
    if (std::optional<Result<Build>> cached = FromCache(*commit)) return std::move(*cached);
  }

  fs::path scratch = engine_dir_ / "scratch";
  Result<FileLock> lock = FileLock::Acquire(scratch / "lock", [&] {
    if (progress != nullptr) {
      progress->OnWaiting(scratch);
    } else {
      fmt::print(stderr, "culprit: waiting for another culprit building in {}\n", scratch.string());
    }
  });
  if (!lock) return lock.error();
  if (!rebuild) {
    // Another process may have built it while this one waited for the lock.
    if (std::optional<Result<Build>> cached = FromCache(*commit)) return std::move(*cached);
  }
  return BuildNow(*commit, progress);
}

Result<Build> BuildCache::BuildNow(const CommitInfo& commit, BuildProgress* progress) {
  auto start = std::chrono::steady_clock::now();
  std::time_t started_at = std::time(nullptr);
  fs::path entry_dir = EntryDir(commit.id);
  std::error_code ec;
  fs::remove_all(entry_dir, ec);
  fs::create_directories(entry_dir / "artifacts", ec);
  if (ec) {
    return Error(fmt::format("cannot create cache entry {}: {}", entry_dir.string(), ec.message()))
        .WithHint("check that the cache directory is writable, or set [cache] dir");
  }
  if (progress != nullptr) progress->OnStart(commit);

  fs::path checkout = engine_dir_ / "scratch" / "src";
  std::optional<RemoveOnExit> remove_checkout;
  if (settings_.clean) {
    std::string pattern = (engine_dir_ / "scratch" / "clean-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      return Error(fmt::format("cannot create a clean checkout under {}",
                               (engine_dir_ / "scratch").string()));
    }
    checkout = pattern;
    remove_checkout.emplace(checkout);
  }
  Status materialized = repo_.Materialize(commit.id, checkout);
  if (!materialized) return materialized.error().WithContext("building " + commit.short_id);

  fs::path log_path = entry_dir / kLogFile;
  std::ofstream log(log_path, std::ios::binary | std::ios::trunc);
  log << fmt::format("culprit build of {} ({})\nin {}\n", commit.id, commit.subject,
                     checkout.string());

  auto remember = [&](bool buildable, const std::string& reason) -> Status {
    nlohmann::json entry = {
        {"schema", kEntrySchema},
        {"commit", commit.id},
        {"tree", commit.tree_id},
        {"subject", commit.subject},
        {"steps", settings_.steps},
        {"artifacts", settings_.artifacts},
        {"status", buildable ? "buildable" : "unbuildable"},
        {"reason", reason},
        {"built_at", IsoUtc(started_at)},
        {"built_at_unix", static_cast<int64_t>(started_at)},
        {"seconds", Seconds(std::chrono::steady_clock::now() - start)},
        {"mode", settings_.clean ? "clean" : "incremental"},
    };
    return WriteFileAtomically(entry_dir / kEntryFile, entry.dump(2) + "\n");
  };
  auto fail = [&](const std::string& reason) -> Error {
    log << "culprit: " << reason << "\n";
    log.close();
    if (progress != nullptr)
      progress->OnDone(commit, false, Millis(std::chrono::steady_clock::now() - start));
    Status saved = remember(false, reason);
    if (!saved) return saved.error();
    return UnbuildableError(commit, BuildFailure{commit.id, reason, log_path, LogTail(log_path)},
                            "");
  };

  const int steps = static_cast<int>(settings_.steps.size());
  for (int i = 0; i < steps; ++i) {
    if (InterruptRequested()) {
      return Error::Interrupted(fmt::format("interrupted while building {}", commit.short_id));
    }
    ProcessSpec spec;
    spec.argv = settings_.steps[i];
    spec.cwd = checkout;
    spec.timeout = settings_.timeout;
    spec.output_limit = kStepOutputLimit;
    std::string command = FormatCommand(spec.argv);
    if (progress != nullptr) {
      progress->OnStep(commit, i + 1, steps, command,
                       Millis(std::chrono::steady_clock::now() - start));
    }
    log << fmt::format("\n$ {}\n", command);
    log.flush();
    ProcessResult result = RunProcess(spec);
    ++build_steps_run_;
    log << result.stdout_text;
    if (result.stdout_bytes > result.stdout_text.size()) {
      log << fmt::format("\n[culprit: {} more bytes of stdout not kept]\n",
                         result.stdout_bytes - result.stdout_text.size());
    }
    if (result.stderr_bytes > result.stderr_text.size()) {
      log << fmt::format("[culprit: the first {} bytes of stderr were not kept]\n",
                         result.stderr_bytes - result.stderr_text.size());
    }
    log << result.stderr_text;
    log.flush();
    std::string what =
        fmt::format("step {}/{} `{}` {}", i + 1, steps, command, result.Describe(spec));
    switch (result.outcome) {
      case ProcessOutcome::kExited:
        if (result.exit_code == 0) continue;
        return fail(what);
      case ProcessOutcome::kSignaled:
      case ProcessOutcome::kTimedOut:
        return fail(what);
      case ProcessOutcome::kInterrupted:
        log << "culprit: interrupted\n";
        return Error::Interrupted(
            fmt::format("interrupted while building {}: {}", commit.short_id, what));
      case ProcessOutcome::kFailedToStart:
        // Not the commit's fault (a missing tool): not remembered.
        log << "culprit: " << what << "\n";
        return Error(fmt::format("cannot build {}: {}", commit.short_id, what))
            .WithHint(
                "check the [engine] build steps in culprit.toml and that their programs "
                "are installed");
    }
  }

  for (const std::string& artifact : settings_.artifacts) {
    fs::path source = checkout / artifact;
    fs::path target = entry_dir / "artifacts" / fs::path(artifact).filename();
    if (!fs::exists(source, ec)) {
      return fail(fmt::format("the build succeeded but did not produce artifact '{}' (no {})",
                              artifact, source.string()));
    }
    fs::copy(source, target,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing |
                 fs::copy_options::copy_symlinks,
             ec);
    if (ec) {
      return Error(
          fmt::format("cannot copy artifact {} into the cache: {}", source.string(), ec.message()));
    }
  }
  log << "\nculprit: build succeeded\n";
  log.close();
  CULPRIT_TRY(remember(true, ""));
  if (progress != nullptr) {
    progress->OnDone(commit, true, Millis(std::chrono::steady_clock::now() - start));
  }
  std::optional<Result<Build>> build = FromCache(commit);
  if (!build || !*build)
    return Error(fmt::format("the cache entry {} vanished", entry_dir.string()));
  (*build)->reused = false;
  return std::move(*build);
}

bool BuildCache::IsCached(std::string_view revision) const {
  return KnownBuildable(revision) == std::optional<bool>(true);
}

std::optional<bool> BuildCache::KnownBuildable(std::string_view revision) const {
  Result<std::string> commit = repo_.Resolve(revision);
  if (!commit) return std::nullopt;
  std::optional<nlohmann::json> entry = ReadEntry(EntryDir(*commit));
  if (!entry) return std::nullopt;
  return entry->value("status", "") == "buildable";
}

std::optional<BuildFailure> BuildCache::Failure(std::string_view revision) const {
  Result<std::string> commit = repo_.Resolve(revision);
  if (!commit) return std::nullopt;
  fs::path dir = EntryDir(*commit);
  std::optional<nlohmann::json> entry = ReadEntry(dir);
  if (!entry || entry->value("status", "") == "buildable") return std::nullopt;
  return BuildFailure{*commit, entry->value("reason", ""), dir / kLogFile, LogTail(dir / kLogFile)};
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

Result<int> BuildCache::Prune(std::chrono::hours older_than, bool stale_too) {
  fs::path scratch = engine_dir_ / "scratch";
  Result<FileLock> lock = FileLock::Acquire(scratch / "lock", [&] {
    fmt::print(stderr, "culprit: waiting for another culprit building in {}\n", scratch.string());
  });
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
