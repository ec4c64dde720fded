#pragma once

// The verdicts of the design (EFFECT, NULL, INCONCLUSIVE) and the one a record
// adds when its sitting broke (ERROR). They live here, in the lowest layer that
// keeps them, so a record carries the enum and every layer above compares
// enums; the spelling exists only where records are read and written and where
// text is printed.

#include <iosfwd>
#include <optional>
#include <string_view>

namespace culprit {

enum class Verdict {
  kEffect,        ///< The interval lies beyond the band, on either side.
  kNull,          ///< The interval lies inside the band: a tie.
  kInconclusive,  ///< Neither: the evidence does not settle it.
  kError,         ///< A record's only: an arm broke before the two could be compared. The
                  ///< statistics (probes/verdict.h Decide) never return it.
};

/// "EFFECT", "NULL", "INCONCLUSIVE", "ERROR": the spelling used in output and records.
std::string_view VerdictName(Verdict v);

/// Inverse of VerdictName; case-insensitive (so "null" works on a command line). nullopt for
/// anything else.
std::optional<Verdict> ParseVerdict(std::string_view name);

/// Prints VerdictName: GoogleTest finds it by name, so a failed comparison says "NULL", not
/// the enum's bytes.
void PrintTo(Verdict v, std::ostream* out);

/// Every verdict, in VerdictName's order: for listing them in a hint.
inline constexpr Verdict kAllVerdicts[] = {Verdict::kEffect, Verdict::kNull, Verdict::kInconclusive,
                                           Verdict::kError};

}  // namespace culprit
