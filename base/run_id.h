#pragma once

// The id of a run (a bisect, an investigation): the directory and state-file
// name its records are grouped under.

#include <chrono>
#include <cstdint>
#include <string>

namespace culprit {

/// "<compact UTC time>-<4 hex digits>" for `now`, e.g. "2026-12-04T023000Z-1a2b"; `salt`'s low 16
/// bits are the hex digits. Sorts by time; the digits tell apart two runs started in the
/// same second.
std::string FormatRunId(std::chrono::system_clock::time_point now, uint32_t salt);

/// FormatRunId of the current time with a salt from std::random_device.
std::string NewRunId();

}  // namespace culprit
