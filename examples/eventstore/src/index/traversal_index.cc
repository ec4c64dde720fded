#include "index/traversal_index.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "index/index_persistence.h"

namespace eventstore {

std::unique_ptr<TraversalIndex> TraversalIndex::Build(const uint32_t* entity,
                                                      const uint32_t* target,
                                                      const int64_t* valid_time, size_t n,
                                                      uint32_t entity_count) {
  std::unique_ptr<TraversalIndex> index(new TraversalIndex());
  // Counting sort by source entity, then each entity's edges by valid time.
  index->offsets_.assign(static_cast<size_t>(entity_count) + 1, 0);
  for (size_t i = 0; i < n; ++i) ++index->offsets_[entity[i] + 1];
  std::partial_sum(index->offsets_.begin(), index->offsets_.end(), index->offsets_.begin());

  index->targets_.resize(n);
  index->edge_times_.resize(n);
  index->edge_events_.resize(n);
  std::vector<uint32_t> next(index->offsets_.begin(), index->offsets_.end() - 1);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t slot = next[entity[i]]++;
    index->targets_[slot] = target[i];
    index->edge_times_[slot] = valid_time[i];
    index->edge_events_[slot] = static_cast<uint32_t>(i);
  }

  std::vector<uint32_t> order;
  for (uint32_t u = 0; u < entity_count; ++u) {
    const uint32_t begin = index->offsets_[u];
    const uint32_t end = index->offsets_[u + 1];
    order.resize(end - begin);
    std::iota(order.begin(), order.end(), begin);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const int64_t ta = index->edge_times_[a];
      const int64_t tb = index->edge_times_[b];
      return ta != tb ? ta < tb : index->edge_events_[a] < index->edge_events_[b];
    });
    std::vector<uint32_t> targets(order.size()), events(order.size());
    std::vector<int64_t> times(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
      targets[k] = index->targets_[order[k]];
      times[k] = index->edge_times_[order[k]];
      events[k] = index->edge_events_[order[k]];
    }
    std::copy(targets.begin(), targets.end(), index->targets_.begin() + begin);
    std::copy(times.begin(), times.end(), index->edge_times_.begin() + begin);
    std::copy(events.begin(), events.end(), index->edge_events_.begin() + begin);
  }
  index->StartCheckpointing();
  return index;
}

std::unique_ptr<TraversalIndex> TraversalIndex::Build(const EventColumns& columns) {
  return Build(columns.entity.data(), columns.target.data(), columns.valid_time.data(),
               columns.size(), columns.entity_count);
}

std::unique_ptr<TraversalIndex> TraversalIndex::FromParts(std::vector<uint32_t> offsets,
                                                          std::vector<uint32_t> targets,
                                                          std::vector<int64_t> edge_times,
                                                          std::vector<uint32_t> edge_events) {
  const size_t edges = targets.size();
  if (offsets.size() < 2 || offsets.front() != 0 || offsets.back() != edges ||
      edge_times.size() != edges || edge_events.size() != edges ||
      !std::is_sorted(offsets.begin(), offsets.end())) {
    return nullptr;
  }
  const size_t entities = offsets.size() - 1;
  for (uint32_t t : targets) {
    if (t >= entities) return nullptr;
  }
  std::unique_ptr<TraversalIndex> index(new TraversalIndex());
  index->offsets_ = std::move(offsets);
  index->targets_ = std::move(targets);
  index->edge_times_ = std::move(edge_times);
  index->edge_events_ = std::move(edge_events);
  return index;
}

TraversalIndex::~TraversalIndex() { checkpointer_.reset(); }

void TraversalIndex::StartCheckpointing() {
  checkpointer_ = std::make_unique<IndexCheckpointer>(
      *this, DefaultCheckpointPath(edge_count(), entity_count()), kCheckpointPeriod);
}

size_t TraversalIndex::Bytes() const {
  return offsets_.size() * sizeof(uint32_t) + targets_.size() * sizeof(uint32_t) +
         edge_times_.size() * sizeof(int64_t) + edge_events_.size() * sizeof(uint32_t);
}

size_t TraversalIndex::EstimateBytes(size_t events, uint32_t entity_count) {
  return (static_cast<size_t>(entity_count) + 1) * sizeof(uint32_t) +
         events * (sizeof(uint32_t) + sizeof(int64_t) + sizeof(uint32_t));
}

Reach TraverseFrom(const TraversalIndex& index, uint32_t start, int hops) {
  constexpr int64_t kUnreached = std::numeric_limits<int64_t>::max();
  const std::vector<uint32_t>& offsets = index.offsets();
  const std::vector<uint32_t>& targets = index.targets();
  const std::vector<int64_t>& times = index.edge_times();

  std::vector<int64_t> arrival(index.entity_count(), kUnreached);
  std::vector<uint32_t> touched;
  arrival[start] = kWindowStart;
  touched.push_back(start);
  // The frontier carries each entity's arrival as of the start of the hop, so
  // an improvement found during hop h is only followed in hop h + 1.
  std::vector<std::pair<uint32_t, int64_t>> frontier{{start, kWindowStart}}, next;
  for (int hop = 0; hop < hops && !frontier.empty(); ++hop) {
    next.clear();
    for (const auto& [u, at] : frontier) {
      const auto first =
          std::lower_bound(times.begin() + offsets[u], times.begin() + offsets[u + 1], at);
      for (size_t e = static_cast<size_t>(first - times.begin()); e < offsets[u + 1]; ++e) {
        const uint32_t t = targets[e];
        if (times[e] < arrival[t]) {
          if (arrival[t] == kUnreached) touched.push_back(t);
          arrival[t] = times[e];
          next.emplace_back(t, times[e]);
        }
      }
    }
    // An entity improved twice in one hop keeps only its earliest arrival.
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end(),
                           [](const auto& a, const auto& b) { return a.first == b.first; }),
               next.end());
    frontier.swap(next);
  }

  Reach reach;
  for (uint32_t u : touched) {
    if (u == start) continue;
    ++reach.reached;
    reach.arrival_sum += static_cast<uint64_t>(arrival[u]);
  }
  return reach;
}

}  // namespace eventstore
