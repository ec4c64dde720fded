#include "base/timestamp.h"

#include <gtest/gtest.h>

namespace culprit {
namespace {

using std::chrono::system_clock;

TEST(Timestamp, FormatsUtc) {
  // 2026-11-30T10:15:00Z is 1796033700 seconds after the epoch.
  system_clock::time_point t = system_clock::from_time_t(1796033700);
  EXPECT_EQ(FormatIsoUtc(t), "2026-11-30T10:15:00Z");
  EXPECT_EQ(FormatCompactUtc(t), "2026-11-30T101500Z");
  EXPECT_EQ(FormatIsoUtc(t + std::chrono::milliseconds(999)), "2026-11-30T10:15:00Z");
}

TEST(Timestamp, ParsesWhatItFormats) {
  auto parsed = ParseIsoUtc("2026-11-30T10:15:00Z");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(system_clock::to_time_t(*parsed), 1796033700);
  auto fractional = ParseIsoUtc("2026-11-30T10:15:00.250Z");
  ASSERT_TRUE(fractional);
  EXPECT_EQ(*fractional, *parsed);
  auto now = system_clock::now();
  auto round_trip = ParseIsoUtc(FormatIsoUtc(now));
  ASSERT_TRUE(round_trip);
  EXPECT_EQ(FormatIsoUtc(*round_trip), FormatIsoUtc(now));
}

TEST(Timestamp, RefusesOtherForms) {
  for (const char* bad :
       {"2026-11-30 10:15:00Z", "2026-11-30T10:15:00", "2026-11-30T10:15:00+01:00",
        "2026-02-31T10:15:00Z", "2026-13-01T00:00:00Z", "", "yesterday"}) {
    auto parsed = ParseIsoUtc(bad);
    EXPECT_FALSE(parsed) << bad;
    if (!parsed) {
      EXPECT_NE(parsed.error().message().find(std::string("'") + bad + "'"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace culprit
