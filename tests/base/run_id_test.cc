#include "base/run_id.h"

#include <gtest/gtest.h>

#include <regex>

namespace culprit {
namespace {

TEST(RunId, IsTheCompactTimeAndFourHexDigitsOfTheSalt) {
  // 2026-12-04 02:30:00 UTC.
  const std::chrono::system_clock::time_point t{std::chrono::seconds(1796351400)};
  EXPECT_EQ(FormatRunId(t, 0x12341a2b), "2026-12-04T023000Z-1a2b");
  EXPECT_EQ(FormatRunId(t, 0x5), "2026-12-04T023000Z-0005");
  EXPECT_LT(FormatRunId(t, 0xffff), FormatRunId(t + std::chrono::seconds(1), 0));
}

TEST(RunId, NewOnesHaveTheSameShape) {
  const std::string a = FormatRunId(std::chrono::system_clock::now(), 0);
  const std::string b = NewRunId();
  EXPECT_EQ(a.size(), b.size());
  EXPECT_TRUE(std::regex_match(b.substr(b.size() - 5), std::regex("-[0-9a-f]{4}"))) << b;
}

}  // namespace
}  // namespace culprit
