#pragma once

// Build progress for the user, on stderr: the CLI's side of engine/build_cache.h's
// BuildProgress (the engine layer prints nothing itself).

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "engine/build_cache.h"

namespace culprit {

/// Prints one line per event on stderr ("culprit: building 1a2b3c4d5e (subject): step 1/2 ...").
/// On a terminal, a running step also shows a heartbeat, rewritten in place:
/// the elapsed time and its last line of output. In a pipe, only the events.
class StderrBuildProgress : public BuildProgress {
 public:
  /// `terminal`: whether stderr is a terminal (the default asks isatty).
  explicit StderrBuildProgress(std::optional<bool> terminal = std::nullopt);
  void OnStart(const CommitInfo& commit) override;
  void OnStep(const CommitInfo& commit, int step, int steps, const std::string& command,
              std::chrono::milliseconds elapsed) override;
  void OnDone(const CommitInfo& commit, bool ok, std::chrono::milliseconds elapsed) override;
  void OnCompilerCache(const CommitInfo& commit, const CompilerCacheStats& stats) override;
  void OnFetch(const CommitInfo& commit, bool ok, const std::string& why) override;
  void OnWaiting(const std::filesystem::path& scratch_dir) override;
  /// "culprit: NOTE" on a line of its own.
  void OnNote(const std::string& note) override;
  void OnOutput(const CommitInfo& commit, int step, int steps, std::string_view last_line,
                std::chrono::milliseconds elapsed) override;

 private:
  /// Clears the heartbeat line before an event's line.
  void ClearHeartbeat();

  bool terminal_;
  bool heartbeat_shown_ = false;
  std::chrono::steady_clock::time_point last_heartbeat_{};
};

}  // namespace culprit
