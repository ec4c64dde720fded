#include "engine/engine_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>

#include "base/strings.h"
#include "engine/artifact_paths.h"
#include "engine/compiler_cache.h"
#include "engine/query_command.h"

namespace culprit {
namespace fs = std::filesystem;

namespace {

// Whether `dir` is a git repository or inside one, as libgit2's discovery (GitRepo::Open)
// would find it: a `.git` directory or file (a worktree) at or above it, or a bare
// repository (HEAD, objects/ and refs/) at or above it. Only the file system is read: the
// configuration refuses a path that could never open before any command runs.
bool IsInsideGitRepository(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p / ".git", ec)) return true;
    if (fs::is_regular_file(p / "HEAD", ec) && fs::is_directory(p / "objects", ec) &&
        fs::is_directory(p / "refs", ec)) {
      return true;
    }
    if (p == p.parent_path()) break;
  }
  return false;
}

// "~" or "~/..." from $HOME; nullopt when $HOME is needed but unset.
std::optional<std::string> ExpandHome(const std::string& path) {
  if (path != "~" && !path.starts_with("~/")) return path;
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return std::nullopt;
  return std::string(home) + path.substr(1);
}

Status ReadBuild(const ConfigTable& table, EngineConfig* engine) {
  std::optional<ConfigValue> build = table.Get("build");
  if (!build) {
    return table.At(
        "[engine] is missing 'build': expected the commands that build one commit, such as "
        "build = [[\"make\", \"-j2\"]]");
  }
  if (build->ArraySize() > 0 && build->Element(0).IsString()) {
    // One command written as a flat array: build = ["make", "-j2"].
    auto argv = build->Command("engine.build");
    if (!argv) return argv.error();
    engine->build.push_back(std::move(*argv));
    return {};
  }
  if (build->ArraySize() == 0) {
    return build->Expected("engine.build", "an array of commands such as [[\"make\", \"-j2\"]]");
  }
  for (size_t i = 0; i < build->ArraySize(); ++i) {
    auto argv = build->Element(i).Command(fmt::format("engine.build[{}]", i));
    if (!argv) return argv.error();
    engine->build.push_back(std::move(*argv));
  }
  return {};
}

Status ReadArtifacts(const ConfigTable& table, EngineConfig* engine) {
  std::optional<ConfigValue> artifacts = table.Get("artifacts");
  if (!artifacts) return {};
  auto paths = artifacts->StringArray("engine.artifacts", "path");
  if (!paths) return paths.error();
  if (std::optional<ArtifactProblem> problem = FindArtifactProblem(*paths)) {
    ConfigValue element = artifacts->Element(problem->index);
    std::string element_path = fmt::format("engine.artifacts[{}]", problem->index);
    if (problem->kind == ArtifactProblem::Kind::kNotRelative) {
      return element.Expected(element_path,
                              "a file path relative to the engine's build tree, such as "
                              "\"build/engine\"");
    }
    return element
        .At(fmt::format("{}: expected artifacts with distinct file names, found a second '{}'",
                        element_path, problem->name))
        .WithHint("queries refer to artifacts as {artifact:NAME} by file name");
  }
  engine->artifacts = std::move(*paths);
  return {};
}

const std::vector<std::string> kFetchPlaceholders = {"{commit}", "{artifacts}"};

Status ReadFetch(const ConfigTable& table, EngineConfig* engine) {
  std::optional<ConfigValue> fetch = table.Get("fetch");
  if (!fetch) return {};
  auto argv = fetch->Command("engine.fetch");
  if (!argv) return argv.error();
  for (size_t i = 0; i < argv->size(); ++i) {
    const std::string& word = (*argv)[i];
    for (size_t open = word.find('{'); open != std::string::npos; open = word.find('{', open + 1)) {
      const size_t close = word.find('}', open);
      const std::string name =
          word.substr(open, close == std::string::npos ? std::string::npos : close - open + 1);
      if (name != "{commit}" && name != "{artifacts}") {
        return fetch->Element(i)
            .At(fmt::format("engine.fetch[{}]: unknown placeholder '{}'{}", i, name,
                            DidYouMean(name, kFetchPlaceholders)))
            .WithHint(
                "fetch knows {commit} (the full commit id) and {artifacts} (the directory "
                "to put the artifacts in)");
      }
    }
  }
  engine->fetch = std::move(*argv);
  return {};
}

Status ReadCompilerCache(const ConfigTable& table, EngineConfig* engine) {
  if (std::optional<ConfigValue> cache = table.Get("compiler_cache")) {
    const std::string* text = cache->AsString();
    if (text == nullptr || (*text != "ccache" && *text != "none")) {
      return cache->Expected("engine.compiler_cache", "\"ccache\" or \"none\"")
          .WithHint("ccache is the compiler cache culprit runs build steps through");
    }
    engine->compiler_cache = *text == "ccache";
  }
  if (std::optional<ConfigValue> remote = table.Get("compiler_cache_remote")) {
    const std::string* url = remote->AsString();
    if (url == nullptr || !IsCompilerCacheRemote(*url)) {
      return remote
          ->Expected("engine.compiler_cache_remote",
                     "a ccache remote storage URL: redis://HOST[:PORT], redis+unix:PATH, "
                     "http(s)://... or file:DIR")
          .WithHint("other hosts' builds share compiled objects through it");
    }
    if (!engine->compiler_cache) {
      return remote->At("engine.compiler_cache_remote: needs compiler_cache = \"ccache\"")
          .WithHint("add compiler_cache = \"ccache\" to [engine]");
    }
    engine->compiler_cache_remote = *url;
  }
  return {};
}

Status ReadMetric(const ConfigValue& node, std::string_view path, MetricRule* metric) {
  const std::vector<std::string> names = NamedMetricNames();
  std::string what;
  for (const std::string& name : names) what += fmt::format("\"{}\", ", name);
  what += "{ regex = '...' } or { json = \"dotted.path\" }";
  if (const std::string* text = node.AsString()) {
    std::optional<MetricRule::Kind> kind = ParseNamedMetric(*text);
    if (!kind) {
      return node.At(fmt::format("{}: expected {}, found \"{}\"{}", path, what,
                                 EscapeControlChars(*text), DidYouMean(*text, names)));
    }
    metric->kind = *kind;
    return {};
  }
  std::optional<ConfigTable> table = node.AsTable();
  if (!table) return node.Expected(path, what);
  CULPRIT_TRY(table->CheckKeys(path, {"regex", "json"}));
  std::optional<ConfigValue> regex = table->Get("regex");
  std::optional<ConfigValue> json = table->Get("json");
  if (regex.has_value() == json.has_value()) {
    return node.At(fmt::format("{}: expected exactly one of regex or json, found {}", path,
                               regex ? "both" : "neither"));
  }
  MetricRule rule;
  if (regex) {
    std::string regex_path = ConfigKeyPath(path, "regex");
    const std::string* text = regex->AsString();
    if (text == nullptr || text->empty()) {
      return regex->Expected(regex_path, "a regular expression string");
    }
    rule.kind = MetricRule::Kind::kRegex;
    rule.pattern = *text;
    std::string detail;
    switch (CheckMetricRule(rule, &detail)) {
      case MetricRuleProblem::kRegexWithoutGroup:
        return regex->At(
            fmt::format("{}: expected a regular expression with a capture group "
                        "around the number, such as 'median_ms=([0-9.]+)', found "
                        "'{}' (no group)",
                        regex_path, *text));
      case MetricRuleProblem::kRegexInvalid:
        return regex->At(
            fmt::format("{}: expected a regular expression (ECMAScript), found '{}', "
                        "which does not compile: {}",
                        regex_path, *text, detail));
      default:
        break;
    }
  } else {
    const std::string* text = json->AsString();
    rule.kind = MetricRule::Kind::kJson;
    if (text != nullptr) rule.pattern = *text;
    if (text == nullptr || CheckMetricRule(rule) != MetricRuleProblem::kNone) {
      return json->Expected(ConfigKeyPath(path, "json"),
                            "a dotted path such as \"result.median_ms\"");
    }
  }
  metric->kind = rule.kind;
  metric->pattern = rule.pattern;
  return {};
}

Status ReadCodePath(const ConfigValue& code_path, std::string_view path, const EngineConfig& engine,
                    QueryConfig* query) {
  constexpr std::string_view kExpected = "\"auto\", an array of globs, or { command = [...] }";
  if (const std::string* text = code_path.AsString()) {
    if (*text != "auto") return code_path.Expected(path, kExpected);
    query->code_path_auto = true;
    return {};
  }
  if (code_path.IsTable()) {
    auto table = code_path.Table(path);
    if (!table) return table.error();
    CULPRIT_TRY(table->CheckKeys(path, {"command"}));
    std::optional<ConfigValue> command = table->Get("command");
    if (!command) return code_path.Expected(path, kExpected);
    std::string command_path = ConfigKeyPath(path, "command");
    auto argv = command->Command(command_path);
    if (!argv) return argv.error();
    CULPRIT_TRY(CheckCommandTemplate(*command, command_path, engine));
    query->code_path_command = std::move(*argv);
    return {};
  }
  auto globs = code_path.StringArray(path, "glob");
  if (!globs) return globs.error();
  if (globs->empty()) return code_path.Expected(path, "\"auto\" or at least one glob");
  query->code_path = std::move(*globs);
  return {};
}

// `better`, or what the unit implies, said in better_note: a throughput read upside down
// called a 14.4% drop in MB/s "a 14.4% win" (issue 30).
Status ReadDirection(const ConfigTable& table, std::string_view path, QueryConfig* query) {
  if (std::optional<ConfigValue> better = table.Get("better")) {
    const std::string* name = better->AsString();
    std::optional<MetricDirection> direction = name ? ParseMetricDirection(*name) : std::nullopt;
    if (!direction) {
      const std::vector<std::string> names = {"lower", "higher"};
      return better->At(fmt::format("{}: expected \"lower\" or \"higher\"{}",
                                    ConfigKeyPath(path, "better"),
                                    name ? DidYouMean(*name, names) : std::string()));
    }
    query->better = *direction;
    return {};
  }
  if (DirectionImpliedByUnit(query->unit) == MetricDirection::kHigherIsBetter) {
    query->better = MetricDirection::kHigherIsBetter;
    query->better_note = fmt::format(
        "higher {} is taken as better, from the unit (write better = \"higher\" in [{}] to say "
        "so, or better = \"lower\")",
        query->unit, path);
  }
  return {};
}

Status ReadQuery(const ConfigTable& table, std::string_view path, const EngineConfig& engine,
                 QueryConfig* query) {
  CULPRIT_TRY(table.CheckKeys(path, {"command", "metric", "unit", "timeout", "code_path", "cwd",
                                     "env", "warmup", "better"}));
  std::optional<ConfigValue> command = table.Get("command");
  if (!command) {
    return table.At(
        fmt::format("[{}] is missing 'command': expected the argv that runs "
                    "the query, such as [\"{{artifact:NAME}}\", \"bench\"]",
                    path));
  }
  auto argv = command->Command(ConfigKeyPath(path, "command"));
  if (!argv) return argv.error();
  CULPRIT_TRY(CheckCommandTemplate(*command, ConfigKeyPath(path, "command"), engine));
  query->command = std::move(*argv);
  if (std::optional<ConfigValue> metric = table.Get("metric")) {
    CULPRIT_TRY(ReadMetric(*metric, ConfigKeyPath(path, "metric"), &query->metric));
  }
  CULPRIT_TRY(table.ReadString(path, "unit", &query->unit, /*allow_empty=*/false));
  if (std::optional<std::string_view> fixed = FixedMetricUnit(query->metric.kind)) {
    // A resource figure has one unit; a query that writes another would mislabel it.
    std::optional<ConfigValue> unit = table.Get("unit");
    if (unit && query->unit != *fixed) {
      return unit->At(
          fmt::format("{}: metric \"{}\" is in {}: expected unit = \"{}\" or no unit, "
                      "found \"{}\"",
                      ConfigKeyPath(path, "unit"), NamedMetricName(query->metric.kind), *fixed,
                      *fixed, query->unit));
    }
    query->unit = std::string(*fixed);
  }
  if (query->metric.kind == MetricRule::Kind::kWall) {
    Result<double> scale = WallUnitsPerMillisecond(query->unit);
    if (!scale) {
      std::optional<ConfigValue> unit = table.Get("unit");
      std::string message =
          fmt::format("{}: {}", ConfigKeyPath(path, "unit"), scale.error().message());
      return unit ? unit->At(message) : table.At(message);
    }
    query->metric.wall_units_per_ms = *scale;
  }
  CULPRIT_TRY(ReadDirection(table, path, query));
  CULPRIT_TRY(table.ReadDuration(path, "timeout", &query->timeout));
  if (std::optional<ConfigValue> code_path = table.Get("code_path")) {
    CULPRIT_TRY(ReadCodePath(*code_path, ConfigKeyPath(path, "code_path"), engine, query));
  }
  std::string cwd;
  CULPRIT_TRY(table.ReadString(path, "cwd", &cwd));
  // "{tree}..." only means something once a checkout exists; the runner substitutes it.
  query->cwd =
      cwd.empty() || cwd.starts_with("{tree}") ? cwd : table.source().Resolve(cwd).string();
  if (std::optional<ConfigValue> env = table.Get("env")) {
    auto parsed = env->Environment(ConfigKeyPath(path, "env"));
    if (!parsed) return parsed.error();
    query->env = std::move(*parsed);
  }
  if (table.Contains("warmup")) {
    int warmup = 0;
    CULPRIT_TRY(table.ReadInt(path, "warmup", &warmup, 0));
    query->warmup = warmup;
  }
  return {};
}

}  // namespace

Status ReadEngineSection(const ConfigTable& root, EngineConfig* engine) {
  std::optional<ConfigValue> node = root.Get("engine");
  if (!node) {
    // Like hyperfine, measuring needs no build: commands that build say so
    // when they open the engine (EngineBuilds::Open).
    engine->present = false;
    engine->repo = root.source().Resolve(".");
    return {};
  }
  auto table_or = node->Table("engine");
  if (!table_or) return table_or.error();
  const ConfigTable& table = *table_or;
  CULPRIT_TRY(table.CheckKeys("engine", {"repo", "build", "artifacts", "build_timeout", "mode",
                                         "compiler_cache", "compiler_cache_remote", "fetch"}));
  std::string repo = ".";
  CULPRIT_TRY(table.ReadString("engine", "repo", &repo, /*allow_empty=*/false));
  engine->repo = table.source().Resolve(repo);
  CULPRIT_TRY(ReadBuild(table, engine));
  CULPRIT_TRY(ReadArtifacts(table, engine));
  CULPRIT_TRY(table.ReadDuration("engine", "build_timeout", &engine->build_timeout));
  if (std::optional<ConfigValue> mode = table.Get("mode")) {
    const std::string* text = mode->AsString();
    if (text != nullptr && *text == "incremental") {
      engine->mode = BuildMode::kIncremental;
    } else if (text != nullptr && *text == "clean") {
      engine->mode = BuildMode::kClean;
    } else {
      return mode->Expected("engine.mode", "\"incremental\" or \"clean\"")
          .WithHint(
              "incremental reuses the build directory between commits; clean builds each "
              "commit from scratch");
    }
  }
  CULPRIT_TRY(ReadCompilerCache(table, engine));
  CULPRIT_TRY(ReadFetch(table, engine));
  if (std::optional<ConfigValue> given = table.Get("repo")) {
    engine->repo_file = table.source().file();
    engine->repo_position = given->position();
  }
  return {};
}

Status CheckEngineRepository(const EngineConfig& engine, RepositoryUse use) {
  if (engine.repo_file.empty()) return {};
  const ConfigSource source(engine.repo_file, {});
  std::error_code ec;
  if (!std::filesystem::is_directory(engine.repo, ec)) {
    return source
        .At(engine.repo_position,
            fmt::format(
                "engine.repo: {} {}", engine.repo.string(),
                std::filesystem::exists(engine.repo, ec) ? "is not a directory" : "does not exist"))
        .WithHint(
            "set it to the engine's git repository (relative paths start at the "
            "configuration's directory)");
  }
  if (use == RepositoryUse::kBuild && !IsInsideGitRepository(engine.repo)) {
    return source
        .At(engine.repo_position, fmt::format("engine.repo: {} is not a git repository (nor "
                                              "inside one)",
                                              engine.repo.string()))
        .WithHint(
            "culprit builds commits from the engine's history: point it at a clone "
            "(`git clone URL`, or `git init` there)");
  }
  return {};
}

Status ReadQueriesSection(const ConfigTable& root, const EngineConfig& engine,
                          std::map<std::string, QueryConfig>* queries) {
  std::optional<ConfigValue> node = root.Get("queries");
  if (!node) return {};
  auto table = node->Table("queries");
  if (!table) return table.error();
  for (const ConfigEntry& entry : table->Entries()) {
    std::string path = ConfigKeyPath("queries", entry.key);
    auto query_table = entry.value.Table(path);
    if (!query_table) {
      return query_table.error().WithHint(
          "each query is a table: [queries.\"NAME\"] with command = [...]");
    }
    QueryConfig query;
    query.name = entry.key;
    CULPRIT_TRY(ReadQuery(*query_table, path, engine, &query));
    (*queries)[query.name] = std::move(query);
  }
  return {};
}

namespace {

/// The first placeholder of `word` other than {query} ("{{" is a literal brace), or nullopt.
std::optional<std::string> ForeignPlaceholder(std::string_view word) {
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] != '{') continue;
    if (i + 1 < word.size() && word[i + 1] == '{') {
      ++i;
      continue;
    }
    const size_t close = word.find('}', i);
    if (close == std::string_view::npos) return std::string(word.substr(i));
    if (word.substr(i, close - i + 1) != "{query}") {
      return std::string(word.substr(i, close - i + 1));
    }
    i = close;
  }
  return std::nullopt;
}

Result<std::vector<std::string>> ReadOtherEngineCommand(const ConfigValue& node,
                                                        std::string_view path) {
  auto argv = node.Command(path);
  if (!argv) return argv.error();
  for (size_t i = 0; i < node.ArraySize(); ++i) {
    std::optional<std::string> foreign = ForeignPlaceholder((*argv)[i]);
    if (!foreign) continue;
    // culprit builds nothing of another engine: no revision, checkout or artifact to fill in.
    return node.Element(i)
        .At(fmt::format("{}[{}]: another engine's command may hold {{query}} and no other "
                        "placeholder, found {}",
                        path, i, *foreign))
        .WithHint("write '{{' and '}}' for literal braces");
  }
  return argv;
}

Status ReadOtherEngine(const ConfigTable& table, std::string_view path,
                       const std::map<std::string, QueryConfig>& queries,
                       OtherEngineConfig* engine) {
  CULPRIT_TRY(table.CheckKeys(path, {"command", "queries", "metric", "cwd", "env"}));
  if (std::optional<ConfigValue> command = table.Get("command")) {
    auto argv = ReadOtherEngineCommand(*command, ConfigKeyPath(path, "command"));
    if (!argv) return argv.error();
    engine->command = std::move(*argv);
  }
  if (std::optional<ConfigValue> node = table.Get("queries")) {
    const std::string queries_path = ConfigKeyPath(path, "queries");
    auto per_query = node->Table(queries_path);
    if (!per_query) return per_query.error();
    std::vector<std::string> names;
    for (const auto& [name, query] : queries) names.push_back(name);
    for (const ConfigEntry& entry : per_query->Entries()) {
      if (queries.count(entry.key) == 0) {
        return entry.value.At(fmt::format("{}: expected a query of [queries], found '{}'{}",
                                          queries_path, entry.key, DidYouMean(entry.key, names)));
      }
      auto argv = ReadOtherEngineCommand(entry.value, ConfigKeyPath(queries_path, entry.key));
      if (!argv) return argv.error();
      engine->queries[entry.key] = std::move(*argv);
    }
  }
  if (engine->command.empty() && engine->queries.empty()) {
    return table.At(
        fmt::format("[{}] has no command: expected command = [...] (with {{query}} for the "
                    "query's name) or [{}.queries] with a command per query",
                    path, path));
  }
  if (std::optional<ConfigValue> metric = table.Get("metric")) {
    MetricRule rule;
    CULPRIT_TRY(ReadMetric(*metric, ConfigKeyPath(path, "metric"), &rule));
    engine->metric = rule;
  }
  std::string cwd;
  CULPRIT_TRY(table.ReadString(path, "cwd", &cwd));
  if (!cwd.empty()) engine->cwd = table.source().Resolve(cwd).string();
  if (std::optional<ConfigValue> env = table.Get("env")) {
    auto parsed = env->Environment(ConfigKeyPath(path, "env"));
    if (!parsed) return parsed.error();
    engine->env = std::move(*parsed);
  }
  return {};
}

}  // namespace

std::optional<std::vector<std::string>> OtherEngineConfig::CommandFor(
    const std::string& query) const {
  if (auto it = queries.find(query); it != queries.end()) return it->second;
  if (command.empty()) return std::nullopt;
  std::vector<std::string> argv;
  for (const std::string& word : command) argv.push_back(FillPlaceholder(word, "query", query));
  return argv;
}

Status ReadEnginesSection(const ConfigTable& root,
                          const std::map<std::string, QueryConfig>& queries,
                          std::map<std::string, OtherEngineConfig>* engines) {
  std::optional<ConfigValue> node = root.Get("engines");
  if (!node) return {};
  auto table = node->Table("engines");
  if (!table) return table.error();
  for (const ConfigEntry& entry : table->Entries()) {
    const std::string path = ConfigKeyPath("engines", entry.key);
    auto engine_table = entry.value.Table(path);
    if (!engine_table) {
      return engine_table.error().WithHint(
          "each engine is a table: [engines.NAME] with command = [..., \"{query}\"]");
    }
    OtherEngineConfig engine;
    engine.name = entry.key;
    CULPRIT_TRY(ReadOtherEngine(*engine_table, path, queries, &engine));
    (*engines)[engine.name] = std::move(engine);
  }
  return {};
}

Status CheckCommandTemplate(const ConfigValue& command, std::string_view path,
                            const EngineConfig& engine,
                            const std::vector<std::string>& extra_placeholders) {
  std::vector<std::string> names;
  for (const std::string& artifact : engine.artifacts) names.push_back(ArtifactName(artifact));
  for (size_t i = 0; i < command.ArraySize(); ++i) {
    ConfigValue element = command.Element(i);
    std::optional<TemplateProblem> problem =
        FindTemplateProblem(*element.AsString(), names, extra_placeholders);
    if (!problem) continue;
    std::string where = fmt::format("{}[{}]", path, i);
    switch (problem->kind) {
      case TemplateProblem::Kind::kUnclosedBrace:
        return element.Expected(where,
                                "a placeholder closed by '}' (write '{{' for a literal brace)");
      case TemplateProblem::Kind::kUnknownPlaceholder: {
        std::vector<std::string> known(std::begin(kPlaceholderNames), std::end(kPlaceholderNames));
        known.insert(known.end(), extra_placeholders.begin(), extra_placeholders.end());
        std::string listed;
        for (const std::string& name : known) listed += "{" + name + "}, ";
        return element
            .At(fmt::format("{}: expected a placeholder {}or {{artifact:NAME}}, found {{{}}}{}",
                            where, listed.substr(0, listed.size() - 2) + " ", problem->name,
                            DidYouMean(problem->name, known)))
            .WithHint("write '{{' and '}}' for literal braces");
      }
      case TemplateProblem::Kind::kUnknownArtifact: {
        std::string known = names.empty() ? std::string("engine.artifacts is empty")
                                          : fmt::format("known: {}", Join(names, ", "));
        return element
            .At(fmt::format("{}: expected an artifact listed in engine.artifacts, found "
                            "{{artifact:{}}}{}",
                            where, problem->name, DidYouMean(problem->name, names)))
            .WithHint(fmt::format("an artifact is referenced by its file name ({}); add its "
                                  "path to engine.artifacts",
                                  known));
      }
    }
  }
  return {};
}

std::optional<fs::path> DefaultCacheDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // The XDG spec says relative values are to be ignored.
  if (xdg != nullptr && fs::path(xdg).is_absolute()) {
    return (fs::path(xdg) / "culprit").lexically_normal();
  }
  std::optional<std::string> home = ExpandHome("~/.cache/culprit");
  if (!home) return std::nullopt;
  return fs::path(*home).lexically_normal();
}

Status ReadCacheSection(const ConfigTable& root, CacheConfig* cache) {
  std::string cache_dir;
  std::optional<ConfigValue> cache_dir_node;
  if (std::optional<ConfigValue> node = root.Get("cache")) {
    auto table = node->Table("cache");
    if (!table) return table.error();
    CULPRIT_TRY(table->CheckKeys("cache", {"dir"}));
    CULPRIT_TRY(table->ReadString("cache", "dir", &cache_dir, /*allow_empty=*/false));
    cache_dir_node = table->Get("dir");
  }
  constexpr std::string_view kNoHome = "cache.dir: cannot expand '~' because $HOME is not set";
  constexpr std::string_view kNoHomeHint =
      "set HOME or XDG_CACHE_HOME, or give [cache] dir an explicit path";
  if (cache_dir.empty()) {
    std::optional<fs::path> dir = DefaultCacheDir();
    if (!dir) return root.source().InFile(kNoHome).WithHint(std::string(kNoHomeHint));
    cache->dir = root.source().Resolve(dir->string());
    return {};
  }
  std::optional<std::string> expanded = ExpandHome(cache_dir);
  if (!expanded) return cache_dir_node->At(kNoHome).WithHint(std::string(kNoHomeHint));
  cache->dir = root.source().Resolve(*expanded);
  return {};
}

}  // namespace culprit
