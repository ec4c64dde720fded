#pragma once

// Times in records and ids are UTC, in one fixed ISO 8601 form, so that they
// sort as strings and read the same on every host.

#include <chrono>
#include <string>
#include <string_view>

#include "base/result.h"

namespace culprit {

/// "2026-11-30T10:15:00Z" (whole seconds, UTC).
std::string FormatIsoUtc(std::chrono::system_clock::time_point time);

/// "2026-11-30T101500Z": the form used inside record ids and file names (no
/// colons, which some file systems and tools refuse).
std::string FormatCompactUtc(std::chrono::system_clock::time_point time);

/// FormatIsoUtc(now).
std::string NowIsoUtc();

/// Parses the FormatIsoUtc form; fractional seconds ("10:15:00.250Z") are
/// accepted and dropped. Anything else (a local offset, a missing 'Z') is an
/// error naming the text.
Result<std::chrono::system_clock::time_point> ParseIsoUtc(std::string_view text);

}  // namespace culprit
