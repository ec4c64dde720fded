#pragma once

// interval.join: joins a set of probe intervals with the events' "in flight"
// intervals [valid_time, recorded_time] (the time during which the world knew
// something the store did not yet), counting overlapping pairs per probe.

#include <cstdint>
#include <vector>

#include "store/event_store.h"

namespace eventstore {

/// A closed interval [begin, end] of seconds, begin <= end.
struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
};

/// The default probes: `count` intervals up to a week long, drawn from `seed`.
std::vector<Interval> MakeProbes(uint64_t seed, size_t count);

/// The answer: for each probe, how many events' intervals overlap it.
struct JoinCounts {
  std::vector<uint64_t> per_probe;

  uint64_t Total() const;
  uint64_t Checksum() const;
};

/// Counts, for every probe, the events with valid_time <= probe.end and
/// recorded_time >= probe.begin.
JoinCounts JoinIntervals(const EventColumns& columns, const std::vector<Interval>& probes);

}  // namespace eventstore
