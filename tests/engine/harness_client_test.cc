// The harness client's reply parser, in process; the client against real
// processes is in harness_client_integration_test.cc.

#include "engine/harness_client.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace culprit {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ParseReplyTest, OkAndBytes) {
  Result<HoldReply> plain = ParseOkReply("hold x", "ok", true);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->bytes);
  Result<HoldReply> sized = ParseOkReply("hold x", "ok bytes=1048576", true);
  ASSERT_TRUE(sized.ok());
  EXPECT_EQ(*sized->bytes, 1048576u);
  EXPECT_FALSE(ParseOkReply("release x", "ok bytes=12", false).ok());
  EXPECT_FALSE(ParseOkReply("hold x", "ok bytes=-1", true).ok());
  EXPECT_FALSE(ParseOkReply("hold x", "okay", true).ok());
  Result<HoldReply> error = ParseOkReply("hold x", "error unknown structure 'x'", true);
  ASSERT_FALSE(error.ok());
  EXPECT_TRUE(Contains(error.error().message(), "'hold x'"));
  EXPECT_TRUE(Contains(error.error().message(), "unknown structure 'x'"));
}

// An engine's text reaches the terminal: its escape sequences are shown, not
// obeyed (a reply could clear the screen or rewrite the lines above).
TEST(ParseReplyTest, EngineTextKeepsNoLiveControlBytes) {
  for (const char* reply : {"error \x1b[2J\x1b[Hall good", "ms \x1b]0;title\x07"}) {
    Result<std::vector<double>> parsed = ParseRunReply("run q 1", reply, 1);
    ASSERT_FALSE(parsed.ok());
    const std::string& message = parsed.error().message();
    EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
    EXPECT_EQ(message.find('\x07'), std::string::npos) << message;
    EXPECT_TRUE(Contains(message, "\\x1b")) << message;
  }
  Result<HoldReply> hold = ParseOkReply("hold x", "error \x1b[31mred", true);
  ASSERT_FALSE(hold.ok());
  EXPECT_TRUE(Contains(hold.error().message(), "the engine answered error: \\x1b[31mred"))
      << hold.error().message();
}

TEST(ParseReplyTest, RunValues) {
  Result<std::vector<double>> values = ParseRunReply("run q 3", "ms 1.5 2 0.25", 3);
  ASSERT_TRUE(values.ok());
  EXPECT_EQ(*values, (std::vector<double>{1.5, 2, 0.25}));
  Result<std::vector<double>> short_reply = ParseRunReply("run q 3", "ms 1.5 2", 3);
  ASSERT_FALSE(short_reply.ok());
  EXPECT_TRUE(Contains(short_reply.error().message(), "answered 2 values, expected 3"));
  EXPECT_FALSE(ParseRunReply("run q 1", "ms nan", 1).ok());
  EXPECT_FALSE(ParseRunReply("run q 1", "ms -1", 1).ok());
  EXPECT_FALSE(ParseRunReply("run q 1", "ms 1x", 1).ok());
  EXPECT_FALSE(ParseRunReply("run q 1", "1.0", 1).ok());
  EXPECT_FALSE(ParseRunReply("run q 1", "", 1).ok());
  EXPECT_TRUE(Contains(ParseRunReply("run q 1", "", 1).error().message(), "empty line"));
}

}  // namespace
}  // namespace culprit
