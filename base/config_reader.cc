#include "base/config_reader.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>

#include "base/duration.h"
#include "base/strings.h"

namespace culprit {
namespace fs = std::filesystem;

namespace {

const toml::node& Node(const void* node) { return *static_cast<const toml::node*>(node); }
const toml::table& TableOf(const void* table) { return *static_cast<const toml::table*>(table); }

ConfigPosition PositionOf(const toml::source_region& region) {
  return ConfigPosition{region.begin.line, region.begin.column};
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

}  // namespace

// ---- ConfigSource

Error ConfigSource::At(ConfigPosition position, std::string_view message) const {
  // Implicitly created tables have no position; the top of the file is the
  // best place to point at then.
  auto line = std::max<uint32_t>(position.line, 1);
  auto column = std::max<uint32_t>(position.column, 1);
  return Error::Usage(fmt::format("{}:{}:{}: {}", file_, line, column, message));
}

Error ConfigSource::InFile(std::string_view message) const {
  return Error::Usage(fmt::format("{}: {}", file_, message));
}

fs::path ConfigSource::Resolve(const std::string& path) const {
  fs::path p = fs::path(path).is_absolute() ? fs::path(path) : base_dir_ / path;
  p = p.lexically_normal();
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p;
}

// ---- ConfigValue

ConfigPosition ConfigValue::position() const { return PositionOf(Node(node_).source()); }

Error ConfigValue::At(std::string_view message) const { return source_->At(position(), message); }

Error ConfigValue::Expected(std::string_view path, std::string_view what) const {
  return At(fmt::format("{}: expected {}, found {}", path, what, Found(Node(node_))));
}

bool ConfigValue::IsString() const { return Node(node_).is_string(); }
bool ConfigValue::IsTable() const { return Node(node_).is_table(); }
bool ConfigValue::IsArray() const { return Node(node_).is_array(); }

const std::string* ConfigValue::AsString() const {
  const auto* value = Node(node_).as_string();
  return value == nullptr ? nullptr : &value->get();
}

std::optional<int64_t> ConfigValue::AsInteger() const {
  const auto* value = Node(node_).as_integer();
  if (value == nullptr) return std::nullopt;
  return value->get();
}

std::optional<ConfigTable> ConfigValue::AsTable() const {
  const auto* table = Node(node_).as_table();
  if (table == nullptr) return std::nullopt;
  return ConfigTable(table, source_);
}

Result<ConfigTable> ConfigValue::Table(std::string_view path) const {
  if (std::optional<ConfigTable> table = AsTable()) return *table;
  return Expected(path, "a table");
}

size_t ConfigValue::ArraySize() const {
  const auto* array = Node(node_).as_array();
  return array == nullptr ? 0 : array->size();
}

ConfigValue ConfigValue::Element(size_t i) const {
  return ConfigValue(Node(node_).as_array()->get(i), source_);
}

Result<std::vector<std::string>> ConfigValue::StringArray(std::string_view path,
                                                          std::string_view what) const {
  if (!IsArray()) return Expected(path, fmt::format("an array of {}s", what));
  std::vector<std::string> out;
  for (size_t i = 0; i < ArraySize(); ++i) {
    ConfigValue element = Element(i);
    const std::string* value = element.AsString();
    if (value == nullptr || value->empty()) {
      return element.Expected(fmt::format("{}[{}]", path, i), fmt::format("a non-empty {}", what));
    }
    out.push_back(*value);
  }
  return out;
}

Result<std::vector<std::string>> ConfigValue::Command(std::string_view path) const {
  if (!IsArray() || ArraySize() == 0) {
    return Expected(path, "a command: a non-empty array of strings such as [\"make\", \"-j2\"]");
  }
  std::vector<std::string> argv;
  for (size_t i = 0; i < ArraySize(); ++i) {
    ConfigValue element = Element(i);
    const std::string* value = element.AsString();
    if (value == nullptr) {
      return element.Expected(fmt::format("{}[{}]", path, i), "a string (one argument)");
    }
    if (i == 0 && value->empty()) {
      return element.Expected(fmt::format("{}[0]", path), "a program name");
    }
    argv.push_back(*value);
  }
  return argv;
}

Result<std::map<std::string, std::string>> ConfigValue::Environment(std::string_view path) const {
  Result<ConfigTable> table = Table(path);
  if (!table) return table.error();
  std::map<std::string, std::string> env;
  for (const ConfigEntry& entry : table->Entries()) {
    if (!IsValidEnvironmentName(entry.key)) {
      return source_
          ->At(entry.key_position,
               fmt::format("{}: expected an environment variable name (letters, digits and "
                           "'_', not starting with a digit), found '{}'",
                           path, entry.key))
          .WithHint("a name the engine cannot read would make the override a silent no-op");
    }
    const std::string* text = entry.value.AsString();
    if (text == nullptr) {
      return entry.value.Expected(ConfigKeyPath(path, entry.key), "a string")
          .WithHint(fmt::format("environment values are strings: write {} = \"...\"", entry.key));
    }
    env[entry.key] = *text;
  }
  return env;
}

Result<std::vector<std::string>> ConfigValue::EnvironmentNames(std::string_view path) const {
  auto names = StringArray(path, "environment variable name");
  if (!names) return names.error();
  for (size_t i = 0; i < names->size(); ++i) {
    if (!IsValidEnvironmentName((*names)[i])) {
      return Element(i).Expected(fmt::format("{}[{}]", path, i),
                                 "an environment variable name (letters, digits and '_', not "
                                 "starting with a digit)");
    }
  }
  return names;
}

// ---- ConfigTable

ConfigPosition ConfigTable::position() const { return PositionOf(TableOf(table_).source()); }

Error ConfigTable::At(std::string_view message) const { return source_->At(position(), message); }

ConfigValue ConfigTable::AsValue() const {
  return ConfigValue(static_cast<const toml::node*>(&TableOf(table_)), source_);
}

std::optional<ConfigValue> ConfigTable::Get(std::string_view key) const {
  const toml::node* node = TableOf(table_).get(key);
  if (node == nullptr) return std::nullopt;
  return ConfigValue(node, source_);
}

std::vector<ConfigEntry> ConfigTable::Entries() const {
  std::vector<ConfigEntry> entries;
  for (const auto& [key, node] : TableOf(table_)) {
    entries.push_back(
        ConfigEntry{std::string(key.str()), PositionOf(key.source()), ConfigValue(&node, source_)});
  }
  return entries;
}

Status ConfigTable::CheckKeys(std::string_view path,
                              const std::vector<std::string>& allowed) const {
  // Unknown keys are the commonest typo; name the nearest valid one.
  for (const auto& [key, node] : TableOf(table_)) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
    ConfigPosition at = PositionOf(key.source());
    if (path.empty() && !node.is_table()) {
      // Only sections are valid at the top level; a stray `band = 0.1` there
      // usually belongs under a section header.
      return source_
          ->At(at, fmt::format("unknown top-level key '{}': expected a section such as [measure]",
                               key.str()))
          .WithHint(fmt::format("valid sections: {}", Join(allowed, ", ")));
    }
    std::string where = path.empty() ? "" : fmt::format(" in [{}]", path);
    std::string what = path.empty() ? "section" : "key";
    return source_
        ->At(at, fmt::format("unknown {} '{}'{}{}", what, key.str(), where,
                             DidYouMean(key.str(), allowed)))
        .WithHint(fmt::format("valid {}s{}: {}", what, where, Join(allowed, ", ")));
  }
  return {};
}

Status ConfigTable::ReadString(std::string_view path, std::string_view key, std::string* out,
                               bool allow_empty) const {
  std::optional<ConfigValue> node = Get(key);
  if (!node) return {};
  const std::string* value = node->AsString();
  if (value == nullptr || (!allow_empty && value->empty())) {
    return node->Expected(ConfigKeyPath(path, key),
                          allow_empty ? "a string" : "a non-empty string");
  }
  *out = *value;
  return {};
}

Status ConfigTable::ReadDouble(std::string_view path, std::string_view key, double* out,
                               double above, double below) const {
  const toml::node* node = TableOf(table_).get(key);
  if (node == nullptr) return {};
  ConfigValue at(node, source_);
  std::string range = fmt::format("a number between {} and {} (exclusive)", above, below);
  std::optional<double> value = node->value<double>();  // integers convert too
  if (!node->is_number() || !value) return at.Expected(ConfigKeyPath(path, key), range);
  if (!(*value > above && *value < below)) {
    return at.At(fmt::format("{}: expected {}, found {}", ConfigKeyPath(path, key), range, *value));
  }
  *out = *value;
  return {};
}

Status ConfigTable::ReadInt(std::string_view path, std::string_view key, int* out, int64_t min,
                            int64_t max) const {
  const toml::node* node = TableOf(table_).get(key);
  if (node == nullptr) return {};
  ConfigValue at(node, source_);
  const auto* value = node->as_integer();
  std::string range = max >= kNoMax ? fmt::format("an integer >= {}", min)
                                    : fmt::format("an integer from {} to {}", min, max);
  if (value == nullptr) return at.Expected(ConfigKeyPath(path, key), range);
  if (value->get() < min || value->get() > max) {
    return at.At(
        fmt::format("{}: expected {}, found {}", ConfigKeyPath(path, key), range, value->get()));
  }
  *out = static_cast<int>(value->get());
  return {};
}

Status ConfigTable::ReadBool(std::string_view path, std::string_view key, bool* out) const {
  const toml::node* node = TableOf(table_).get(key);
  if (node == nullptr) return {};
  const auto* value = node->as_boolean();
  if (value == nullptr) {
    return ConfigValue(node, source_).Expected(ConfigKeyPath(path, key), "true or false");
  }
  *out = value->get();
  return {};
}

Status ConfigTable::ReadDuration(std::string_view path, std::string_view key,
                                 std::chrono::milliseconds* out) const {
  std::optional<ConfigValue> node = Get(key);
  if (!node) return {};
  const std::string* value = node->AsString();
  if (value == nullptr) {
    return node->Expected(ConfigKeyPath(path, key),
                          "a duration string such as \"500ms\", \"60s\", \"20m\" or \"1h\"");
  }
  auto parsed = ParseDuration(*value);
  if (!parsed) {
    return node->At(fmt::format("{}: {}", ConfigKeyPath(path, key), parsed.error().message()));
  }
  if (parsed->count() <= 0) {
    return node->At(fmt::format("{}: expected a duration greater than zero, found \"{}\"",
                                ConfigKeyPath(path, key), *value));
  }
  *out = *parsed;
  return {};
}

// ---- ConfigDocument

struct ConfigDocument::Impl {
  explicit Impl(ConfigSource s) : source(std::move(s)) {}
  ConfigSource source;
  toml::table root;
};

ConfigDocument::ConfigDocument(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ConfigDocument::ConfigDocument(ConfigDocument&&) noexcept = default;
ConfigDocument& ConfigDocument::operator=(ConfigDocument&&) noexcept = default;
ConfigDocument::~ConfigDocument() = default;

Result<ConfigDocument> ConfigDocument::Parse(std::string_view text, ConfigSource source) {
  auto impl = std::make_unique<Impl>(std::move(source));
  try {
    impl->root = toml::parse(text, impl->source.file());
  } catch (const toml::parse_error& e) {
    return impl->source.At(PositionOf(e.source()), fmt::format("invalid TOML: {}", e.description()))
        .WithHint("see https://toml.io for the syntax");
  }
  return ConfigDocument(std::move(impl));
}

const ConfigSource& ConfigDocument::source() const { return impl_->source; }

ConfigTable ConfigDocument::root() const { return ConfigTable(&impl_->root, &impl_->source); }

// ---- Paths and digest

std::string QuoteConfigKey(std::string_view key) {
  bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
  return bare ? std::string(key) : fmt::format("\"{}\"", key);
}

std::string ConfigKeyPath(std::string_view path, std::string_view key) {
  return path.empty() ? QuoteConfigKey(key) : fmt::format("{}.{}", path, QuoteConfigKey(key));
}

std::string ConfigDigest(std::string_view bytes) { return fmt::format("{:016x}", Fnv1a64(bytes)); }

}  // namespace culprit
