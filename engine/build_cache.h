#pragma once

// Builds of engine commits, made on demand and kept per commit.
//
// Cache layout, under BuildSettings::cache_dir (default ~/.cache/culprit):
//
//   <engine-key>/                  one per engine repository: its directory
//                                  name and a hash of its absolute path
//     scratch/src/                 the incremental checkout, switched from
//                                  commit to commit (GitRepo::Materialize), in
//                                  which the build steps run
//     scratch/lock                 flock'd while building (FileLock)
//     scratch/clean-XXXXXX/        clean mode: a fresh checkout per build,
//                                  removed afterwards
//     sources/<tree>/              a pristine source tree per tree id, made on
//                                  demand by SourceTree() (for cwd = "{tree}")
//     entry-locks/<commit>-<config>.lock
//                                  flock'd shared while a build of the entry is
//                                  in use (Build::in_use: a measurement runs
//                                  its binaries), exclusive while it is made
//                                  or removed; kept (empty) when the entry goes
//     builds/<commit>-<config>/    one cache entry:
//       artifacts/<name>           the configured artifacts (exec bits kept)
//       build.log                  every step's command, stdout and stderr (and the
//                                  fetch command's, with [engine] fetch)
//       ccache-stats.log           ccache's statistics log of the build, with
//                                  [engine] compiler_cache
//       entry.json                 schema culprit.build/v1: commit, tree,
//                                  steps, artifacts, status (buildable or
//                                  unbuildable), failure (failed or timed
//                                  out, when unbuildable), timeout_ms (the
//                                  step timeout it ran with), reason,
//                                  built_at, seconds, compiler_cache (ccache's
//                                  hits and misses), fetched / fetch_failure;
//                                  written last and
//                                  atomically, so an entry without it is an
//                                  unfinished build
//
// <config> hashes the build steps, the artifact list, the step variables and the
// toolchain (the compilers on PATH, BuildSettings::toolchain): changing any makes
// old entries stale (they are no longer used, List marks them, Prune can remove
// them). The build timeout and the clean/incremental mode are not part of it:
// they do not change what a successful build produces. A build that timed out
// is tried again once the timeout is longer than the one it ran out of.
//
// culprit never touches the user's working tree or index: every checkout is
// written from git objects into the directories above.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/compiler_cache.h"
#include "engine/file_lock.h"
#include "engine/git_repo.h"

namespace culprit {

/// How to build the engine; the lead maps Config onto it.
struct BuildSettings {
  std::filesystem::path repo;  ///< The engine's repository (informational; GitRepo decides).
  std::vector<std::vector<std::string>> steps;  ///< argv lists, run in order in the checkout.
  std::vector<std::string> artifacts;    ///< Paths relative to the checkout; kept per commit.
  std::chrono::milliseconds timeout{0};  ///< Per step; 0: none.
  bool clean = false;  ///< Build each commit from a fresh checkout instead of incrementally.
  /// Set for every step (e.g. CFLAGS for a coverage build); part of the cache
  /// key, so builds with other variables are other entries.
  std::map<std::string, std::string> env;
  /// Where the cache lives; [cache] dir (see engine/engine_config.h for its default).
  std::filesystem::path cache_dir;
  /// [engine] fetch: a command that places a commit's prebuilt artifacts (from a CI
  /// artifact store) into the entry's artifacts/ directory, tried before building;
  /// "{commit}" and "{artifacts}" in its words are the full commit id and that directory.
  /// Empty: always build. What it fetched is checked as a build's artifacts are (every
  /// configured artifact's file name present); when it fails or fetches too little, the
  /// commit is built, and the entry says which happened.
  std::vector<std::string> fetch;
  /// The build steps run through ccache when enabled (engine/compiler_cache.h).
  CompilerCacheSettings compiler_cache;
  /// The compilers the steps would find (ToolchainFingerprint); part of the cache key, so
  /// an artifact built by another compiler (another host's, or before an upgrade) is never
  /// reused. Empty: not part of the key.
  std::string toolchain;
};

/// A usable build of one commit.
struct Build {
  std::string commit;         ///< Full id.
  std::string tree;           ///< Tree id.
  std::filesystem::path dir;  ///< The cache entry.
  /// Artifact file name (e.g. "eventstore" for "build/eventstore") -> cached copy.
  std::map<std::string, std::filesystem::path> artifacts;
  /// Empty after Ensure; BuildCache::SourceTree fills it on demand (a per-tree
  /// pristine checkout, so two builds can be measured side by side).
  std::filesystem::path source_dir;
  bool reused = false;       ///< Served from the cache: no step ran.
  double build_seconds = 0;  ///< How long the build took when it was made.
  /// What ccache did when the build was made, when it ran through ccache.
  std::optional<CompilerCacheStats> compiler_cache;
  /// The artifacts were fetched ([engine] fetch), not built here.
  bool fetched = false;
  /// The entry's shared lock, held while this Build or any copy of it lives:
  /// meanwhile Prune skips the entry and a rebuild of the commit is refused,
  /// in this process and in any other, so that a sitting never measures
  /// artifacts that vanish or change under it. Null only when the lock file
  /// could not be created (a read-only cache), which protects nothing.
  std::shared_ptr<const FileLock> in_use;
};

/// Why a commit is unbuildable, as remembered in its cache entry.
struct BuildFailure {
  std::string commit;
  std::string reason;  ///< "step 2/2 `cc ...` exited with status 1"
  std::filesystem::path log;
  std::string log_tail;    ///< The last lines of the log.
  bool timed_out = false;  ///< A step ran out of time: tried again with a longer timeout.
  std::chrono::milliseconds timeout{0};  ///< The step timeout of the attempt.
};

/// One entry of the cache, for `culprit build --list`.
struct CachedBuildInfo {
  std::string commit;
  std::string tree;
  bool buildable = false;
  bool timed_out = false;  ///< Unbuildable because a step ran out of time.
  bool current = false;    ///< Made with the current steps and artifacts (else stale).
  uintmax_t bytes = 0;     ///< Disk use of the entry.
  std::string built_at;    ///< UTC, ISO 8601.
  double seconds = 0;      ///< Build duration.
  std::filesystem::path dir;
};

/// Progress of builds, for the user (the CLI prints it on stderr).
class BuildProgress {
 public:
  virtual ~BuildProgress() = default;
  /// A build of `commit` starts (after the checkout lock is held).
  virtual void OnStart(const CommitInfo& commit) {}
  /// Step `step` (1-based) of `steps` starts; `elapsed` since OnStart.
  virtual void OnStep(const CommitInfo& commit, int step, int steps, const std::string& command,
                      std::chrono::milliseconds elapsed) = 0;
  /// The build ended; `ok` false when the commit turned out unbuildable.
  virtual void OnDone(const CommitInfo& commit, bool ok, std::chrono::milliseconds elapsed) = 0;
  /// [engine] fetch ran for `commit`: `ok` when it placed every artifact (no step runs then),
  /// else `why` it did not, and the commit is built.
  virtual void OnFetch(const CommitInfo& commit, bool ok, const std::string& why) {}
  /// The build's steps ran through ccache, which did `stats` (after OnDone).
  virtual void OnCompilerCache(const CommitInfo& commit, const CompilerCacheStats& stats) {}
  /// Another process holds the checkout lock; this one waits for it.
  virtual void OnWaiting(const std::filesystem::path& scratch_dir) {}
  /// Something the user should know that is not an event of one build, in a sentence without
  /// "culprit:" before it: a build step a killed culprit left running was stopped; another
  /// culprit's build of the commit is awaited. The engine layer prints nothing itself: what
  /// it says goes through here, and with no BuildProgress it goes unsaid.
  virtual void OnNote(const std::string& note) {}
  /// Step `step` is running: it printed something, or has been quiet for a
  /// second. `last_line` is the last complete line it printed (stdout or
  /// stderr), "" before the first.
  virtual void OnOutput(const CommitInfo& commit, int step, int steps, std::string_view last_line,
                        std::chrono::milliseconds elapsed) {}
};

/// The last complete line of output that arrives in pieces of any size, for a
/// build step's heartbeat. Holds at most about 2 * kKeep bytes whatever the
/// output (a step may print megabytes without a newline), and looks at each
/// byte once. '\r' ends a line as '\n' does: a progress bar redraws its line
/// with '\r'. A line longer than kKeep is remembered by its last kKeep bytes.
class LastOutputLine {
 public:
  static constexpr size_t kKeep = 512;
  /// Takes the next piece of output.
  void Add(std::string_view piece);
  /// The last complete non-empty line ("" before the first), without its end.
  const std::string& line() const { return line_; }
  /// Bytes held (the line and the unfinished one after it).
  size_t held() const { return line_.size() + partial_.size(); }

 private:
  std::string line_;
  std::string partial_;  ///< The unfinished line: its last kKeep bytes.
};

/// The build cache of one engine. Not thread-safe; separate processes are
/// serialized by the checkout lock.
class BuildCache {
 public:
  /// `repo` must outlive the cache.
  BuildCache(const GitRepo& repo, BuildSettings settings);

  /// The build of `revision`: from the cache, or built now. An unbuildable
  /// commit (a step failed or timed out, or an artifact is missing) is an
  /// Error naming the commit, the failed step and the last lines of its log;
  /// the failure is remembered, so later calls return the same error without
  /// building (and KnownBuildable() says false) until `rebuild` forces a new
  /// attempt. A timed-out build is remembered only for timeouts up to the one
  /// it ran out of: with a longer settings.timeout (or none) it is built again.
  /// A step that cannot start (no such program) and Ctrl-C are errors too,
  /// but are not remembered: they say nothing about the commit. The build
  /// returned holds its entry (Build::in_use). Building waits for no reader:
  /// while a Build of the commit is held anywhere, `rebuild` (or building an
  /// entry whose artifacts went missing) is an error saying so, not a wait (a
  /// sitting may hold it for hours). Reusing waits while another culprit
  /// builds the commit.
  Result<Build> Ensure(std::string_view revision, bool rebuild = false,
                       BuildProgress* progress = nullptr);

  /// true / false when the commit was built / found unbuildable with the
  /// current steps; nullopt when never tried (or the revision is unknown), or
  /// when it timed out with a shorter timeout than the current one.
  std::optional<bool> KnownBuildable(std::string_view revision) const;
  /// The remembered failure of an unbuildable commit (when KnownBuildable is false).
  std::optional<BuildFailure> Failure(std::string_view revision) const;

  /// A pristine checkout of the build's tree under sources/<tree>/ (made once,
  /// shared by commits with the same tree); also stored in build.source_dir.
  Result<std::filesystem::path> SourceTree(Build& build) const;

  /// Every entry of this engine, current and stale, oldest first.
  Result<std::vector<CachedBuildInfo>> List() const;
  /// Removes entries made more than `older_than` ago, stale entries (other
  /// steps) when `stale_too`, and leftovers of interrupted builds. Takes the
  /// checkout lock (a wait for it, and a leftover step it stops, are said through
  /// `progress`, which may be null). An entry in use (a Build of it is held: Build::in_use)
  /// is skipped, with its source tree: its commit (or its directory's name when the entry
  /// names none) goes into `*in_use` when that is not null. Returns how many were removed.
  Result<int> Prune(std::chrono::hours older_than, bool stale_too = false,
                    std::vector<std::string>* in_use = nullptr, BuildProgress* progress = nullptr);

  /// Build steps actually executed by this object (for tests).
  int build_steps_run() const { return build_steps_run_; }

  /// The engine's directory in the cache, and the key of the current steps.
  const std::filesystem::path& engine_dir() const { return engine_dir_; }
  const std::string& config_key() const { return config_key_; }

 private:
  std::filesystem::path EntryDir(const std::string& commit) const;
  /// The lock of the entry directory named `entry_name` (<commit>-<config>).
  std::filesystem::path EntryLock(const std::string& entry_name) const;
  /// FromCache, holding the entry shared while the build it returns lives; a wait for the
  /// entry's lock is said through `progress` (may be null).
  std::optional<Result<Build>> FromCacheHeld(const CommitInfo& commit,
                                             BuildProgress* progress) const;
  /// nullopt when the cache has no usable entry (never built, or a build
  /// whose artifacts were deleted); else the build or its remembered failure.
  std::optional<Result<Build>> FromCache(const CommitInfo& commit) const;
  Result<Build> BuildNow(const CommitInfo& commit, bool rebuild, BuildProgress* progress);

  const GitRepo& repo_;
  BuildSettings settings_;
  std::filesystem::path engine_dir_;
  std::string config_key_;
  int build_steps_run_ = 0;
};

}  // namespace culprit
