// End to end: `culprit judge`, the `git bisect run` script, on a real
// temporary history of a tiny C program built with cc. Its exit code is what
// git bisect acts on: 0 good, 1 bad, 125 skip, 128 abort. A commit that does
// not build, hangs or crashes must be skipped (125), never called bad (1).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/process.h"
#include "records/record_store.h"
#include "tests/support/git_fixture.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

// Iterations of the timed loop: about 2.7 ms on the development host; the slow
// commit does 2.5x the work.
constexpr long kFastWork = 2000000;
constexpr long kSlowWork = 5000000;

enum class Variant { kNormal, kSyntaxError, kHang, kCrash };

// main.c: times its loop five times and prints the fastest (see
// bisect_runner_test.cc); the variants break it in the ways judge must survive.
std::string ProgramSource(const std::string& revision, long work, Variant variant) {
  std::string before_loop;
  if (variant == Variant::kHang) before_loop = "  for (;;) pause();\n";
  if (variant == Variant::kCrash) before_loop = "  raise(SIGSEGV);\n";
  return "// " + revision +
         "\n"
         "#include <signal.h>\n"
         "#include <stdio.h>\n"
         "#include <stdlib.h>\n"
         "#include <time.h>\n"
         "#include <unistd.h>\n"
         "static volatile unsigned sink;\n"
         "static double NowMs(void) {\n"
         "  struct timespec t;\n"
         "  clock_gettime(CLOCK_MONOTONIC, &t);\n"
         "  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;\n"
         "}\n"
         "static void Work(long n) {\n"
         "  unsigned x = sink + 1;\n"
         "  for (long i = 0; i < n; ++i) x = x * 1664525u + 1013904223u;\n"
         "  sink = x;\n"
         "}\n"
         "static int Less(const void* a, const void* b) {\n"
         "  double x = *(const double*)a, y = *(const double*)b;\n"
         "  return (x > y) - (x < y);\n"
         "}\n"
         "int main(void) {\n"
         "  double t[5];\n" +
         before_loop +
         "  for (int r = 0; r < 5; ++r) {\n"
         "    double start = NowMs();\n"
         "    Work(" +
         std::to_string(work) + "L)" + (variant == Variant::kSyntaxError ? "" : ";") +
         "\n"
         "    t[r] = NowMs() - start;\n"
         "  }\n"
         "  qsort(t, 5, sizeof t[0], Less);\n"
         "  printf(\"min_ms=%.4f\\n\", t[0]);\n"
         "  return 0;\n"
         "}\n";
}

// A history of one commit per case on top of the reference; HEAD is the last
// (the crash), so one case runs judge without --candidate.
class JudgeCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    GitFixture git(dir_.path() / "repo");
    reference_ = git.Commit({{"main.c", ProgramSource("reference", kFastWork, Variant::kNormal)}},
                            {}, "reference");
    same_ = git.Commit({{"main.c", ProgramSource("comment only", kFastWork, Variant::kNormal)}}, {},
                       "reword a comment");
    slow_ = git.Commit({{"main.c", ProgramSource("slow", kSlowWork, Variant::kNormal)}}, {},
                       "2.5x the work");
    broken_ = git.Commit({{"main.c", ProgramSource("broken", kFastWork, Variant::kSyntaxError)}},
                         {}, "does not compile");
    hang_ = git.Commit({{"main.c", ProgramSource("hang", kFastWork, Variant::kHang)}}, {}, "hangs");
    crash_ =
        git.Commit({{"main.c", ProgramSource("crash", kFastWork, Variant::kCrash)}}, {}, "crashes");
    config_ = WriteLoopEngineConfig(dir_.path(), "2s", 0.2);
  }

  ProcessResult Judge(const std::vector<std::string>& args, const fs::path& config = fs::path()) {
    ProcessSpec spec;
    spec.argv = {CULPRIT_EXE, "--config",    (config.empty() ? config_ : config).string(),
                 "judge",     "--reference", reference_};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.timeout = std::chrono::minutes(3);
    spec.output_limit = 1 << 22;
    return RunProcess(spec);
  }

  static std::string Explain(const ProcessResult& r) {
    return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.stdout_text + "\nstderr:\n" +
           r.stderr_text;
  }

  TempDir dir_;
  fs::path config_;
  std::string reference_, same_, slow_, broken_, hang_, crash_;
};

TEST_F(JudgeCommand, SameAsTheReferenceIsGood) {
  // A NULL needs the whole interval inside the band, which takes more pairs
  // than an EFFECT of 2.5x on a loaded host.
  ProcessResult r = Judge({"--candidate", same_, "--max-pairs", "160"});
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << Explain(r);
  EXPECT_EQ(r.exit_code, 0) << Explain(r);
  EXPECT_NE(r.stdout_text.find("judge: good"), std::string::npos) << Explain(r);
  // The sitting is archived like any comparison.
  std::vector<Record> records = RecordStore(dir_.path() / "records").List().records;
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].verdict, "NULL");
}

TEST_F(JudgeCommand, SlowerBeyondTheBandIsBad) {
  ProcessResult r = Judge({"--candidate", slow_});
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << Explain(r);
  EXPECT_EQ(r.exit_code, 1) << Explain(r);
  EXPECT_NE(r.stdout_text.find("judge: bad"), std::string::npos) << Explain(r);
}

TEST_F(JudgeCommand, FasterThanTheReferenceIsGood) {
  // The other way round: the slow commit as the reference makes the fast one
  // faster, which git bisect must also call good (0), never bad.
  ProcessSpec spec;
  spec.argv = {CULPRIT_EXE,   "--config", config_.string(), "judge",
               "--reference", slow_,      "--candidate",    same_};
  spec.timeout = std::chrono::minutes(3);
  ProcessResult r = RunProcess(spec);
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << Explain(r);
  EXPECT_EQ(r.exit_code, 0) << Explain(r);
  EXPECT_NE(r.stdout_text.find("judge: good: faster"), std::string::npos) << Explain(r);
}

TEST_F(JudgeCommand, UnbuildableCommitIsSkipped) {
  ProcessResult r = Judge({"--candidate", broken_});
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << Explain(r);
  EXPECT_EQ(r.exit_code, 125) << Explain(r);
  EXPECT_NE(r.stdout_text.find("does not build"), std::string::npos) << Explain(r);
  EXPECT_NE(r.stdout_text.find("`cc -O1 -o prog main.c` exited with status"), std::string::npos)
      << Explain(r);
}

TEST_F(JudgeCommand, HangIsSkippedNotBad) {
  ProcessResult r = Judge({"--candidate", hang_});
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << Explain(r);
  EXPECT_EQ(r.exit_code, 125) << Explain(r);
  EXPECT_NE(r.stdout_text.find("timed out"), std::string::npos) << Explain(r);
}

TEST_F(JudgeCommand, CrashAtHeadIsSkippedNotBad) {
  ProcessResult r = Judge({});  // --candidate defaults to HEAD, the crashing commit
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << Explain(r);
  EXPECT_EQ(r.exit_code, 125) << Explain(r);
  EXPECT_NE(r.stdout_text.find("SIGSEGV"), std::string::npos) << Explain(r);
}

TEST_F(JudgeCommand, BrokenConfigurationAbortsTheBisect) {
  fs::path broken = dir_.path() / "broken.toml";
  WriteTextFile(broken, "[engine]\nrepo = '" + (dir_.path() / "repo").string() +
                            "'\nbiuld = [[\"cc\", \"main.c\"]]\n");
  ProcessResult r = Judge({"--candidate", same_}, broken);
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << Explain(r);
  EXPECT_EQ(r.exit_code, 128) << Explain(r);
  EXPECT_NE(r.stderr_text.find("biuld"), std::string::npos) << Explain(r);

  ProcessResult missing = Judge({"--candidate", same_}, dir_.path() / "no-such.toml");
  EXPECT_EQ(missing.exit_code, 128) << Explain(missing);
}

TEST_F(JudgeCommand, UnbuildableReferenceAbortsTheBisect) {
  ProcessSpec spec;
  spec.argv = {CULPRIT_EXE,   "--config", config_.string(), "judge",
               "--reference", broken_,    "--candidate",    same_};
  spec.timeout = std::chrono::minutes(3);
  ProcessResult r = RunProcess(spec);
  ASSERT_EQ(r.outcome, ProcessOutcome::kExited) << Explain(r);
  EXPECT_EQ(r.exit_code, 128) << Explain(r);
}

}  // namespace
}  // namespace culprit
