// Replays every seed of the fuzz corpus and every input that once crashed a
// fuzz target (bench/fuzz/regressions/<target>/) through the same entry
// points libFuzzer drives. A crash, a sanitizer report or an escaped
// exception fails the suite, so a crash fixed once stays fixed; under the
// sanitizer build (scripts/test-sanitizers) this is the fuzzers' own check.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "bench/fuzz/fuzz_targets.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

const fs::path kFuzzDir = fs::path(CULPRIT_SOURCE_DIR) / "bench" / "fuzz";

int Replay(const fuzz::Target& target, const fs::path& dir) {
  int replayed = 0;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    SCOPED_TRACE(entry.path().string());
    std::string data = ReadAll(entry.path());
    EXPECT_NO_THROW(target.run(data));
    ++replayed;
  }
  return replayed;
}

void ReplayAll(bool spawns_processes) {
  for (const fuzz::Target& target : fuzz::Targets()) {
    if (target.spawns_processes != spawns_processes) continue;
    SCOPED_TRACE(target.name);
    int seeds = Replay(target, kFuzzDir / "corpus" / target.name);
    Replay(target, kFuzzDir / "regressions" / target.name);
    // A target without seeds would start from nothing in bench/fuzz/run.
    EXPECT_GT(seeds, 0) << "no seeds in bench/fuzz/corpus/" << target.name;
  }
}

// The in-process targets (unit lane).
TEST(FuzzCorpus, EverySeedAndEveryPastCrashRunsCleanly) { ReplayAll(false); }

// The targets that talk to a child process (harness_line), kept out of the
// in-process suite.
TEST(FuzzCorpusChildren, EverySeedAndEveryPastCrashRunsCleanly) {
  ReplayAll(true);
  fuzz::StopChildren();
}

TEST(FuzzCorpus, EveryCorpusFolderIsATarget) {
  // A folder named after a target that was renamed would silently stop being replayed.
  std::set<std::string> names;
  for (const fuzz::Target& target : fuzz::Targets()) names.insert(target.name);
  for (const char* kind : {"corpus", "regressions"}) {
    std::error_code ec;
    if (!fs::is_directory(kFuzzDir / kind, ec)) continue;
    for (const fs::directory_entry& entry : fs::directory_iterator(kFuzzDir / kind)) {
      EXPECT_EQ(names.count(entry.path().filename().string()), 1u) << entry.path();
    }
  }
}

void RunEmptyAndBinary(bool spawns_processes) {
  const std::string binary("\0\xff{[\"\\\n\r\x80", 9);
  for (const fuzz::Target& target : fuzz::Targets()) {
    if (target.spawns_processes != spawns_processes) continue;
    SCOPED_TRACE(target.name);
    EXPECT_NO_THROW(target.run(""));
    EXPECT_NO_THROW(target.run(binary));
  }
}

TEST(FuzzCorpus, EmptyAndBinaryInputsAreHandled) { RunEmptyAndBinary(false); }

TEST(FuzzCorpusChildren, EmptyAndBinaryInputsAreHandled) {
  RunEmptyAndBinary(true);
  fuzz::StopChildren();
}

}  // namespace
}  // namespace culprit
