// The real instruction counter (RealInstructionCounterFactory, engine/instruction_counter.h)
// on real processes. Where no counter opens (these hosts: virtual machines without a
// PMU), the counting tests skip naming the errno, and the run is seen to fail before its
// program runs; where one opens, the failing-open test skips instead.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/instruction_counter.h"
#include "tests/support/build_paths.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

const std::string kWork = FixturePath("fixture_work");

ProcessSpec Spec(std::vector<std::string> argv) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.timeout = std::chrono::minutes(1);  // Only against a wedged test.
  spec.placement.aslr = false;
  return spec;
}

#define SKIP_WITHOUT_COUNTER(counters)                                                        \
  do {                                                                                        \
    if (Status probe = (counters).Probe(); !probe) {                                          \
      GTEST_SKIP() << "no hardware instruction counter opens on this host (perf_event_open: " \
                   << probe.error().message() << "): the real counter is not tested here";    \
    }                                                                                         \
  } while (0)

double Counted(InstructionCounterFactory& counters, std::vector<std::string> argv) {
  CountedRun run = RunCounted(Spec(std::move(argv)), counters);
  EXPECT_TRUE(run.value) << run.failure;
  return run.value.value_or(0);
}

TEST(RealInstructionCounter, TheCountFollowsTheWork) {
  RealInstructionCounterFactory counters;
  SKIP_WITHOUT_COUNTER(counters);
  const double small = Counted(counters, {kWork, "--scale", "0.05"});
  const double large = Counted(counters, {kWork, "--scale", "0.2"});
  ASSERT_GT(small, 0);
  EXPECT_GT(large, 2 * small) << small << " then " << large;
}

TEST(RealInstructionCounter, TheProcessesTheQueryStartsCountToo) {
  RealInstructionCounterFactory counters;
  SKIP_WITHOUT_COUNTER(counters);
  const std::string work = kWork + " --scale 0.1";
  const double one = Counted(counters, {kWork, "--scale", "0.1"});
  // Three children of the shell (the trailing `true` keeps it from exec'ing the last one).
  const double three =
      Counted(counters, {"/bin/sh", "-c", work + "; " + work + "; " + work + "; true"});
  ASSERT_GT(one, 0);
  EXPECT_GT(three, 2 * one) << one << " then " << three;
}

TEST(RealInstructionCounter, WhereNoneOpensTheRunFailsBeforeItsProgramRuns) {
  RealInstructionCounterFactory counters;
  if (counters.Probe()) GTEST_SKIP() << "a counter opens on this host: no failure to see";
  TempDir dir;
  const fs::path marker = dir.path() / "ran";
  CountedRun run = RunCounted(Spec({"/bin/sh", "-c", "touch \"$0\"", marker.string()}), counters);
  EXPECT_FALSE(run.value);
  EXPECT_NE(run.failure.find("cannot count the run's instructions: perf_event_open on pid "),
            std::string::npos)
      << run.failure;
  EXPECT_FALSE(fs::exists(marker)) << "the program ran without its counter";
}

}  // namespace
}  // namespace culprit
