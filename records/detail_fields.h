#pragma once

// Reading and writing a record's flat facts (Record::details) whatever a file holds: a missing
// key, or a value that does not parse as what the key holds, reads as "none", never throws.
// One contract for every struct of flat facts (records/*_details.cc), as
// records/payload_fields.h is for the payloads, so that a key means the same in each. The
// values are written in the C locale's spelling and read with base/numbers.h.

#include <climits>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/numbers.h"
#include "base/strings.h"

namespace culprit {

/// A record's flat facts, as Record::details holds them.
using DetailMap = std::map<std::string, std::string>;

/// The text at `key`, or nullopt when the record holds no such fact ("" is a fact).
inline std::optional<std::string> TextIn(const DetailMap& details, std::string_view key) {
  auto it = details.find(std::string(key));
  if (it == details.end()) return std::nullopt;
  return it->second;
}

/// The finite number at `key` (ParseFiniteNumber: "+0.0123", "1e-3"), or nullopt.
inline std::optional<double> NumberIn(const DetailMap& details, std::string_view key) {
  std::optional<std::string> text = TextIn(details, key);
  return text ? ParseFiniteNumber(*text) : std::nullopt;
}

/// The count at `key` (decimal digits, no sign) that fits an int, or nullopt.
inline std::optional<int> CountIn(const DetailMap& details, std::string_view key) {
  std::optional<std::string> text = TextIn(details, key);
  std::optional<uint64_t> n = text ? ParseCount(*text) : std::nullopt;
  if (!n || *n > static_cast<uint64_t>(INT_MAX)) return std::nullopt;
  return static_cast<int>(*n);
}

/// The count at `key` (decimal digits, no sign, 64 bits: a seed), or nullopt.
inline std::optional<uint64_t> Count64In(const DetailMap& details, std::string_view key) {
  std::optional<std::string> text = TextIn(details, key);
  return text ? ParseCount(*text) : std::nullopt;
}

/// The boolean at `key` spelled `yes` or `no` (as "true"/"false", "on"/"off"); nullopt for
/// anything else.
inline std::optional<bool> FlagIn(const DetailMap& details, std::string_view key,
                                  std::string_view yes, std::string_view no) {
  std::optional<std::string> text = TextIn(details, key);
  if (text && *text == yes) return true;
  if (text && *text == no) return false;
  return std::nullopt;
}

/// The facts kept as "<prefix><name>" (a figure per metric, a time per step), by name.
inline std::map<std::string, std::string> PrefixedIn(const DetailMap& details,
                                                     std::string_view prefix) {
  std::map<std::string, std::string> out;
  for (auto it = details.lower_bound(std::string(prefix));
       it != details.end() && it->first.starts_with(prefix); ++it) {
    out[it->first.substr(prefix.size())] = it->second;
  }
  return out;
}

/// The parts of a comma-separated list ("" is the empty list), as Join(parts, ",") wrote it.
inline std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    parts.emplace_back(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) return parts;
    start = comma + 1;
  }
}

/// The comma-separated list at `key`, or nullopt when the record holds no such fact.
inline std::optional<std::vector<std::string>> ListIn(const DetailMap& details,
                                                      std::string_view key) {
  std::optional<std::string> text = TextIn(details, key);
  if (!text) return std::nullopt;
  return SplitList(*text);
}

/// The numbers of the comma-separated list at `key`; nullopt when it is absent or a part is
/// not a finite number.
inline std::optional<std::vector<double>> NumbersIn(const DetailMap& details,
                                                    std::string_view key) {
  std::optional<std::vector<std::string>> parts = ListIn(details, key);
  if (!parts) return std::nullopt;
  std::vector<double> out;
  for (const std::string& part : *parts) {
    std::optional<double> n = ParseFiniteNumber(part);
    if (!n) return std::nullopt;
    out.push_back(*n);
  }
  return out;
}

/// The enum whose spelling (in `names`, ParseIn's table) is the text at `key`, or nullopt.
template <typename Enum, size_t N>
std::optional<Enum> EnumIn(const std::string_view (&names)[N], const DetailMap& details,
                           std::string_view key) {
  std::optional<std::string> text = TextIn(details, key);
  return text ? ParseIn<Enum>(names, *text) : std::nullopt;
}

/// Writes `value` at `key` when it is set; leaves the map alone when it is not.
inline void PutText(DetailMap* details, std::string_view key,
                    const std::optional<std::string>& value) {
  if (value) (*details)[std::string(key)] = *value;
}
/// Writes a count in decimal (std::to_string) when it is set.
inline void PutCount(DetailMap* details, std::string_view key, const std::optional<int>& value) {
  if (value) (*details)[std::string(key)] = std::to_string(*value);
}
/// Writes a flag as `yes` or `no` when it is set.
inline void PutFlag(DetailMap* details, std::string_view key, const std::optional<bool>& value,
                    std::string_view yes, std::string_view no) {
  if (value) (*details)[std::string(key)] = std::string(*value ? yes : no);
}
/// Writes a list joined with ',' when it is set.
inline void PutList(DetailMap* details, std::string_view key,
                    const std::optional<std::vector<std::string>>& value) {
  if (value) (*details)[std::string(key)] = Join(*value, ",");
}
/// Writes an enum's spelling (NameIn's table) when it is set.
template <typename Enum, size_t N>
void PutEnum(const std::string_view (&names)[N], DetailMap* details, std::string_view key,
             const std::optional<Enum>& value) {
  if (value) (*details)[std::string(key)] = std::string(NameIn(names, *value));
}

}  // namespace culprit
