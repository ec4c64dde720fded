#pragma once

// A build cache entry's entry.json: what one attempt at building a commit remembers
// (buildable, or unbuildable and why), and the error an unbuildable commit is reported with.
// Written by a build attempt (engine/build_attempt.cc), read by the cache
// (engine/build_cache.cc). Internal to engine/.

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "engine/build_cache.h"

namespace culprit {

inline constexpr const char* kEntrySchema = "culprit.build/v1";
inline constexpr const char* kEntryFile = "entry.json";
inline constexpr const char* kLogFile = "build.log";
inline constexpr const char* kCompilerCacheStatsFile = "ccache-stats.log";
// entry.json "failure" of an unbuildable commit: a step failed or an artifact
// is missing (the commit is broken), or a step ran out of time (maybe not).
inline constexpr const char* kFailed = "failed";
inline constexpr const char* kTimedOut = "timed out";

/// The entry.json in `dir`, when it is one culprit can read (the schema, and every known field
/// of its type); nullopt otherwise: an entry culprit cannot read is treated as absent, since
/// rebuilding is always safe.
std::optional<nlohmann::json> ReadEntry(const std::filesystem::path& dir);

/// What a cache entry says about its commit, given the current step timeout.
enum class Memory { kBuildable, kUnbuildable, kRetry };

/// A build that timed out is not a broken commit: with a longer timeout than
/// the one it ran out of (or none), it is worth another attempt (kRetry).
Memory Recall(const nlohmann::json& entry, std::chrono::milliseconds timeout);

/// The failure an unbuildable entry in `dir` remembers.
BuildFailure RememberedFailure(const std::string& commit, const std::filesystem::path& dir,
                               const nlohmann::json& entry);

/// The last lines of a build log ("" when it cannot be read).
std::string LogTail(const std::filesystem::path& log);

/// The error of an unbuildable commit; `remembered_at` is when the attempt
/// was made, for a failure remembered from an earlier run, else empty.
Error UnbuildableError(const CommitInfo& commit, const BuildFailure& failure,
                       std::string_view remembered_at);

}  // namespace culprit
