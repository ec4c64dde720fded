#include "records/verdict.h"

#include <algorithm>
#include <cctype>
#include <ostream>

namespace culprit {

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kEffect:
      return "EFFECT";
    case Verdict::kNull:
      return "NULL";
    case Verdict::kInconclusive:
      return "INCONCLUSIVE";
    case Verdict::kError:
      return "ERROR";
  }
  return "INCONCLUSIVE";
}

std::optional<Verdict> ParseVerdict(std::string_view name) {
  for (Verdict v : kAllVerdicts) {
    std::string_view canonical = VerdictName(v);
    if (std::equal(
            name.begin(), name.end(), canonical.begin(), canonical.end(),
            [](char a, char b) { return std::toupper(static_cast<unsigned char>(a)) == b; })) {
      return v;
    }
  }
  return std::nullopt;
}

void PrintTo(Verdict v, std::ostream* out) { *out << VerdictName(v); }

}  // namespace culprit
