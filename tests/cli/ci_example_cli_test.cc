// The CI recipe of examples/ci/ (docs/ci.md): the workflow files pass yamllint, the summary
// script lists only what moved (and nothing when every cell ties) on scripted table records,
// and culprit-pr-check on a real git history finds a 3x regression between the merge base
// and the head in one sitting, writes the summary, the HTML report and the investigation,
// and exits 3.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/process.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

const fs::path kCi = fs::path(CULPRIT_SOURCE_DIR) / "examples/ci";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ProcessResult RunScript(std::vector<std::string> argv, const fs::path& cwd,
                        std::map<std::string, std::string> env = {}) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = cwd;
  spec.set_env = std::move(env);
  spec.timeout = std::chrono::minutes(20);  // only guards against a wedged test
  return RunProcess(spec);
}

bool HasProgram(const std::string& name) {
  return RunScript({"sh", "-c", "command -v " + name}, fs::current_path()).ok();
}

TEST(CiExample, WorkflowFilesPassYamllint) {
  if (!HasProgram("yamllint")) GTEST_SKIP() << "yamllint is not installed (scripts/install-deps)";
  ProcessResult r =
      RunScript({"yamllint", "--strict", "-c", (kCi / ".yamllint").string(),
                 (kCi / "github-actions.yml").string(), (kCi / "gitlab-ci.yml").string()},
                kCi);
  EXPECT_TRUE(r.ok()) << DescribeRun(r);
}

// A table record as `culprit table --format json` writes it, with the cells given: each
// {query, verdict, ratio} (ratio <= 0: not measured).
struct ScriptedCell {
  std::string query;
  std::string verdict;
  double ratio;
};
std::string TableJson(const std::vector<ScriptedCell>& cells) {
  std::string rows, out;
  for (size_t i = 0; i < cells.size(); ++i) {
    const ScriptedCell& c = cells[i];
    rows += (i ? "," : "") + std::string(R"({"query":")") + c.query + R"(","unit":"ms"})";
    const std::string row = std::to_string(i);
    out += (i ? "," : "") + std::string(R"({"arm":0,"row":)") + row +
           R"(,"status":"baseline","verdict":""},)";
    if (c.ratio <= 0) {
      out += R"({"arm":1,"row":)" + row +
             R"(,"status":"not measured","error":"its build failed","verdict":""})";
    } else {
      const std::string ratio = std::to_string(c.ratio);
      out += R"({"arm":1,"row":)" + row + R"(,"status":"measured","verdict":")" + c.verdict +
             R"(","ratio":)" + ratio + R"(,"low":)" + std::to_string(c.ratio * 0.97) +
             R"(,"high":)" + std::to_string(c.ratio * 1.03) +
             R"x(,"explanation":"collect more pairs (--max-pairs 80)"})x";
    }
  }
  return R"({"schema":1,"id":"2026-12-04T000000Z-table-x","kind":"table","payload":{)"
         R"("arms":[{"name":"base"},{"name":"head"}],"band":0.05,"confidence":0.95,)"
         R"("cells_tested":)" +
         std::to_string(cells.size()) + R"(,"rows":[)" + rows + R"(],"cells":[)" + out + "]}}";
}

struct Summary {
  ProcessResult run;
  std::string regressions;
};
Summary Summarize(const TempDir& dir, const std::vector<ScriptedCell>& cells,
                  const std::string& better = "lower") {
  WriteTextFile(dir.path() / "table.json", TableJson(cells));
  Summary s;
  s.run = RunScript({"python3", (kCi / "table-summary.py").string(), "table.json", "--better",
                     better, "--regressions", "regressions"},
                    dir.path());
  s.regressions = ReadFile(dir.path() / "regressions");
  return s;
}

TEST(CiExample, SummaryIsEmptyWhenEveryCellTies) {
  if (!HasProgram("python3")) GTEST_SKIP() << "python3 is not installed (scripts/install-deps)";
  TempDir dir;
  Summary s = Summarize(dir, {{"q1", "NULL", 1.01}, {"q2", "NULL", 0.99}});
  ASSERT_TRUE(s.run.ok()) << DescribeRun(s.run);
  EXPECT_EQ(s.run.stdout_text, "");
  EXPECT_EQ(s.regressions, "");
}

TEST(CiExample, SummaryListsOnlyWhatMovedWhatIsUndecidedAndWhatWasNotMeasured) {
  if (!HasProgram("python3")) GTEST_SKIP() << "python3 is not installed (scripts/install-deps)";
  TempDir dir;
  Summary s = Summarize(dir, {{"tie", "NULL", 1.0},
                              {"slower", "EFFECT", 1.30},
                              {"faster", "EFFECT", 0.50},
                              {"unsure", "INCONCLUSIVE", 1.04},
                              {"broken", "", 0}});
  ASSERT_TRUE(s.run.ok()) << DescribeRun(s.run);
  const std::string& md = s.run.stdout_text;
  EXPECT_TRUE(Contains(md, "| slower | head | **regression** +30.0% | 1.300 [1.261, 1.339]")) << md;
  EXPECT_TRUE(Contains(md, "| faster | head | **improvement** -50.0%")) << md;
  EXPECT_TRUE(Contains(md, "- **unsure** · head: INCONCLUSIVE: collect more pairs")) << md;
  EXPECT_TRUE(Contains(md, "- **broken** · head: not measured: its build failed")) << md;
  EXPECT_TRUE(Contains(md, "1 other cell ties within the band.")) << md;
  EXPECT_FALSE(Contains(md, "| tie |")) << md;
  EXPECT_EQ(s.regressions, "slower\n");

  // The same table where higher is better: the halving is the regression.
  Summary higher =
      Summarize(dir, {{"slower", "EFFECT", 1.30}, {"faster", "EFFECT", 0.50}}, "higher");
  ASSERT_TRUE(higher.run.ok()) << DescribeRun(higher.run);
  EXPECT_TRUE(Contains(higher.run.stdout_text, "| faster | head | **regression** -50.0%"))
      << higher.run.stdout_text;
  EXPECT_EQ(higher.regressions, "faster\n");
}

TEST(CiExample, SummaryRefusesWhatIsNotATableRecord) {
  if (!HasProgram("python3")) GTEST_SKIP() << "python3 is not installed (scripts/install-deps)";
  TempDir dir;
  WriteTextFile(dir.path() / "probe.json", R"({"kind":"probe","payload":{}})");
  ProcessResult r =
      RunScript({"python3", (kCi / "table-summary.py").string(), "probe.json"}, dir.path());
  EXPECT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "not a culprit table record")) << DescribeRun(r);
}

TEST(CiExample, PullRequestCheckFindsTheRegressionAndInvestigatesIt) {
  if (!HasProgram("python3")) GTEST_SKIP() << "python3 is not installed (scripts/install-deps)";
  TempDir dir;
  GitFixture repo(dir.path() / "repo");
  // The merge base, then the pull request's two commits: one harmless, one that triples the
  // loop (an effect far beyond the band and any host's noise).
  const std::string base = repo.Commit({{"main.c", LoopEngineSource("base", 1000000)}}, {}, "base");
  repo.Commit({{"main.c", LoopEngineSource("docs", 1000000)}}, {}, "Reword a comment");
  const std::string head =
      repo.Commit({{"main.c", LoopEngineSource("triple", 3000000)}}, {}, "Triple the loop");
  WriteLoopEngineConfig(dir.path(), "10s", 0.05);

  ProcessResult r = RunScript({(kCi / "culprit-pr-check").string(), "--base", base, "--head", head,
                               "--out", "out", "--investigate", "--", "--seed", "7"},
                              dir.path(), {{"CULPRIT", CulpritExe()}});
  ASSERT_EQ(r.exit_code, 3) << DescribeRun(r);
  const std::string summary = ReadFile(dir.path() / "out/summary.md");
  EXPECT_TRUE(Contains(summary, "| loop | " + head + " | **regression** +")) << summary;
  EXPECT_EQ(ReadFile(dir.path() / "out/regressions"), "loop\n");
  EXPECT_TRUE(Contains(ReadFile(dir.path() / "out/report.html"), "<svg")) << DescribeRun(r);
  // The investigation ran over the range and bisected it to the commit that tripled the loop.
  const std::string investigation = ReadFile(dir.path() / "out/investigate-loop.txt");
  EXPECT_TRUE(NamesVerifiedChange(investigation, head)) << investigation;
}

TEST(CiExample, PullRequestCheckSaysWhatIsMissing) {
  TempDir dir;
  ProcessResult usage = RunScript({(kCi / "culprit-pr-check").string(), "--base", "x"}, dir.path(),
                                  {{"CULPRIT", CulpritExe()}});
  EXPECT_EQ(usage.exit_code, 2) << DescribeRun(usage);
  EXPECT_TRUE(Contains(usage.stderr_text, "--base and --head are both needed"))
      << DescribeRun(usage);
  ProcessResult missing =
      RunScript({(kCi / "culprit-pr-check").string(), "--base", "a", "--head", "b"}, dir.path(),
                {{"CULPRIT", "/nonexistent/culprit"}});
  EXPECT_EQ(missing.exit_code, 1) << DescribeRun(missing);
  EXPECT_TRUE(Contains(missing.stderr_text, "not found: install culprit or set CULPRIT"))
      << DescribeRun(missing);
}

}  // namespace
}  // namespace culprit
