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

/// The last `max_lines` lines of `text`, for error messages showing output tails.
std::string TailLines(std::string_view text, size_t max_lines);

/// A probability or confidence in [0, 1] as a percentage with as many decimals
/// as it takes not to round up to a certainty it does not have: 0.95 -> "95%",
/// 0.99612 -> "99.6%", 1 - 3e-8 -> "99.999997%"; only exactly 1 is "100%".
std::string FormatProbability(double p);

/// Joins with a separator.
std::string Join(std::span<const std::string> parts, std::string_view separator);

/// True for [A-Za-z_][A-Za-z0-9_]*: the names every shell and exec'd program
/// can see; anything else would be silently unreachable for the engine.
bool IsValidEnvironmentName(std::string_view name);

}  // namespace culprit
