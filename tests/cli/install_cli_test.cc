// culprit installed like a tool: `cmake --install` into a scratch prefix, and
// the installed culprit run from a directory outside the source and build
// trees, with nothing copied but what the install rules copy. The demo must
// find its engine beside the installed binary (investigate/demo_data.h).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/process.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/install_tree.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

ProcessResult RunIn(const std::vector<std::string>& argv, const fs::path& cwd,
                    std::chrono::minutes timeout = std::chrono::minutes(5)) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.cwd = cwd;
  spec.timeout = timeout;
  return RunProcess(spec);
}

TEST(InstallCli, InstalledCulpritRunsTheDemoFromOutside) {
  TempDir dir;
  const fs::path culprit = InstallCulprit(dir.path() / "prefix");
  ASSERT_TRUE(fs::exists(culprit));
  const fs::path work = dir.path() / "elsewhere";
  fs::create_directories(work);

  ProcessResult version = RunIn({culprit.string(), "--version"}, work);
  EXPECT_TRUE(version.ok()) << DescribeRun(version);
  EXPECT_EQ(version.stdout_text, std::string("culprit ") + CULPRIT_VERSION + "\n");
  ProcessResult help = RunIn({culprit.string(), "--help"}, work);
  EXPECT_TRUE(help.ok()) << DescribeRun(help);
  EXPECT_TRUE(Contains(help.stdout_text, "demo")) << DescribeRun(help);

  ProcessResult demo = RunIn({culprit.string(), "demo", "--stop-after", "history"}, work);
  ASSERT_TRUE(demo.ok()) << DescribeRun(demo);
  const fs::path installed_engine = dir.path() / "prefix/share/culprit/examples/eventstore";
  EXPECT_TRUE(Contains(demo.stderr_text, "the demo engine: " + installed_engine.string()))
      << DescribeRun(demo);
  EXPECT_FALSE(Contains(demo.stdout_text + demo.stderr_text, CULPRIT_SOURCE_DIR))
      << "an installed culprit never reads the source tree\n"
      << DescribeRun(demo);
  EXPECT_TRUE(Contains(demo.stdout_text, "stopped after the history, as asked"))
      << DescribeRun(demo);
  // The history is the demo engine's, both tags in place, and its configuration written.
  ProcessResult tags =
      RunIn({"git", "-C", (work / "culprit-demo/eventstore").string(), "tag"}, work);
  EXPECT_EQ(tags.stdout_text, "v1.0\nv1.3\n") << DescribeRun(tags);
  EXPECT_TRUE(Contains(ReadAll(work / "culprit-demo/culprit.toml"),
                       "repo = \"" + (work / "culprit-demo/eventstore").string() + "\""));
  // The CI recipe (docs/ci.md) is installed beside the demo, its script runnable from there.
  const fs::path ci = dir.path() / "prefix/share/culprit/ci";
  ProcessResult pr_check = RunIn({(ci / "culprit-pr-check").string(), "--help"}, work);
  EXPECT_EQ(pr_check.exit_code, 0) << DescribeRun(pr_check);
  EXPECT_TRUE(Contains(pr_check.stdout_text, "culprit-pr-check --base REV --head REV"))
      << DescribeRun(pr_check);
  for (const char* file : {"table-summary.py", "github-actions.yml", "gitlab-ci.yml"})
    EXPECT_TRUE(fs::exists(ci / file)) << file;
  // Nothing was built or measured.
  EXPECT_FALSE(fs::exists(work / "culprit-demo/benchmarks"));
}

TEST(InstallCli, InstalledDemoWithoutItsEngineSaysWhereItLooked) {
  TempDir dir;
  const fs::path culprit = InstallCulprit(dir.path() / "prefix");
  fs::remove(dir.path() / "prefix/share/culprit/examples/eventstore/published-v1.0.json");
  ProcessResult demo = RunIn({culprit.string(), "demo", "--stop-after", "history"}, dir.path());
  EXPECT_EQ(demo.exit_code, 2) << DescribeRun(demo);
  EXPECT_TRUE(
      Contains(demo.stderr_text, "cannot find the demo engine; looked in:\n  " +
                                     (dir.path() / "prefix/share/culprit/examples").string() +
                                     " (no eventstore/published-v1.0.json)"))
      << DescribeRun(demo);
  EXPECT_FALSE(fs::exists(dir.path() / "culprit-demo/eventstore")) << "nothing was started";

  ProcessResult wrong_step = RunIn({culprit.string(), "demo", "--stop-after", "lunch"}, dir.path());
  EXPECT_EQ(wrong_step.exit_code, 2) << DescribeRun(wrong_step);
  EXPECT_TRUE(
      Contains(wrong_step.stderr_text, "--stop-after lunch: expected history, table, confirm"))
      << DescribeRun(wrong_step);
}

// The demo's first measured step, on a small store: the two ends built from the
// installed history and compared in one sitting. Whatever the sitting decides on
// this host, its compare record is archived and the demo ends without an error.
TEST(InstallCli, InstalledDemoBuildsAndConfirms) {
  TempDir dir;
  const fs::path culprit = InstallCulprit(dir.path() / "prefix");
  const fs::path work = dir.path() / "elsewhere";
  fs::create_directories(work);
  ProcessResult demo =
      RunIn({culprit.string(), "demo", "--stop-after", "confirm", "--events", "20000"}, work,
            std::chrono::minutes(15));
  ASSERT_TRUE(demo.ok()) << DescribeRun(demo);
  int compares = 0;
  for (const fs::directory_entry& e :
       fs::directory_iterator(work / "culprit-demo/benchmarks/results-v1")) {
    if (Contains(e.path().filename().string(), "-compare-series.count.registry-")) ++compares;
  }
  EXPECT_EQ(compares, 1) << DescribeRun(demo);
  EXPECT_FALSE(Contains(demo.stdout_text, "the audit of the published v1.0 table:"))
      << "the demo stopped before its audit\n"
      << DescribeRun(demo);
}

}  // namespace
}  // namespace culprit
