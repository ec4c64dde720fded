#include "base/timestamp.h"

#include <fmt/format.h>

#include <cctype>
#include <ctime>

namespace culprit {
namespace {

std::tm ToUtc(std::chrono::system_clock::time_point time) {
  std::time_t seconds =
      std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(time));
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  return utc;
}

// Reads exactly `digits` decimal digits at text[*pos].
bool ReadNumber(std::string_view text, size_t* pos, int digits, int* out) {
  if (*pos + digits > text.size()) return false;
  int value = 0;
  for (int i = 0; i < digits; ++i) {
    char c = text[*pos + i];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + (c - '0');
  }
  *pos += digits;
  *out = value;
  return true;
}

bool Expect(std::string_view text, size_t* pos, char c) {
  if (*pos >= text.size() || text[*pos] != c) return false;
  ++*pos;
  return true;
}

}  // namespace

std::string FormatIsoUtc(std::chrono::system_clock::time_point time) {
  std::tm t = ToUtc(time);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", t.tm_year + 1900, t.tm_mon + 1,
                     t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec);
}

std::string FormatCompactUtc(std::chrono::system_clock::time_point time) {
  std::tm t = ToUtc(time);
  return fmt::format("{:04}-{:02}-{:02}T{:02}{:02}{:02}Z", t.tm_year + 1900, t.tm_mon + 1,
                     t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec);
}

std::string NowIsoUtc() { return FormatIsoUtc(std::chrono::system_clock::now()); }

Result<std::chrono::system_clock::time_point> ParseIsoUtc(std::string_view text) {
  size_t pos = 0;
  int year, month, day, hour, minute, second;
  bool ok = ReadNumber(text, &pos, 4, &year) && Expect(text, &pos, '-') &&
            ReadNumber(text, &pos, 2, &month) && Expect(text, &pos, '-') &&
            ReadNumber(text, &pos, 2, &day) && Expect(text, &pos, 'T') &&
            ReadNumber(text, &pos, 2, &hour) && Expect(text, &pos, ':') &&
            ReadNumber(text, &pos, 2, &minute) && Expect(text, &pos, ':') &&
            ReadNumber(text, &pos, 2, &second);
  if (ok && pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t digits_start = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    ok = pos > digits_start;
  }
  ok = ok && Expect(text, &pos, 'Z') && pos == text.size();
  ok = ok && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 &&
       second <= 60;
  if (!ok) {
    return Error(fmt::format("'{}' is not a UTC time of the form 2026-11-30T10:15:00Z", text));
  }
  std::tm t{};
  t.tm_year = year - 1900;
  t.tm_mon = month - 1;
  t.tm_mday = day;
  t.tm_hour = hour;
  t.tm_min = minute;
  t.tm_sec = second;
  std::time_t seconds = ::timegm(&t);
  // timegm normalizes "February 31" into March; a round trip catches it.
  std::tm check{};
  ::gmtime_r(&seconds, &check);
  if (check.tm_mday != day || check.tm_mon != month - 1) {
    return Error(fmt::format("'{}' is not a valid date", text));
  }
  return std::chrono::system_clock::from_time_t(seconds);
}

}  // namespace culprit
