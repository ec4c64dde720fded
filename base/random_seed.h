#pragma once

// The seed of a randomised design (the order of arms within rounds): the
// user's, to replay a sitting, or a fresh one recorded so it can be replayed.

#include <cstdint>

namespace culprit {

/// `requested` when it is not 0 (0 means "none asked for"); otherwise a fresh 64-bit seed:
/// two 32-bit draws of std::random_device mixed with a constant, so that a device that
/// returns zeros still gives a non-zero seed. Callers record the seed they got.
uint64_t RequestedOrFreshSeed(uint64_t requested);

}  // namespace culprit
