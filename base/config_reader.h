#pragma once

// The kit every owner of a culprit.toml section reads its section with: a
// parsed document, its tables and values, and readers that check each value's
// type and range. Every error is Error::Usage and starts with
// "FILE:LINE:COLUMN: " (FILE as given), says what was expected and what was
// found; an unknown key suggests the nearest valid one. toml++ is used only in
// config_reader.cc: this header is cheap to include.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace culprit {

/// A place in the file; 0 means unknown (implicitly created tables have no
/// position), printed as 1.
struct ConfigPosition {
  uint32_t line = 0;
  uint32_t column = 0;
};

/// The file being read: its name as given (for messages) and the directory
/// relative paths in it resolve against.
class ConfigSource {
 public:
  ConfigSource(std::string file, std::filesystem::path base_dir)
      : file_(std::move(file)), base_dir_(std::move(base_dir)) {}

  const std::string& file() const { return file_; }
  const std::filesystem::path& base_dir() const { return base_dir_; }

  /// Error::Usage "FILE:LINE:COLUMN: message".
  Error At(ConfigPosition position, std::string_view message) const;
  /// Error::Usage "FILE: message", for a problem with no place in the file.
  Error InFile(std::string_view message) const;
  /// `path` against base_dir when relative, normalized, without a trailing '/'.
  std::filesystem::path Resolve(const std::string& path) const;

 private:
  std::string file_;
  std::filesystem::path base_dir_;
};

class ConfigTable;
struct ConfigEntry;

/// One value of a parsed document (a string, number, table, array, ...). Valid
/// while its ConfigDocument lives.
class ConfigValue {
 public:
  ConfigPosition position() const;
  const ConfigSource& source() const { return *source_; }

  /// Error::Usage at this value's position.
  Error At(std::string_view message) const;
  /// "PATH: expected WHAT, found FOUND" at this value, FOUND being the string
  /// itself in quotes or else the value's type ("an integer").
  Error Expected(std::string_view path, std::string_view what) const;

  bool IsString() const;
  bool IsTable() const;
  /// The string, or null for any other type.
  const std::string* AsString() const;
  /// The integer, or nullopt for any other type (a float included).
  std::optional<int64_t> AsInteger() const;
  /// The table, or nullopt for any other type.
  std::optional<ConfigTable> AsTable() const;
  /// The table, or "PATH: expected a table, found ...".
  Result<ConfigTable> Table(std::string_view path) const;

  bool IsArray() const;
  /// Number of elements of an array; 0 for any other type.
  size_t ArraySize() const;
  /// Element `i` of an array (i < ArraySize()).
  ConfigValue Element(size_t i) const;

  /// An array of non-empty strings; `what` names one element ("path", "glob").
  Result<std::vector<std::string>> StringArray(std::string_view path, std::string_view what) const;
  /// argv: a non-empty array of strings whose first element is not empty.
  Result<std::vector<std::string>> Command(std::string_view path) const;
  /// An environment table ({ NAME = "value" }): names are environment variable
  /// names (IsValidEnvironmentName), values strings.
  Result<std::map<std::string, std::string>> Environment(std::string_view path) const;
  /// An array of environment variable names.
  Result<std::vector<std::string>> EnvironmentNames(std::string_view path) const;

 private:
  friend class ConfigTable;
  friend class ConfigDocument;
  ConfigValue(const void* node, const ConfigSource* source) : node_(node), source_(source) {}

  const void* node_;  ///< A toml::node.
  const ConfigSource* source_;
};

/// One table of a parsed document. Valid while its ConfigDocument lives.
class ConfigTable {
 public:
  ConfigPosition position() const;
  const ConfigSource& source() const { return *source_; }
  /// Error::Usage at the table's position (its header).
  Error At(std::string_view message) const;
  /// The table as a value (for Expected and the like).
  ConfigValue AsValue() const;

  /// The value of `key`, or nullopt when absent.
  std::optional<ConfigValue> Get(std::string_view key) const;
  bool Contains(std::string_view key) const { return Get(key).has_value(); }
  /// Every key with its value, in the table's order.
  std::vector<ConfigEntry> Entries() const;

  /// An error at the first key not in `allowed`, with did-you-mean and the
  /// valid keys as its hint. `path` is the table's dotted path; "" is the top
  /// level, where only sections are valid ("unknown section 'x'").
  Status CheckKeys(std::string_view path, const std::vector<std::string>& allowed) const;

  // The readers leave `out` untouched when `key` is absent. `path` is the
  // table's dotted path, for messages ("measure" -> "measure.band: ...").
  Status ReadString(std::string_view path, std::string_view key, std::string* out,
                    bool allow_empty = true) const;
  /// A number (an integer converts) in (above, below).
  Status ReadDouble(std::string_view path, std::string_view key, double* out, double above,
                    double below) const;
  /// An integer in [min, max]; max >= kNoMax means no upper bound.
  static constexpr int64_t kNoMax = 1'000'000'000;
  Status ReadInt(std::string_view path, std::string_view key, int* out, int64_t min,
                 int64_t max = kNoMax) const;
  Status ReadBool(std::string_view path, std::string_view key, bool* out) const;
  /// A duration string ("500ms", "1m30s", see base/duration.h) greater than zero.
  Status ReadDuration(std::string_view path, std::string_view key,
                      std::chrono::milliseconds* out) const;

 private:
  friend class ConfigValue;
  friend class ConfigDocument;
  ConfigTable(const void* table, const ConfigSource* source) : table_(table), source_(source) {}

  const void* table_;  ///< A toml::table.
  const ConfigSource* source_;
};

/// A key of a table, where the key is written, and its value.
struct ConfigEntry {
  std::string key;
  ConfigPosition key_position;
  ConfigValue value;
};

/// A parsed TOML document and the source it came from.
class ConfigDocument {
 public:
  /// Parses `text`; a syntax error is "FILE:LINE:COLUMN: invalid TOML: ..."
  /// with a hint pointing at the TOML syntax.
  static Result<ConfigDocument> Parse(std::string_view text, ConfigSource source);

  ConfigDocument(ConfigDocument&&) noexcept;
  ConfigDocument& operator=(ConfigDocument&&) noexcept;
  ~ConfigDocument();

  const ConfigSource& source() const;
  ConfigTable root() const;

 private:
  struct Impl;
  explicit ConfigDocument(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// A key as TOML writes it in a dotted path: bare when it can be, else quoted.
std::string QuoteConfigKey(std::string_view key);

/// `path` "." `key` (the key quoted when needed); just the key when path is "".
std::string ConfigKeyPath(std::string_view path, std::string_view key);

/// The 16-hex-digit FNV-1a 64 digest of a file's bytes, recorded in every
/// record so that results can be traced to the configuration that made them.
std::string ConfigDigest(std::string_view bytes);

}  // namespace culprit
