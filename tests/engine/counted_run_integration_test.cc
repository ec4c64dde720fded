// RunCounted (engine/instruction_counter.h) on real processes with a fake counter factory:
// the counter is opened on the child's pid while the child, already forked, waits before
// its exec (SpawnHeld, engine/spawn.h); a counter that cannot open kills the child before
// its program runs; a reading that is short or multiplexed, or a run that fails, is a
// failed sample with the reason, never a number.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/instruction_counter.h"
#include "tests/support/build_paths.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

const std::string kWork = FixturePath("fixture_work");

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string ExeOf(const std::string& pid) {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/" + pid + "/exe", ec);
  return ec ? std::string("(unreadable: " + ec.message() + ")") : exe.string();
}

class ScriptedCounter : public InstructionCounter {
 public:
  explicit ScriptedCounter(CounterReading reading) : reading_(reading) {}
  Result<CounterReading> Read() override { return reading_; }

 private:
  CounterReading reading_;
};

/// Opens scripted counters, and writes down what it saw of the child when it opened one.
class FakeCounters : public InstructionCounterFactory {
 public:
  Status Probe() override { return {}; }
  Result<std::unique_ptr<InstructionCounter>> OpenOnChild(int pid) override {
    opened_pids.push_back(pid);
    exe_at_open = ExeOf(std::to_string(pid));
    if (!marker.empty()) marker_existed_at_open = fs::exists(marker);
    if (!open_error.empty()) return Error(open_error);
    return std::unique_ptr<InstructionCounter>(std::make_unique<ScriptedCounter>(reading));
  }

  CounterReading reading{4242, 1000, 1000, kCounterReadingBytes};
  std::string open_error;
  fs::path marker;  ///< A file the program creates: it must not exist yet at open.
  std::vector<int> opened_pids;
  std::string exe_at_open;
  bool marker_existed_at_open = false;
};

ProcessSpec Spec(std::vector<std::string> argv) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.timeout = std::chrono::minutes(1);  // Only against a wedged test.
  return spec;
}

TEST(CountedRun, TheCounterOpensOnTheChildWhileItWaitsBeforeItsExec) {
  TempDir dir;
  FakeCounters counters;
  counters.marker = dir.path() / "ran";
  ProcessSpec spec = Spec({"/bin/sh", "-c", "touch \"$0\"; echo ran", counters.marker.string()});
  int started_group = 0;
  spec.on_start = [&started_group](int group) { started_group = group; };
  CountedRun run = RunCounted(spec, counters);
  ASSERT_TRUE(run.value) << run.failure;
  EXPECT_EQ(*run.value, 4242.0);
  EXPECT_EQ(run.failure, "");
  EXPECT_EQ(run.process.stdout_text, "ran\n");
  // Opened once, on the child culprit then supervised, which was still culprit's own image
  // (forked, not yet exec'd) and had not run a line of its program.
  ASSERT_EQ(counters.opened_pids.size(), 1u);
  EXPECT_EQ(counters.opened_pids[0], started_group);
  EXPECT_EQ(counters.exe_at_open, ExeOf("self"));
  EXPECT_FALSE(counters.marker_existed_at_open);
  EXPECT_TRUE(fs::exists(counters.marker));
}

TEST(CountedRun, ACounterThatCannotOpenKillsTheChildBeforeItsProgramRuns) {
  TempDir dir;
  FakeCounters counters;
  counters.marker = dir.path() / "ran";
  counters.open_error = "perf_event_open on pid 1: ENOENT: No such file or directory";
  CountedRun run =
      RunCounted(Spec({"/bin/sh", "-c", "touch \"$0\"", counters.marker.string()}), counters);
  EXPECT_FALSE(run.value);
  EXPECT_EQ(run.process.outcome, ProcessOutcome::kFailedToStart);
  EXPECT_TRUE(Has(run.failure,
                  "could not start: cannot count the run's instructions: "
                  "perf_event_open on pid 1: ENOENT"))
      << run.failure;
  EXPECT_FALSE(fs::exists(counters.marker)) << "the program ran without its counter";
  // Killed and reaped: no zombie left behind.
  ASSERT_EQ(counters.opened_pids.size(), 1u);
  EXPECT_FALSE(fs::exists("/proc/" + std::to_string(counters.opened_pids[0])));
}

TEST(CountedRun, AMultiplexedOrShortReadingIsAFailedSample) {
  FakeCounters counters;
  counters.reading = {4242, 1000, 600, kCounterReadingBytes};
  CountedRun multiplexed = RunCounted(Spec({"/bin/true"}), counters);
  EXPECT_TRUE(multiplexed.process.ok());
  EXPECT_FALSE(multiplexed.value);
  EXPECT_TRUE(Has(multiplexed.failure, "multiplexed")) << multiplexed.failure;
  counters.reading = {4242, 1000, 1000, 16};
  CountedRun short_read = RunCounted(Spec({"/bin/true"}), counters);
  EXPECT_FALSE(short_read.value);
  EXPECT_TRUE(Has(short_read.failure, "read short")) << short_read.failure;
}

TEST(CountedRun, AFailingRunHasNoCountAndSaysHowItEnded) {
  FakeCounters counters;
  CountedRun run = RunCounted(Spec({kWork, "--fail"}), counters);
  EXPECT_FALSE(run.value);
  EXPECT_TRUE(Has(run.failure, "exited with status 3")) << run.failure;
  EXPECT_TRUE(Has(run.failure, "failing as asked")) << run.failure;
}

TEST(CountedRun, AnExecThatFailsIsSaidAndNothingIsCounted) {
  TempDir dir;
  const fs::path not_a_program = dir.path() / "not-a-program";
  WriteTextFile(not_a_program, "this is text, not a program\n");
  fs::permissions(not_a_program, fs::perms::owner_all);
  FakeCounters counters;
  CountedRun run = RunCounted(Spec({not_a_program.string()}), counters);
  EXPECT_FALSE(run.value);
  EXPECT_EQ(run.process.outcome, ProcessOutcome::kFailedToStart);
  EXPECT_TRUE(Has(run.failure, "execve failed: Exec format error")) << run.failure;
}

TEST(CountedRun, TheHeldChildIsSetUpAsEveryOtherRun) {
  // Working directory, environment, stdin and ASLR off reach the program through the
  // fork path as through the vfork one.
  TempDir dir;
  FakeCounters counters;
  ProcessSpec spec =
      Spec({"/bin/sh", "-c", "pwd; echo \"$CULPRIT_HELD\"; cat; cat /proc/self/personality"});
  spec.cwd = dir.path();
  spec.set_env["CULPRIT_HELD"] = "held";
  spec.stdin_data = "fed\n";
  spec.placement.aslr = false;
  CountedRun run = RunCounted(spec, counters);
  ASSERT_TRUE(run.value) << run.failure;
  EXPECT_EQ(run.process.stdout_text,
            fs::canonical(dir.path()).string() + "\nheld\nfed\n00040000\n");
}

TEST(CountedRun, ACallersOwnBeforeExecRunsFirstAndItsErrorStopsTheRun) {
  FakeCounters counters;
  ProcessSpec spec = Spec({"/bin/true"});
  spec.before_exec = [](int) -> Status { return Error("not now"); };
  CountedRun run = RunCounted(spec, counters);
  EXPECT_FALSE(run.value);
  EXPECT_TRUE(Has(run.failure, "not now")) << run.failure;
  EXPECT_TRUE(counters.opened_pids.empty());
}

}  // namespace
}  // namespace culprit
