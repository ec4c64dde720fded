#pragma once

// series.count: a bucketed count over the full time window, as the store knew
// it at several recorded-time snapshots ("how many events per day, as of the end
// of each month"). A scan of the two time columns.

#include <cstdint>
#include <vector>

#include "scan/parallel_gate.h"
#include "store/event_store.h"

namespace eventstore {

/// What to count. Buckets split [window_start, window_end) evenly by valid time.
struct SeriesCountOptions {
  int64_t window_start = kWindowStart;
  int64_t window_end = kWindowEnd;
  uint32_t buckets = 365;
  /// Recorded-time snapshots: an event counts in snapshot j if recorded_time <= as_of[j].
  std::vector<int64_t> as_of;
};

/// The default query: daily buckets over the year, as of the end of each month
/// (and one snapshot after every recording has landed).
SeriesCountOptions DefaultSeriesCountOptions();

/// The answer: counts[j * buckets + b] is the count of bucket b in snapshot j.
struct SeriesCount {
  uint32_t buckets = 0;
  std::vector<uint64_t> counts;

  uint64_t Checksum() const;
};

/// Scans `columns` under `plan` (see PlanScan) and returns the counts.
SeriesCount CountSeries(const EventColumns& columns, const SeriesCountOptions& options,
                        const ScanPlan& plan);

}  // namespace eventstore
