#include "scan/series_count.h"

#include <algorithm>
#include <limits>

namespace eventstore {

SeriesCountOptions DefaultSeriesCountOptions() {
  SeriesCountOptions options;
  const int64_t month = (kWindowEnd - kWindowStart) / 12;
  for (int m = 1; m <= 12; ++m) options.as_of.push_back(kWindowStart + m * month);
  options.as_of.push_back(kWindowEnd + kMaxRecordingDelay);
  return options;
}

uint64_t SeriesCount::Checksum() const {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint64_t c : counts) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

SeriesCount CountSeries(const EventColumns& columns, const SeriesCountOptions& options,
                        const ScanPlan& plan) {
  const uint32_t buckets = std::max<uint32_t>(1, options.buckets);
  const size_t snapshots = options.as_of.size();
  const size_t cells = snapshots * buckets;
  const int64_t start = options.window_start;
  const int64_t span = std::max<int64_t>(1, options.window_end - options.window_start);
  const int64_t* valid = columns.valid_time.data();
  const int64_t* recorded = columns.recorded_time.data();
  const int64_t* as_of = options.as_of.data();
  // Rows recorded after the latest snapshot count nowhere.
  const int64_t latest = snapshots == 0 ? std::numeric_limits<int64_t>::min()
                                        : *std::max_element(as_of, as_of + snapshots);

  // One private histogram per chunk, merged at the end: the threads never
  // write to shared cache lines while scanning.
  std::vector<std::vector<uint64_t>> partial(std::max(1u, plan.threads),
                                             std::vector<uint64_t>(cells, 0));
  ForEachChunk(columns.size(), plan, [&](size_t begin, size_t end, unsigned chunk) {
    uint64_t* counts = partial[chunk].data();
    for (size_t i = begin; i < end; ++i) {
      const int64_t v = valid[i];
      if (v < start || v >= start + span) continue;
      const size_t bucket = static_cast<size_t>((v - start) * buckets / span);
      const int64_t r = recorded[i];
      if (r > latest) continue;
      for (size_t j = 0; j < snapshots; ++j) {
        counts[j * buckets + bucket] += static_cast<uint64_t>(r <= as_of[j]);
      }
    }
  });

  SeriesCount result;
  result.buckets = buckets;
  result.counts.assign(cells, 0);
  for (const std::vector<uint64_t>& p : partial) {
    for (size_t c = 0; c < cells; ++c) result.counts[c] += p[c];
  }
  return result;
}

}  // namespace eventstore
