#include "tests/support/fuzz_replay.h"

#include <gtest/gtest.h>

#include <string>

#include "bench/fuzz/fuzz_targets.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

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

}  // namespace

fs::path FuzzDir() { return fs::path(CULPRIT_SOURCE_DIR) / "bench" / "fuzz"; }

void ReplayFuzzCorpus(bool spawns_processes) {
  for (const fuzz::Target& target : fuzz::Targets()) {
    if (target.spawns_processes != spawns_processes) continue;
    SCOPED_TRACE(target.name);
    int seeds = Replay(target, FuzzDir() / "corpus" / target.name);
    Replay(target, FuzzDir() / "regressions" / target.name);
    // A target without seeds would start from nothing in bench/fuzz/run.
    EXPECT_GT(seeds, 0) << "no seeds in bench/fuzz/corpus/" << target.name;
  }
}

void RunEmptyAndBinaryFuzzInputs(bool spawns_processes) {
  const std::string binary("\0\xff{[\"\\\n\r\x80", 9);
  for (const fuzz::Target& target : fuzz::Targets()) {
    if (target.spawns_processes != spawns_processes) continue;
    SCOPED_TRACE(target.name);
    EXPECT_NO_THROW(target.run(""));
    EXPECT_NO_THROW(target.run(binary));
  }
}

}  // namespace culprit
