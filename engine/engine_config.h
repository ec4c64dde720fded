#pragma once

// The sections of culprit.toml the engine layer owns: [engine] (how to build
// the engine), [queries] (how to run and read each measured workload) and
// [cache] (where builds are kept). Each is validated once, here, when the file
// is read; the whole file is assembled by investigate/config.h.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/config_reader.h"
#include "base/metric_direction.h"
#include "base/result.h"
#include "engine/metric.h"
#include "engine/process.h"

namespace culprit {

enum class BuildMode {
  kIncremental,  ///< Reuse the build directory between commits.
  kClean,        ///< Build every commit from a fresh checkout.
};

/// [engine]
struct EngineConfig {
  /// False when the file has no [engine]: the working tree (the config's
  /// directory) can be measured, but nothing can be built.
  bool present = true;
  std::filesystem::path repo;  ///< Absolute.
  /// Where `repo` is written, for CheckEngineRepository; "" when it is not (the default).
  std::string repo_file;
  ConfigPosition repo_position;
  /// Commands run in order in the checkout; at least one, none empty.
  std::vector<std::vector<std::string>> build;
  /// Paths relative to the checkout (never absolute, no ".."), kept per commit;
  /// file names distinct (engine/artifact_paths.h).
  std::vector<std::string> artifacts;
  std::chrono::milliseconds build_timeout{20 * 60 * 1000};
  BuildMode mode = BuildMode::kIncremental;
  /// `fetch = [...]`: argv of a command that places a commit's prebuilt artifacts, tried
  /// before building (BuildSettings::fetch); its only placeholders are {commit} and
  /// {artifacts}. Empty: always build.
  std::vector<std::string> fetch;
  /// `compiler_cache = "ccache"`: the build steps run through ccache (engine/compiler_cache.h).
  bool compiler_cache = false;
  /// `compiler_cache_remote`: ccache's remote storage, shared by hosts ("" none); only with
  /// compiler_cache; a scheme IsCompilerCacheRemote accepts.
  std::string compiler_cache_remote;
};

/// [queries."NAME"]
struct QueryConfig {
  std::string name;
  /// argv; may contain "{artifact:NAME}" (NAME is the file name of an entry of
  /// engine.artifacts; validated) and "{tree}" (the checkout), substituted by the runner.
  std::vector<std::string> command;
  /// Checked with CheckMetricRule; wall_units_per_ms follows `unit`.
  MetricRule metric;
  std::string unit = "ms";
  std::chrono::milliseconds timeout{60000};  ///< Per run; always > 0.
  bool code_path_auto = false;               ///< code_path = "auto".
  std::vector<std::string> code_path;        ///< Globs relative to the engine repository.
  /// code_path = { command = [...] }: argv (placeholders as in `command`) run
  /// in the build's source tree, printing one source path per line.
  std::vector<std::string> code_path_command;
  /// Working directory: empty (the runner's default), an absolute path, or a
  /// string starting with "{tree}" kept verbatim for the runner to substitute.
  /// Other relative paths are resolved against the config file's directory.
  std::string cwd;
  std::map<std::string, std::string> env;  ///< Names validated as environment names.
  std::optional<int> warmup;               ///< Overrides measure.warmup for this query.
  /// `better = "lower" | "higher"`: which way the metric is better. When the file does not
  /// say, a throughput unit (DirectionImpliedByUnit: "MB/s", "qps" ...) makes it "higher" and
  /// `better_note` says so wherever the query is measured; anything else is "lower".
  MetricDirection better = MetricDirection::kLowerIsBetter;
  std::string better_note;  ///< "" when written in the file or the default.
  /// A command given after `--` (`culprit run -- CMD`), not a configured query: run as
  /// given, with no engine build behind it.
  bool adhoc = false;
};

/// [engines.NAME]: another program measured beside the engine in a table (`culprit table
/// --engine NAME`): a competitor, or a previous major version installed elsewhere. culprit
/// does not build it; each of its cells runs its command for the row's query.
struct OtherEngineConfig {
  std::string name;
  /// argv for any query, "{query}" standing for the query's name; empty: only the queries
  /// listed in `queries` have a command.
  std::vector<std::string> command;
  /// [engines.NAME.queries]: argv for one query (no placeholder), before `command`.
  std::map<std::string, std::vector<std::string>> queries;
  /// As QueryConfig's: the engine's own metric rule (its output is its own); nullopt: the
  /// row's query's.
  std::optional<MetricRule> metric;
  std::string cwd;                         ///< Absolute, or empty (culprit's own).
  std::map<std::string, std::string> env;  ///< Added to the query's environment.

  /// The argv that runs `query` on this engine ({query} filled in), or nullopt when the
  /// engine has no command for it.
  std::optional<std::vector<std::string>> CommandFor(const std::string& query) const;
};

/// [cache]
struct CacheConfig {
  /// Absolute; default DefaultCacheDir() ("~" in the file expands from $HOME).
  std::filesystem::path dir;
};

/// What the engine layer reads from the file: where the file is, and its sections.
struct EngineSections {
  std::filesystem::path file;      ///< Absolute path of the culprit.toml.
  std::filesystem::path base_dir;  ///< Its directory.
  std::string digest;              ///< ConfigDigest of the file's bytes; recorded in every record.
  EngineConfig engine;
  std::map<std::string, QueryConfig> queries;
  std::map<std::string, OtherEngineConfig> engines;  ///< [engines.NAME]
  CacheConfig cache;
  /// [measure] cpus and aslr: where every measured run of a query starts
  /// (MakeQueryArm copies it into the run's ProcessSpec). Read with the rest of
  /// [measure] by probes' ReadMeasuredRuns; here because every measured
  /// process is built from these sections.
  RunPlacement measured_runs;
};

/// Reads [engine] from the document's root. Without one, `present` is false
/// and `repo` is the file's directory: only commands that build need it.
Status ReadEngineSection(const ConfigTable& root, EngineConfig* engine);

/// What a command does with the engine's repository: measure its working tree as it stands,
/// or build commits of its history.
enum class RepositoryUse { kWorkingTree, kBuild };

/// Whether an `[engine] repo` written in the file can serve `use`, refused where it is written
/// (FILE:LINE:COLUMN): it must exist and be a directory; to build, it must also be a git
/// repository or inside one, as libgit2's discovery would find it (a `.git` directory or
/// file, or a bare repository, at or above it). Only the file system is read, not git.
/// Without a `repo` key there is nothing to check here: a command that builds says so when
/// it opens the default (the configuration's directory). LoadConfig checks kWorkingTree for
/// a file read from disk; EngineBuilds::Open checks kBuild before anything is measured.
Status CheckEngineRepository(const EngineConfig& engine, RepositoryUse use);

/// Reads every [queries."NAME"]; "{artifact:NAME}" must name one of `engine`'s artifacts.
Status ReadQueriesSection(const ConfigTable& root, const EngineConfig& engine,
                          std::map<std::string, QueryConfig>* queries);

/// Reads every [engines.NAME]: `command` may hold {query} and no other placeholder (culprit
/// builds nothing of another engine), [engines.NAME.queries] must name queries of `queries`,
/// and an engine needs `command` or at least one query's.
Status ReadEnginesSection(const ConfigTable& root,
                          const std::map<std::string, QueryConfig>& queries,
                          std::map<std::string, OtherEngineConfig>* engines);

/// Reads [cache]; without a dir, DefaultCacheDir().
Status ReadCacheSection(const ConfigTable& root, CacheConfig* cache);

/// Every placeholder in `command` (an array of strings, as Command accepted)
/// must be one a build can fill: {rev}, {commit}, {tree}, or {artifact:NAME}
/// naming an entry of engine.artifacts. `path` names the command in messages,
/// which point at the offending element (FILE:LINE:COL).
Status CheckCommandTemplate(const ConfigValue& command, std::string_view path,
                            const EngineConfig& engine,
                            const std::vector<std::string>& extra_placeholders = {});

/// The build cache's directory when [cache] gives none: $XDG_CACHE_HOME/culprit
/// when that is absolute (the XDG spec says a relative value is ignored), else
/// $HOME/.cache/culprit. Nullopt when $HOME is unset too: the caller reports it
/// (a fallback under /tmp would be shared by every user and lost on reboot).
std::optional<std::filesystem::path> DefaultCacheDir();

}  // namespace culprit
