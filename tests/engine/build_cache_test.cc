// The build cache's in-process parts: the last line of a step's output and the
// progress shown while a step runs. The builds themselves, on real
// repositories, are in build_cache_integration_test.cc.

#include "engine/build_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace culprit {
namespace {

TEST(LastOutputLine, KeepsTheLastCompleteLineInBoundedSpace) {
  LastOutputLine last;
  last.Add("configuring\ncompil");
  EXPECT_EQ(last.line(), "configuring");
  last.Add("ing a.c");
  EXPECT_EQ(last.line(), "configuring");
  last.Add("\n\n");
  EXPECT_EQ(last.line(), "compiling a.c");
  last.Add("[ 10%]\r[ 20%]\r[ 3");
  EXPECT_EQ(last.line(), "[ 20%]");
  last.Add("0%]\r\n");
  EXPECT_EQ(last.line(), "[ 30%]");
  // 64 MiB without a line end, in pieces: the space held stays bounded.
  const std::string piece(64 * 1024, 'x');
  size_t most = 0;
  for (int i = 0; i < 1024; ++i) {
    last.Add(piece);
    most = std::max(most, last.held());
  }
  EXPECT_LE(most, 2 * LastOutputLine::kKeep);
  EXPECT_EQ(last.line(), "[ 30%]");
  last.Add("yz\nnext");
  EXPECT_EQ(last.line(), std::string(LastOutputLine::kKeep - 2, 'x') + "yz");
  last.Add("\n");
  EXPECT_EQ(last.line(), "next");
}

TEST(StderrBuildProgress, AHeartbeatOnATerminalAndNothingExtraInAPipe) {
  CommitInfo commit;
  commit.id = std::string(40, 'a');
  commit.short_id = "aaaaaaaaaa";
  commit.subject = "subject";
  using std::chrono::milliseconds;
  StderrBuildProgress pipe(false);
  ::testing::internal::CaptureStderr();
  pipe.OnOutput(commit, 1, 2, "[ 50%] Building CXX object a.o", milliseconds(12000));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");

  StderrBuildProgress terminal(true);
  ::testing::internal::CaptureStderr();
  terminal.OnOutput(commit, 1, 2, "[ 50%] Building CXX object a.o\t", milliseconds(12000));
  terminal.OnDone(commit, true, milliseconds(13000));
  std::string shown = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(shown,
            "\r\x1b[2K  building aaaaaaaaaa: step 1/2  [12s]  [ 50%] Building CXX object a.o "
            "\r\x1b[2Kculprit: built aaaaaaaaaa in 13.0 s\n");
}

}  // namespace
}  // namespace culprit
