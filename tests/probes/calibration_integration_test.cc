// MeasureParallelism runs real threads pinned to one CPU.

#include <gtest/gtest.h>
#include <sched.h>

#include <string>

#include "probes/calibration.h"

namespace culprit {
namespace {

TEST(MeasureParallelism, TwoLoopsOnOneCpuGetNoMoreDoneThanOne) {
  // A host that gives one core's worth of time, made real: this thread (and the threads it
  // starts) may run on one CPU only. Two busy loops then share it, each pass taking about
  // twice as long as one alone: effective parallelism about 1, whatever else the host runs.
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  int first = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE && first < 0; ++cpu) {
    if (CPU_ISSET(cpu, &saved)) first = cpu;
  }
  ASSERT_GE(first, 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const ParallelismCheck check = MeasureParallelism(2);
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(check.threads, 2);
  EXPECT_GT(check.single_ms, 0);
  EXPECT_LT(check.effective, 1.4) << DescribeParallelism(check);
  EXPECT_TRUE(ParallelismIsShort(check));
  EXPECT_NE(DescribeParallelism(check).find("more threads will not make"), std::string::npos)
      << DescribeParallelism(check);
}

}  // namespace
}  // namespace culprit
