// The build cache's in-process parts: the last line of a step's output (what a step's
// heartbeat shows, cli/stderr_build_progress.h). The builds themselves, on real
// repositories, are in build_cache_integration_test.cc.

#include "engine/build_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace culprit {
namespace {

TEST(LastOutputLine, KeepsTheLastCompleteLineInBoundedSpace) {
  LastOutputLine last;
  last.Add("configuring\ncompil");
  EXPECT_EQ(last.line(), "configuring");
  last.Add("ing a.c");
  EXPECT_EQ(last.line(), "configuring");
  last.Add("\n\n");
  EXPECT_EQ(last.line(), "compiling a.c");
  last.Add("[ 10%]\r[ 20%]\r[ 3");
  EXPECT_EQ(last.line(), "[ 20%]");
  last.Add("0%]\r\n");
  EXPECT_EQ(last.line(), "[ 30%]");
  // 64 MiB without a line end, in pieces: the space held stays bounded.
  const std::string piece(64 * 1024, 'x');
  size_t most = 0;
  for (int i = 0; i < 1024; ++i) {
    last.Add(piece);
    most = std::max(most, last.held());
  }
  EXPECT_LE(most, 2 * LastOutputLine::kKeep);
  EXPECT_EQ(last.line(), "[ 30%]");
  last.Add("yz\nnext");
  EXPECT_EQ(last.line(), std::string(LastOutputLine::kKeep - 2, 'x') + "yz");
  last.Add("\n");
  EXPECT_EQ(last.line(), "next");
}

}  // namespace
}  // namespace culprit
