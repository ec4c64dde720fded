#include "base/random_seed.h"

#include <gtest/gtest.h>

namespace culprit {
namespace {

TEST(RequestedOrFreshSeed, KeepsARequestedSeed) {
  EXPECT_EQ(RequestedOrFreshSeed(1), 1u);
  EXPECT_EQ(RequestedOrFreshSeed(0xdeadbeefULL), 0xdeadbeefULL);
}

TEST(RequestedOrFreshSeed, ZeroAsksForAFreshOne) {
  // Two fresh seeds are 64-bit draws: equal ones would mean the device is stuck.
  const uint64_t a = RequestedOrFreshSeed(0);
  const uint64_t b = RequestedOrFreshSeed(0);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace culprit
