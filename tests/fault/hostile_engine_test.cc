// Fault suite: engines that misbehave (tests/fixtures/fault_engine.cc) run
// through the real culprit executable. culprit's memory stays bounded whatever
// the engine prints, every process an engine starts is gone once culprit is
// done with a sample, and what went wrong is said plainly. Nothing here
// asserts a duration: deadlines only keep a broken test from waiting forever.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/fault_checks.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

const std::string kEngine = FixturePath("fault_engine");
// What culprit may add to its own resident set while an engine prints 1 GiB, over what it
// holds measuring an engine that prints one line. Relative, because the same culprit starts
// at about 10 MiB in a release build and at 170 to 290 MiB under AddressSanitizer (shadow
// memory, a binary of over 100 MiB): one absolute bound cannot serve both lanes.
constexpr long kMemoryGrowthKb = 64 * 1024;

// What one culprit process did, with its own peak resident set (wait4).
struct CulpritRun {
  int exit_code = -1;
  std::string out, err;
  long peak_rss_kb = 0;
};

class FaultHostileEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    auto query = [&](const std::string& name, const std::string& args, const std::string& timeout) {
      return "[queries." + name + "]\ncommand = [\"" + kEngine + "\", " + args +
             "]\nmetric = { regex = 'ms=([0-9.]+)' }\ntimeout = \"" + timeout + "\"\n\n";
    };
    const std::string pids = "\"" + pidfile().string() + "\"";
    WriteTextFile(config(), "[engine]\nrepo = \".\"\nbuild = [[\"true\"]]\n\n" +
                                query("quiet", "\"flood\", \"0\"", "1m") +
                                query("flood", "\"flood\", \"1024\"", "5m") +
                                query("garbage", "\"garbage\", \"4\"", "1m") +
                                query("garbage_fail", "\"garbage-fail\"", "1m") +
                                query("endless", "\"endless\"", "2s") +
                                query("daemon", "\"daemon\", " + pids, "1m") +
                                query("setsid", "\"setsid\", " + pids, "1m") +
                                query("setpgid", "\"setpgid\", " + pids, "1m") +
                                query("ignore_term", "\"ignore-term\", " + pids, "1s") +
                                "[measure]\nwarmup = 0\nmin_pairs = 2\nmax_pairs = 2\n\n"
                                "[records]\ndir = \"records\"\n");
  }

  void TearDown() override {
    // Whatever escaped is not left running on the machine.
    for (pid_t pid : Pids()) {
      if (ProcessAlive(pid)) ::kill(pid, SIGKILL);
    }
  }

  fs::path config() const { return dir_.path() / "culprit.toml"; }
  fs::path pidfile() const { return dir_.path() / "pids"; }
  fs::path records_dir() const { return dir_.path() / "records"; }

  std::vector<pid_t> Pids() const {
    std::vector<pid_t> pids;
    std::ifstream in(pidfile());
    for (long pid; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
    return pids;
  }

  // Runs culprit to its end and takes its peak RSS from wait4 (culprit's own,
  // folded with the descendants it reaped: the engine runs).
  CulpritRun Culprit(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {CulpritExe(), "--config", config().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const fs::path out = dir_.path() / "culprit.out", err = dir_.path() / "culprit.err";
    pid_t pid = SpawnInBackground(argv, out, err);
    if (pid <= 0) throw std::runtime_error("cannot start culprit");
    CulpritRun run;
    int status = 0;
    rusage usage{};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (::wait4(pid, &status, WNOHANG, &usage) != pid) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid, SIGKILL);
        ::wait4(pid, &status, 0, &usage);
        ADD_FAILURE() << "culprit did not finish";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    run.peak_rss_kb = usage.ru_maxrss;
    run.out = ReadAll(out);
    run.err = ReadAll(err);
    return run;
  }

  // Every pid the engine wrote is gone (or a zombie) within a generous
  // deadline after culprit exited; returns those still alive.
  std::vector<pid_t> Survivors() const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::vector<pid_t> alive;
    do {
      alive.clear();
      for (pid_t pid : Pids()) {
        if (ProcessAlive(pid)) alive.push_back(pid);
      }
      if (alive.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } while (std::chrono::steady_clock::now() < deadline);
    return alive;
  }

  void ExpectArchiveWhole() {
    ArchiveCheck archive = CheckArchive(records_dir());
    EXPECT_TRUE(archive.damaged.empty()) << ::testing::PrintToString(archive.damaged);
    EXPECT_TRUE(archive.stray.empty()) << ::testing::PrintToString(archive.stray);
  }

  /// culprit's peak resident set measuring an engine that prints its metric and nothing else:
  /// what a hostile engine's output is compared with.
  long QuietPeakRssKb() {
    if (quiet_peak_kb_ == 0) {
      CulpritRun quiet = Culprit({"run", "quiet", "-n", "1"});
      EXPECT_EQ(quiet.exit_code, 0) << Describe(quiet);
      quiet_peak_kb_ = quiet.peak_rss_kb;
    }
    return quiet_peak_kb_;
  }
  void ExpectBoundedMemory(const CulpritRun& run) {
    const long quiet = QuietPeakRssKb();
    EXPECT_LT(run.peak_rss_kb, quiet + kMemoryGrowthKb)
        << "a quiet engine's run peaked at " << quiet << " kB\n"
        << Describe(run);
  }
  static std::string Describe(const CulpritRun& run) {
    return "exit " + std::to_string(run.exit_code) + ", peak RSS " +
           std::to_string(run.peak_rss_kb) + " kB\nstdout:\n" + run.out.substr(0, 4000) +
           "\nstderr:\n" + run.err.substr(0, 4000);
  }

  TempDir dir_;
  long quiet_peak_kb_ = 0;
};

// No byte an engine wrote reaches the user's terminal raw: an escape sequence
// could retitle or clear it, a NUL truncate what a log shows.
bool HasRawControlBytes(const std::string& text) {
  for (unsigned char c : text) {
    if (c == 0x1b || c == 0 || c == 0x07) return true;
  }
  return false;
}

TEST_F(FaultHostileEngine, AGigabyteOfOutputPerRunKeepsCulpritSmall) {
  CulpritRun run = Culprit({"run", "flood", "-n", "1"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  EXPECT_TRUE(Contains(run.out, "median 1.5")) << Describe(run);
  ExpectBoundedMemory(run);
  std::cout << "[fault] flood: 1 GiB on stdout, culprit peak RSS " << run.peak_rss_kb << " kB ("
            << QuietPeakRssKb() << " kB for one line)\n";
  ExpectArchiveWhole();
}

TEST_F(FaultHostileEngine, NeverEndingOutputTimesOutWithBoundedMemory) {
  CulpritRun run = Culprit({"run", "endless", "-n", "1"});
  EXPECT_NE(run.exit_code, 0) << Describe(run);
  EXPECT_TRUE(Contains(run.err, "timed out")) << Describe(run);
  ExpectBoundedMemory(run);
  std::cout << "[fault] endless: culprit peak RSS " << run.peak_rss_kb << " kB ("
            << QuietPeakRssKb() << " kB for one line)\n";
  ExpectArchiveWhole();
}

TEST_F(FaultHostileEngine, BinaryGarbageAroundTheMetricIsMeasured) {
  CulpritRun run = Culprit({"run", "garbage", "-n", "2"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  EXPECT_TRUE(Contains(run.out, "median 1.5")) << Describe(run);
  EXPECT_FALSE(HasRawControlBytes(run.out + run.err)) << Describe(run);
  ExpectBoundedMemory(run);
  ExpectArchiveWhole();
}

TEST_F(FaultHostileEngine, BinaryGarbageFromAFailingEngineIsAClearError) {
  CulpritRun run = Culprit({"run", "garbage_fail", "-n", "2"});
  EXPECT_NE(run.exit_code, 0) << Describe(run);
  EXPECT_TRUE(Contains(run.err, "exited with status 1")) << Describe(run);
  EXPECT_FALSE(HasRawControlBytes(run.out + run.err)) << Describe(run);
  ExpectArchiveWhole();
}

TEST_F(FaultHostileEngine, ADaemonInTheEnginesGroupIsKilledAfterEachSample) {
  CulpritRun run = Culprit({"run", "daemon", "-n", "3"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_EQ(Pids().size(), 3u) << Describe(run);
  EXPECT_TRUE(Survivors().empty()) << ::testing::PrintToString(Survivors());
  ExpectArchiveWhole();
}

TEST_F(FaultHostileEngine, ADaemonInAProcessGroupOfItsOwnIsKilled) {
  // Out of the group culprit kills: culprit adopted it (a subreaper) and kills it.
  CulpritRun run = Culprit({"run", "setpgid", "-n", "3"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_EQ(Pids().size(), 3u) << Describe(run);
  EXPECT_TRUE(Survivors().empty()) << ::testing::PrintToString(Survivors());
}

TEST_F(FaultHostileEngine, ADaemonInASessionOfItsOwnIsKilled) {
  CulpritRun run = Culprit({"run", "setsid", "-n", "3"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_EQ(Pids().size(), 3u) << Describe(run);
  EXPECT_TRUE(Survivors().empty()) << ::testing::PrintToString(Survivors());
}

TEST_F(FaultHostileEngine, DaemonsOfBothArmsOfAProbeAreKilled) {
  CulpritRun run = Culprit({"probe", "--query", "daemon", "--override", "FAULT_ARM=b"});
  EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 3) << Describe(run);
  EXPECT_EQ(Pids().size(), 4u) << Describe(run);  // 2 pairs, no warmup
  EXPECT_TRUE(Survivors().empty()) << ::testing::PrintToString(Survivors());
  ExpectArchiveWhole();
}

TEST_F(FaultHostileEngine, AnEngineIgnoringSigtermIsKilledAtItsTimeout) {
  CulpritRun run = Culprit({"run", "ignore_term", "-n", "2"});
  EXPECT_NE(run.exit_code, 0) << Describe(run);
  EXPECT_TRUE(Contains(run.err, "timed out")) << Describe(run);
  EXPECT_FALSE(Pids().empty()) << Describe(run);
  EXPECT_TRUE(Survivors().empty()) << ::testing::PrintToString(Survivors());
  ExpectArchiveWhole();
}

}  // namespace
}  // namespace culprit
