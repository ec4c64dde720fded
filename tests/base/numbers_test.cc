#include "base/numbers.h"

#include <gtest/gtest.h>

#include <clocale>
#include <cstdlib>
#include <string>

namespace culprit {
namespace {

TEST(ParseFiniteNumber, ReadsTheCLocaleSpelling) {
  EXPECT_EQ(ParseFiniteNumber("1.5"), 1.5);
  EXPECT_EQ(ParseFiniteNumber("-2"), -2.0);
  EXPECT_EQ(ParseFiniteNumber("+0.25"), 0.25);  // strtod took a '+'; the harness may send one
  EXPECT_EQ(ParseFiniteNumber("1e-3"), 0.001);
  EXPECT_EQ(ParseFiniteNumber("2400.000"), 2400.0);
  EXPECT_EQ(ParseFiniteNumber(" \t7.5\r\n"), 7.5);  // /proc lines end in '\n'
}

TEST(ParseFiniteNumber, RejectsEverythingElse) {
  for (const char* text : {"", "  ", "1,5", "1.5 ms", "1.5x", "x1.5", "0x10", "inf", "-inf", "nan",
                           "1e999", "+-1", "++1", "+", "-", "1 2"}) {
    EXPECT_EQ(ParseFiniteNumber(text), std::nullopt) << "'" << text << "'";
  }
}

// The reason the reader exists: strtod follows LC_NUMERIC, and under a locale whose decimal
// point is a comma it reads "1.5" as 1. The host running the tests may have no such locale
// installed; then this test is skipped and the one above still pins down "1,5" and junk.
TEST(ParseFiniteNumber, IsTheSameUnderACommaDecimalLocale) {
  const std::string saved = std::setlocale(LC_NUMERIC, nullptr);
  const char* comma_locale = nullptr;
  for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8"}) {
    if (std::setlocale(LC_NUMERIC, name) != nullptr) {
      comma_locale = name;
      break;
    }
  }
  if (comma_locale == nullptr) {
    std::setlocale(LC_NUMERIC, saved.c_str());
    GTEST_SKIP() << "no de_DE or fr_FR locale on this host";
  }
  // The locale is in force: strtod now stops at the '.'.
  const double by_strtod = std::strtod("1.5", nullptr);
  const std::optional<double> ours = ParseFiniteNumber("1.5");
  const std::optional<double> comma = ParseFiniteNumber("1,5");
  std::setlocale(LC_NUMERIC, saved.c_str());
  EXPECT_EQ(by_strtod, 1.0) << comma_locale;
  EXPECT_EQ(ours, 1.5) << comma_locale;
  EXPECT_EQ(comma, std::nullopt) << comma_locale;
}

TEST(ParseCount, ReadsDigitsOnly) {
  EXPECT_EQ(ParseCount("0"), 0u);
  EXPECT_EQ(ParseCount("123456"), 123456u);
  EXPECT_EQ(ParseCount(" 42\n"), 42u);
  EXPECT_EQ(ParseCount("18446744073709551615"), UINT64_MAX);
  for (const char* text :
       {"", " ", "-1", "+1", "1.5", "12kB", "123456 kB", "0x10", "18446744073709551616"}) {
    EXPECT_EQ(ParseCount(text), std::nullopt) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace culprit
