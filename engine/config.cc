#include "engine/config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <set>

#include "base/atomic_file.h"
#include "base/strings.h"
#include "base/duration.h"
#include "engine/metric.h"

namespace culprit {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kArtifactOpen = "{artifact:";

std::vector<std::string> Strings(std::initializer_list<std::string_view> words) {
  return std::vector<std::string>(words.begin(), words.end());
}

const std::vector<std::string>& SectionNames() {
  static const auto* names = new std::vector<std::string>(
      Strings({"engine", "queries", "overrides", "harness", "residency", "registry", "measure",
               "bisect", "records", "cache"}));
  return *names;
}

// A key as TOML would write it in a dotted path: bare when it can be.
std::string QuoteKey(std::string_view key) {
  bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
  return bare ? std::string(key) : fmt::format("\"{}\"", key);
}

std::string Child(std::string_view path, std::string_view key) {
  return path.empty() ? QuoteKey(key) : fmt::format("{}.{}", path, QuoteKey(key));
}

std::string TypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// What was found, for "expected X, found Y": strings are shown, other values by type.
std::string Found(const toml::node& node) {
  if (const auto* s = node.as_string()) return fmt::format("\"{}\"", s->get());
  return TypeName(node);
}

bool IsEnvironmentName(std::string_view name) {
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (name.empty() || !start(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return start(c) || (c >= '0' && c <= '9'); });
}

// Reads one parsed document into a Config; every error carries a position.
class Reader {
 public:
  Reader(std::string file, fs::path base_dir) : file_(std::move(file)), base_dir_(base_dir) {}

  Error At(const toml::source_region& region, std::string_view message) const {
    // Implicitly created tables have no position; the top of the file is the
    // best place to point at then.
    auto line = std::max<uint32_t>(region.begin.line, 1);
    auto column = std::max<uint32_t>(region.begin.column, 1);
    return Error::Usage(fmt::format("{}:{}:{}: {}", file_, line, column, message));
  }
  Error At(const toml::node& node, std::string_view message) const {
    return At(node.source(), message);
  }
  Error Expected(const toml::node& node, std::string_view path, std::string_view what) const {
    return At(node, fmt::format("{}: expected {}, found {}", path, what, Found(node)));
  }

  // Unknown keys are the commonest typo; name the nearest valid one.
  Status CheckKeys(const toml::table& table, std::string_view path,
                   const std::vector<std::string>& allowed) const {
    for (const auto& [key, node] : table) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
      if (path.empty() && !node.is_table()) {
        // Only sections are valid at the top level; a stray `band = 0.1` there
        // usually belongs under a section header.
        return At(key.source(), fmt::format("unknown top-level key '{}': expected a section such "
                                            "as [measure]",
                                            key.str()))
            .WithHint(fmt::format("valid sections: {}", Join(allowed, ", ")));
      }
      std::string where = path.empty() ? "" : fmt::format(" in [{}]", path);
      std::string what = path.empty() ? "section" : "key";
      return At(key.source(), fmt::format("unknown {} '{}'{}{}", what, key.str(), where,
                                          DidYouMean(key.str(), allowed)))
          .WithHint(fmt::format("valid {}s{}: {}", what, where, Join(allowed, ", ")));
    }
    return {};
  }

  Result<const toml::table*> Table(const toml::node& node, std::string_view path) const {
    if (const auto* table = node.as_table()) return table;
    return Expected(node, path, "a table");
  }

  // The optional readers leave `out` untouched when the key is absent.
  Status ReadString(const toml::table& table, std::string_view path, std::string_view key,
                    std::string* out, bool allow_empty = true) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return {};
    const auto* value = node->as_string();
    if (value == nullptr || (!allow_empty && value->get().empty())) {
      return Expected(*node, Child(path, key), allow_empty ? "a string" : "a non-empty string");
    }
    *out = value->get();
    return {};
  }

  Status ReadDouble(const toml::table& table, std::string_view path, std::string_view key,
                    double* out, double above, double below) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return {};
    std::string range = fmt::format("a number between {} and {} (exclusive)", above, below);
    std::optional<double> value = node->value<double>();  // integers convert too
    if (!node->is_number() || !value) return Expected(*node, Child(path, key), range);
    if (!(*value > above && *value < below)) {
      return At(*node, fmt::format("{}: expected {}, found {}", Child(path, key), range, *value));
    }
    *out = *value;
    return {};
  }

  Status ReadInt(const toml::table& table, std::string_view path, std::string_view key, int* out,
                 int64_t min, int64_t max = 1'000'000'000) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return {};
    const auto* value = node->as_integer();
    std::string range = max >= 1'000'000'000 ? fmt::format("an integer >= {}", min)
                                             : fmt::format("an integer from {} to {}", min, max);
    if (value == nullptr) return Expected(*node, Child(path, key), range);
    if (value->get() < min || value->get() > max) {
      return At(*node,
                fmt::format("{}: expected {}, found {}", Child(path, key), range, value->get()));
    }
    *out = static_cast<int>(value->get());
    return {};
  }

  Status ReadBool(const toml::table& table, std::string_view path, std::string_view key,
                  bool* out) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return {};
    const auto* value = node->as_boolean();
    if (value == nullptr) return Expected(*node, Child(path, key), "true or false");
    *out = value->get();
    return {};
  }

  Status ReadDuration(const toml::table& table, std::string_view path, std::string_view key,
                      std::chrono::milliseconds* out) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return {};
    const auto* value = node->as_string();
    if (value == nullptr) {
      return Expected(*node, Child(path, key),
                      "a duration string such as \"500ms\", \"60s\", \"20m\" or \"1h\"");
    }
    auto parsed = ParseDuration(value->get());
    if (!parsed) {
      return At(*node, fmt::format("{}: {}", Child(path, key), parsed.error().message()));
    }
    if (parsed->count() <= 0) {
      return At(*node, fmt::format("{}: expected a duration greater than zero, found \"{}\"",
                                   Child(path, key), value->get()));
    }
    *out = *parsed;
    return {};
  }

  // An array of strings; `what` describes one element.
  Result<std::vector<std::string>> StringArray(const toml::node& node, std::string_view path,
                                               std::string_view what) const {
    const auto* array = node.as_array();
    if (array == nullptr) return Expected(node, path, fmt::format("an array of {}s", what));
    std::vector<std::string> out;
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      const auto* value = element.as_string();
      if (value == nullptr || value->get().empty()) {
        return Expected(element, fmt::format("{}[{}]", path, i),
                        fmt::format("a non-empty {}", what));
      }
      out.push_back(value->get());
    }
    return out;
  }

  // argv: a non-empty array of strings whose first element is not empty.
  Result<std::vector<std::string>> Command(const toml::node& node, std::string_view path) const {
    const auto* array = node.as_array();
    if (array == nullptr || array->empty()) {
      return Expected(node, path,
                      "a command: a non-empty array of strings such as [\"make\", \"-j2\"]");
    }
    std::vector<std::string> argv;
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      const auto* value = element.as_string();
      if (value == nullptr) {
        return Expected(element, fmt::format("{}[{}]", path, i), "a string (one argument)");
      }
      if (i == 0 && value->get().empty()) {
        return Expected(element, fmt::format("{}[0]", path), "a program name");
      }
      argv.push_back(value->get());
    }
    return argv;
  }

  // Names and values of an environment table ({ NAME = "value" }).
  Result<std::map<std::string, std::string>> Environment(const toml::node& node,
                                                         std::string_view path) const {
    CULPRIT_TRY(Table(node, path));
    std::map<std::string, std::string> env;
    for (const auto& [key, value] : *node.as_table()) {
      if (!IsEnvironmentName(key.str())) {
        return At(key.source(),
                  fmt::format("{}: expected an environment variable name (letters, digits and "
                              "'_', not starting with a digit), found '{}'",
                              path, key.str()))
            .WithHint("a name the engine cannot read would make the override a silent no-op");
      }
      const auto* text = value.as_string();
      if (text == nullptr) {
        return Expected(value, Child(path, key.str()), "a string")
            .WithHint(fmt::format("environment values are strings: write {} = \"...\"", key.str()));
      }
      env[std::string(key.str())] = text->get();
    }
    return env;
  }

  Result<std::vector<std::string>> EnvironmentNames(const toml::node& node,
                                                    std::string_view path) const {
    auto names = StringArray(node, path, "environment variable name");
    if (!names) return names.error();
    const auto& array = *node.as_array();
    for (size_t i = 0; i < names->size(); ++i) {
      if (!IsEnvironmentName((*names)[i])) {
        return Expected(*array.get(i), fmt::format("{}[{}]", path, i),
                        "an environment variable name (letters, digits and '_', not starting "
                        "with a digit)");
      }
    }
    return names;
  }

  // "{artifact:NAME}" must name an entry of engine.artifacts.
  Status CheckArtifactReferences(const toml::node& command_node, std::string_view path) const {
    const auto& array = *command_node.as_array();
    for (size_t i = 0; i < array.size(); ++i) {
      const std::string& arg = array.get(i)->as_string()->get();
      size_t open = arg.find(kArtifactOpen);
      while (open != std::string::npos) {
        size_t close = arg.find('}', open);
        if (close == std::string::npos) {
          return Expected(*array.get(i), fmt::format("{}[{}]", path, i),
                          "\"{artifact:NAME}\" closed by '}'");
        }
        std::string name =
            arg.substr(open + kArtifactOpen.size(), close - open - kArtifactOpen.size());
        if (std::find(artifact_names_.begin(), artifact_names_.end(), name) ==
            artifact_names_.end()) {
          std::string known = artifact_names_.empty()
                                  ? std::string("engine.artifacts is empty")
                                  : fmt::format("known: {}", Join(artifact_names_, ", "));
          return At(*array.get(i),
                    fmt::format("{}[{}]: expected an artifact listed in engine.artifacts, found "
                                "{{artifact:{}}}{}",
                                path, i, name, DidYouMean(name, artifact_names_)))
              .WithHint(fmt::format("an artifact is referenced by its file name ({}); add its "
                                    "path to engine.artifacts",
                                    known));
        }
        open = arg.find(kArtifactOpen, close);
      }
    }
    return {};
  }

  fs::path Resolve(const std::string& path) const {
    fs::path p = fs::path(path).is_absolute() ? fs::path(path) : base_dir_ / path;
    p = p.lexically_normal();
    if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
    return p;
  }

  Status ReadEngine(const toml::table& root, Config* config);
  Status ReadQueries(const toml::table& root, Config* config) const;
  Status ReadQuery(const toml::table& table, std::string_view path, QueryConfig* query) const;
  Status ReadMetric(const toml::node& node, std::string_view path, MetricSpec* metric) const;
  Status ReadOverrides(const toml::table& root, Config* config) const;
  Status ReadHarness(const toml::table& root, Config* config) const;
  Status ReadResidency(const toml::table& root, Config* config) const;
  Status ReadRegistry(const toml::table& root, Config* config) const;
  Status ReadMeasure(const toml::table& root, Config* config) const;
  Status ReadBisect(const toml::table& root, Config* config) const;
  Status ReadRecordsAndCache(const toml::table& root, Config* config) const;

 private:
  std::string file_;
  fs::path base_dir_;
  std::vector<std::string> artifact_names_;
};

Status Reader::ReadEngine(const toml::table& root, Config* config) {
  const toml::node* node = root.get("engine");
  if (node == nullptr) {
    return At(root.source(), "missing section [engine]: expected the engine's repo and build")
        .WithHint("run `culprit init` for a starter file, or add [engine] with build = [[...]]");
  }
  auto table_or = Table(*node, "engine");
  if (!table_or) return table_or.error();
  const toml::table& table = **table_or;
  CULPRIT_TRY(
      CheckKeys(table, "engine", Strings({"repo", "build", "artifacts", "build_timeout", "mode"})));
  EngineConfig& engine = config->engine;
  std::string repo = ".";
  CULPRIT_TRY(ReadString(table, "engine", "repo", &repo, /*allow_empty=*/false));
  engine.repo = Resolve(repo);

  const toml::node* build = table.get("build");
  if (build == nullptr) {
    return At(table.source(),
              "[engine] is missing 'build': expected the commands that build one commit, such as "
              "build = [[\"make\", \"-j2\"]]");
  }
  const auto* build_array = build->as_array();
  if (build_array != nullptr && !build_array->empty() && build_array->get(0)->is_string()) {
    // One command written as a flat array: build = ["make", "-j2"].
    auto argv = Command(*build, "engine.build");
    if (!argv) return argv.error();
    engine.build.push_back(std::move(*argv));
  } else {
    if (build_array == nullptr || build_array->empty()) {
      return Expected(*build, "engine.build", "an array of commands such as [[\"make\", \"-j2\"]]");
    }
    for (size_t i = 0; i < build_array->size(); ++i) {
      auto argv = Command(*build_array->get(i), fmt::format("engine.build[{}]", i));
      if (!argv) return argv.error();
      engine.build.push_back(std::move(*argv));
    }
  }

  if (const toml::node* artifacts = table.get("artifacts")) {
    auto paths = StringArray(*artifacts, "engine.artifacts", "path");
    if (!paths) return paths.error();
    for (size_t i = 0; i < paths->size(); ++i) {
      const std::string& path = (*paths)[i];
      const toml::node& element = *artifacts->as_array()->get(i);
      std::string element_path = fmt::format("engine.artifacts[{}]", i);
      fs::path p(path);
      bool escapes = std::any_of(p.begin(), p.end(), [](const fs::path& c) { return c == ".."; });
      if (p.is_absolute() || escapes || ArtifactName(path).empty()) {
        return Expected(element, element_path,
                        "a file path relative to the engine's build tree, such as "
                        "\"build/engine\"");
      }
      std::string name = ArtifactName(path);
      if (std::find(artifact_names_.begin(), artifact_names_.end(), name) !=
          artifact_names_.end()) {
        return At(element, fmt::format("{}: expected artifacts with distinct file names, found a "
                                       "second '{}'",
                                       element_path, name))
            .WithHint("queries refer to artifacts as {artifact:NAME} by file name");
      }
      artifact_names_.push_back(name);
      engine.artifacts.push_back(path);
    }
  }
  CULPRIT_TRY(ReadDuration(table, "engine", "build_timeout", &engine.build_timeout));
  if (const toml::node* mode = table.get("mode")) {
    const auto* text = mode->as_string();
    if (text != nullptr && text->get() == "incremental") {
      engine.mode = BuildMode::kIncremental;
    } else if (text != nullptr && text->get() == "clean") {
      engine.mode = BuildMode::kClean;
    } else {
      return Expected(*mode, "engine.mode", "\"incremental\" or \"clean\"")
          .WithHint(
              "incremental reuses the build directory between commits; clean builds each "
              "commit from scratch");
    }
  }
  return {};
}

Status Reader::ReadMetric(const toml::node& node, std::string_view path, MetricSpec* metric) const {
  constexpr std::string_view kWhat = "\"wall\", { regex = '...' } or { json = \"dotted.path\" }";
  if (const auto* text = node.as_string()) {
    if (text->get() != "wall") return Expected(node, path, kWhat);
    metric->kind = MetricKind::kWall;
    return {};
  }
  const auto* table = node.as_table();
  if (table == nullptr) return Expected(node, path, kWhat);
  CULPRIT_TRY(CheckKeys(*table, path, Strings({"regex", "json"})));
  const toml::node* regex = table->get("regex");
  const toml::node* json = table->get("json");
  if ((regex == nullptr) == (json == nullptr)) {
    return At(node, fmt::format("{}: expected exactly one of regex or json, found {}", path,
                                regex ? "both" : "neither"));
  }
  if (regex != nullptr) {
    std::string regex_path = Child(path, "regex");
    const auto* text = regex->as_string();
    if (text == nullptr || text->get().empty()) {
      return Expected(*regex, regex_path, "a regular expression string");
    }
    try {
      std::regex compiled(text->get(), std::regex::ECMAScript);
      if (compiled.mark_count() < 1) {
        return At(*regex, fmt::format("{}: expected a regular expression with a capture group "
                                      "around the number, such as 'median_ms=([0-9.]+)', found "
                                      "'{}' (no group)",
                                      regex_path, text->get()));
      }
    } catch (const std::regex_error& e) {
      return At(*regex, fmt::format("{}: expected a regular expression (ECMAScript), found '{}', "
                                    "which does not compile: {}",
                                    regex_path, text->get(), e.what()));
    }
    metric->kind = MetricKind::kRegex;
    metric->pattern = text->get();
    return {};
  }
  std::string json_path = Child(path, "json");
  const auto* text = json->as_string();
  bool valid = text != nullptr && !text->get().empty();
  if (valid) {
    const std::string& dotted = text->get();
    valid = dotted.front() != '.' && dotted.back() != '.' && dotted.find("..") == std::string::npos;
  }
  if (!valid) return Expected(*json, json_path, "a dotted path such as \"result.median_ms\"");
  metric->kind = MetricKind::kJson;
  metric->pattern = text->get();
  return {};
}

Status Reader::ReadQuery(const toml::table& table, std::string_view path,
                         QueryConfig* query) const {
  CULPRIT_TRY(CheckKeys(
      table, path,
      Strings({"command", "metric", "unit", "timeout", "code_path", "cwd", "env", "warmup"})));
  const toml::node* command = table.get("command");
  if (command == nullptr) {
    return At(table.source(), fmt::format("[{}] is missing 'command': expected the argv that runs "
                                          "the query, such as [\"{{artifact:NAME}}\", \"bench\"]",
                                          path));
  }
  auto argv = Command(*command, Child(path, "command"));
  if (!argv) return argv.error();
  CULPRIT_TRY(CheckArtifactReferences(*command, Child(path, "command")));
  query->command = std::move(*argv);
  if (const toml::node* metric = table.get("metric")) {
    CULPRIT_TRY(ReadMetric(*metric, Child(path, "metric"), &query->metric));
  }
  CULPRIT_TRY(ReadString(table, path, "unit", &query->unit, /*allow_empty=*/false));
  if (query->metric.kind == MetricKind::kWall) {
    Result<double> scale = WallUnitsPerMillisecond(query->unit);
    if (!scale) {
      const toml::node* unit = table.get("unit");
      std::string message = fmt::format("{}: {}", Child(path, "unit"), scale.error().message());
      return unit != nullptr ? At(*unit, message) : At(table, message);
    }
    query->metric.wall_units_per_ms = *scale;
  }
  CULPRIT_TRY(ReadDuration(table, path, "timeout", &query->timeout));
  if (const toml::node* code_path = table.get("code_path")) {
    std::string code_path_path = Child(path, "code_path");
    if (const auto* text = code_path->as_string()) {
      if (text->get() != "auto") {
        return Expected(*code_path, code_path_path, "\"auto\" or an array of globs");
      }
      query->code_path_auto = true;
    } else {
      auto globs = StringArray(*code_path, code_path_path, "glob");
      if (!globs) return globs.error();
      if (globs->empty()) {
        return Expected(*code_path, code_path_path, "\"auto\" or at least one glob");
      }
      query->code_path = std::move(*globs);
    }
  }
  std::string cwd;
  CULPRIT_TRY(ReadString(table, path, "cwd", &cwd));
  // "{tree}..." only means something once a checkout exists; the runner substitutes it.
  query->cwd = cwd.empty() || cwd.starts_with("{tree}") ? cwd : Resolve(cwd).string();
  if (const toml::node* env = table.get("env")) {
    auto parsed = Environment(*env, Child(path, "env"));
    if (!parsed) return parsed.error();
    query->env = std::move(*parsed);
  }
  if (table.contains("warmup")) {
    int warmup = 0;
    CULPRIT_TRY(ReadInt(table, path, "warmup", &warmup, 0));
    query->warmup = warmup;
  }
  return {};
}

Status Reader::ReadQueries(const toml::table& root, Config* config) const {
  const toml::node* node = root.get("queries");
  if (node == nullptr) return {};
  auto table = Table(*node, "queries");
  if (!table) return table.error();
  for (const auto& [key, value] : **table) {
    std::string path = Child("queries", key.str());
    auto query_table = Table(value, path);
    if (!query_table) {
      return query_table.error().WithHint(
          "each query is a table: [queries.\"NAME\"] with command = [...]");
    }
    QueryConfig query;
    query.name = key.str();
    CULPRIT_TRY(ReadQuery(**query_table, path, &query));
    config->queries[query.name] = std::move(query);
  }
  return {};
}

Status Reader::ReadOverrides(const toml::table& root, Config* config) const {
  const toml::node* node = root.get("overrides");
  if (node == nullptr) return {};
  auto table = Table(*node, "overrides");
  if (!table) return table.error();
  for (const auto& [key, value] : **table) {
    std::string path = Child("overrides", key.str());
    if (key.str().find('=') != std::string_view::npos || key.str().empty()) {
      // `--override NAME` tells a set name from K=V by the '='.
      return At(key.source(), fmt::format("{}: expected an override set name without '=', found "
                                          "'{}'",
                                          path, key.str()));
    }
    auto set_table = Table(value, path);
    if (!set_table) return set_table.error();
    CULPRIT_TRY(CheckKeys(**set_table, path, Strings({"env", "unset", "hypothesis"})));
    OverrideSetConfig set;
    set.name = key.str();
    if (const toml::node* env = (*set_table)->get("env")) {
      auto parsed = Environment(*env, Child(path, "env"));
      if (!parsed) return parsed.error();
      set.env = std::move(*parsed);
    }
    if (const toml::node* unset = (*set_table)->get("unset")) {
      auto names = EnvironmentNames(*unset, Child(path, "unset"));
      if (!names) return names.error();
      for (size_t i = 0; i < names->size(); ++i) {
        if (set.env.count((*names)[i])) {
          return At(*unset->as_array()->get(i),
                    fmt::format("{}[{}]: expected a variable this set does not also set in env, "
                                "found '{}'",
                                Child(path, "unset"), i, (*names)[i]));
        }
      }
      set.unset = std::move(*names);
    }
    if (set.env.empty() && set.unset.empty()) {
      return At(value, fmt::format("[{}] changes nothing: expected env = {{ NAME = \"value\" }} "
                                   "or unset = [\"NAME\"]",
                                   path));
    }
    CULPRIT_TRY(ReadString(*set_table.value(), path, "hypothesis", &set.hypothesis));
    config->overrides[set.name] = std::move(set);
  }
  return {};
}

Status Reader::ReadHarness(const toml::table& root, Config* config) const {
  const toml::node* node = root.get("harness");
  if (node == nullptr) return {};
  auto table = Table(*node, "harness");
  if (!table) return table.error();
  CULPRIT_TRY(CheckKeys(**table, "harness", Strings({"command", "timeout"})));
  if (const toml::node* command = (*table)->get("command")) {
    auto argv = Command(*command, "harness.command");
    if (!argv) return argv.error();
    CULPRIT_TRY(CheckArtifactReferences(*command, "harness.command"));
    config->harness.command = std::move(*argv);
  } else {
    return At(node->source(),
              "[harness] is missing 'command': expected the argv that starts the "
              "engine's in-process harness");
  }
  CULPRIT_TRY(ReadDuration(**table, "harness", "timeout", &config->harness.timeout));
  return {};
}

Status Reader::ReadResidency(const toml::table& root, Config* config) const {
  const toml::node* node = root.get("residency");
  if (node == nullptr) return {};
  auto table = Table(*node, "residency");
  if (!table) return table.error();
  std::vector<std::string> query_names;
  for (const auto& [name, unused] : config->queries) query_names.push_back(name);
  for (const auto& [key, value] : **table) {
    std::string path = Child("residency", key.str());
    auto plan_table = Table(value, path);
    if (!plan_table) return plan_table.error();
    const toml::table& plan_node = **plan_table;
    CULPRIT_TRY(CheckKeys(plan_node, path, Strings({"query", "conditions"})));
    ResidencyPlan plan;
    plan.name = key.str();
    const toml::node* query = plan_node.get("query");
    if (query == nullptr) {
      return At(plan_node.source(),
                fmt::format("[{}] is missing 'query': expected the query to measure", path));
    }
    CULPRIT_TRY(ReadString(plan_node, path, "query", &plan.query, /*allow_empty=*/false));
    if (!config->queries.count(plan.query)) {
      return At(*query,
                fmt::format("{}: expected a query defined in [queries], found \"{}\"{}",
                            Child(path, "query"), plan.query, DidYouMean(plan.query, query_names)));
    }
    const toml::node* conditions = plan_node.get("conditions");
    if (conditions == nullptr) {
      return At(
          plan_node.source(),
          fmt::format("[{}] is missing 'conditions': expected an array such as "
                      "[{{ name = \"nothing held\" }}, {{ name = \"held\", hold = [\"x\"] }}]",
                      path));
    }
    const auto* array = conditions->as_array();
    std::string conditions_path = Child(path, "conditions");
    if (array == nullptr || array->empty()) {
      return Expected(*conditions, conditions_path,
                      "a non-empty array of { name = ..., hold = [...] }");
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      std::string element_path = fmt::format("{}[{}]", conditions_path, i);
      auto condition_table = Table(element, element_path);
      if (!condition_table) return condition_table.error();
      CULPRIT_TRY(CheckKeys(**condition_table, element_path, Strings({"name", "hold", "release"})));
      ResidencyCondition condition;
      if (!(*condition_table)->contains("name")) {
        return At(element, fmt::format("{}: expected a name, such as name = \"nothing held\"",
                                       element_path));
      }
      CULPRIT_TRY(ReadString(**condition_table, element_path, "name", &condition.name, false));
      for (const ResidencyCondition& other : plan.conditions) {
        if (other.name == condition.name) {
          return At(*(*condition_table)->get("name"),
                    fmt::format("{}.name: expected a name not used by another condition of this "
                                "plan, found \"{}\" again",
                                element_path, condition.name));
        }
      }
      // Structure names travel as "hold NAME" lines: no whitespace.
      auto structure_list = [&](std::string_view list_key,
                                std::vector<std::string>* out) -> Status {
        const toml::node* list = (*condition_table)->get(list_key);
        if (list == nullptr) return {};
        std::string list_path = Child(element_path, list_key);
        auto names = StringArray(*list, list_path, "structure name");
        if (!names) return names.error();
        for (size_t j = 0; j < names->size(); ++j) {
          const std::string& name = (*names)[j];
          if (std::any_of(name.begin(), name.end(), [](char c) { return std::isspace(c); })) {
            return Expected(*list->as_array()->get(j), fmt::format("{}[{}]", list_path, j),
                            "a structure name without spaces (it is sent as \"hold NAME\")");
          }
        }
        *out = std::move(*names);
        return {};
      };
      CULPRIT_TRY(structure_list("hold", &condition.hold));
      CULPRIT_TRY(structure_list("release", &condition.release));
      for (size_t j = 0; j < condition.release.size(); ++j) {
        const std::string& name = condition.release[j];
        if (std::find(condition.hold.begin(), condition.hold.end(), name) == condition.hold.end()) {
          return At(*(*condition_table)->get("release")->as_array()->get(j),
                    fmt::format("{}.release[{}]: expected a structure this condition holds, "
                                "found '{}', which is not in its hold list{}",
                                element_path, j, name, DidYouMean(name, condition.hold)))
              .WithHint(
                  "a released condition holds the structure first, then releases it: "
                  "hold = [\"x\"], release = [\"x\"]");
        }
      }
      plan.conditions.push_back(std::move(condition));
    }
    if (config->harness.command.empty()) {
      return At(plan_node.source(),
                fmt::format("[{}] needs the engine's in-process harness: expected a [harness] "
                            "section with its command",
                            path))
          .WithHint(
              "residency isolation measures every condition in one process, through the "
              "harness protocol (hold, release, run, quit)");
    }
    config->residency[plan.name] = std::move(plan);
  }
  return {};
}

Status Reader::ReadRegistry(const toml::table& root, Config* config) const {
  const toml::node* node = root.get("registry");
  if (node == nullptr) return {};
  auto table = Table(*node, "registry");
  if (!table) return table.error();
  CULPRIT_TRY(CheckKeys(**table, "registry", Strings({"order"})));
  const toml::node* order = (*table)->get("order");
  if (order == nullptr) return {};
  auto names = StringArray(*order, "registry.order", "query name");
  if (!names) return names.error();
  std::vector<std::string> query_names;
  for (const auto& [name, unused] : config->queries) query_names.push_back(name);
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    const toml::node& element = *order->as_array()->get(i);
    if (!config->queries.count(name)) {
      return At(element, fmt::format("registry.order[{}]: expected a query defined in [queries], "
                                     "found \"{}\"{}",
                                     i, name, DidYouMean(name, query_names)))
          .WithHint(fmt::format("define [queries.{}] or remove it from registry.order; the "
                                "order only lists queries culprit can run",
                                QuoteKey(name)));
    }
    if (std::find(names->begin(), names->begin() + i, name) != names->begin() + i) {
      return At(element, fmt::format("registry.order[{}]: expected each query once, found \"{}\" "
                                     "again",
                                     i, name));
    }
  }
  config->registry.order = std::move(*names);
  return {};
}

Status Reader::ReadMeasure(const toml::table& root, Config* config) const {
  const toml::node* node = root.get("measure");
  if (node == nullptr) return {};
  auto table_or = Table(*node, "measure");
  if (!table_or) return table_or.error();
  const toml::table& table = **table_or;
  CULPRIT_TRY(CheckKeys(table, "measure",
                        Strings({"band", "confidence", "min_pairs", "max_pairs", "warmup",
                                 "calibrate_between_looks"})));
  MeasureConfig& measure = config->measure;
  CULPRIT_TRY(ReadDouble(table, "measure", "band", &measure.band, 0, 1));
  CULPRIT_TRY(ReadDouble(table, "measure", "confidence", &measure.confidence, 0, 1));
  CULPRIT_TRY(
      ReadInt(table, "measure", "min_pairs", &measure.min_pairs, 2, MeasureConfig::kMaxPairs));
  CULPRIT_TRY(
      ReadInt(table, "measure", "max_pairs", &measure.max_pairs, 2, MeasureConfig::kMaxPairs));
  CULPRIT_TRY(ReadInt(table, "measure", "warmup", &measure.warmup, 0));
  CULPRIT_TRY(
      ReadBool(table, "measure", "calibrate_between_looks", &measure.calibrate_between_looks));
  if (measure.min_pairs > measure.max_pairs) {
    // Point at whichever of the two the file sets (min_pairs if both).
    const toml::node* at = table.get("min_pairs") ? table.get("min_pairs") : table.get("max_pairs");
    return At(*at, fmt::format("measure.min_pairs: expected at most max_pairs ({}), found {}",
                               measure.max_pairs, measure.min_pairs));
  }
  return {};
}

Status Reader::ReadBisect(const toml::table& root, Config* config) const {
  const toml::node* node = root.get("bisect");
  if (node == nullptr) return {};
  auto table_or = Table(*node, "bisect");
  if (!table_or) return table_or.error();
  const toml::table& table = **table_or;
  CULPRIT_TRY(
      CheckKeys(table, "bisect",
                Strings({"target_probability", "max_builds", "max_pairs", "pairs_per_step"})));
  BisectConfig& bisect = config->bisect;
  CULPRIT_TRY(ReadDouble(table, "bisect", "target_probability", &bisect.target_probability, 0, 1));
  CULPRIT_TRY(ReadInt(table, "bisect", "max_builds", &bisect.max_builds, 0));
  CULPRIT_TRY(ReadInt(table, "bisect", "max_pairs", &bisect.max_pairs, 0));
  CULPRIT_TRY(ReadInt(table, "bisect", "pairs_per_step", &bisect.pairs_per_step, 0));
  return {};
}

// "~" or "~/..." from $HOME; nullopt when $HOME is needed but unset.
std::optional<std::string> ExpandHome(const std::string& path) {
  if (path != "~" && !path.starts_with("~/")) return path;
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return std::nullopt;
  return std::string(home) + path.substr(1);
}

Status Reader::ReadRecordsAndCache(const toml::table& root, Config* config) const {
  std::string records_dir = "benchmarks/results-v1";
  if (const toml::node* node = root.get("records")) {
    auto table = Table(*node, "records");
    if (!table) return table.error();
    CULPRIT_TRY(CheckKeys(**table, "records", Strings({"dir"})));
    CULPRIT_TRY(ReadString(**table, "records", "dir", &records_dir, /*allow_empty=*/false));
  }
  config->records.dir = Resolve(records_dir);

  std::string cache_dir;
  const toml::node* cache_dir_node = nullptr;
  if (const toml::node* node = root.get("cache")) {
    auto table = Table(*node, "cache");
    if (!table) return table.error();
    CULPRIT_TRY(CheckKeys(**table, "cache", Strings({"dir"})));
    CULPRIT_TRY(ReadString(**table, "cache", "dir", &cache_dir, /*allow_empty=*/false));
    cache_dir_node = (*table)->get("dir");
  }
  if (cache_dir.empty()) {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    // The XDG spec says relative values are to be ignored.
    if (xdg != nullptr && fs::path(xdg).is_absolute()) {
      config->cache.dir = (fs::path(xdg) / "culprit").lexically_normal();
      return {};
    }
    cache_dir = "~/.cache/culprit";
  }
  std::optional<std::string> expanded = ExpandHome(cache_dir);
  if (!expanded) {
    std::string message = "cache.dir: cannot expand '~' because $HOME is not set";
    Error error = cache_dir_node ? At(*cache_dir_node, message)
                                 : Error::Usage(fmt::format("{}: {}", file_, message));
    return error.WithHint("set HOME or XDG_CACHE_HOME, or give [cache] dir an explicit path");
  }
  config->cache.dir = Resolve(*expanded);
  return {};
}

}  // namespace

std::vector<std::string> ArtifactReferences(std::string_view arg) {
  std::vector<std::string> names;
  size_t open = arg.find(kArtifactOpen);
  while (open != std::string_view::npos) {
    size_t close = arg.find('}', open);
    if (close == std::string_view::npos) break;
    names.emplace_back(
        arg.substr(open + kArtifactOpen.size(), close - open - kArtifactOpen.size()));
    open = arg.find(kArtifactOpen, close);
  }
  return names;
}

std::string ArtifactName(std::string_view artifact_path) {
  return fs::path(artifact_path).lexically_normal().filename().string();
}

Result<Config> ParseConfig(std::string_view text, const fs::path& file) {
  std::error_code ec;
  fs::path absolute = fs::absolute(file, ec).lexically_normal();
  if (ec) absolute = file;
  Config config;
  config.file = absolute;
  config.base_dir = absolute.parent_path();
  config.digest = ConfigDigest(text);
  Reader reader(file.string(), config.base_dir);

  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    return reader.At(e.source(), fmt::format("invalid TOML: {}", e.description()))
        .WithHint("see https://toml.io for the syntax");
  }
  CULPRIT_TRY(reader.CheckKeys(root, "", SectionNames()));
  CULPRIT_TRY(reader.ReadEngine(root, &config));
  CULPRIT_TRY(reader.ReadQueries(root, &config));
  CULPRIT_TRY(reader.ReadOverrides(root, &config));
  CULPRIT_TRY(reader.ReadHarness(root, &config));
  CULPRIT_TRY(reader.ReadResidency(root, &config));
  CULPRIT_TRY(reader.ReadRegistry(root, &config));
  CULPRIT_TRY(reader.ReadMeasure(root, &config));
  CULPRIT_TRY(reader.ReadBisect(root, &config));
  CULPRIT_TRY(reader.ReadRecordsAndCache(root, &config));
  return config;
}

Result<Config> LoadConfig(const fs::path& file) {
  auto text = ReadFile(file);
  if (!text) {
    // A configuration that cannot be read is a usage problem (exit 2), not a failure of the work.
    return Error::Usage(text.error().message())
        .WithHint("run `culprit init` to write a starter culprit.toml, or pass --config PATH");
  }
  return ParseConfig(*text, file);
}

Result<fs::path> FindConfig(const std::optional<fs::path>& explicit_path) {
  if (explicit_path) {
    std::error_code ec;
    if (fs::is_directory(*explicit_path, ec)) {
      fs::path inside = *explicit_path / "culprit.toml";
      if (fs::exists(inside, ec)) return inside;
      return Error::Usage(fmt::format("no culprit.toml in directory {}", explicit_path->string()))
          .WithHint(
              "run `culprit init` there to write a starter file, or pass the file itself "
              "with --config");
    }
    if (!fs::exists(*explicit_path, ec)) {
      return Error::Usage(fmt::format("config file {} does not exist", explicit_path->string()))
          .WithHint(
              "check the --config path, or run `culprit init` to write a starter "
              "culprit.toml");
    }
    return *explicit_path;
  }
  fs::path here = "culprit.toml";
  std::error_code ec;
  if (fs::exists(here, ec)) return here;
  return Error::Usage(fmt::format("no culprit.toml in the current directory ({})",
                                  fs::current_path(ec).string()))
      .WithHint("run `culprit init` to write a starter culprit.toml, or pass --config PATH");
}

std::string StarterConfig(std::string_view engine_name_hint) {
  std::string name;
  for (char c : engine_name_hint) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') name += c;
  }
  if (name.empty() || name == "." || name == "..") name = "engine";
  return fmt::format(R"toml(# culprit.toml: how culprit builds and measures {name}.
# Paths are relative to this file. Durations are written "500ms", "60s", "20m", "1h".
# Edit the build commands, the artifact and the query, then try `culprit run example`.

[engine]
repo = "."                   # the engine's git repository
# Commands that build one commit, run in order in a checkout of it.
build = [["cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"],
         ["cmake", "--build", "build", "-j2"]]
# Files kept per commit in the build cache; commands refer to them by file
# name as {{artifact:NAME}}.
artifacts = ["build/{name}"]
build_timeout = "20m"
mode = "incremental"         # or "clean": build every commit from scratch

# One section per measured workload.
[queries."example"]
command = ["{{artifact:{name}}}", "--version"]
# "wall" is the process's wall time; or read the number from its output:
#   metric = {{ regex = 'median_ms=([0-9.]+)' }}   (the first group is the number)
#   metric = {{ json = "result.median_ms" }}        (a path into JSON on stdout)
metric = "wall"
unit = "ms"
timeout = "60s"
# The source files this query executes, for the bisect's relevance check:
# code_path = ["src/scan/**"]      # or "auto"
# cwd = "{{tree}}"                  # working directory ({{tree}}: the checkout)
# env = {{ THREADS = "1" }}

# A named override set: `culprit probe --override example_knob` tests its hypothesis.
# [overrides.example_knob]
# env = {{ EXAMPLE_KNOB = "1" }}
# hypothesis = "the knob's new default puts this query on the slow path"

# The engine's in-process harness (hold / release / run / quit on stdin/stdout).
# [harness]
# command = ["{{artifact:{name}}}", "serve"]

# Residency isolation plan for one suspect structure (needs [harness]).
# [residency."suspect structure"]
# query = "example"
# conditions = [
#   {{ name = "nothing held" }},
#   {{ name = "structure held", hold = ["structure"] }},
#   {{ name = "structure released", hold = ["structure"], release = ["structure"] }},
# ]

# The published benchmark table's query order, for `culprit audit`.
# [registry]
# order = ["example"]

[measure]
band = 0.05                  # ratios within +-5% are ties
confidence = 0.95
min_pairs = 10
max_pairs = 160
warmup = 1

[bisect]
target_probability = 0.99    # stop when one commit holds this much probability

[records]
dir = "benchmarks/results-v1"

# [cache]
# dir = "~/.cache/culprit"   # build cache; default $XDG_CACHE_HOME/culprit
)toml",
                     fmt::arg("name", name));
}

}  // namespace culprit
