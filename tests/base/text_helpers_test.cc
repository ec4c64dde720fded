// TrimBlanks, SplitWords, PercentChange, PercentOf and CountOf of base/strings.h: the helpers that
// had a copy in several layers before they lived there.

#include <gtest/gtest.h>

#include <cmath>
#include <string_view>
#include <vector>

#include "base/strings.h"

namespace culprit {
namespace {

using Views = std::vector<std::string_view>;

TEST(TrimBlanks, DropsSpaceTabCarriageReturnAndNewlineAtTheEnds) {
  EXPECT_EQ(TrimBlanks("  a b \t\r\n"), "a b");
  EXPECT_EQ(TrimBlanks("\n\tx"), "x");
  EXPECT_EQ(TrimBlanks("x"), "x");
  EXPECT_EQ(TrimBlanks(""), "");
  EXPECT_EQ(TrimBlanks(" \t\r\n "), "");
  EXPECT_EQ(TrimBlanks("\va\f"), "\va\f");  // only the four blanks
}

TEST(SplitWords, SplitsOnRunsOfSpacesAndTabs) {
  EXPECT_EQ(SplitWords("0.52 0.58 0.59 1/389 12345"),
            (Views{"0.52", "0.58", "0.59", "1/389", "12345"}));
  EXPECT_EQ(SplitWords("\t ok  bytes=12\t1.5 "), (Views{"ok", "bytes=12", "1.5"}));
  EXPECT_EQ(SplitWords(""), Views{});
  EXPECT_EQ(SplitWords(" \t "), Views{});
  EXPECT_EQ(SplitWords("a\nb"), Views{"a\nb"});  // a line: '\n' is not a separator
}

TEST(PercentChange, IsTheSignedChangeARatioStandsFor) {
  EXPECT_EQ(PercentChange(1.123), "+12.3%");
  EXPECT_EQ(PercentChange(0.9), "-10.0%");
  EXPECT_EQ(PercentChange(1), "+0.0%");
  EXPECT_EQ(PercentChange(2), "+100.0%");
  EXPECT_EQ(PercentChange(INFINITY), "n/a");
  EXPECT_EQ(PercentChange(NAN), "n/a");
}

TEST(CountOf, IsTheNumberAndItsNounPluralUnlessOne) {
  EXPECT_EQ(CountOf(1, "commit"), "1 commit");
  EXPECT_EQ(CountOf(0, "commit"), "0 commits");
  EXPECT_EQ(CountOf(2, "build"), "2 builds");
}

TEST(PercentOf, IsAFractionWithTheDigitsItHas) {
  EXPECT_EQ(PercentOf(0.95), "95%");
  EXPECT_EQ(PercentOf(0.025), "2.5%");
  EXPECT_EQ(PercentOf(0.995), "99.5%");
  EXPECT_EQ(PercentOf(0), "0%");
}

}  // namespace
}  // namespace culprit
