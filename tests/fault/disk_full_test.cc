// Fault suite: the records and cache directories on a small tmpfs that is full
// (or nearly: room for a little, not for a record or a binary). culprit says
// clearly what failed, leaves nothing half-written, and a probe's verdict is
// still shown, with the record kept somewhere the message names. Skipped where
// this process may not mount a tmpfs (not root, or no CAP_SYS_ADMIN).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "records/record.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/fault_checks.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

const std::string kFixture = CULPRIT_FIXTURE_DIR "/fixture_work";

class FaultDiskFull : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(disk());
    if (::mount("tmpfs", disk().c_str(), "tmpfs", 0, "size=4m") != 0) {
      GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno)
                   << "): the disk-full cases need one";
    }
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) ::umount2(disk().c_str(), MNT_DETACH);
  }

  fs::path disk() const { return dir_.path() / "disk"; }
  fs::path records_dir() const { return disk() / "records"; }
  fs::path filler() const { return disk() / "filler"; }

  // Fills the tmpfs, then frees `leave` bytes of it.
  void Fill(off_t leave) {
    int fd = ::open(filler().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    std::string block(65536, 'f');
    off_t size = 0;
    while (true) {
      ssize_t n = ::write(fd, block.data(), block.size());
      if (n <= 0) break;
      size += n;
    }
    ASSERT_EQ(errno, ENOSPC);
    ASSERT_EQ(::ftruncate(fd, size > leave ? size - leave : 0), 0);
    ::close(fd);
  }

  void WriteProbeConfig() {
    WriteTextFile(dir_.path() / "culprit.toml", R"([engine]
repo = "."
build = [["true"]]

# Each run first appends a line to runs.log, to tell whether any ran.
[queries.work]
command = ["/bin/sh", "-c", "echo run >> ')" + (dir_.path() / "runs.log").string() +
                                                  R"('; exec )" + kFixture + R"( --scale 0.25"]
metric = { regex = 'median_ms=([0-9.]+)' }
timeout = "20s"

[measure]
warmup = 1
min_pairs = 20
max_pairs = 20

[records]
dir = ')" + records_dir().string() + R"('
)");
  }

  ProcessResult Probe() {
    return RunCulprit({"--config", (dir_.path() / "culprit.toml").string(), "probe", "--override",
                       "CULPRIT_FIXTURE_SLOW=1"},
                      dir_.path());
  }

  // Nothing in the records directory but whole records.
  void ExpectNothingHalfWritten() {
    ArchiveCheck archive = CheckArchive(records_dir());
    EXPECT_TRUE(archive.damaged.empty()) << ::testing::PrintToString(archive.damaged);
    EXPECT_TRUE(archive.stray.empty()) << ::testing::PrintToString(archive.stray);
    EXPECT_TRUE(TempLeftovers(disk()).empty()) << ::testing::PrintToString(TempLeftovers(disk()));
  }

  // The probe measured, showed its verdict, could not archive the record,
  // said so, and named where the record went instead: a whole record there.
  void ExpectVerdictAndFallback(const ProcessResult& probe) {
    static const std::regex verdict(R"(\b(EFFECT|NULL|INCONCLUSIVE)\b)");
    EXPECT_TRUE(std::regex_search(probe.stdout_text, verdict)) << DescribeRun(probe);
    EXPECT_TRUE(Contains(probe.stderr_text, "No space left on device")) << DescribeRun(probe);
    EXPECT_TRUE(Contains(probe.stderr_text, records_dir().string())) << DescribeRun(probe);
    std::smatch m;
    static const std::regex path(R"((/[^\s'"`]+\.json))");
    std::string err = probe.stderr_text;
    bool found = false;
    for (auto it = std::sregex_iterator(err.begin(), err.end(), path);
         it != std::sregex_iterator(); ++it) {
      fs::path p = (*it)[1].str();
      if (p.string().rfind(disk().string(), 0) == 0 || !fs::exists(p)) continue;
      Result<Record> record = RecordFromJson(ReadAll(p), p.string());
      ASSERT_TRUE(record) << record.error().message();
      EXPECT_EQ(record->kind, RecordKind::kProbe);
      found = true;
      fs::remove(p);
    }
    EXPECT_TRUE(found) << "no message names an existing file holding the record\n"
                       << DescribeRun(probe);
  }

  TempDir dir_;
  bool mounted_ = false;
};

TEST_F(FaultDiskFull, ARecordThatDoesNotFitIsKeptElsewhereAndTheVerdictShown) {
  WriteProbeConfig();
  fs::create_directories(records_dir());
  Fill(/*leave=*/4096);  // a writability check fits; a record of 20 pairs does not
  ProcessResult probe = Probe();
  EXPECT_NE(probe.exit_code, 0) << DescribeRun(probe);
  ExpectVerdictAndFallback(probe);
  ExpectNothingHalfWritten();
}

TEST_F(FaultDiskFull, AFullArchiveIsRefusedBeforeMeasuringOrTheVerdictKept) {
  WriteProbeConfig();
  fs::create_directories(records_dir());
  Fill(/*leave=*/0);
  ProcessResult probe = Probe();
  EXPECT_NE(probe.exit_code, 0) << DescribeRun(probe);
  if (probe.stdout_text.empty()) {
    // Refused before anything was measured: the message says where and why.
    EXPECT_FALSE(fs::exists(dir_.path() / "runs.log")) << "it measured, then showed nothing\n"
                                                       << DescribeRun(probe);
    EXPECT_TRUE(Contains(probe.stderr_text, records_dir().string())) << DescribeRun(probe);
    EXPECT_TRUE(Contains(probe.stderr_text, "No space left on device")) << DescribeRun(probe);
  } else {
    ExpectVerdictAndFallback(probe);
  }
  ExpectNothingHalfWritten();
}

TEST_F(FaultDiskFull, ABuildThatRunsOutOfSpaceIsNotRememberedAsUnbuildable) {
  std::string commit;
  {
    GitFixture git(dir_.path() / "repo");
    commit = git.Commit({{"main.c", LoopEngineSource("one", 1000)}}, {}, "one");
  }
  fs::path config = WriteLoopEngineConfig(dir_.path(), "10s", 0.1);
  // The cache on the small disk.
  std::string text = ReadAll(config);
  text = std::regex_replace(text, std::regex("dir = '[^']*/cache'"),
                            "dir = '" + (disk() / "cache").string() + "'");
  WriteTextFile(config, text);
  Fill(/*leave=*/12288);  // room for the checkout, not for the binary and its copy

  ProcessResult full = RunCulprit({"--config", config.string(), "build", commit}, dir_.path());
  EXPECT_NE(full.exit_code, 0) << DescribeRun(full);
  EXPECT_TRUE(Contains(full.stderr_text, commit.substr(0, 10))) << DescribeRun(full);
  // No entry is half-written: each says what it is, whole.
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(disk() / "cache", ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() != "entry.json") continue;
    Result<std::string> entry = ReadFile(it->path());
    EXPECT_TRUE(entry && nlohmann::json::accept(*entry)) << it->path();
  }
  EXPECT_TRUE(TempLeftovers(disk()).empty()) << ::testing::PrintToString(TempLeftovers(disk()));

  // Space again: the commit builds, without --rebuild. A full disk says
  // nothing about the commit.
  fs::remove(filler());
  ProcessResult again = RunCulprit({"--config", config.string(), "build", commit}, dir_.path());
  EXPECT_TRUE(again.ok()) << "first attempt:\n" << DescribeRun(full) << "\nsecond:\n"
                          << DescribeRun(again);
}

}  // namespace
}  // namespace culprit
