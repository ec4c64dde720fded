#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace culprit {

/// Levenshtein distance between two strings.
size_t EditDistance(std::string_view a, std::string_view b);

/// The candidate nearest to `word`, or "" when none is close enough to be a
/// plausible typo (distance at most a third of the word's length, at least 2).
std::string NearestWord(std::string_view word, std::span<const std::string> candidates);

/// ", did you mean 'x'?" for use at the end of an error message, or "".
std::string DidYouMean(std::string_view word, std::span<const std::string> candidates);

/// The last `max_lines` lines of `text`, for error messages showing output tails:
/// at most the last kMaxTailBytes of them, and safe to print on a terminal
/// (control bytes other than newline and tab, an engine's escape sequences
/// among them, are shown as \xNN).
inline constexpr size_t kMaxTailBytes = 4096;
std::string TailLines(std::string_view text, size_t max_lines);

/// Joins with a separator.
std::string Join(std::span<const std::string> parts, std::string_view separator);

}  // namespace culprit
