#include "probes/round_design.h"

#include <numeric>
#include <random>

namespace culprit {
namespace {

std::vector<int> RandomPermutation(int n, std::mt19937_64& rng) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  for (int i = n - 1; i > 0; --i) {
    int j = static_cast<int>(rng() % static_cast<uint64_t>(i + 1));
    std::swap(p[i], p[j]);
  }
  return p;
}

}  // namespace

std::vector<std::vector<int>> BalancedRoundOrders(int conditions, int rounds, uint64_t seed) {
  std::vector<std::vector<int>> orders;
  if (conditions < 1 || rounds < 1) return orders;
  const int k = conditions;
  for (int block = 0; block * k < rounds; ++block) {
    std::mt19937_64 rng(seed ^ (0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(block + 1)));
    const std::vector<int> rows = RandomPermutation(k, rng);
    const std::vector<int> columns = RandomPermutation(k, rng);
    const std::vector<int> symbols = RandomPermutation(k, rng);
    for (int i = 0; i < k && block * k + i < rounds; ++i) {
      std::vector<int> order(k);
      for (int j = 0; j < k; ++j) order[columns[j]] = symbols[(rows[i] + j) % k];
      orders.push_back(std::move(order));
    }
  }
  return orders;
}

std::vector<std::vector<int>> PositionCounts(const std::vector<std::vector<int>>& orders,
                                             int conditions) {
  std::vector<std::vector<int>> counts(conditions, std::vector<int>(conditions, 0));
  for (const std::vector<int>& order : orders) {
    for (size_t p = 0; p < order.size(); ++p) {
      if (order[p] >= 0 && order[p] < conditions && static_cast<int>(p) < conditions) {
        ++counts[order[p]][p];
      }
    }
  }
  return counts;
}

std::vector<int> BlockAlignedLooks(const std::vector<int>& looks, int conditions) {
  std::vector<int> out;
  const int k = conditions < 1 ? 1 : conditions;
  for (int look : looks) {
    int aligned = (look + k - 1) / k * k;
    if (out.empty() || aligned > out.back()) out.push_back(aligned);
  }
  return out;
}

}  // namespace culprit
