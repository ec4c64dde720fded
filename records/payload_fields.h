#pragma once

// Reading the fields of a record's payload (details_json) whatever its shape: a
// missing key or a value of another type reads as "none", never throws. One
// contract for every payload reader (records/*_payload.cc), so that a field means
// the same in each.

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/json_text.h"

namespace culprit {

/// A record's payload (its details_json text) parsed, when it is a JSON object; nullopt when
/// it is empty, not JSON, not an object, or nested too deep to parse safely (a damaged
/// record's). The one way every payload reader opens a payload.
inline std::optional<nlohmann::json> PayloadObject(std::string_view text) {
  if (text.empty() || JsonNestsDeeperThan(text)) return std::nullopt;
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  return doc;
}

/// The object at `key` of a payload (PayloadObject) whose kind keeps its fields under one
/// section (`{"sweep": {...}}`); nullopt when the payload does not open or that key is not an
/// object.
inline std::optional<nlohmann::json> PayloadSection(std::string_view text, const char* key) {
  std::optional<nlohmann::json> doc = PayloadObject(text);
  if (!doc) return std::nullopt;
  auto it = doc->find(key);
  if (it == doc->end() || !it->is_object()) return std::nullopt;
  return std::move(*it);
}

/// A number, or JSON null for none.
inline nlohmann::json OptionalNumber(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

/// The number at `key` (an integer or not), or nullopt.
inline std::optional<double> NumberAt(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

/// The number at `key` truncated to an int (a count written as 12.0 reads as 12); 0 when
/// there is none.
inline int IntAt(const nlohmann::json& o, const char* key) {
  std::optional<double> n = NumberAt(o, key);
  return n ? static_cast<int>(*n) : 0;
}

/// The string at `key`, or "".
inline std::string StringAt(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// A positive finite number at `key`, else nullopt: a ratio or a time that is not one reads as
/// absent, never as a figure.
inline std::optional<double> PositiveAt(const nlohmann::json& o, const char* key) {
  std::optional<double> n = NumberAt(o, key);
  if (!n || !std::isfinite(*n) || *n <= 0) return std::nullopt;
  return n;
}

/// The boolean at `key`; false when there is none.
inline bool BoolAt(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

/// The array at `key`, or an empty array.
inline nlohmann::json ArrayAt(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_array() ? *it : nlohmann::json::array();
}

/// The object at `key`, or an empty object.
inline nlohmann::json ObjectAt(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? *it : nlohmann::json::object();
}

/// The strings of the array at `key` (items of another type left out).
inline std::vector<std::string> StringsAt(const nlohmann::json& o, const char* key) {
  std::vector<std::string> out;
  for (const nlohmann::json& item : ArrayAt(o, key)) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace culprit
