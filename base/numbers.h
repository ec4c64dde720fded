#pragma once

// Reading numbers out of text that programs wrote: /proc files, harness
// replies, published tables, record details. All of it is written in the C
// locale's spelling ("1.5"), whatever the user's locale is, so it is read with
// std::from_chars and never with strtod or streams, which follow LC_NUMERIC and
// would read "1.5" as 1 under a locale whose decimal point is a comma.

#include <cstdint>
#include <optional>
#include <string_view>

namespace culprit {

/// `text` as a finite decimal number: surrounding blanks (space, tab, '\r', '\n') are
/// ignored, then the whole rest must be one number in the C locale's spelling: an optional
/// sign ('+' is accepted, as strtod did), digits with an optional '.' fraction, an optional
/// exponent ("1e-3"). nullopt for anything else: empty text, trailing junk ("1.5 ms"), a
/// comma decimal point ("1,5"), hex, "inf"/"nan", or a value out of a double's range. The
/// result does not depend on the process's locale.
std::optional<double> ParseFiniteNumber(std::string_view text);

/// `text` as a count: surrounding blanks ignored, then decimal digits only (no sign) whose
/// value fits in 64 bits. nullopt for anything else (empty, junk, overflow).
std::optional<uint64_t> ParseCount(std::string_view text);

/// The least k with 2^k >= n (0 for n <= 1): the builds a plain bisect of n commits needs.
inline int CeilLog2(int n) {
  int bits = 0;
  while (bits < 31 && (1 << bits) < n) ++bits;
  return bits;
}

}  // namespace culprit
