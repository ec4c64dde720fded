#include "records/verdict.h"

#include <algorithm>
#include <cctype>
#include <ostream>

#include "base/strings.h"

namespace culprit {

namespace {
// In the enum's order: the one place each verdict is spelled.
constexpr std::string_view kVerdictNames[] = {"EFFECT", "NULL", "INCONCLUSIVE", "ERROR"};
}  // namespace

std::string_view VerdictName(Verdict v) { return NameIn(kVerdictNames, v); }

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
