#include "store/event_store.h"

#include <algorithm>

namespace eventstore {

size_t EventColumns::Bytes() const {
  return entity.size() * sizeof(uint32_t) + target.size() * sizeof(uint32_t) +
         valid_time.size() * sizeof(int64_t) + recorded_time.size() * sizeof(int64_t) +
         value.size() * sizeof(int64_t);
}

EventColumns GenerateEvents(const StoreOptions& options) {
  EventColumns columns;
  const size_t n = options.events;
  columns.entity_count = options.entities != 0
                             ? options.entities
                             : static_cast<uint32_t>(std::max<size_t>(16, n / 10));
  columns.entity.resize(n);
  columns.target.resize(n);
  columns.valid_time.resize(n);
  columns.recorded_time.resize(n);
  columns.value.resize(n);

  SplitMix64 rng(options.seed);
  const uint32_t e = columns.entity_count;
  for (size_t i = 0; i < n; ++i) {
    columns.entity[i] = static_cast<uint32_t>(rng.Below(e));
    // Relationships are local more often than not (an entity mostly relates to
    // its neighbours), which gives traversals realistic, uneven fan-out.
    const uint64_t r = rng.Next();
    if (r % 4 != 0) {
      const uint32_t offset = static_cast<uint32_t>((r >> 8) % 64);
      columns.target[i] = (columns.entity[i] + 1 + offset) % e;
    } else {
      columns.target[i] = static_cast<uint32_t>((r >> 8) % e);
    }
    columns.valid_time[i] =
        kWindowStart + static_cast<int64_t>(rng.Below(kWindowEnd - kWindowStart));
    columns.recorded_time[i] =
        columns.valid_time[i] + static_cast<int64_t>(rng.Below(kMaxRecordingDelay + 1));
    columns.value[i] = static_cast<int64_t>(rng.Below(1000));
  }
  return columns;
}

}  // namespace eventstore
