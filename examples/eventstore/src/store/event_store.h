#pragma once

// The event store: a synthetic bi-temporal event log held as columns in memory.
//
// Every event says "entity E relates to entity T, valid from time V, recorded at
// time R, with value X". Valid time is when the fact was true in the world;
// recorded time is when the store learned it (always at or after valid time).
// The columns are generated from a seed, so every run of every build sees the
// same data and every query has a checkable answer.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace eventstore {

/// Seconds in the store's time window: one year, starting at 0.
constexpr int64_t kWindowStart = 0;
constexpr int64_t kWindowEnd = 365LL * 24 * 3600;
/// Longest delay between an event's valid time and its recorded time.
constexpr int64_t kMaxRecordingDelay = 30LL * 24 * 3600;

/// How to generate a store. Same options, same columns, on every machine.
struct StoreOptions {
  uint64_t seed = 42;
  size_t events = 1'000'000;
  /// Number of distinct entities; 0 means one per ten events (at least 16).
  uint32_t entities = 0;
};

/// The events, one column per attribute; row i of every column is event i.
struct EventColumns {
  uint32_t entity_count = 0;
  std::vector<uint32_t> entity;        ///< who the event is about
  std::vector<uint32_t> target;        ///< the entity it relates to
  std::vector<int64_t> valid_time;     ///< in [kWindowStart, kWindowEnd)
  std::vector<int64_t> recorded_time;  ///< in [valid_time, valid_time + kMaxRecordingDelay]
  std::vector<int64_t> value;          ///< a payload, in [0, 1000)

  size_t size() const { return entity.size(); }
  /// Bytes held by the columns (used to size comparable structures).
  size_t Bytes() const;
};

/// Generates the store described by `options` (deterministic for a seed).
EventColumns GenerateEvents(const StoreOptions& options);

/// A small deterministic pseudo-random generator (splitmix64), shared by the
/// generator and the queries that pick their parameters from the seed.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound) for bound > 0.
  uint64_t Below(uint64_t bound) { return Next() % bound; }

 private:
  uint64_t state_;
};

}  // namespace eventstore
