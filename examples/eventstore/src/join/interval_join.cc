#include "join/interval_join.h"

#include <algorithm>

namespace eventstore {

std::vector<Interval> MakeProbes(uint64_t seed, size_t count) {
  constexpr int64_t kWeek = 7LL * 24 * 3600;
  SplitMix64 rng(seed);
  std::vector<Interval> probes(count);
  for (Interval& probe : probes) {
    probe.begin = kWindowStart + static_cast<int64_t>(rng.Below(kWindowEnd - kWindowStart));
    probe.end = probe.begin + static_cast<int64_t>(rng.Below(kWeek));
  }
  return probes;
}

uint64_t JoinCounts::Total() const {
  uint64_t total = 0;
  for (uint64_t c : per_probe) total += c;
  return total;
}

uint64_t JoinCounts::Checksum() const {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint64_t c : per_probe) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

JoinCounts JoinIntervals(const EventColumns& columns, const std::vector<Interval>& probes) {
  // An event overlaps [b, e] iff valid <= e and recorded >= b. Events with
  // recorded < b all have valid <= recorded < b <= e, so they are a subset of
  // those with valid <= e, and the overlap count is a difference of two ranks.
  std::vector<int64_t> starts = columns.valid_time;
  std::vector<int64_t> ends = columns.recorded_time;
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());

  JoinCounts result;
  result.per_probe.reserve(probes.size());
  for (const Interval& probe : probes) {
    const auto started = std::upper_bound(starts.begin(), starts.end(), probe.end) - starts.begin();
    const auto finished = std::lower_bound(ends.begin(), ends.end(), probe.begin) - ends.begin();
    result.per_probe.push_back(static_cast<uint64_t>(started - finished));
  }
  return result;
}

}  // namespace eventstore
