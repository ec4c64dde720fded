#include "engine/leftover_step.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace culprit {
namespace {

TEST(ProcessStartTime, IsKnownForThisProcessAndNotForANonexistentOne) {
  EXPECT_TRUE(ProcessStartTime(::getpid()).has_value());
  // Above the largest pid Linux hands out (4194304).
  EXPECT_FALSE(ProcessStartTime(5000000).has_value());
}

}  // namespace
}  // namespace culprit
