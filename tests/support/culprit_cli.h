#pragma once

// Helpers for tests that drive the real `culprit` executable.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/process.h"
#include "tests/support/temp_dir.h"

namespace culprit {

/// Runs the culprit under test (CulpritExe()) with `args` from `cwd`, the environment inherited
/// plus `set_env`. The timeout only guards against a wedged test; no test asserts on time.
ProcessResult RunCulprit(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                         const std::map<std::string, std::string>& set_env = {});

/// Starts the culprit under test with `args` in `cwd` without waiting, its stdout and stderr
/// written to the files `out` and `err`, for a test that signals it mid-run; its pid (0 when it
/// could not start).
pid_t SpawnCulprit(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                   const std::filesystem::path& out, const std::filesystem::path& err);

/// Polls `ready` every few milliseconds while process `pid` runs: true once it holds; false
/// when the process exits first (its wait status in `*status`) or `limit` passes. A wait,
/// not a timed assertion: the limit only keeps a broken culprit from wedging the test.
bool WaitWhileRunning(pid_t pid, const std::function<bool()>& ready, std::chrono::seconds limit,
                      int* status);

/// Writes <dir>/culprit.toml for the small C engines the integration tests
/// create in <dir>/repo: built with `cc -O1 -o prog main.c`, one query `loop`
/// whose program prints its own `min_ms=`; records in <dir>/records and the
/// build cache in <dir>/cache. Returns the file's path.
std::filesystem::path WriteLoopEngineConfig(const std::filesystem::path& dir,
                                            const std::string& query_timeout, double band);

/// How a small C engine's main.c is broken, for the cases culprit must survive.
enum class LoopEngineVariant { kNormal, kSyntaxError, kHang, kCrash };

/// main.c of a small C engine (see WriteLoopEngineConfig): it times `work`
/// iterations of an integer loop five times and prints the fastest as
/// `min_ms=`. At this scale exec overhead is as large as the loop and would
/// water an effect down in a wall-time metric, and on a loaded host the
/// fastest of five is the repetition least disturbed. `tag` goes into a first
/// comment line, so that otherwise equal sources make different commits.
std::string LoopEngineSource(const std::string& tag, long work,
                             LoopEngineVariant variant = LoopEngineVariant::kNormal);

/// A TOML string literal (basic string) holding `text`, for writing paths
/// into a test's culprit.toml.
std::string Quoted(const std::string& text);

/// "exit N\nstdout:\n...\nstderr:\n..." for assertion messages.
std::string DescribeRun(const ProcessResult& result);

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Whether a bisect's output names `commit` (a full id) as a verified change:
/// as the culprit (`CULPRIT`, printed only when the commits before it were
/// checked a tie) or as a change (`CHANGE`, when that check did not settle).
/// Which one depends on whether a real sitting reached a tie, which a loaded
/// host does not promise; naming the commit verified is what tests require.
inline bool NamesVerifiedChange(const std::string& out, const std::string& commit) {
  return Contains(out, "CULPRIT " + commit) || Contains(out, "CHANGE " + commit);
}

/// The `UNPLACED:` lines of a bisect's output that are not an undecided tie: a part of the
/// range without a change is checked for a tie, which two real processes on a loaded host
/// may not reach within the sitting's pairs ("its check could not tell a tie from a
/// change", said honestly); any other unplaced part (one that moves and was not searched)
/// is a finding a test of a known history must not see. Empty when there is none.
inline std::vector<std::string> UnplacedMoves(const std::string& out) {
  std::vector<std::string> found;
  size_t at = 0;
  while ((at = out.find("UNPLACED:", at)) != std::string::npos) {
    const std::string line = out.substr(at, out.find('\n', at) - at);
    if (!Contains(line, "its check could not tell a tie from a change")) found.push_back(line);
    at += line.size();
  }
  return found;
}

}  // namespace culprit
