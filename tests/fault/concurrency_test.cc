// Fault suite: two culprits at once on one build cache and one records
// directory. A bisect runs in the background while probes and compares of the
// same engine run in the foreground, building into the same cache and writing
// into the same archive. Both sides finish; every cache entry and every record
// is whole; no record is overwritten (each one printed is there, under its
// own id, with the content its writer gave it).

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/atomic_file.h"
#include "bisect/bisect_state.h"
#include "records/record_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/fault_checks.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

constexpr long kFastWork = 2000000;
constexpr long kSlowWork = 4000000;  // 2x
constexpr int kLast = 16;
constexpr int kCulprit = 11;

// "record PATH" lines culprit prints on stdout.
std::vector<fs::path> PrintedRecords(const std::string& out) {
  std::vector<fs::path> paths;
  static const std::regex line(R"((^|\n)record (\S+\.json))");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator();
       ++it) {
    paths.emplace_back((*it)[2].str());
  }
  return paths;
}

TEST(FaultConcurrency, ABisectAndProbesShareOneCacheAndOneArchive) {
  TempDir dir;
  std::vector<std::string> commits;
  {
    GitFixture git(dir.path() / "repo");
    for (int i = 0; i <= kLast; ++i) {
      std::string message = i == kCulprit ? "Double the loop" : "revision " + std::to_string(i);
      commits.push_back(
          git.Commit({{"main.c", LoopEngineSource(message, i >= kCulprit ? kSlowWork : kFastWork)}},
                     {}, message));
    }
  }
  fs::path config = WriteLoopEngineConfig(dir.path(), "10s", 0.1);
  const fs::path records = dir.path() / "records", cache = dir.path() / "cache";
  auto argv = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--config", config.string()});
    return args;
  };

  const fs::path out = dir.path() / "bisect.out", err = dir.path() / "bisect.err";
  std::vector<std::string> bisect = {CulpritExe(),    "--config", config.string(),
                                     "bisect",        "run",      "--good",
                                     commits.front(), "--bad",    commits.back()};
  pid_t pid = SpawnInBackground(bisect, out, err);
  ASSERT_GT(pid, 0);

  // While it runs: probes of one build and compares that build commits the
  // bisect also needs (the ends, the middle), each through the same cache.
  std::vector<fs::path> foreground_records;
  int probes = 0, compares = 0, status = 0;
  bool bisect_done = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  for (int round = 0; !bisect_done || round < 2; ++round) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    const std::string& rev = commits[(round * 5 + 8) % (kLast + 1)];
    ProcessResult probe =
        RunCulprit(argv({"probe", "--rev", rev, "--override", "FAULT_ARM=b", "--max-pairs", "10"}),
                   dir.path());
    EXPECT_TRUE(probe.exit_code == 0 || probe.exit_code == 3) << DescribeRun(probe);
    ++probes;
    for (const fs::path& p : PrintedRecords(probe.stdout_text)) foreground_records.push_back(p);
    ProcessResult compare = RunCulprit(
        argv({"compare", commits[round % 3], commits[kLast - round % 3], "--max-pairs", "10"}),
        dir.path());
    EXPECT_TRUE(compare.exit_code == 0 || compare.exit_code == 3) << DescribeRun(compare);
    ++compares;
    for (const fs::path& p : PrintedRecords(compare.stdout_text)) foreground_records.push_back(p);
    if (!bisect_done && ::waitpid(pid, &status, WNOHANG) == pid) bisect_done = true;
  }
  ASSERT_TRUE(WIFEXITED(status)) << ReadAll(err);
  ASSERT_EQ(WEXITSTATUS(status), 0) << ReadAll(out) << ReadAll(err);
  const std::string bisect_out = ReadAll(out);
  EXPECT_TRUE(NamesVerifiedChange(bisect_out, commits[kCulprit])) << bisect_out << ReadAll(err);
  EXPECT_EQ(foreground_records.size(), static_cast<size_t>(probes + compares));

  // Every record written is there and whole: the bisect's (its steps and its
  // result) and each foreground one, all distinct files.
  Result<BisectState> state = LoadBisectState(dir.path() / ".culprit" / "bisect.json");
  ASSERT_TRUE(state) << state.error().message();
  RecordStore store(records);
  RecordStore::Listing listing = store.List();
  EXPECT_TRUE(listing.problems.empty());
  ArchiveCheck archive = CheckArchive(records);
  EXPECT_TRUE(archive.damaged.empty()) << ::testing::PrintToString(archive.damaged);
  EXPECT_TRUE(archive.stray.empty()) << ::testing::PrintToString(archive.stray);
  const size_t expected = state->records.size() + 1 + foreground_records.size();
  EXPECT_EQ(static_cast<size_t>(archive.json_files), expected);
  std::set<std::string> ids;
  for (const Record& r : listing.records) EXPECT_TRUE(ids.insert(r.id).second) << r.id;
  for (const std::string& id : state->records) EXPECT_TRUE(ids.count(id)) << id;
  EXPECT_TRUE(ids.count(state->result_record)) << state->result_record;
  for (const fs::path& p : foreground_records) {
    Result<Record> r = RecordFromJson(ReadAll(p), p.string());
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(p.filename().string(), r->id + ".json");  // its own content under its own name
    EXPECT_TRUE(r->kind == RecordKind::kProbe || r->kind == RecordKind::kCompare)
        << RecordKindName(r->kind);
  }

  // The cache: every entry whole, none half-built, nothing temporary.
  int entries = 0;
  std::error_code ec;
  for (const fs::path& engine : fs::directory_iterator(cache, ec)) {
    for (const fs::path& build : fs::directory_iterator(engine / "builds", ec)) {
      Result<std::string> entry = ReadFile(build / "entry.json");
      ASSERT_TRUE(entry) << build;
      nlohmann::json json = nlohmann::json::parse(*entry, nullptr, false);
      ASSERT_FALSE(json.is_discarded()) << build;
      EXPECT_EQ(json.value("status", ""), "buildable") << build;
      EXPECT_TRUE(fs::exists(build / "artifacts" / "prog")) << build;
      ++entries;
    }
  }
  EXPECT_GT(entries, 0);
  std::vector<std::string> leftovers = TempLeftovers(cache);
  std::vector<std::string> more = TempLeftovers(records);
  leftovers.insert(leftovers.end(), more.begin(), more.end());
  EXPECT_TRUE(leftovers.empty()) << ::testing::PrintToString(leftovers);
  ProcessResult list = RunCulprit(argv({"build", "--list"}), dir.path());
  EXPECT_TRUE(list.ok()) << DescribeRun(list);
  std::cout << "[fault] concurrency: bisect + " << probes << " probes + " << compares
            << " compares; records " << archive.json_files << " (expected " << expected
            << "), cache entries " << entries << "\n";
}

}  // namespace
}  // namespace culprit
