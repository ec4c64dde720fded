// The fuzz corpus of the targets that talk to a child process (harness_line):
// the same replay as fuzz_corpus_test.cc, in the integration lane.

#include <gtest/gtest.h>

#include "bench/fuzz/fuzz_targets.h"
#include "tests/support/fuzz_replay.h"

namespace culprit {
namespace {

TEST(FuzzCorpusChildren, EverySeedAndEveryPastCrashRunsCleanly) {
  ReplayFuzzCorpus(true);
  fuzz::StopChildren();
}

TEST(FuzzCorpusChildren, EmptyAndBinaryInputsAreHandled) {
  RunEmptyAndBinaryFuzzInputs(true);
  fuzz::StopChildren();
}

}  // namespace
}  // namespace culprit
