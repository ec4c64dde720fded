#include "engine/compiler_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <system_error>

#include "base/strings.h"
#include "engine/process.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

/// `name` found in a directory of `path_value`, or "" when it is in none.
fs::path FindOnPath(std::string_view name, std::string_view path_value) {
  size_t start = 0;
  while (start <= path_value.size()) {
    size_t end = path_value.find(':', start);
    if (end == std::string_view::npos) end = path_value.size();
    std::string_view dir = path_value.substr(start, end - start);
    if (!dir.empty()) {
      fs::path candidate = fs::path(std::string(dir)) / std::string(name);
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
        return candidate;
      }
    }
    start = end + 1;
  }
  return {};
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

bool IsCompilerCacheRemote(std::string_view url) {
  for (std::string_view scheme : {"redis://", "redis+unix:", "http://", "https://", "file:"}) {
    if (StartsWith(url, scheme) && url.size() > scheme.size()) return true;
  }
  return false;
}

Result<CompilerCacheSettings> LocateCompilerCache(std::string_view path_value, fs::path dir,
                                                  std::string remote) {
  CompilerCacheSettings settings;
  settings.enabled = true;
  settings.dir = std::move(dir);
  settings.remote = std::move(remote);
  settings.program = FindOnPath("ccache", path_value);
  if (settings.program.empty()) {
    return Error("[engine] compiler_cache = \"ccache\", but ccache is not on PATH")
        .WithHint("install it (apt-get install ccache), or remove compiler_cache from [engine]");
  }
  std::error_code ec;
  const fs::path ccache = fs::canonical(settings.program, ec);
  for (const char* candidate : {"/usr/lib/ccache", "/usr/lib64/ccache", "/usr/local/lib/ccache"}) {
    std::error_code link_ec;
    if (fs::canonical(fs::path(candidate) / "cc", link_ec) == ccache && !link_ec) {
      settings.masquerade_dir = candidate;
      return settings;
    }
  }
  return Error(fmt::format("[engine] compiler_cache = \"ccache\", but no directory of compiler "
                           "links to {} was found (/usr/lib/ccache, /usr/lib64/ccache, "
                           "/usr/local/lib/ccache)",
                           settings.program.string()))
      .WithHint("Debian's ccache package makes /usr/lib/ccache; reinstall it");
}

std::map<std::string, std::string> CompilerCacheEnvironment(const CompilerCacheSettings& settings,
                                                            const fs::path& checkout,
                                                            const fs::path& stats_log,
                                                            std::string_view path_value) {
  std::map<std::string, std::string> env = {
      {"PATH", settings.masquerade_dir.string() +
                   (path_value.empty() ? "" : ":" + std::string(path_value))},
      {"CCACHE_DIR", settings.dir.string()},
      {"CCACHE_STATSLOG", stats_log.string()},
      // Paths under the checkout are hashed relative to it, and the compiler's working
      // directory is not hashed: another host's checkout lies elsewhere, its objects are
      // the same. (Debug info then names the directory of the host that compiled.)
      {"CCACHE_BASEDIR", checkout.string()},
      {"CCACHE_NOHASHDIR", "true"},
  };
  if (!settings.remote.empty()) env["CCACHE_REMOTE_STORAGE"] = settings.remote;
  return env;
}

CompilerCacheStats ParseCompilerCacheStatsLog(std::string_view text) {
  CompilerCacheStats stats;
  for (std::string_view line : SplitLines(text)) {
    line = TrimBlanks(line);
    if (line == "direct_cache_hit" || line == "preprocessed_cache_hit") {
      ++stats.hits;
    } else if (line == "cache_miss") {
      ++stats.misses;
    } else if (line == "remote_storage_hit") {
      ++stats.remote_hits;
    } else if (line == "remote_storage_error" || line == "remote_storage_timeout") {
      ++stats.remote_errors;
    } else if (line == "called_for_link" || line == "called_for_preprocessing" ||
               line == "unsupported_compiler_option" || line == "no_input_file" ||
               line == "multiple_source_files" || line == "compiler_check_failed" ||
               line == "could_not_use_precompiled_header" || line == "autoconf_test" ||
               line == "unsupported_source_language" || line == "compile_failed" ||
               line == "preprocessor_error") {
      ++stats.uncacheable;
    }
  }
  return stats;
}

std::string DescribeCompilerCacheStats(const CompilerCacheStats& stats) {
  std::string out = "ccache: " + CountOf(stats.hits, "hit");
  if (stats.remote_hits > 0) out += fmt::format(" ({} from the remote)", stats.remote_hits);
  out += fmt::format(", {} miss{}", stats.misses, stats.misses == 1 ? "" : "es");
  if (stats.uncacheable > 0) out += fmt::format(", {} not cacheable", stats.uncacheable);
  if (stats.remote_errors > 0) {
    out += fmt::format("; the remote storage failed {} (unreachable?): those compilations ran here",
                       CountOf(stats.remote_errors, "time"));
  }
  return out;
}

std::string ToolchainFingerprint(std::string_view path_value) {
  std::string out;
  for (const char* compiler : {"cc", "c++", "gcc", "g++", "clang", "clang++", "rustc", "go"}) {
    const fs::path found = FindOnPath(compiler, path_value);
    if (found.empty()) continue;
    ProcessSpec spec;
    spec.argv = {found.string(), std::string(compiler) == "go" ? "version" : "--version"};
    spec.set_env = {{"PATH", std::string(path_value)}, {"LC_ALL", "C"}};
    spec.timeout = std::chrono::seconds(20);
    spec.output_limit = 4096;
    ProcessResult result = RunProcess(spec);
    std::string first = result.stdout_text.substr(0, result.stdout_text.find('\n'));
    if (!result.ok() || first.empty()) first = "(no version: " + result.Describe(spec) + ")";
    out += fmt::format("{} {}: {}\n", compiler, found.string(), first);
  }
  return out;
}

}  // namespace culprit
