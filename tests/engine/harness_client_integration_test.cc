// The harness client against real processes: tests/fixtures/residency_engine
// speaking the protocol correctly, and each way it can speak it badly.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/harness_client.h"
#include "tests/support/build_paths.h"

namespace culprit {
namespace {

using namespace std::chrono_literals;

const std::string kEngine = FixturePath("residency_engine");

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::unique_ptr<HarnessClient> StartEngine(std::vector<std::string> flags,
                                           std::chrono::milliseconds timeout = 20s,
                                           std::chrono::milliseconds grace = 5s) {
  ProcessSpec spec;
  spec.argv = {kEngine, "--elements", "4096"};
  spec.argv.insert(spec.argv.end(), flags.begin(), flags.end());
  Result<std::unique_ptr<HarnessClient>> client = HarnessClient::Start(spec, timeout, grace);
  EXPECT_TRUE(client.ok()) << client.error().message();
  return client ? std::move(*client) : nullptr;
}

TEST(HarnessClientTest, SpeaksTheProtocol) {
  auto client = StartEngine({});
  ASSERT_TRUE(client);
  Result<HoldReply> held = client->Hold("rollup");
  ASSERT_TRUE(held.ok()) << held.error().message();
  EXPECT_EQ(held->bytes.value_or(0), 2u * 4096 * 8);
  Result<std::vector<double>> values = client->Run("scan", 5);
  ASSERT_TRUE(values.ok()) << values.error().message();
  EXPECT_EQ(values->size(), 5u);
  EXPECT_TRUE(client->Release("rollup").ok());
  // An error answer is the engine's, and the engine stays in step.
  Status again = client->Release("rollup");
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(Contains(again.error().message(), "'release rollup'")) << again.error().message();
  EXPECT_TRUE(Contains(again.error().message(), "not held")) << again.error().message();
  EXPECT_TRUE(client->Run("scan", 1).ok());
  EXPECT_TRUE(client->Quit().ok());
  EXPECT_FALSE(client->running());
}

TEST(HarnessClientTest, EngineWithoutBytesStillWorks) {
  auto client = StartEngine({"--no-bytes"});
  ASSERT_TRUE(client);
  Result<HoldReply> held = client->Hold("ballast");
  ASSERT_TRUE(held.ok()) << held.error().message();
  EXPECT_FALSE(held->bytes);
  EXPECT_TRUE(client->Quit().ok());
}

TEST(HarnessClientTest, CrashMidRound) {
  auto client = StartEngine({"--fault", "crash", "--fault-after", "2"});
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->Run("scan", 2).ok());
  Result<std::vector<double>> r = client->Run("scan", 2);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.error().message(), "'run scan 2'")) << r.error().message();
  EXPECT_TRUE(Contains(r.error().message(), "SIGSEGV")) << r.error().message();
  EXPECT_FALSE(client->running());
  // Later requests fail too, and quit says so.
  EXPECT_FALSE(client->Run("scan", 1).ok());
  EXPECT_FALSE(client->Quit().ok());
}

TEST(HarnessClientTest, HangIsKilledAfterTheTimeout) {
  auto client = StartEngine({"--fault", "hang"}, 500ms);
  ASSERT_TRUE(client);
  Result<std::vector<double>> r = client->Run("scan", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.error().message(), "did not answer 'run scan 1'")) << r.error().message();
  EXPECT_TRUE(Contains(r.error().message(), "killed")) << r.error().message();
  EXPECT_FALSE(client->running());
}

TEST(HarnessClientTest, GarbageStopsTheEngine) {
  auto client = StartEngine({"--fault", "garbage"});
  ASSERT_TRUE(client);
  Result<std::vector<double>> r = client->Run("scan", 3);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.error().message(), "'run scan 3'")) << r.error().message();
  EXPECT_TRUE(Contains(r.error().message(), "hello, this is not the protocol"))
      << r.error().message();
  EXPECT_FALSE(client->running());
  Result<HoldReply> later = client->Hold("rollup");
  ASSERT_FALSE(later.ok());
  EXPECT_TRUE(Contains(later.error().message(), "out of step")) << later.error().message();
}

TEST(HarnessClientTest, PartialLineThenExit) {
  auto client = StartEngine({"--fault", "partial"});
  ASSERT_TRUE(client);
  Result<std::vector<double>> r = client->Run("scan", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.error().message(), "'run scan 1'")) << r.error().message();
  EXPECT_TRUE(Contains(r.error().message(), "exited")) << r.error().message();
}

TEST(HarnessClientTest, WrongCount) {
  auto client = StartEngine({"--fault", "wrong-count"});
  ASSERT_TRUE(client);
  Result<std::vector<double>> r = client->Run("scan", 4);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(
      Contains(r.error().message(), "'run scan 4': the engine answered 3 values, expected 4"))
      << r.error().message();
  EXPECT_FALSE(client->running());
}

TEST(HarnessClientTest, ErrorLine) {
  auto client = StartEngine({"--fault", "error"});
  ASSERT_TRUE(client);
  Result<std::vector<double>> r = client->Run("scan", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(
      Contains(r.error().message(), "'run scan 1': the engine answered error: out of memory"))
      << r.error().message();
  EXPECT_TRUE(client->running());
  EXPECT_TRUE(client->Quit().ok());
}

TEST(HarnessClientTest, ClosedStdout) {
  auto client = StartEngine({"--fault", "eof"});
  ASSERT_TRUE(client);
  Result<std::vector<double>> r = client->Run("scan", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.error().message(), "'run scan 1'")) << r.error().message();
  EXPECT_FALSE(client->running());
}

TEST(HarnessClientTest, NoAnswerToQuit) {
  auto client = StartEngine({"--fault", "no-quit"}, 20s, 300ms);
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->Run("scan", 1).ok());
  Status quit = client->Quit();
  ASSERT_FALSE(quit.ok());
  EXPECT_TRUE(Contains(quit.error().message(), "'quit'")) << quit.error().message();
  EXPECT_TRUE(Contains(quit.error().message(), "did not exit")) << quit.error().message();
  EXPECT_FALSE(client->running());
}

TEST(HarnessClientTest, NamesWithSpacesAreRefused) {
  auto client = StartEngine({});
  ASSERT_TRUE(client);
  EXPECT_EQ(client->Hold("two words").error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(client->Run("scan", 0).error().kind(), ErrorKind::kUsage);
  EXPECT_TRUE(client->Run("scan", 1).ok());
  EXPECT_TRUE(client->Quit().ok());
}

}  // namespace
}  // namespace culprit
