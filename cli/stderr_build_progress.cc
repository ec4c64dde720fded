#include "cli/stderr_build_progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "engine/compiler_cache.h"

namespace culprit {

namespace fs = std::filesystem;

StderrBuildProgress::StderrBuildProgress(std::optional<bool> terminal)
    : terminal_(terminal.value_or(::isatty(STDERR_FILENO) == 1)) {}

void StderrBuildProgress::ClearHeartbeat() {
  if (!heartbeat_shown_) return;
  fmt::print(stderr, "\r\x1b[2K");
  heartbeat_shown_ = false;
}

void StderrBuildProgress::OnStart(const CommitInfo& commit) {
  ClearHeartbeat();
  fmt::print(stderr, "culprit: building {} ({})\n", commit.short_id, commit.subject);
}

void StderrBuildProgress::OnStep(const CommitInfo& commit, int step, int steps,
                                 const std::string& command, std::chrono::milliseconds elapsed) {
  ClearHeartbeat();
  fmt::print(stderr, "culprit: building {}: step {}/{} at {:.1f} s: {}\n", commit.short_id, step,
             steps, elapsed.count() / 1000.0, command);
}

void StderrBuildProgress::OnDone(const CommitInfo& commit, bool ok,
                                 std::chrono::milliseconds elapsed) {
  ClearHeartbeat();
  if (ok) {
    fmt::print(stderr, "culprit: built {} in {:.1f} s\n", commit.short_id,
               elapsed.count() / 1000.0);
  } else {
    fmt::print(stderr, "culprit: {} does not build ({:.1f} s)\n", commit.short_id,
               elapsed.count() / 1000.0);
  }
}

void StderrBuildProgress::OnCompilerCache(const CommitInfo& commit,
                                          const CompilerCacheStats& stats) {
  ClearHeartbeat();
  fmt::print(stderr, "culprit: built {}: {}\n", commit.short_id, DescribeCompilerCacheStats(stats));
}

void StderrBuildProgress::OnFetch(const CommitInfo& commit, bool ok, const std::string& why) {
  ClearHeartbeat();
  if (ok) {
    fmt::print(stderr, "culprit: fetched the artifacts of {} ([engine] fetch): no build\n",
               commit.short_id);
  } else {
    fmt::print(stderr, "culprit: fetching {} failed ({}): building it\n", commit.short_id, why);
  }
}

void StderrBuildProgress::OnWaiting(const fs::path& scratch_dir) {
  ClearHeartbeat();
  fmt::print(stderr, "culprit: waiting for another culprit building in {}\n", scratch_dir.string());
}

void StderrBuildProgress::OnNote(const std::string& note) {
  ClearHeartbeat();
  fmt::print(stderr, "culprit: {}\n", note);
}

void StderrBuildProgress::OnOutput(const CommitInfo& commit, int step, int steps,
                                   std::string_view last_line, std::chrono::milliseconds elapsed) {
  if (!terminal_) return;
  // A compiler prints many lines a second; four redraws a second are enough.
  auto now = std::chrono::steady_clock::now();
  if (heartbeat_shown_ && now - last_heartbeat_ < std::chrono::milliseconds(250)) return;
  last_heartbeat_ = now;
  std::string line = fmt::format("  building {}: step {}/{}  [{:.0f}s]  {}", commit.short_id, step,
                                 steps, elapsed.count() / 1000.0, last_line);
  // One terminal line: a wrapped one could not be rewritten in place.
  if (line.size() > 110) line.resize(110);
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  fmt::print(stderr, "\r\x1b[2K{}", line);
  std::fflush(stderr);
  heartbeat_shown_ = true;
}

}  // namespace culprit
