#pragma once

// The traversal index: adjacency lists built from the relationship columns
// (entity -> target, with each edge's valid time), in compressed sparse row
// form, each entity's edges sorted by valid time. path.traverse builds it on
// first use and keeps it for the life of the process: with it, a k-hop
// traversal touches only the edges it follows instead of scanning every event
// once per hop.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "store/event_store.h"

namespace eventstore {

class IndexCheckpointer;

class TraversalIndex {
 public:
  /// Builds the index of the relationships in rows [0, n) of the given
  /// columns; entity and target ids must be below `entity_count`.
  static std::unique_ptr<TraversalIndex> Build(const uint32_t* entity, const uint32_t* target,
                                               const int64_t* valid_time, size_t n,
                                               uint32_t entity_count);
  static std::unique_ptr<TraversalIndex> Build(const EventColumns& columns);

  /// Adopts already-built arrays (as read back from a checkpoint file).
  /// Returns nullptr if they are not a consistent index.
  static std::unique_ptr<TraversalIndex> FromParts(std::vector<uint32_t> offsets,
                                                   std::vector<uint32_t> targets,
                                                   std::vector<int64_t> edge_times,
                                                   std::vector<uint32_t> edge_events);

  ~TraversalIndex();
  TraversalIndex(const TraversalIndex&) = delete;
  TraversalIndex& operator=(const TraversalIndex&) = delete;

  uint32_t entity_count() const { return static_cast<uint32_t>(offsets_.size() - 1); }
  size_t edge_count() const { return targets_.size(); }
  /// Bytes held by the index's arrays.
  size_t Bytes() const;
  /// Bytes an index of these columns would hold (to size comparable data).
  static size_t EstimateBytes(size_t events, uint32_t entity_count);

  /// Edges of entity u are [offsets()[u], offsets()[u + 1]) in the other arrays.
  const std::vector<uint32_t>& offsets() const { return offsets_; }
  const std::vector<uint32_t>& targets() const { return targets_; }
  const std::vector<int64_t>& edge_times() const { return edge_times_; }
  const std::vector<uint32_t>& edge_events() const { return edge_events_; }

 private:
  TraversalIndex() = default;
  /// Starts write-behind persistence of this index (see index_persistence.h).
  void StartCheckpointing();

  std::vector<uint32_t> offsets_;
  std::vector<uint32_t> targets_;
  std::vector<int64_t> edge_times_;
  std::vector<uint32_t> edge_events_;
  // Declared last so it is destroyed first: its thread reads the arrays above.
  std::unique_ptr<IndexCheckpointer> checkpointer_;
};

/// The answer of one time-respecting traversal: the entities reachable from a
/// start entity in at most `hops` hops, where each hop's valid time is at or
/// after the previous hop's, with the earliest time each is reached.
struct Reach {
  uint64_t reached = 0;      ///< entities reached, the start excluded
  uint64_t arrival_sum = 0;  ///< sum of their earliest arrival times
};

/// Traverses from `start` using the index.
Reach TraverseFrom(const TraversalIndex& index, uint32_t start, int hops);

}  // namespace eventstore
