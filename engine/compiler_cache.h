#pragma once

// A compiler cache in the build steps ([engine] compiler_cache = "ccache"), and the
// toolchain a build's cache entry is keyed on.
//
// culprit runs every build step with ccache's masquerade directory (/usr/lib/ccache on
// Debian: `cc`, `g++`, `clang` ... as links to ccache) first on PATH, a cache directory
// it manages under [cache] dir, and, with [engine] compiler_cache_remote, ccache's
// remote storage (a Redis server or an HTTP store) that other hosts share. Each build
// writes ccache's statistics log of its own, read back as hits and misses per build.
// ccache never changes what a build produces, so it is not part of the cache key; the
// compilers on PATH are (ToolchainFingerprint): two hosts never share an artifact
// built by different compilers.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"

namespace culprit {

/// Where and how the build steps use ccache. Disabled unless `enabled`.
struct CompilerCacheSettings {
  bool enabled = false;
  std::filesystem::path program;         ///< The ccache executable.
  std::filesystem::path masquerade_dir;  ///< Holds `cc`, `c++` ... linked to ccache.
  std::filesystem::path dir;             ///< CCACHE_DIR: culprit's own, under [cache] dir.
  std::string remote;                    ///< CCACHE_REMOTE_STORAGE ("" none): shared by hosts.
};

/// What ccache did during one build (from its statistics log).
struct CompilerCacheStats {
  int hits = 0;           ///< Compilations served from a cache (local or remote).
  int misses = 0;         ///< Compilations that ran the compiler.
  int remote_hits = 0;    ///< Of the hits, those the remote storage served.
  int remote_errors = 0;  ///< Remote storage lookups that failed (unreachable, refused).
  int uncacheable = 0;    ///< Calls ccache could not cache (linking, preprocessing only ...).

  bool operator==(const CompilerCacheStats&) const = default;
};

/// The storage schemes ccache 4.7 accepts as remote storage: "redis://", "redis+unix:",
/// "http://", "https://" (through its http storage) and "file:".
bool IsCompilerCacheRemote(std::string_view url);

/// Finds ccache on `path_value` (a PATH) and its masquerade directory (/usr/lib/ccache,
/// /usr/lib64/ccache, /usr/local/lib/ccache: the first holding a `cc` that resolves to
/// ccache). Error, with how to install it, when either is missing.
Result<CompilerCacheSettings> LocateCompilerCache(std::string_view path_value,
                                                  std::filesystem::path dir, std::string remote);

/// The variables a build step runs with: PATH with the masquerade directory first (before
/// `path_value`), CCACHE_DIR, CCACHE_STATSLOG = `stats_log`, CCACHE_BASEDIR = `checkout` and
/// CCACHE_NOHASHDIR (so that two hosts whose checkouts lie in different directories share
/// objects), CCACHE_REMOTE_STORAGE when there is a remote.
std::map<std::string, std::string> CompilerCacheEnvironment(const CompilerCacheSettings& settings,
                                                            const std::filesystem::path& checkout,
                                                            const std::filesystem::path& stats_log,
                                                            std::string_view path_value);

/// Reads ccache's statistics log (CCACHE_STATSLOG: a "# FILE" line per call, then one
/// counter name per line). Unknown counters are ignored.
CompilerCacheStats ParseCompilerCacheStatsLog(std::string_view text);

/// "ccache: 120 hits (40 from the remote), 3 misses", "…, the remote failed 12 times".
std::string DescribeCompilerCacheStats(const CompilerCacheStats& stats);

/// The first line of `--version` of every compiler found on `path_value` (cc, c++, gcc, g++,
/// clang, clang++, rustc, go), with where it was found, one per line; "" when none is found.
/// Runs each found compiler once (a few ms each).
std::string ToolchainFingerprint(std::string_view path_value);

}  // namespace culprit
