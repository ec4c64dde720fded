// A throughput query, the right way up: real builds of a small C engine whose slower commit
// prints a lower rate. With unit "MB/s" and no `better`, culprit takes higher as better (and
// says so); the drop is called worse, `judge` calls the commit with the drop bad, and an
// explicit `better = "lower"` turns both around. A 2x effect, so a loaded host shows it.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

// The loop engine, printing its speed as a rate as well: loops per second.
std::string RateEngine(const std::string& tag, long work) {
  std::string source = LoopEngineSource(tag, work);
  const std::string line = "  printf(\"min_ms=%.4f\\n\", t[0]);\n";
  const size_t at = source.find(line);
  if (at == std::string::npos) throw std::runtime_error("unexpected engine source");
  source.insert(at + line.size(), "  printf(\"rate=%.4f\\n\", 1000.0 / t[0]);\n");
  return source;
}

class ThroughputQuery : public ::testing::Test {
 protected:
  void SetUp() override {
    GitFixture git(dir_.path() / "repo");
    fast_ = git.Commit({{"main.c", RateEngine("fast", 2000000)}}, {}, "fast");
    slow_ = git.Commit({{"main.c", RateEngine("slow", 4000000)}}, {}, "Halve the throughput");
  }

  void WriteConfig(const std::string& better_line) {
    WriteTextFile(dir_.path() / "culprit.toml",
                  "[engine]\nrepo = " + Quoted((dir_.path() / "repo").string()) +
                      "\nbuild = [[\"cc\", \"-O1\", \"-o\", \"prog\", \"main.c\"]]\n"
                      "artifacts = [\"prog\"]\n\n[queries.\"rate\"]\n"
                      "command = [\"{artifact:prog}\"]\n"
                      "metric = { regex = 'rate=([0-9.]+)' }\nunit = \"MB/s\"\n" +
                      better_line +
                      "\n[measure]\nband = 0.2\nmin_pairs = 10\nmax_pairs = 40\n\n"
                      "[records]\ndir = " +
                      Quoted((dir_.path() / "records").string()) +
                      "\n\n[cache]\ndir = " + Quoted((dir_.path() / "cache").string()) + "\n");
  }

  ProcessResult Culprit(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"--config", (dir_.path() / "culprit.toml").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCulprit(argv, dir_.path());
  }

  TempDir dir_;
  std::string fast_, slow_;
};

TEST_F(ThroughputQuery, ADropInARateIsWorseAndItsDirectionIsSaid) {
  WriteConfig("");
  ProcessResult compare = Culprit({"compare", fast_, slow_, "-q", "rate"});
  ASSERT_EQ(compare.exit_code, 3) << DescribeRun(compare);  // an EFFECT: "there is one"
  EXPECT_TRUE(Contains(compare.stdout_text, "EFFECT")) << DescribeRun(compare);
  EXPECT_TRUE(Contains(compare.stdout_text, "% worse than")) << DescribeRun(compare);
  EXPECT_TRUE(Contains(compare.stdout_text, "(higher MB/s is better)")) << DescribeRun(compare);
  // Inferred, and said so, with what to write to say it.
  EXPECT_TRUE(Contains(compare.stdout_text, "higher MB/s is taken as better, from the unit"))
      << DescribeRun(compare);

  ProcessResult judge =
      Culprit({"judge", "--reference", fast_, "--candidate", slow_, "-q", "rate"});
  EXPECT_EQ(judge.exit_code, 1) << DescribeRun(judge);
  EXPECT_TRUE(Contains(judge.stdout_text, "bad:")) << DescribeRun(judge);
  EXPECT_TRUE(Contains(judge.stdout_text, "worse beyond the band")) << DescribeRun(judge);
}

TEST_F(ThroughputQuery, BetterLowerWrittenInTheFileTurnsItAround) {
  WriteConfig("better = \"lower\"\n");
  ProcessResult compare = Culprit({"compare", fast_, slow_, "-q", "rate"});
  ASSERT_EQ(compare.exit_code, 3) << DescribeRun(compare);  // an EFFECT: "there is one"
  EXPECT_TRUE(Contains(compare.stdout_text, "% better than")) << DescribeRun(compare);
  EXPECT_FALSE(Contains(compare.stdout_text, "taken as better")) << DescribeRun(compare);
  ProcessResult judge =
      Culprit({"judge", "--reference", fast_, "--candidate", slow_, "-q", "rate"});
  EXPECT_EQ(judge.exit_code, 0) << DescribeRun(judge);
}

TEST_F(ThroughputQuery, ABetterThatIsNeitherIsAConfigErrorAtItsPlace) {
  WriteConfig("better = \"higer\"\n");
  ProcessResult run = Culprit({"compare", fast_, slow_, "-q", "rate"});
  EXPECT_EQ(run.exit_code, 2) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "culprit.toml:10:")) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "expected \"lower\" or \"higher\"")) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "did you mean 'higher'")) << DescribeRun(run);
}

}  // namespace
}  // namespace culprit
