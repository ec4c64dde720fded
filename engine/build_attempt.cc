#include "engine/build_attempt.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "base/json_text.h"
#include "base/strings.h"
#include "base/timestamp.h"
#include "engine/build_entry.h"
#include "engine/leftover_step.h"
#include "engine/process.h"

namespace culprit {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

// Build logs of big engines are long; what is kept per stream is bounded so a
// runaway build cannot fill memory, and the log says how much was dropped.
constexpr size_t kStepOutputLimit = 16 << 20;

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::chrono::milliseconds Millis(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

/// Removes a directory tree on scope exit (the clean-mode checkout).
class RemoveOnExit {
 public:
  explicit RemoveOnExit(fs::path path = {}) : path_(std::move(path)) {}
  ~RemoveOnExit() { Remove(); }
  RemoveOnExit(RemoveOnExit&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  RemoveOnExit& operator=(RemoveOnExit&& other) noexcept {
    if (this != &other) {
      Remove();
      path_ = std::exchange(other.path_, {});
    }
    return *this;
  }

 private:
  void Remove() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  fs::path path_;
};

/// What a build tool prints when a write fails with ENOSPC or EDQUOT
/// (strerror's text in the C locale, which compilers, linkers and make print
/// in an English locale too), when `result`'s output holds it. A tool that
/// prints the message translated is not recognised: its failure is
/// remembered, and `--rebuild` tries the commit again.
std::optional<std::string_view> OutOfSpaceMessage(const ProcessResult& result) {
  for (std::string_view message : {"No space left on device", "Disk quota exceeded"}) {
    if (result.stderr_text.find(message) != std::string::npos ||
        result.stdout_text.find(message) != std::string::npos) {
      return message;
    }
  }
  return std::nullopt;
}

/// Where the process group of the running build step is written down (see
/// leftover_step.h). Both kinds of checkout are directly under scratch/.
fs::path StepGroupFile(const fs::path& checkout) { return checkout.parent_path() / "step-group"; }

/// Where a build runs: the incremental checkout under scratch/src, or in
/// clean mode a fresh one, removed when this goes.
struct Checkout {
  fs::path dir;
  RemoveOnExit cleanup;
};

/// Writes `commit`'s files into the checkout the build runs in.
Result<Checkout> CheckOut(const GitRepo& repo, const CommitInfo& commit, const fs::path& scratch,
                          bool clean) {
  Checkout checkout{scratch / "src", RemoveOnExit()};
  if (clean) {
    std::string pattern = (scratch / "clean-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      return Error(fmt::format("cannot create a clean checkout under {}", scratch.string()));
    }
    checkout.dir = pattern;
    checkout.cleanup = RemoveOnExit(checkout.dir);
  }
  Status materialized = repo.Materialize(commit.id, checkout.dir);
  if (!materialized) return materialized.error().WithContext("building " + commit.short_id);
  return checkout;
}

/// The build log: an append-only file written with write(2). Its descriptor
/// is close-on-exec, opened so atomically (O_CLOEXEC): a std::ofstream's is
/// not, and every build step inherited it, free to write into or truncate the
/// log that explains its own failure. A log that cannot be opened is skipped,
/// as a failed ofstream was: the build does not depend on it.
class BuildLog {
 public:
  BuildLog() = default;
  ~BuildLog() { close(); }
  BuildLog(const BuildLog&) = delete;
  BuildLog& operator=(const BuildLog&) = delete;

  void open(const fs::path& path) {
    close();
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  BuildLog& operator<<(std::string_view text) {
    while (fd_ >= 0 && !text.empty()) {
      ssize_t n = ::write(fd_, text.data(), text.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // A full disk: the log stays short, the build goes on.
      text.remove_prefix(static_cast<size_t>(n));
    }
    return *this;
  }
  void flush() {}  // Unbuffered: each write is in the file already.
  bool is_open() const { return fd_ >= 0; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

/// One attempt at building a commit into its cache entry: the steps, the
/// artifacts, the build log and the entry that remembers how it went. Every
/// error it returns ends the build; those that are the commit's fault (a step
/// failed or timed out, an artifact is missing) are remembered in the entry.
class BuildAttempt {
 public:
  BuildAttempt(const CommitInfo& commit, const BuildSettings& settings, fs::path entry_dir,
               BuildProgress* progress, int& steps_run)
      : commit_(commit),
        settings_(settings),
        entry_dir_(std::move(entry_dir)),
        progress_(progress),
        steps_run_(steps_run) {}

  /// Empties the entry's directory and makes its artifacts/ folder.
  Status CreateEntry() {
    std::error_code ec;
    fs::remove_all(entry_dir_, ec);
    fs::create_directories(entry_dir_ / "artifacts", ec);
    if (ec) {
      return Error(
                 fmt::format("cannot create cache entry {}: {}", entry_dir_.string(), ec.message()))
          .WithHint("check that the cache directory is writable, or set [cache] dir");
    }
    return {};
  }

  /// Starts the build log, for a build in `checkout` ("" while only fetching).
  void OpenLog(const fs::path& checkout) {
    checkout_ = checkout;
    if (!log_.is_open()) {
      log_.open(LogPath());
      log_ << fmt::format("culprit build of {} ({})\n", commit_.id, commit_.subject);
    }
    if (!checkout.empty()) log_ << fmt::format("in {}\n", checkout.string());
  }

  /// Runs [engine] fetch into the entry's artifacts/ and checks that it placed every artifact.
  /// true: the entry holds the artifacts (Succeed next). false: it failed or fetched too
  /// little (fetch_failure_ says why, the artifacts/ folder is emptied): build the commit.
  /// Error only for Ctrl-C.
  Result<bool> TryFetch() {
    OpenLog("");
    const fs::path artifacts = entry_dir_ / "artifacts";
    ProcessSpec spec;
    for (std::string word : settings_.fetch) {
      for (const auto& [placeholder, value] :
           {std::pair<std::string, std::string>{"{commit}", commit_.id},
            std::pair<std::string, std::string>{"{artifacts}", artifacts.string()}}) {
        for (size_t at = word.find(placeholder); at != std::string::npos;
             at = word.find(placeholder, at + value.size())) {
          word.replace(at, placeholder.size(), value);
        }
      }
      spec.argv.push_back(std::move(word));
    }
    spec.cwd = entry_dir_;
    spec.set_env = settings_.env;
    spec.timeout = settings_.timeout;
    spec.output_limit = kStepOutputLimit;
    const std::string command = FormatCommand(spec.argv);
    log_ << fmt::format("\n$ {}   (fetch)\n", command);
    ProcessResult result = RunProcess(spec);
    LogOutput(result);
    if (result.outcome == ProcessOutcome::kInterrupted) {
      log_ << "culprit: interrupted\n";
      return Error::Interrupted(fmt::format("interrupted while fetching {}", commit_.short_id));
    }
    std::string missing;
    std::error_code ec;
    for (const std::string& artifact : settings_.artifacts) {
      const fs::path placed = artifacts / fs::path(artifact).filename();
      // A link could name anything on the host; only what the fetch wrote is an artifact.
      if (!fs::exists(placed, ec) || fs::is_symlink(placed, ec)) {
        missing += (missing.empty() ? "" : ", ") + fs::path(artifact).filename().string();
      }
    }
    if (result.ok() && missing.empty()) {
      log_ << "culprit: fetched every artifact; no build step runs\n";
      fetched_ = true;
      return true;
    }
    fetch_failure_ = !result.ok() ? fmt::format("`{}` {}", command, result.Describe(spec))
                                  : fmt::format("`{}` placed no {}", command, missing);
    log_ << "culprit: the fetch failed: " << fetch_failure_ << "; building instead\n";
    fs::remove_all(artifacts, ec);
    fs::create_directories(artifacts, ec);
    if (ec) return Error(fmt::format("cannot empty {}: {}", artifacts.string(), ec.message()));
    return false;
  }

  const std::string& fetch_failure() const { return fetch_failure_; }

  /// Runs build step `index` (0-based) in the checkout, logging its command
  /// and output. Errors: it failed or timed out (remembered); it could not
  /// start, or Ctrl-C (not remembered: they say nothing about the commit).
  Status RunStep(int index) {
    if (InterruptRequested()) {
      return Error::Interrupted(fmt::format("interrupted while building {}", commit_.short_id));
    }
    const int steps = static_cast<int>(settings_.steps.size());
    ProcessSpec spec;
    spec.argv = settings_.steps[index];
    spec.cwd = checkout_;
    spec.set_env = settings_.env;
    if (settings_.compiler_cache.enabled) {
      const char* inherited = std::getenv("PATH");
      auto path = settings_.env.find("PATH");
      for (auto& [name, value] : CompilerCacheEnvironment(
               settings_.compiler_cache, checkout_, StatsLogPath(),
               path != settings_.env.end() ? path->second : (inherited ? inherited : ""))) {
        spec.set_env[name] = value;
      }
    }
    // Marks the step's whole process tree as this scratch directory's (StopMarkedSteps).
    spec.set_env[kBuildStepMarker] = checkout_.parent_path().string();
    spec.timeout = settings_.timeout;
    spec.output_limit = kStepOutputLimit;
    std::string command = FormatCommand(spec.argv);
    if (progress_ != nullptr) progress_->OnStep(commit_, index + 1, steps, command, Elapsed());
    log_ << fmt::format("\n$ {}\n", command);
    log_.flush();
    // Written down while it runs, so that a culprit killed meanwhile does not
    // leave the next one sharing the scratch checkout with it.
    fs::path group_file = StepGroupFile(checkout_);
    // Not a reason to stop the build; but the log says so, since a culprit killed during this
    // step would then leave the step running for the next one to find.
    spec.on_start = [&](int group) {
      if (Status noted = RecordStepGroup(group_file, group); !noted) {
        log_ << fmt::format("culprit: the step's process group was not written down: {}\n",
                            noted.error().message());
      }
    };
    // The last complete line the step printed, for the progress heartbeat.
    LastOutputLine last_line;
    spec.on_output = [&](std::string_view piece) {
      if (progress_ == nullptr) return;
      last_line.Add(piece);
      progress_->OnOutput(commit_, index + 1, steps, last_line.line(), Elapsed());
    };
    ProcessResult result = RunProcess(spec);
    ClearStepGroup(group_file);
    ++steps_run_;
    LogOutput(result);
    std::string what =
        fmt::format("step {}/{} `{}` {}", index + 1, steps, command, result.Describe(spec));
    const bool failed = (result.outcome == ProcessOutcome::kExited && result.exit_code != 0) ||
                        result.outcome == ProcessOutcome::kSignaled;
    if (failed) {
      if (std::optional<std::string_view> full = OutOfSpaceMessage(result)) {
        return OutOfSpace(what, *full);
      }
    }
    switch (result.outcome) {
      case ProcessOutcome::kExited:
        if (result.exit_code == 0) return {};
        return Fail(what, kFailed);
      case ProcessOutcome::kSignaled:
        return Fail(what, kFailed);
      case ProcessOutcome::kTimedOut:
        return Fail(what, kTimedOut);
      case ProcessOutcome::kInterrupted:
        log_ << "culprit: interrupted\n";
        return Error::Interrupted(
            fmt::format("interrupted while building {}: {}", commit_.short_id, what));
      case ProcessOutcome::kFailedToStart:
        // Not the commit's fault (a missing tool): not remembered.
        log_ << "culprit: " << what << "\n";
        return Error(fmt::format("cannot build {}: {}", commit_.short_id, what))
            .WithHint(
                "check the [engine] build steps in culprit.toml and that their programs "
                "are installed");
    }
    return {};
  }

  /// Copies the artifacts from the checkout into the entry. An artifact that is
  /// itself a symlink (zstd's Makefile leaves `zstd -> programs/zstd`) is copied
  /// as the file it names, which must lie inside the checkout; symlinks inside a
  /// directory artifact are kept as they are. Errors: one is missing or names a
  /// file outside the checkout (remembered), or cannot be copied (not remembered).
  Status CopyArtifacts() {
    std::error_code ec;
    for (const std::string& artifact : settings_.artifacts) {
      fs::path source = checkout_ / artifact;
      fs::path target = entry_dir_ / "artifacts" / fs::path(artifact).filename();
      if (!fs::exists(source, ec)) {
        return Fail(fmt::format("the build succeeded but did not produce artifact '{}' (no {}{})",
                                artifact, source.string(),
                                fs::is_symlink(source, ec) ? ": a symlink to nothing" : ""),
                    kFailed);
      }
      if (fs::is_symlink(source, ec)) {
        // Copied as a link, a relative target would dangle in the cache entry.
        std::error_code resolve_ec, root_ec;
        const fs::path resolved = fs::canonical(source, resolve_ec);
        const fs::path root = fs::canonical(checkout_, root_ec);
        if (resolve_ec || root_ec) {
          return Error(fmt::format("cannot resolve artifact {} in the checkout: {}",
                                   source.string(), (resolve_ec ? resolve_ec : root_ec).message()));
        }
        auto [root_end, _] =
            std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
        if (root_end != root.end()) {
          return Fail(fmt::format("artifact '{}' is a symlink to {}, outside the build's checkout",
                                  artifact, resolved.string()),
                      kFailed);
        }
        source = resolved;
      }
      fs::copy(source, target,
               fs::copy_options::recursive | fs::copy_options::overwrite_existing |
                   fs::copy_options::copy_symlinks,
               ec);
      if (ec) {
        return Error(fmt::format("cannot copy artifact {} into the cache: {}", source.string(),
                                 ec.message()));
      }
    }
    return {};
  }

  /// Ends the attempt as a success: the log's last line, then the entry.
  Status Succeed() {
    log_ << "\nculprit: build succeeded\n";
    const std::optional<CompilerCacheStats> cached = ReadCompilerCacheStats();
    if (cached) log_ << "culprit: " << DescribeCompilerCacheStats(*cached) << "\n";
    log_.close();
    CULPRIT_TRY(Remember("", nullptr, cached));
    if (progress_ != nullptr) progress_->OnDone(commit_, true, Elapsed());
    if (progress_ != nullptr && cached) progress_->OnCompilerCache(commit_, *cached);
    return {};
  }

 private:
  fs::path LogPath() const { return entry_dir_ / kLogFile; }
  /// ccache's statistics log of this build (CCACHE_STATSLOG), in the entry.
  fs::path StatsLogPath() const { return entry_dir_ / kCompilerCacheStatsFile; }

  /// What ccache did during the steps; nullopt when the steps did not run through it. A build
  /// that compiled nothing through it (no log written) is zero hits and zero misses.
  std::optional<CompilerCacheStats> ReadCompilerCacheStats() const {
    if (!settings_.compiler_cache.enabled || fetched_) return std::nullopt;
    Result<std::string> text = ReadFile(StatsLogPath());
    return ParseCompilerCacheStatsLog(text ? *text : "");
  }
  std::chrono::milliseconds Elapsed() const { return Millis(Clock::now() - start_); }

  void LogOutput(const ProcessResult& result) {
    log_ << result.stdout_text;
    if (result.stdout_bytes > result.stdout_text.size()) {
      log_ << fmt::format("\n[culprit: {} more bytes of stdout not kept]\n",
                          result.stdout_bytes - result.stdout_text.size());
    }
    if (result.stderr_bytes > result.stderr_text.size()) {
      log_ << fmt::format("[culprit: the first {} bytes of stderr were not kept]\n",
                          result.stderr_bytes - result.stderr_text.size());
    }
    log_ << result.stderr_text;
    log_.flush();
  }

  /// Ends the attempt without remembering it: the step failed saying the disk
  /// or a quota is full (`message`), which is the machine's fault, not the
  /// commit's. A bisect stops on this error rather than skip a good commit.
  Error OutOfSpace(const std::string& what, std::string_view message) {
    log_ << fmt::format("culprit: {}: \"{}\"; not remembered as the commit's failure\n", what,
                        message);
    log_.close();
    if (progress_ != nullptr) progress_->OnDone(commit_, false, Elapsed());
    return Error(fmt::format("cannot build {}: {} and printed \"{}\"", commit_.short_id, what,
                             message))
        .WithHint(fmt::format(
            "a full disk says nothing about the commit, so this attempt is not remembered; free "
            "space where the build writes (the checkout under {}) and run again",
            checkout_.parent_path().string()));
  }

  /// Ends the attempt as the commit's failure (`failure`: kFailed or
  /// kTimedOut): logs and remembers `reason`, and returns its error.
  Error Fail(const std::string& reason, const char* failure) {
    log_ << "culprit: " << reason << "\n";
    log_.close();
    if (progress_ != nullptr) progress_->OnDone(commit_, false, Elapsed());
    Status saved = Remember(reason, failure);
    if (!saved) return saved.error();
    BuildFailure remembered{commit_.id, reason, LogPath(), LogTail(LogPath())};
    remembered.timed_out = failure == kTimedOut;
    remembered.timeout = settings_.timeout;
    return UnbuildableError(commit_, remembered, "");
  }

  /// Writes entry.json, last and atomically: buildable when `failure` is null.
  Status Remember(const std::string& reason, const char* failure = nullptr,
                  const std::optional<CompilerCacheStats>& cached = std::nullopt) {
    nlohmann::json entry = {
        {"schema", kEntrySchema},
        {"commit", commit_.id},
        {"tree", commit_.tree_id},
        {"subject", commit_.subject},
        {"steps", settings_.steps},
        {"artifacts", settings_.artifacts},
        {"status", failure == nullptr ? "buildable" : "unbuildable"},
        {"reason", reason},
        {"built_at", FormatIsoUtc(std::chrono::system_clock::from_time_t(started_at_))},
        {"built_at_unix", static_cast<int64_t>(started_at_)},
        {"seconds", Seconds(Clock::now() - start_)},
        {"mode", settings_.clean ? "clean" : "incremental"},
        {"timeout_ms", static_cast<int64_t>(settings_.timeout.count())},
    };
    if (failure != nullptr) entry["failure"] = failure;
    if (fetched_) entry["fetched"] = true;
    if (!fetch_failure_.empty()) entry["fetch_failure"] = fetch_failure_;
    if (cached) {
      entry["compiler_cache"] = {{"hits", cached->hits},
                                 {"misses", cached->misses},
                                 {"remote_hits", cached->remote_hits},
                                 {"remote_errors", cached->remote_errors},
                                 {"uncacheable", cached->uncacheable}};
    }
    // The subject is the commit's own text, in whatever encoding it was written.
    return WriteFileAtomically(entry_dir_ / kEntryFile, ToJsonText(entry, 2) + "\n");
  }

  const CommitInfo& commit_;
  const BuildSettings& settings_;
  const fs::path entry_dir_;
  BuildProgress* const progress_;
  int& steps_run_;
  const Clock::time_point start_ = Clock::now();
  const std::time_t started_at_ = std::time(nullptr);
  fs::path checkout_;
  BuildLog log_;
  bool fetched_ = false;       ///< [engine] fetch placed the artifacts.
  std::string fetch_failure_;  ///< Why [engine] fetch did not, when it was tried.
};

/// Appends `text` to `kept`, keeping only the last LastOutputLine::kKeep bytes.
void KeepTail(std::string& kept, std::string_view text) {
  constexpr size_t kKeep = LastOutputLine::kKeep;
  if (text.size() >= kKeep) {
    kept.assign(text.substr(text.size() - kKeep));
    return;
  }
  kept.append(text);
  if (kept.size() > kKeep) kept.erase(0, kept.size() - kKeep);
}

}  // namespace

void LastOutputLine::Add(std::string_view piece) {
  constexpr std::string_view kEnds = "\r\n";
  const size_t end = piece.find_last_of(kEnds);
  if (end == std::string_view::npos) {
    KeepTail(partial_, piece);
    return;
  }
  // `piece` completes lines up to `end`; the last non-empty one is the line.
  const std::string_view done = piece.substr(0, end);
  const size_t last = done.find_last_not_of(kEnds);
  if (last == std::string_view::npos) {
    // Only line ends: the unfinished line, if any, was the last one.
    if (!partial_.empty()) line_ = std::move(partial_);
  } else if (size_t begin = done.find_last_of(kEnds, last); begin == std::string_view::npos) {
    KeepTail(partial_, done.substr(0, last + 1));  // It finishes the unfinished line.
    line_ = std::move(partial_);
  } else {
    line_.clear();
    KeepTail(line_, done.substr(begin + 1, last - begin));
  }
  partial_.clear();
  KeepTail(partial_, piece.substr(end + 1));
}

Status RunBuildAttempt(const GitRepo& repo, const CommitInfo& commit, const BuildSettings& settings,
                       const fs::path& entry_dir, const fs::path& scratch, BuildProgress* progress,
                       int& steps_run) {
  BuildAttempt attempt(commit, settings, entry_dir, progress, steps_run);
  CULPRIT_TRY(attempt.CreateEntry());
  if (progress != nullptr) progress->OnStart(commit);
  if (!settings.fetch.empty()) {
    Result<bool> fetched = attempt.TryFetch();
    if (!fetched) return fetched.error();
    if (progress != nullptr) progress->OnFetch(commit, *fetched, attempt.fetch_failure());
    if (*fetched) return attempt.Succeed();
  }
  Result<Checkout> checkout = CheckOut(repo, commit, scratch, settings.clean);
  if (!checkout) return checkout.error();
  attempt.OpenLog(checkout->dir);
  for (int i = 0; i < static_cast<int>(settings.steps.size()); ++i) {
    CULPRIT_TRY(attempt.RunStep(i));
  }
  CULPRIT_TRY(attempt.CopyArtifacts());
  return attempt.Succeed();
}

}  // namespace culprit
