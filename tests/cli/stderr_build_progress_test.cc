// What the user sees of builds on stderr: one line per event, a heartbeat only on a
// terminal, and the engine layer's notes.

#include "cli/stderr_build_progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace culprit {
namespace {

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

TEST(StderrBuildProgress, ANoteIsALineOfItsOwnAfterTheHeartbeat) {
  CommitInfo commit;
  commit.short_id = "aaaaaaaaaa";
  StderrBuildProgress terminal(true);
  ::testing::internal::CaptureStderr();
  terminal.OnOutput(commit, 1, 1, "cc a.c", std::chrono::milliseconds(1000));
  terminal.OnNote("waiting for another culprit building aaaaaaaaaa");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "\r\x1b[2K  building aaaaaaaaaa: step 1/1  [1s]  cc a.c"
            "\r\x1b[2Kculprit: waiting for another culprit building aaaaaaaaaa\n");
}

}  // namespace
}  // namespace culprit
