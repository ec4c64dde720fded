#pragma once

// The order in which an isolation sitting visits its conditions, round after
// round. Each round visits every condition once; rounds come in blocks of k
// (the number of conditions) and each block is a Latin square drawn at random
// from the seed, so after every whole block each condition has been in each
// position of a round equally often: a condition that always ran first (just
// after the previous round's last one) would otherwise carry whatever the
// position does to it (a cold cache, a preceding release) into its ratio.
// Pure functions: the same seed gives the same design on every platform.

#include <cstdint>
#include <vector>

namespace culprit {

/// Orders of `rounds` rounds over `conditions` (k >= 1) conditions: result[r]
/// is a permutation of 0..k-1. Block b (rounds b*k .. b*k + k - 1) is a cyclic
/// Latin square L[i][j] = (i + j) mod k with its rows, columns and symbols
/// permuted by a generator seeded from `seed` and b; a partial last block is
/// the first rows of its square. Deterministic: shuffles use std::mt19937_64
/// and their own index draws, not the standard library's distributions.
std::vector<std::vector<int>> BalancedRoundOrders(int conditions, int rounds, uint64_t seed);

/// counts[c][p]: how often condition c is at position p in `orders`.
std::vector<std::vector<int>> PositionCounts(const std::vector<std::vector<int>>& orders,
                                             int conditions);

/// `looks` (increasing round counts) each rounded up to a whole block of
/// `conditions` rounds, duplicates removed, so every look sees a balanced
/// design. E.g. {10, 20, 40} for 3 conditions gives {12, 21, 42}.
std::vector<int> BlockAlignedLooks(const std::vector<int>& looks, int conditions);

}  // namespace culprit
