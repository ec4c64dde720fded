#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "investigate/config.h"
#include "probes/code_path.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

// A C program of three files, one of which the query never executes.
class CodePathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GitFixture git(dir_.path() / "repo");
    commit_ = git.Commit({{"main.c",
                           "int used(int);\nint unused(int);\n"
                           "int main(int argc, char** argv) {\n"
                           "  if (argc > 5) return unused(argc);\n"
                           "  return used(argc) == 2 ? 0 : 1;\n}\n"},
                          {"used.c", "int used(int x) { return 2 * x; }\n"},
                          {"unused.c", "int unused(int x) { return 3 * x; }\n"}},
                         {}, "three files");
  }

  Config Load(const std::string& build, const std::string& code_path) {
    std::string text =
        "[engine]\nrepo = " + Quoted((dir_.path() / "repo").string()) +
        "\nbuild = [[\"sh\", \"-c\", " + Quoted(build) +
        "]]\nartifacts = [\"prog\"]\n[cache]\ndir = " + Quoted((dir_.path() / "cache").string()) +
        "\n[queries.q]\ncommand = [\"{artifact:prog}\"]\ncode_path = " + code_path + "\n";
    Result<Config> config = ParseConfig(text, dir_.path() / "culprit.toml");
    EXPECT_TRUE(config.ok()) << config.error().message() << "\n" << text;
    return config ? *config : Config();
  }

  TempDir dir_;
  std::string commit_;
};

TEST_F(CodePathTest, AutoMeasuresExactlyTheExecutedFilesByCoverage) {
  Config config = Load("cc $CFLAGS -o prog main.c used.c unused.c $LDFLAGS", "\"auto\"");
  Result<CodePath> path = FindCodePath(config, config.queries.at("q"), commit_, nullptr);
  ASSERT_TRUE(path.ok()) << path.error().message();
  ASSERT_EQ(path->source, CodePath::Source::kCoverage) << path->Describe();
  EXPECT_EQ(path->files, (std::vector<std::string>{"main.c", "used.c"}));
  EXPECT_EQ(path->commit, commit_);
  EXPECT_TRUE(path->Contains("used.c"));
  EXPECT_FALSE(path->Contains("unused.c"));
  EXPECT_NE(path->Describe().find("coverage at " + commit_.substr(0, 10) + " (2 files)"),
            std::string::npos)
      << path->Describe();
  // Measured once per commit: the second answer is the cached one.
  Result<CodePath> again = FindCodePath(config, config.queries.at("q"), commit_, nullptr);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->files, path->files);
}

TEST_F(CodePathTest, ABuildThatIgnoresTheFlagsLeavesThePathUnknownAndSaysWhy) {
  Config config = Load("cc -o prog main.c used.c unused.c", "\"auto\"");
  Result<CodePath> path = FindCodePath(config, config.queries.at("q"), commit_, nullptr);
  ASSERT_TRUE(path.ok()) << path.error().message();
  EXPECT_EQ(path->source, CodePath::Source::kUnknown);
  EXPECT_TRUE(path->files.empty());
  EXPECT_NE(path->why_unknown.find("wrote no coverage data"), std::string::npos)
      << path->why_unknown;
  EXPECT_FALSE(path->Contains("main.c"));
}

TEST_F(CodePathTest, ACommandPrintsThePathAndGlobsAreTakenAsWritten) {
  Config config =
      Load("cc -o prog main.c used.c unused.c",
           "{ command = [\"sh\", \"-c\", \"echo used.c; echo ./main.c; echo /elsewhere/x.c\"] }");
  Result<CodePath> path = FindCodePath(config, config.queries.at("q"), commit_, nullptr);
  ASSERT_TRUE(path.ok()) << path.error().message();
  ASSERT_EQ(path->source, CodePath::Source::kCommand) << path->Describe();
  EXPECT_EQ(path->files, (std::vector<std::string>{"main.c", "used.c"}));

  Config globs = Load("cc -o prog main.c used.c unused.c", "[\"u*.c\"]");
  Result<CodePath> written = FindCodePath(globs, globs.queries.at("q"), commit_, nullptr);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(written->source, CodePath::Source::kGlobs);
  EXPECT_TRUE(written->Contains("unused.c"));
  EXPECT_FALSE(written->Contains("main.c"));
}

}  // namespace
}  // namespace culprit
