// First contact, as a new user meets culprit: typos, no command, help and
// version, through the real executable.

#include <gtest/gtest.h>

#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

TEST(FirstContactCli, AMistypedCommandSaysWhatItProbablyMeant) {
  TempDir dir;
  ProcessResult r = RunCulprit({"bisekt"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "unknown command 'bisekt'; did you mean 'bisect'?"))
      << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "probe")) << "the commands are listed\n" << DescribeRun(r);
}

TEST(FirstContactCli, AMistypedSubcommandNamesItsCommand) {
  TempDir dir;
  ProcessResult r = RunCulprit({"records", "lst"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
  EXPECT_TRUE(
      Contains(r.stderr_text, "unknown command 'records lst'; did you mean 'records list'?"))
      << DescribeRun(r);
}

TEST(FirstContactCli, AnUnknownWordWithNothingCloseListsTheCommands) {
  TempDir dir;
  ProcessResult r = RunCulprit({"frobnicate"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "unknown command 'frobnicate'")) << DescribeRun(r);
  EXPECT_FALSE(Contains(r.stderr_text, "did you mean")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "bisect")) << DescribeRun(r);
}

TEST(FirstContactCli, NoCommandListsTheCommandsAsAUsageError) {
  TempDir dir;
  ProcessResult r = RunCulprit({}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
  for (const char* command : {"probe", "compare", "bisect", "isolate", "records"}) {
    EXPECT_TRUE(Contains(r.stderr_text, command)) << command << "\n" << DescribeRun(r);
  }
}

TEST(FirstContactCli, VersionAndHelpAreCommandsToo) {
  TempDir dir;
  ProcessResult version = RunCulprit({"version"}, dir.path());
  EXPECT_EQ(version.exit_code, 0) << DescribeRun(version);
  EXPECT_EQ(version.stdout_text, std::string("culprit ") + CULPRIT_VERSION + "\n");

  ProcessResult help = RunCulprit({"help", "records", "show"}, dir.path());
  EXPECT_EQ(help.exit_code, 0) << DescribeRun(help);
  EXPECT_TRUE(Contains(help.stdout_text, "show one record")) << DescribeRun(help);

  ProcessResult wrong = RunCulprit({"help", "bisekt"}, dir.path());
  EXPECT_EQ(wrong.exit_code, 2) << DescribeRun(wrong);
  EXPECT_TRUE(Contains(wrong.stderr_text, "did you mean 'bisect'?")) << DescribeRun(wrong);
}

// Judge mode (git bisect's exit codes) comes from the command, not from the
// word "judge" anywhere on the line: a query named judge is not judge mode.
TEST(FirstContactCli, JudgeModeComesFromTheCommandWord) {
  TempDir dir;
  ProcessResult probe = RunCulprit({"probe", "--no-such-flag", "-q", "judge"}, dir.path());
  EXPECT_EQ(probe.exit_code, 2) << DescribeRun(probe);
  ProcessResult judge = RunCulprit({"judge", "--no-such-flag"}, dir.path());
  EXPECT_EQ(judge.exit_code, 128) << DescribeRun(judge);
}

TEST(FirstContactCli, CountsAndDirectoriesThatCannotWorkAreRefusedAtOnce) {
  TempDir dir;
  for (const char* n : {"0", "-3"}) {
    ProcessResult r = RunCulprit({"run", "-n", n, "q"}, dir.path());
    EXPECT_EQ(r.exit_code, 2) << n << "\n" << DescribeRun(r);
  }
  ProcessResult list = RunCulprit({"records", "--dir", "no-such-dir", "list"}, dir.path());
  EXPECT_EQ(list.exit_code, 2) << DescribeRun(list);
  EXPECT_TRUE(Contains(list.stderr_text, "no-such-dir: no such directory")) << DescribeRun(list);
}

}  // namespace
}  // namespace culprit
