#pragma once

// culprit.toml loaded into typed structs. Every value is validated at load time
// so that a mistake is reported once, with its file:line:column, before any
// build or measurement starts. toml++ is used only in config.cc.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/config_reader.h"
#include "base/result.h"

namespace culprit {

/// How a query's number is read from its run.
enum class MetricKind {
  kWall,   ///< The process's wall time.
  kRegex,  ///< The first capture group of `pattern` matched against stdout.
  kJson,   ///< The number at dotted path `pattern` in a JSON object printed on stdout.
};

struct MetricSpec {
  MetricKind kind = MetricKind::kWall;
  std::string pattern;  ///< The regex (compiles as ECMAScript, >= 1 group) or the dotted JSON path.
  /// Wall time only: the query's unit per millisecond (validated: ns, us, ms or s).
  double wall_units_per_ms = 1.0;
};

/// [queries."NAME"]
struct QueryConfig {
  std::string name;
  /// argv; may contain "{artifact:NAME}" (NAME is the file name of an entry of
  /// engine.artifacts; validated) and "{tree}" (the checkout), substituted by the runner.
  std::vector<std::string> command;
  MetricSpec metric;
  std::string unit = "ms";
  std::chrono::milliseconds timeout{60000};  ///< Per run; always > 0.
  bool code_path_auto = false;               ///< code_path = "auto".
  std::vector<std::string> code_path;        ///< Globs relative to the engine repository.
  /// Working directory: empty (the runner's default), an absolute path, or a
  /// string starting with "{tree}" kept verbatim for the runner to substitute.
  /// Other relative paths are resolved against the config file's directory.
  std::string cwd;
  std::map<std::string, std::string> env;  ///< Names validated as environment names.
  std::optional<int> warmup;               ///< Overrides measure.warmup for this query.
};

/// [overrides.NAME]: a named override set and the hypothesis it tests.
struct OverrideSetConfig {
  std::string name;
  std::map<std::string, std::string> env;
  std::vector<std::string> unset;
  std::string hypothesis;
};

enum class BuildMode {
  kIncremental,  ///< Reuse the build directory between commits.
  kClean,        ///< Build every commit from a fresh checkout.
};

/// [engine]
struct EngineConfig {
  std::filesystem::path repo;  ///< Absolute.
  /// Commands run in order in the checkout; at least one, none empty.
  std::vector<std::vector<std::string>> build;
  /// Paths relative to the checkout (never absolute, no ".."), kept per commit.
  std::vector<std::string> artifacts;
  std::chrono::milliseconds build_timeout{20 * 60 * 1000};
  BuildMode mode = BuildMode::kIncremental;
};

/// [harness]: the engine's in-process harness (see DESIGN.md, protocol).
struct HarnessConfig {
  std::vector<std::string> command;  ///< Empty: the engine has no harness.
  /// The longest one protocol command (hold, release, run) may take.
  std::chrono::milliseconds timeout{5 * 60 * 1000};
};

struct ResidencyCondition {
  std::string name;
  std::vector<std::string> hold;     ///< Structure names sent as "hold NAME".
  std::vector<std::string> release;  ///< Each also in `hold`: only what was held can be released.
};

/// [residency."NAME"]: an isolation plan for one suspect structure.
struct ResidencyPlan {
  std::string name;
  std::string query;                           ///< A key of Config::queries.
  std::vector<ResidencyCondition> conditions;  ///< At least one; names unique.
};

/// [registry]: the published benchmark table's query order.
struct RegistryConfig {
  std::vector<std::string> order;  ///< Keys of Config::queries, no duplicates.
};

/// [measure]
struct MeasureConfig {
  double band = 0.05;        ///< In (0, 1).
  double confidence = 0.95;  ///< In (0, 1).
  /// The most pairs one sitting may take: its statistics hold every Walsh
  /// average, n(n+1)/2 numbers (16 MB at this many).
  static constexpr int kMaxPairs = 2000;
  int min_pairs = 10;        ///< 2 <= min_pairs <= max_pairs <= kMaxPairs.
  int max_pairs = 160;
  int warmup = 1;  ///< >= 0.
  bool calibrate_between_looks = false;
};

/// [bisect]
struct BisectConfig {
  double target_probability = 0.99;  ///< In (0, 1).
  int max_builds = 0;                ///< 0: automatic. All >= 0.
  int max_pairs = 0;                 ///< 0: automatic.
  int pairs_per_step = 0;            ///< 0: automatic.
};

/// [records]
struct RecordsConfig {
  std::filesystem::path dir;  ///< Absolute; default <config dir>/benchmarks/results-v1.
};

/// [cache]
struct CacheConfig {
  /// Absolute; default $XDG_CACHE_HOME/culprit, else $HOME/.cache/culprit
  /// ("~" in the file expands from $HOME).
  std::filesystem::path dir;
};

struct Config {
  std::filesystem::path file;      ///< Absolute path of the culprit.toml.
  std::filesystem::path base_dir;  ///< Its directory.
  std::string digest;  ///< FNV-1a 64 of the file's bytes, 16 hex digits; recorded in every record.
  EngineConfig engine;
  std::map<std::string, QueryConfig> queries;
  std::map<std::string, OverrideSetConfig> overrides;
  HarnessConfig harness;
  std::map<std::string, ResidencyPlan> residency;
  RegistryConfig registry;
  MeasureConfig measure;
  BisectConfig bisect;
  RecordsConfig records;
  CacheConfig cache;
};

/// Reads and validates `file`. Errors are Error::Usage, start with
/// "FILE:LINE:COLUMN: " (FILE as given) and say what was expected; an unknown
/// key or section suggests the nearest valid one.
Result<Config> LoadConfig(const std::filesystem::path& file);

/// As LoadConfig, from text; `file` names the source in messages and its
/// directory resolves relative paths (made absolute against the current directory).
Result<Config> ParseConfig(std::string_view text, const std::filesystem::path& file);

/// The explicit path if given (it must exist), else ./culprit.toml; the error
/// hints at `culprit init` and --config.
Result<std::filesystem::path> FindConfig(const std::optional<std::filesystem::path>& explicit_path);

/// The commented starter file `culprit init` writes; ParseConfig accepts it.
/// `engine_name_hint` (e.g. the repository's directory name) names the artifact;
/// characters other than letters, digits, '.', '_' and '-' are dropped.
std::string StarterConfig(std::string_view engine_name_hint);

/// "{artifact:NAME}" names in `arg`, in order (for runners and validation).
std::vector<std::string> ArtifactReferences(std::string_view arg);

/// The name an artifact path is referenced by: its file name ("build/eventstore" -> "eventstore").
std::string ArtifactName(std::string_view artifact_path);

}  // namespace culprit
