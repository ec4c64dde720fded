#include "base/strings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace culprit {
namespace {

TEST(EditDistance, KnownAnswers) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("band", "bnad"), 2u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
}

TEST(NearestWord, SuggestsPlausibleTypoOnly) {
  std::vector<std::string> keys = {"band", "confidence", "min_pairs", "max_pairs", "warmup"};
  EXPECT_EQ(NearestWord("bnad", keys), "band");
  EXPECT_EQ(NearestWord("max_pair", keys), "max_pairs");
  EXPECT_EQ(NearestWord("completely_different", keys), "");
  EXPECT_EQ(DidYouMean("warmpu", keys), ", did you mean 'warmup'?");
}

TEST(TailLines, KeepsLastLines) {
  EXPECT_EQ(TailLines("a\nb\nc\n", 2), "b\nc");
  EXPECT_EQ(TailLines("a\nb\nc", 5), "a\nb\nc");
  EXPECT_EQ(TailLines("", 3), "");
}

TEST(TailLines, EscapesControlBytesAndStaysShort) {
  // An engine's output must not drive the user's terminal.
  EXPECT_EQ(TailLines(std::string("ok\n\x1b]0;x\x07\tz\0\x7f\xff\n", 15), 1),
            "\\x1b]0;x\\x07\tz\\x00\\x7f\xff");
  // One endless line is cut to its last bytes.
  std::string line(100000, 'y');
  line += "END";
  std::string tail = TailLines(line, 3);
  EXPECT_EQ(tail.size(), kMaxTailBytes);
  EXPECT_EQ(tail.substr(tail.size() - 3), "END");
}

}  // namespace
}  // namespace culprit
