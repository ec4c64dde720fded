#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <thread>

#include "engine/leftover_step.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

/// Running, as opposed to gone or a zombie that runs no code.
bool IsRunning(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  return stat[close + 2] != 'Z' && stat[close + 2] != 'X';
}

/// A `sleep` in a process group of its own, like a build step; reaped by us.
/// With `ignore_term`, it ignores SIGTERM (the disposition survives exec).
/// Returns once the child has exec'd: a signal sent before its SIG_IGN would
/// have ended it as SIGTERM (a race seen once in the suite, 2026-12-07).
pid_t StartSleeperGroup(bool ignore_term = false) {
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    ::setpgid(0, 0);
    if (ignore_term) ::signal(SIGTERM, SIG_IGN);
    ::execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(ready[1]);
  if (pid > 0) {
    ::setpgid(pid, pid);  // also from here, so the group exists when we return
    // The write end closes on exec (O_CLOEXEC): end of file means the child runs `sleep`.
    char byte;
    while (::read(ready[0], &byte, 1) < 0 && errno == EINTR) {
    }
  }
  ::close(ready[0]);
  return pid;
}

TEST(StopLeftoverStep, StopsTheRecordedGroupAndRemovesTheRecord) {
  TempDir dir;
  fs::path record = dir.path() / "step-group";
  pid_t group = StartSleeperGroup();
  ASSERT_GT(group, 0);
  ASSERT_TRUE(RecordStepGroup(record, group));
  std::optional<std::string> stopped = StopLeftoverStep(record);
  ASSERT_TRUE(stopped.has_value());
  EXPECT_NE(stopped->find(std::to_string(group)), std::string::npos) << *stopped;
  int status = 0;
  ASSERT_EQ(::waitpid(group, &status, 0), group);
  // Asked first: SIGTERM ends it.
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_FALSE(fs::exists(record));
}

TEST(StopLeftoverStep, AGroupThatIgnoresSigtermIsKilled) {
  TempDir dir;
  fs::path record = dir.path() / "step-group";
  pid_t group = StartSleeperGroup(/*ignore_term=*/true);
  ASSERT_GT(group, 0);
  ASSERT_TRUE(RecordStepGroup(record, group));
  EXPECT_TRUE(StopLeftoverStep(record).has_value());
  int status = 0;
  ASSERT_EQ(::waitpid(group, &status, 0), group);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
}

TEST(StopLeftoverStep, MakeDeletesTheTargetItWasWritingBeforeTheNextBuild) {
  // A step cut short leaves an output newer than its source, which the next
  // incremental build would trust; make deletes it when asked to stop, and
  // only SIGTERM asks.
  TempDir dir;
  WriteTextFile(dir.path() / "Makefile",
                "out.o:\n\techo partial > out.o; touch started; sleep 60\n");
  pid_t group = ::fork();
  if (group == 0) {
    ::setpgid(0, 0);
    if (::chdir(dir.path().c_str()) != 0) ::_exit(126);
    ::execlp("make", "make", "-s", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(group, 0);
  ::setpgid(group, group);
  for (int i = 0; i < 6000 && !fs::exists(dir.path() / "started"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(fs::exists(dir.path() / "out.o"));
  fs::path record = dir.path() / "step-group";
  ASSERT_TRUE(RecordStepGroup(record, group));
  EXPECT_TRUE(StopLeftoverStep(record).has_value());
  int status = 0;
  ASSERT_EQ(::waitpid(group, &status, 0), group);
  EXPECT_FALSE(fs::exists(dir.path() / "out.o")) << "make left its half-written target";
}

TEST(StopLeftoverStep, LeavesAProcessThatOnlySharesThePid) {
  // The recorded group is long gone and its pid now belongs to another
  // process: the start time tells them apart, and nothing is killed.
  TempDir dir;
  fs::path record = dir.path() / "step-group";
  pid_t group = StartSleeperGroup();
  ASSERT_GT(group, 0);
  std::optional<unsigned long long> start = ProcessStartTime(group);
  ASSERT_TRUE(start.has_value());
  {
    std::ofstream out(record);
    out << group << " " << (*start + 1) << "\n";
  }
  EXPECT_FALSE(StopLeftoverStep(record).has_value());
  EXPECT_TRUE(IsRunning(group));
  EXPECT_FALSE(fs::exists(record));
  ::kill(group, SIGKILL);
  ::waitpid(group, nullptr, 0);
}

TEST(StopLeftoverStep, NothingToStopWithoutARecordOrWithAGarbledOne) {
  TempDir dir;
  EXPECT_FALSE(StopLeftoverStep(dir.path() / "step-group").has_value());
  WriteTextFile(dir.path() / "step-group", "not a group\n");
  EXPECT_FALSE(StopLeftoverStep(dir.path() / "step-group").has_value());
  // Never process group 1 (init's) nor 0 (kill(0) is our own group).
  WriteTextFile(dir.path() / "step-group", "0 0\n");
  EXPECT_FALSE(StopLeftoverStep(dir.path() / "step-group").has_value());
  WriteTextFile(dir.path() / "step-group", "1 0\n");
  EXPECT_FALSE(StopLeftoverStep(dir.path() / "step-group").has_value());
}

}  // namespace
}  // namespace culprit
