// Replays every seed of the fuzz corpus and every input that once crashed a
// fuzz target (bench/fuzz/regressions/<target>/) through the same entry
// points libFuzzer drives. A crash, a sanitizer report or an escaped
// exception fails the suite, so a crash fixed once stays fixed; under the
// sanitizer build (scripts/test-sanitizers) this is the fuzzers' own check.
// These are the in-process targets; the ones that talk to a child process are
// in fuzz_corpus_integration_test.cc.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "bench/fuzz/fuzz_targets.h"
#include "tests/support/fuzz_replay.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

TEST(FuzzCorpus, EverySeedAndEveryPastCrashRunsCleanly) { ReplayFuzzCorpus(false); }

TEST(FuzzCorpus, EveryCorpusFolderIsATarget) {
  // A folder named after a target that was renamed would silently stop being replayed.
  std::set<std::string> names;
  for (const fuzz::Target& target : fuzz::Targets()) names.insert(target.name);
  for (const char* kind : {"corpus", "regressions"}) {
    std::error_code ec;
    if (!fs::is_directory(FuzzDir() / kind, ec)) continue;
    for (const fs::directory_entry& entry : fs::directory_iterator(FuzzDir() / kind)) {
      EXPECT_EQ(names.count(entry.path().filename().string()), 1u) << entry.path();
    }
  }
}

TEST(FuzzCorpus, EmptyAndBinaryInputsAreHandled) { RunEmptyAndBinaryFuzzInputs(false); }

}  // namespace
}  // namespace culprit
