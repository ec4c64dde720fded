// Fault suite: the records and cache directories on a small disk that is full
// (or nearly: room for a little, not for a record or a binary). culprit says
// clearly what failed, leaves nothing half-written, and a probe's verdict is
// still shown, with the record kept somewhere the message names.
//
// Each case runs on two disks: a real 4 MiB tmpfs (skipped where this process
// may not mount one: not root, or no CAP_SYS_ADMIN), and a directory that
// tests/fault/enospc_preload.cc, preloaded into culprit, makes behave like a
// 4 MiB file system (ENOSPC injected at the write calls), which runs anywhere.
// On the injected disk a compiler's own writes are not seen (they go through
// stdio): a build fills the disk, and the copy of its binary into the cache
// is what runs out of space.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "base/strings.h"
#include "records/record.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/fault_checks.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

const std::string kFixture = FixturePath("fixture_work");

enum class Disk { kTmpfs, kInjected };

constexpr off_t kDiskBytes = 4 << 20;
constexpr off_t kPage = 4096;

class FaultDiskFull : public ::testing::TestWithParam<Disk> {
 protected:
  void SetUp() override {
    fs::create_directories(disk());
    if (GetParam() == Disk::kTmpfs) {
      const std::string options = "size=" + std::to_string(kDiskBytes);
      if (::mount("tmpfs", disk().c_str(), "tmpfs", 0, options.c_str()) != 0) {
        GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno)
                     << "): the injected-ENOSPC variant of this case stands in for it";
      }
      mounted_ = true;
    }
  }
  void TearDown() override {
    if (mounted_) ::umount2(disk().c_str(), MNT_DETACH);
  }

  fs::path disk() const { return dir_.path() / "disk"; }
  fs::path records_dir() const { return disk() / "records"; }
  fs::path filler() const { return disk() / "filler"; }

  // What culprit runs with: on the injected disk, the preload library and
  // its disk (ahead of the ASan runtime in the sanitizer lane, which ASan
  // must be told to allow).
  std::map<std::string, std::string> Environment() const {
    if (GetParam() != Disk::kInjected) return {};
    auto with = [](const char* name, const std::string& value, const char* separator) {
      const char* old = std::getenv(name);
      return old != nullptr && *old != '\0' ? value + separator + old : value;
    };
    return {{"LD_PRELOAD", with("LD_PRELOAD", EnospcPreload(), ":")},
            {"ASAN_OPTIONS", with("ASAN_OPTIONS", "verify_asan_link_order=0", ":")},
            {"CULPRIT_FAKE_DISK_DIR", disk().string()},
            {"CULPRIT_FAKE_DISK_BYTES", std::to_string(kDiskBytes)}};
  }

  ProcessResult Run(const std::vector<std::string>& args) {
    return RunCulprit(args, dir_.path(), Environment());
  }

  // What the files under the disk take, counted as the preload library does
  // (each regular file's size rounded up to a page, as on a tmpfs).
  off_t InjectedDiskUsage() const {
    off_t used = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(disk(), ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && !it->is_symlink(ec)) {
        used += (static_cast<off_t>(it->file_size(ec)) + kPage - 1) / kPage * kPage;
      }
    }
    return used;
  }

  // Fills the disk, then frees `leave` bytes of it.
  void Fill(off_t leave) {
    int fd = ::open(filler().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    if (GetParam() == Disk::kInjected) {
      // This process is not preloaded: it writes what leaves `leave` free.
      const off_t size = std::max<off_t>(0, kDiskBytes - InjectedDiskUsage() - leave);
      ASSERT_EQ(::ftruncate(fd, size), 0) << std::strerror(errno);
      ::close(fd);
      return;
    }
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
    return Run({"--config", (dir_.path() / "culprit.toml").string(), "probe", "--override",
                "CULPRIT_FIXTURE_SLOW=1"});
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
    for (auto it = std::sregex_iterator(err.begin(), err.end(), path); it != std::sregex_iterator();
         ++it) {
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

TEST_P(FaultDiskFull, ARecordThatDoesNotFitIsKeptElsewhereAndTheVerdictShown) {
  WriteProbeConfig();
  fs::create_directories(records_dir());
  Fill(/*leave=*/4096);  // a writability check fits; a record of 20 pairs does not
  ProcessResult probe = Probe();
  EXPECT_NE(probe.exit_code, 0) << DescribeRun(probe);
  ExpectVerdictAndFallback(probe);
  ExpectNothingHalfWritten();
}

TEST_P(FaultDiskFull, AFullArchiveIsRefusedBeforeMeasuringOrTheVerdictKept) {
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

TEST_P(FaultDiskFull, ABuildThatRunsOutOfSpaceIsNotRememberedAsUnbuildable) {
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

  ProcessResult full = Run({"--config", config.string(), "build", commit});
  EXPECT_NE(full.exit_code, 0) << DescribeRun(full);
  EXPECT_TRUE(Contains(full.stderr_text, commit.substr(0, 10))) << DescribeRun(full);
  EXPECT_TRUE(Contains(full.stderr_text, "No space left on device")) << DescribeRun(full);
  for (std::string_view line : SplitLines(full.stderr_text)) {
    if (line.find("No space left on device") != std::string_view::npos) {
      std::cout << "[fault] a build on a full disk: " << line << "\n";
      break;
    }
  }
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
  ProcessResult again = Run({"--config", config.string(), "build", commit});
  EXPECT_TRUE(again.ok()) << "first attempt:\n"
                          << DescribeRun(full) << "\nsecond:\n"
                          << DescribeRun(again);
}

INSTANTIATE_TEST_SUITE_P(Disks, FaultDiskFull, ::testing::Values(Disk::kTmpfs, Disk::kInjected),
                         [](const ::testing::TestParamInfo<Disk>& info) {
                           return info.param == Disk::kTmpfs ? "Tmpfs" : "InjectedEnospc";
                         });

}  // namespace
}  // namespace culprit
