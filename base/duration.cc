#include "base/duration.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <limits>

namespace culprit {
namespace {

constexpr std::string_view kExpected =
    "expected a duration such as \"500ms\", \"60s\", \"20m\" or \"1h\"";

// Milliseconds per unit; longest suffix first so "ms" is not read as "m" + "s".
struct Unit {
  std::string_view suffix;
  int64_t ms;
};
// About 100 years: far beyond any timeout, far below int64 overflow.
constexpr int64_t kMaxMicroMs = int64_t{1000} * 3'600'000 * 24 * 366 * 100;

constexpr Unit kUnits[] = {{"ms", 1}, {"h", 3'600'000}, {"m", 60'000}, {"s", 1000}};

}  // namespace

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Error::Usage(fmt::format("{}, found \"{}\" ({})", kExpected, text, why));
  };
  if (text.empty()) return bad("empty");
  size_t pos = 0;
  // A part is whole digits plus at most 3 fraction digits of a unit of >= 1 ms,
  // so summing in thousandths of a millisecond keeps the arithmetic exact.
  int64_t total_micro_ms = 0;
  while (pos < text.size()) {
    size_t start = pos;
    int64_t whole = 0;
    int64_t fraction = 0;  // thousandths of the unit
    bool any_digit = false;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      whole = whole * 10 + (text[pos] - '0');
      if (whole > 1'000'000) return bad("too large");
      ++pos;
      any_digit = true;
    }
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      int digits = 0;
      while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
        if (++digits > 3) return bad("at most 3 digits after the decimal point");
        fraction = fraction * 10 + (text[pos] - '0');
        ++pos;
        any_digit = true;
      }
      for (int d = digits; d < 3; ++d) fraction *= 10;
    }
    if (!any_digit) {
      if (start < text.size() && text[start] == '-') return bad("negative");
      return bad(fmt::format("no number at \"{}\"", text.substr(start)));
    }
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (text.substr(pos, u.suffix.size()) == u.suffix) {
        unit = &u;
        break;
      }
    }
    if (unit == nullptr) {
      return bad(pos == text.size()
                     ? std::string("no unit; use ms, s, m or h")
                     : fmt::format("unknown unit at \"{}\"; use ms, s, m or h", text.substr(pos)));
    }
    pos += unit->suffix.size();
    total_micro_ms += (whole * 1000 + fraction) * unit->ms;
    if (total_micro_ms > kMaxMicroMs) return bad("too large");
  }
  if (total_micro_ms % 1000 != 0) return bad("not a whole number of milliseconds");
  return std::chrono::milliseconds(total_micro_ms / 1000);
}

std::string FormatDuration(std::chrono::milliseconds duration) {
  int64_t ms = duration.count();
  if (ms == 0) return "0ms";
  std::string out;
  if (ms < 0) {
    out = "-";
    ms = -ms;
  }
  constexpr Unit kLargestFirst[] = {{"h", 3'600'000}, {"m", 60'000}, {"s", 1000}, {"ms", 1}};
  for (const Unit& unit : kLargestFirst) {
    if (ms >= unit.ms) {
      out += fmt::format("{}{}", ms / unit.ms, unit.suffix);
      ms %= unit.ms;
    }
  }
  return out;
}

}  // namespace culprit
