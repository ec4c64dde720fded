#pragma once

// Durations as people write them in culprit.toml: "500ms", "60s", "20m", "1h",
// or a sum of such parts ("1m30s").

#include <chrono>
#include <string>
#include <string_view>

#include "base/result.h"

namespace culprit {

/// Parses one or more NUMBER UNIT parts, units ms, s, m, h; numbers may have a
/// fraction ("1.5s") as long as the total is a whole number of milliseconds.
/// "0s" is accepted (callers decide whether zero means anything). Errors are
/// Error::Usage and say what was expected; they do not name a file (callers add
/// the position).
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

/// The shortest exact spelling that ParseDuration reads back to the same value:
/// 3600000 -> "1h", 90000 -> "1m30s", 1500 -> "1s500ms", 0 -> "0ms".
/// Negative values are written with a leading '-' (ParseDuration refuses them).
std::string FormatDuration(std::chrono::milliseconds duration);

}  // namespace culprit
