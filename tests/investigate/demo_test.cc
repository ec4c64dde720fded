// End to end: `culprit demo` on the bundled demo engine, as a user runs it,
// with a smaller event store so the whole investigation takes a few minutes.
// It must clear the gate hypothesis without an EFFECT and name the commit that
// persists the traversal index, verified, off the query's code path.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "engine/process.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

// The commit "Persist the traversal index with write-behind checkpoints" of the
// demo history (commit ids are fixed by make-history).
constexpr const char* kCulpritCommit = "b73480fd9a";

TEST(Demo, NamesTheIndexPersistingCommit) {
  TempDir dir;
  ProcessSpec spec;
  spec.argv = {CULPRIT_EXE, "demo", "--dir", (dir.path() / "demo").string(), "--events",
               "400000"};
  spec.timeout = std::chrono::minutes(14);
  spec.output_limit = 1 << 22;
  ProcessResult result = RunProcess(spec);
  const std::string& out = result.stdout_text;
  ASSERT_TRUE(result.ok()) << result.Describe(spec) << "\nstdout:\n"
                           << out << "\nstderr:\n"
                           << result.stderr_text;
  EXPECT_NE(out.find(std::string("CULPRIT ") + kCulpritCommit), std::string::npos) << out;
  EXPECT_NE(out.find("EFFECT, verified"), std::string::npos) << out;
  EXPECT_NE(out.find("src/index/"), std::string::npos) << out;
  EXPECT_NE(out.find("touches nothing on"), std::string::npos) << out;
  // The gate probe is never an EFFECT: forcing PARALLEL=1 changes nothing.
  EXPECT_EQ(out.find("PARALLEL=1") == std::string::npos, false) << out;
  size_t probe_line_end = out.find('\n');
  ASSERT_NE(probe_line_end, std::string::npos);
  EXPECT_EQ(out.substr(0, probe_line_end).find("EFFECT"), std::string::npos) << out;
  // Every step is archived.
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "demo" / "benchmarks" / "results-v1"));
}

}  // namespace
}  // namespace culprit
