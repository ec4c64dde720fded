#include "base/duration.h"

#include <gtest/gtest.h>

#include <string>

namespace culprit {
namespace {

using std::chrono::milliseconds;

milliseconds Parsed(std::string_view text) {
  auto result = ParseDuration(text);
  EXPECT_TRUE(result.ok()) << text << ": " << (result ? "" : result.error().message());
  return result ? *result : milliseconds(-1);
}

std::string ErrorOf(std::string_view text) {
  auto result = ParseDuration(text);
  EXPECT_FALSE(result.ok()) << text << " parsed as " << (result ? result->count() : 0);
  if (result) return "";
  EXPECT_EQ(result.error().kind(), ErrorKind::kUsage);
  return result.error().message();
}

TEST(ParseDuration, KnownAnswers) {
  EXPECT_EQ(Parsed("500ms"), milliseconds(500));
  EXPECT_EQ(Parsed("60s"), milliseconds(60'000));
  EXPECT_EQ(Parsed("20m"), milliseconds(1'200'000));
  EXPECT_EQ(Parsed("1h"), milliseconds(3'600'000));
  EXPECT_EQ(Parsed("1m30s"), milliseconds(90'000));
  EXPECT_EQ(Parsed("1h2m3s4ms"), milliseconds(3'723'004));
  EXPECT_EQ(Parsed("1.5s"), milliseconds(1500));
  EXPECT_EQ(Parsed("0.25h"), milliseconds(900'000));
  EXPECT_EQ(Parsed("0s"), milliseconds(0));
}

TEST(ParseDuration, RejectsWithWhatWasExpected) {
  EXPECT_NE(ErrorOf("").find("expected a duration such as \"500ms\""), std::string::npos);
  EXPECT_NE(ErrorOf("60").find("no unit; use ms, s, m or h"), std::string::npos);
  EXPECT_NE(ErrorOf("5 min").find("unknown unit at \" min\""), std::string::npos);
  EXPECT_NE(ErrorOf("5d").find("unknown unit at \"d\""), std::string::npos);
  EXPECT_NE(ErrorOf("-5s").find("negative"), std::string::npos);
  EXPECT_NE(ErrorOf("s").find("no number"), std::string::npos);
  EXPECT_NE(ErrorOf("1.0005s").find("at most 3 digits"), std::string::npos);
  EXPECT_NE(ErrorOf("0.5ms").find("whole number of milliseconds"), std::string::npos);
  EXPECT_NE(ErrorOf("99999999999h").find("too large"), std::string::npos);
  EXPECT_NE(ErrorOf("1s ").find("no number at \" \""), std::string::npos);
}

TEST(FormatDuration, ShortestExactSpelling) {
  EXPECT_EQ(FormatDuration(milliseconds(0)), "0ms");
  EXPECT_EQ(FormatDuration(milliseconds(500)), "500ms");
  EXPECT_EQ(FormatDuration(milliseconds(60'000)), "1m");
  EXPECT_EQ(FormatDuration(milliseconds(1'200'000)), "20m");
  EXPECT_EQ(FormatDuration(milliseconds(3'600'000)), "1h");
  EXPECT_EQ(FormatDuration(milliseconds(90'000)), "1m30s");
  EXPECT_EQ(FormatDuration(milliseconds(1500)), "1s500ms");
  EXPECT_EQ(FormatDuration(milliseconds(-2000)), "-2s");
}

TEST(FormatDuration, RoundTripsThroughParse) {
  for (long ms : {1L, 999L, 1000L, 59'999L, 61'001L, 3'599'999L, 3'723'004L, 86'400'000L}) {
    EXPECT_EQ(Parsed(FormatDuration(milliseconds(ms))), milliseconds(ms)) << ms;
  }
}

}  // namespace
}  // namespace culprit
