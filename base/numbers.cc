#include "base/numbers.h"

#include <charconv>
#include <cmath>
#include <system_error>

#include "base/strings.h"

namespace culprit {

std::optional<double> ParseFiniteNumber(std::string_view text) {
  text = TrimBlanks(text);
  // from_chars takes a '-' but not a '+'; a '+' followed by another sign is still refused
  // below because from_chars then sees the second sign first.
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text.front() == '-') return std::nullopt;
  }
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<uint64_t> ParseCount(std::string_view text) {
  text = TrimBlanks(text);
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace culprit
