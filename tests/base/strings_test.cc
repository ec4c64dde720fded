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

TEST(FormatRatioInterval, ShowsTheDigitsThatTellTheEndsApart) {
  EXPECT_EQ(FormatRatioInterval(0.985, 0.962, 1.009), "0.985 [0.962, 1.009]");
  EXPECT_EQ(FormatRatioInterval(2.0, 1.5, 2.5), "2.000 [1.500, 2.500]");
  // A tie narrower than 0.001 (the CI host's two builds of one loop) shows its width.
  EXPECT_EQ(FormatRatioInterval(1.00012, 0.99981, 1.00038), "1.0001 [0.9998, 1.0004]");
  EXPECT_EQ(FormatRatioInterval(1.000012, 0.999991, 1.000038), "1.00001 [0.99999, 1.00004]");
  // Ends that differ at three decimals keep three, even when close.
  EXPECT_EQ(FormatRatioInterval(1.0004, 1.0001, 1.0006), "1.000 [1.000, 1.001]");
  EXPECT_EQ(FormatRatioInterval(1.0, 0.9996, 1.0006), "1.000 [1.000, 1.001]");
  // One point even at five decimals: printed as it is.
  EXPECT_EQ(FormatRatioInterval(2.0, 2.0, 2.0), "2.000 [2.000, 2.000]");
  EXPECT_EQ(FormatRatioInterval(1.0, 1.000001, 1.000002), "1.000 [1.000, 1.000]");
  // The interval alone, for a report's column, has the same digits.
  EXPECT_EQ(FormatInterval(0.99981, 1.00038), "[0.9998, 1.0004]");
  EXPECT_EQ(FormatInterval(0.962, 1.009), "[0.962, 1.009]");
}

TEST(FormatProbability, ShowsThePrecisionItHasAndNeverRoundsToCertainty) {
  EXPECT_EQ(FormatProbability(0.95), "95%");
  EXPECT_EQ(FormatProbability(0.5), "50%");
  EXPECT_EQ(FormatProbability(0.99612), "99.6%");
  EXPECT_EQ(FormatProbability(0.9996), "99.96%");
  EXPECT_EQ(FormatProbability(0.99996), "99.996%");
  EXPECT_EQ(FormatProbability(1 - 3e-8), "99.999997%");
  EXPECT_EQ(FormatProbability(0.999), "99.9%");
  EXPECT_EQ(FormatProbability(1.0), "> 99.9999999999%");  // a saturated posterior
  EXPECT_EQ(FormatProbability(1 - 1e-13), "> 99.9999999999%");
  EXPECT_EQ(FormatProbability(1 - 1e-11), "99.999999999%");
  EXPECT_EQ(FormatProbability(0.0), "0%");
}

TEST(IsValidEnvironmentName, KnownAnswers) {
  EXPECT_TRUE(IsValidEnvironmentName("PARALLEL"));
  EXPECT_TRUE(IsValidEnvironmentName("_x1"));
  EXPECT_TRUE(IsValidEnvironmentName("a"));
  EXPECT_FALSE(IsValidEnvironmentName(""));
  EXPECT_FALSE(IsValidEnvironmentName("1ABC"));
  EXPECT_FALSE(IsValidEnvironmentName("A-B"));
  EXPECT_FALSE(IsValidEnvironmentName("A B"));
  EXPECT_FALSE(IsValidEnvironmentName("A=B"));
  EXPECT_FALSE(IsValidEnvironmentName("caf\xc3\xa9"));
}

TEST(SplitLines, KeepsEmptyLinesDropsTheLastNewlineAndCarriageReturns) {
  EXPECT_EQ(SplitLines("a\n\nb\r\n"), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(SplitLines("a"), (std::vector<std::string_view>{"a"}));
  EXPECT_TRUE(SplitLines("").empty());
}

TEST(FirstLine, StopsAtTheFirstNewline) {
  EXPECT_EQ(FirstLine("error: x\nmore"), "error: x");
  EXPECT_EQ(FirstLine("one"), "one");
}

TEST(ShortCommit, IsOneLengthEverywhere) {
  EXPECT_EQ(ShortCommit("0476fd27ad1234567890"), "0476fd27ad");
  EXPECT_EQ(ShortCommit("abc"), "abc");
}

TEST(Fnv1a64, MatchesTheReferenceVectors) {
  // From the FNV reference test suite.
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
  // Continuing from a hash is hashing the concatenation.
  EXPECT_EQ(Fnv1a64("bar", Fnv1a64("foo")), Fnv1a64("foobar"));
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

TEST(TextWidth, CountsCharactersNotBytes) {
  EXPECT_EQ(TextWidth(""), 0u);
  EXPECT_EQ(TextWidth("abc"), 3u);
  EXPECT_EQ(TextWidth("\xc3\x97"
                      "1.30"),
            5u);                                 // "×1.30": × is two bytes
  EXPECT_EQ(TextWidth("a \xe2\x86\x92 b"), 5u);  // "a → b": → is three
  EXPECT_EQ(TextWidth("\xf0\x9f\x90\x8c"), 1u);  // one four-byte character
  EXPECT_EQ(TextWidth("caf\xe9"), 4u);           // Latin-1 é: a byte outside UTF-8
  EXPECT_EQ(TextWidth("\xe2\x86"), 2u);          // a cut sequence: two stray bytes
}

TEST(ClipMiddle, KeepsBothEndsAndCutsAtACharacter) {
  EXPECT_EQ(ClipMiddle("abcdefgh", 8), "abcdefgh");
  EXPECT_EQ(ClipMiddle("abcdefghi", 8), "ab...ghi");
  EXPECT_EQ(ClipMiddle("abcd", 3), "...");
  const std::string times = "\xc3\x97";  // "×": two bytes, one character
  // Widths are characters: eight characters in ten bytes fit in eight.
  const std::string eight = times + "bcdefg" + times;
  EXPECT_EQ(ClipMiddle(eight, 8), eight);
  // A byte count would cut the "×" at either end in two; the cut keeps whole characters.
  const std::string clipped = ClipMiddle("a" + times + "bcdefghij" + times + "k", 8);
  EXPECT_EQ(clipped, "a" + times + "...j" + times + "k");
  EXPECT_EQ(TextWidth(clipped), 8u);
}

TEST(ClipText, KeepsShortTextAndCutsLongTextAtACharacter) {
  EXPECT_EQ(ClipText("abcdef", 6), "abcdef");
  EXPECT_EQ(ClipText("abcdefg", 6), "abc...");
  EXPECT_EQ(ClipText("abc", 3), "abc");
  EXPECT_EQ(ClipText("abcd", 3), "...");
  // Six characters in eight bytes fit in six: widths are characters.
  EXPECT_EQ(ClipText("\xc3\x97\xc3\x97"
                     "abcd",
                     6),
            "\xc3\x97\xc3\x97"
            "abcd");
  // A byte-count cut at 3 would split the second ×; the cut keeps three whole characters.
  EXPECT_EQ(ClipText("a\xc3\x97\xc3\x97"
                     "bcdefg",
                     6),
            "a\xc3\x97\xc3\x97...");
  const std::string clipped = ClipText("x\xe2\x86\x92y\xe2\x86\x92z\xe2\x86\x92w", 6);
  EXPECT_EQ(clipped, "x\xe2\x86\x92y...");
  EXPECT_EQ(TextWidth(clipped), 6u);
}

TEST(AlignColumns, AlignsByCharactersAndEscapesCells) {
  // Before AlignColumns, `records list` padded by bytes: a row whose cell held "→" (three
  // bytes, one character) had its next column two places to the left of the others'.
  const std::string out = AlignColumns(
      {{"ARMS", "VERDICT"}, {"a \xe2\x86\x92 b", "NULL"}, {"ab", "EFFECT"}, {"q\x1b[2J", "x  "}});
  EXPECT_EQ(out,
            "ARMS      VERDICT\n"
            "a \xe2\x86\x92 b     NULL\n"
            "ab        EFFECT\n"
            "q\\x1b[2J  x\n");
}

TEST(EscapeControlChars, ShowsC0AndDelAsHex) {
  // A commit subject that would set the terminal's title and clear the screen.
  EXPECT_EQ(EscapeControlChars("fix\x1b]0;pwned\x07\x1b[2J"), "fix\\x1b]0;pwned\\x07\\x1b[2J");
  // One-line fields: newline, carriage return and tab are escaped too, and NUL and DEL.
  EXPECT_EQ(EscapeControlChars(std::string("a\nb\rc\td\0e\x7f", 10)),
            "a\\x0ab\\x0dc\\x09d\\x00e\\x7f");
}

TEST(EscapeControlChars, ShowsC1ControlsEncodedOrBare) {
  // U+009B (CSI) validly encoded in UTF-8, and a bare 0x9b byte outside UTF-8.
  EXPECT_EQ(EscapeControlChars("x\xc2\x9b"
                               "31m"),
            "x\\u009b31m");
  EXPECT_EQ(EscapeControlChars("x\x9b"
                               "31m"),
            "x\\x9b31m");
  EXPECT_EQ(EscapeControlChars("\xc2\x80\xc2\x9f"), "\\u0080\\u009f");
}

TEST(EscapeControlChars, KeepsOrdinaryTextUnchanged) {
  EXPECT_EQ(EscapeControlChars(""), "");
  EXPECT_EQ(EscapeControlChars("plain C:\\path [x] 100%"), "plain C:\\path [x] 100%");
  // UTF-8 beyond the C1 range: é (U+00E9, starts C3), NBSP (U+00A0, C2 A0), €, an emoji.
  const std::string utf8 = "caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac \xf0\x9f\x98\x80";
  EXPECT_EQ(EscapeControlChars(utf8), utf8);
  // A Latin-1 name (é as the lone byte 0xe9) stays as it was: not a control anywhere.
  EXPECT_EQ(EscapeControlChars("caf\xe9"), "caf\xe9");
  // A truncated UTF-8 sequence whose continuation is a C1 byte: the bare byte is escaped.
  EXPECT_EQ(EscapeControlChars("\xe2\x82"), "\xe2\\x82");
}

}  // namespace
}  // namespace culprit
