#include "base/random_seed.h"

#include <random>

namespace culprit {

uint64_t RequestedOrFreshSeed(uint64_t requested) {
  if (requested != 0) return requested;
  std::random_device entropy;
  // The 64-bit golden-ratio constant (SplitMix64's increment).
  return (static_cast<uint64_t>(entropy()) << 32) ^ entropy() ^ 0x9e3779b97f4a7c15ULL;
}

}  // namespace culprit
