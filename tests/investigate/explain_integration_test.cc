// End to end: `culprit explain` on a real temporary git history (libgit2) of a small C
// engine in three files, real builds with cc -g and real runs under the real valgrind,
// through the culprit executable. One commit doubles one function's work: explain names it
// at the top, in its file, touched by the change. Another doubles a function's input from
// its caller: the function that moved is on the query's path, in a file the change did not
// touch. Then the bad inputs. Skipped, with a message, only where valgrind is not installed.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/cachegrind.h"
#include "engine/process.h"
#include "records/explain_payload.h"
#include "records/record_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

#define SKIP_WITHOUT_VALGRIND()                                                       \
  do {                                                                                \
    if (!FindValgrind(MetricRule::Kind::kInstructions)) {                             \
      GTEST_SKIP() << "valgrind is not installed (apt install valgrind): not tested"; \
    }                                                                                 \
  } while (0)

std::string HashSource(long rounds) {
  return "// The hash: one multiply-add per round.\n"
         "static volatile unsigned sink;\n"
         "__attribute__((noinline)) void Hash(long n) {\n"
         "  unsigned x = sink + 1;\n"
         "  for (long i = 0; i < n * " +
         std::to_string(rounds) +
         "; ++i) x = x * 1664525u + 1013904223u;\n"
         "  sink = x;\n"
         "}\n";
}

constexpr const char* kScanSource =
    "// The scan: a shift and xor per element.\n"
    "static volatile unsigned sink;\n"
    "__attribute__((noinline)) void Scan(long n) {\n"
    "  unsigned x = sink;\n"
    "  for (long i = 0; i < n; ++i) x ^= (x << 3) + (unsigned)i;\n"
    "  sink = x;\n"
    "}\n";

std::string MainSource(long scanned, int exit_status = 0) {
  return "#include <stdio.h>\n"
         "void Hash(long n);\n"
         "void Scan(long n);\n"
         "int main(void) {\n"
         "  Hash(200000);\n"
         "  Scan(" +
         std::to_string(scanned) +
         ");\n"
         "  printf(\"done\\n\");\n"
         "  return " +
         std::to_string(exit_status) +
         ";\n"
         "}\n";
}

class ExplainCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    GitFixture git(dir_.path() / "repo");
    commits_.push_back(git.Commit(
        {{"main.c", MainSource(300000)}, {"hash.c", HashSource(1)}, {"scan.c", kScanSource}}, {},
        "The engine"));
    commits_.push_back(git.Commit({{"hash.c", HashSource(2)}}, {}, "Hash every key twice"));
    commits_.push_back(git.Commit({{"main.c", MainSource(600000)}}, {}, "Scan twice the rows"));
    commits_.push_back(
        git.Commit({{"main.c", MainSource(600000, 3)}}, {}, "Exit with an error status"));
    WriteConfig("");
  }

  void WriteConfig(const std::string& extra) {
    WriteTextFile(dir_.path() / "culprit.toml", R"([engine]
repo = 'repo'
build = [["cc", "-O1", "-g", "-o", "prog", "main.c", "hash.c", "scan.c"]]
artifacts = ["prog"]

[queries."lookup"]
command = ["{artifact:prog}"]
metric = "instructions"
timeout = "60s"

[records]
dir = 'records'

[cache]
dir = 'cache'
)" + extra);
  }

  ProcessResult Culprit(const std::vector<std::string>& args,
                        const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> all = {"--config", (dir_.path() / "culprit.toml").string()};
    all.insert(all.end(), args.begin(), args.end());
    return RunCulprit(all, dir_.path(), env);
  }

  std::vector<Record> Explains() const {
    std::vector<Record> out;
    if (!fs::exists(dir_.path() / "records")) return out;
    for (Record& r : RecordStore(dir_.path() / "records").List().records) {
      if (r.kind == RecordKind::kExplain) out.push_back(std::move(r));
    }
    return out;
  }

  TempDir dir_;
  std::vector<std::string> commits_;
};

TEST_F(ExplainCommand, NamesTheFunctionWhoseWorkDoubledInTheFileTheChangeTouched) {
  SKIP_WITHOUT_VALGRIND();
  ProcessResult run = Culprit({"explain", commits_[1], "-q", "lookup", "--top", "5"});
  ASSERT_EQ(run.exit_code, 0) << DescribeRun(run);
  const std::string& out = run.stdout_text;
  EXPECT_TRUE(Contains(out, "changed files: hash.c")) << DescribeRun(run);
  EXPECT_TRUE(Contains(out, "one run per side is enough")) << DescribeRun(run);
  // The first row of the table is Hash in hash.c, touched, about +100%.
  const size_t header = out.find("delta");
  ASSERT_NE(header, std::string::npos) << DescribeRun(run);
  const size_t first = out.find('\n', header) + 1;
  const std::string row = out.substr(first, out.find('\n', first) - first);
  EXPECT_TRUE(Contains(row, "Hash")) << row;
  EXPECT_TRUE(Contains(row, "hash.c:4")) << row;  // The loop's first line with code.
  EXPECT_TRUE(Contains(row, "touched by the change")) << row;
  EXPECT_TRUE(Contains(row, "+100.0%") || Contains(row, "+99.9%")) << row;

  std::vector<Record> records = Explains();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].verdict);
  EXPECT_EQ(records[0].Detail("aslr"), "off");
  std::optional<ExplainFacts> facts = ReadExplainFacts(records[0]);
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->parent, commits_[0]);
  EXPECT_EQ(facts->change, commits_[1]);
  ASSERT_FALSE(facts->functions.empty());
  const ExplainFunctionFacts& top = facts->functions[0];
  EXPECT_EQ(top.function, "Hash");
  EXPECT_EQ(top.file, "hash.c");
  EXPECT_EQ(top.place, FunctionPlace::kTouched);
  ASSERT_TRUE(top.Relative());
  EXPECT_GT(*top.Relative(), 0.9);
  EXPECT_LT(*top.Relative(), 1.1);
  // The whole diff is kept: libc's functions too, with nothing moved.
  EXPECT_GT(facts->functions.size(), 20u);
  bool scan = false;
  for (const ExplainFunctionFacts& fn : facts->functions) {
    if (fn.function != "Scan") continue;
    scan = true;
    EXPECT_EQ(fn.place, FunctionPlace::kOnPath);
    EXPECT_EQ(fn.Delta(), 0);
  }
  EXPECT_TRUE(scan);

  // The reports show the same diff; the HTML one draws it.
  ProcessResult html = Culprit({"records", "report", "--format", "html", records[0].id});
  ASSERT_EQ(html.exit_code, 0) << DescribeRun(html);
  EXPECT_TRUE(Contains(html.stdout_text, "class=\"plot delta-bars\"")) << html.stdout_text;
  ProcessResult text = Culprit({"records", "show", records[0].id});
  ASSERT_EQ(text.exit_code, 0) << DescribeRun(text);
  EXPECT_TRUE(Contains(text.stdout_text, "touched by the change")) << DescribeRun(text);
}

TEST_F(ExplainCommand, AFunctionMovedByItsCallerIsOnThePathUntouched) {
  SKIP_WITHOUT_VALGRIND();
  // --parent given as the first commit: the range holds both changes; against its own parent
  // only main.c changed.
  ProcessResult run = Culprit({"explain", commits_[2], "-q", "lookup"});
  ASSERT_EQ(run.exit_code, 0) << DescribeRun(run);
  const std::string& out = run.stdout_text;
  EXPECT_TRUE(Contains(out, "changed files: main.c")) << DescribeRun(run);
  EXPECT_TRUE(Contains(out, "the function that moved most, Scan, is on the query's path"))
      << DescribeRun(run);
  ProcessResult both = Culprit({"explain", commits_[2], "--parent", commits_[0], "-q", "lookup"});
  ASSERT_EQ(both.exit_code, 0) << DescribeRun(both);
  EXPECT_TRUE(Contains(both.stdout_text, "changed files: hash.c, main.c")) << DescribeRun(both);
}

TEST_F(ExplainCommand, AnEngineThatFailsUnderValgrindIsAnErrorNeverAWallTime) {
  SKIP_WITHOUT_VALGRIND();
  ProcessResult run = Culprit({"explain", commits_[3], "-q", "lookup"});
  EXPECT_EQ(run.exit_code, 1) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "failed under valgrind")) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "exited with status 3")) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "never wall time")) << DescribeRun(run);
  EXPECT_TRUE(Explains().empty());
}

TEST_F(ExplainCommand, WithoutValgrindItIsRefusedNamingIt) {
  ProcessResult run = Culprit({"explain", commits_[1], "-q", "lookup"},
                              {{"PATH", (dir_.path() / "no-such-bin").string()}});
  EXPECT_NE(run.exit_code, 0) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "valgrind")) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "apt install valgrind")) << DescribeRun(run);
  EXPECT_FALSE(fs::exists(dir_.path() / "cache")) << "built before refusing";
}

TEST_F(ExplainCommand, ACommitThatDoesNotExistIsRefused) {
  SKIP_WITHOUT_VALGRIND();
  ProcessResult run = Culprit({"explain", "no-such-branch", "-q", "lookup"});
  EXPECT_NE(run.exit_code, 0) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "no-such-branch")) << DescribeRun(run);
  ProcessResult parent =
      Culprit({"explain", commits_[1], "--parent", "0123456789abcdef", "-q", "lookup"});
  EXPECT_NE(parent.exit_code, 0) << DescribeRun(parent);
  EXPECT_TRUE(Contains(parent.stderr_text, "0123456789abcdef")) << DescribeRun(parent);
  ProcessResult root = Culprit({"explain", commits_[0], "-q", "lookup"});
  EXPECT_EQ(root.exit_code, 2) << DescribeRun(root);
  EXPECT_TRUE(Contains(root.stderr_text, "root commit")) << DescribeRun(root);
  EXPECT_TRUE(Explains().empty());
}

TEST_F(ExplainCommand, AResidencyPlanMeasuredInTheHarnessIsRefused) {
  SKIP_WITHOUT_VALGRIND();
  WriteConfig(R"(
[harness]
command = ["{artifact:prog}", "serve"]

[residency."held"]
query = "lookup"
conditions = [{ name = "nothing held" }]
)");
  ProcessResult run = Culprit({"explain", commits_[1], "-q", "held"});
  EXPECT_EQ(run.exit_code, 2) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "[residency] plan")) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "-q lookup")) << DescribeRun(run);
}

// The explain record is written by a store the command line passed its argv to, through the
// configuration's [records] (RecordsConfig::invocation), not through a process-wide global.
TEST_F(ExplainCommand, TheRecordSaysTheCommandLineThatRan) {
  SKIP_WITHOUT_VALGRIND();
  ProcessResult run = Culprit({"explain", commits_[1], "-q", "lookup", "--top", "3"});
  ASSERT_EQ(run.exit_code, 0) << DescribeRun(run);
  std::vector<Record> records = Explains();
  ASSERT_EQ(records.size(), 1u);
  const std::vector<std::string> expected = {
      CulpritExe(), "--config",  (dir_.path() / "culprit.toml").string(),
      "explain",    commits_[1], "-q",
      "lookup",     "--top",     "3"};
  EXPECT_EQ(records[0].invocation, expected);
}

}  // namespace
}  // namespace culprit
