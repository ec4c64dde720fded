// End to end: `culprit demo` on the bundled demo engine, exactly as a user
// runs it (1M events, about 5 minutes on 2 cores).

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "engine/process.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

// The commit the bisect must name, by its subject in the demo history
// (examples/eventstore/history/COMMITS.md). Its id is read from the repository
// the demo generated, so regenerating the history needs no edit here.
constexpr const char* kIndexPersistingSubject =
    "Persist the traversal index with write-behind checkpoints";

// The ids of the commits of `repo` whose subject is `subject`, cut to 10 hex
// digits: the shortest id culprit prints, so a prefix of what it prints.
std::vector<std::string> CommitsWithSubject(const std::filesystem::path& repo,
                                            const std::string& subject) {
  ProcessSpec spec;
  spec.argv = {"git", "-C", repo.string(), "log", "--format=%H %s"};
  spec.timeout = std::chrono::minutes(1);
  ProcessResult log = RunProcess(spec);
  EXPECT_TRUE(log.ok()) << log.Describe({}) << "\n" << log.stderr_text;
  std::vector<std::string> ids;
  std::istringstream lines(log.stdout_text);
  for (std::string line; std::getline(lines, line);) {
    size_t space = line.find(' ');
    if (space != std::string::npos && line.substr(space + 1) == subject) {
      ids.push_back(line.substr(0, 10));
    }
  }
  return ids;
}

ProcessResult RunDemo(const TempDir& dir) {
  ProcessSpec spec;
  spec.argv = {CULPRIT_EXE, "demo", "--dir", (dir.path() / "demo").string()};
  spec.timeout = std::chrono::minutes(14);  // below ctest's 15-minute limit
  spec.output_limit = 1 << 22;
  return RunProcess(spec);
}

// The whole story, as a user runs it: the gate hypothesis is tested and never
// comes out an EFFECT (forcing PARALLEL=1 changes nothing), the bisect is
// confirmed, names the index-persisting commit, verifies it against its
// parent, says it touches nothing on the query's code path, and every step is
// archived. The commit's effect is large (1.5-1.9x across it here), so a
// bisect that names another commit or cannot settle is a real failure.
TEST(Demo, NamesTheIndexPersistingCommit) {
  TempDir dir;
  ProcessResult result = RunDemo(dir);
  const std::string& out = result.stdout_text;
  ASSERT_TRUE(result.ok()) << result.Describe({}) << "\nstdout:\n"
                           << out << "\nstderr:\n"
                           << result.stderr_text;
  size_t probe_line_end = out.find('\n');
  ASSERT_NE(probe_line_end, std::string::npos) << out;
  std::string probe_line = out.substr(0, probe_line_end);
  EXPECT_NE(probe_line.find("PARALLEL=1"), std::string::npos) << out;
  EXPECT_EQ(probe_line.find("EFFECT"), std::string::npos) << out;
  EXPECT_NE(result.stderr_text.find("confirming the move"), std::string::npos);

  const std::vector<std::string> persisting =
      CommitsWithSubject(dir.path() / "demo" / "eventstore", kIndexPersistingSubject);
  ASSERT_EQ(persisting.size(), 1u) << "the demo history has no single commit \""
                                   << kIndexPersistingSubject << "\"";
  const std::string& persisting_commit = persisting[0];
  EXPECT_NE(out.find("CULPRIT " + persisting_commit), std::string::npos) << out;
  EXPECT_NE(out.find("EFFECT, verified"), std::string::npos) << out;
  EXPECT_NE(out.find("changed  src/index/index_persistence.cc"), std::string::npos) << out;
  EXPECT_NE(out.find("=> culprit " + persisting_commit), std::string::npos)
      << out;
  EXPECT_NE(out.find("touches nothing on"), std::string::npos) << out;

  // Every sitting is archived: the probe, the confirmation, each step, the
  // verification and the bisect itself.
  std::filesystem::path records = dir.path() / "demo" / "benchmarks" / "results-v1";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(records)) {
    files += entry.path().extension() == ".json";
  }
  EXPECT_GE(files, 5) << records;
}

}  // namespace
}  // namespace culprit
