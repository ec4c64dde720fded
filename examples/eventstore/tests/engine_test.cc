// Query answers against straightforward reference computations on small data.

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "check.h"
#include "index/traversal_index.h"
#include "join/interval_join.h"
#include "scan/parallel_gate.h"
#include "scan/series_count.h"
#include "session/session.h"
#include "store/event_store.h"

using namespace eventstore;

namespace {

EventColumns SmallStore(uint64_t seed = 7, size_t events = 5000, uint32_t entities = 300) {
  return GenerateEvents(StoreOptions{seed, events, entities});
}

}  // namespace

TEST(GeneratorIsDeterministicAndWithinBounds) {
  const EventColumns a = SmallStore();
  const EventColumns b = SmallStore();
  CHECK(a.entity == b.entity && a.target == b.target && a.valid_time == b.valid_time &&
        a.recorded_time == b.recorded_time && a.value == b.value);
  CHECK(SmallStore(8).valid_time != a.valid_time);
  CHECK_EQ(a.size(), 5000u);
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a.entity[i] < a.entity_count && a.target[i] < a.entity_count);
    CHECK(a.valid_time[i] >= kWindowStart && a.valid_time[i] < kWindowEnd);
    CHECK(a.recorded_time[i] >= a.valid_time[i]);
    CHECK(a.recorded_time[i] <= a.valid_time[i] + kMaxRecordingDelay);
  }
}

TEST(SeriesCountMatchesReferenceSerialAndParallel) {
  // Several morsels per thread, so the parallel plans really split the rows.
  const EventColumns columns = SmallStore(7, 5 * kScanMorselRows + 123);
  CHECK(columns.size() > 4 * kScanMorselRows);
  SeriesCountOptions options = DefaultSeriesCountOptions();
  options.buckets = 52;
  // A narrower window than the data, so rows outside it must be skipped.
  options.window_start = 30LL * 86400;
  options.window_end = 300LL * 86400;
  std::vector<uint64_t> expected(options.as_of.size() * options.buckets, 0);
  const int64_t span = options.window_end - options.window_start;
  for (size_t i = 0; i < columns.size(); ++i) {
    const int64_t v = columns.valid_time[i];
    if (v < options.window_start || v >= options.window_end) continue;
    // Floating point here on purpose: a different computation of the same bucket.
    const size_t bucket = static_cast<size_t>(static_cast<double>(v - options.window_start) /
                                              static_cast<double>(span) * options.buckets);
    for (size_t j = 0; j < options.as_of.size(); ++j) {
      if (columns.recorded_time[i] <= options.as_of[j]) ++expected[j * options.buckets + bucket];
    }
  }
  for (unsigned threads : {1u, 2u, 3u, 7u}) {
    const SeriesCount got = CountSeries(columns, options, ScanPlan{threads, "test"});
    CHECK_EQ(got.buckets, options.buckets);
    CHECK(got.counts == expected);
  }
  // The last snapshot sees every recording, so it counts every row in the window.
  uint64_t in_window = 0;
  for (int64_t v : columns.valid_time)
    in_window += v >= options.window_start && v < options.window_end;
  uint64_t last = 0;
  for (uint32_t b = 0; b < options.buckets; ++b) {
    last += expected[(options.as_of.size() - 1) * options.buckets + b];
  }
  CHECK_EQ(last, in_window);
}

TEST(ParallelGateFollowsThresholdAndOverride) {
  unsetenv("PARALLEL");
  CHECK_EQ(PlanScan(kParallelScanThreshold - 1).threads, 1u);
  CHECK(PlanScan(kParallelScanThreshold).threads >= 2u);
  setenv("PARALLEL", "1", 1);
  CHECK(PlanScan(10).threads >= 2u);
  setenv("PARALLEL", "0", 1);
  CHECK_EQ(PlanScan(kParallelScanThreshold * 4).threads, 1u);
  setenv("PARALLEL", "yes", 1);  // not an override: the threshold decides
  CHECK_EQ(PlanScan(10).threads, 1u);
  unsetenv("PARALLEL");
}

TEST(ForEachChunkCoversEveryRowOnce) {
  // Row counts around morsel boundaries, so that several threads really share.
  for (size_t rows : {size_t{0}, size_t{1}, size_t{5}, kScanMorselRows - 1, kScanMorselRows,
                      kScanMorselRows + 1, 5 * kScanMorselRows + 7}) {
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
      std::vector<int> seen(rows, 0);
      ForEachChunk(rows, ScanPlan{threads, "test"}, [&](size_t begin, size_t end, unsigned) {
        for (size_t i = begin; i < end; ++i) ++seen[i];
      });
      CHECK(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
    }
  }
}

TEST(TraversalMatchesHopLimitedReference) {
  const EventColumns columns = SmallStore(11, 3000, 400);
  const std::unique_ptr<TraversalIndex> index = TraversalIndex::Build(columns);
  CHECK_EQ(index->edge_count(), columns.size());
  CHECK_EQ(index->entity_count(), columns.entity_count);
  constexpr int64_t kUnreached = std::numeric_limits<int64_t>::max();
  for (uint32_t start : {0u, 17u, 123u, 399u}) {
    for (int hops = 0; hops <= 4; ++hops) {
      // Reference: synchronous relaxation over the plain edge list, once per hop.
      std::vector<int64_t> arrival(columns.entity_count, kUnreached);
      arrival[start] = kWindowStart;
      for (int h = 0; h < hops; ++h) {
        std::vector<int64_t> next = arrival;
        for (size_t i = 0; i < columns.size(); ++i) {
          const int64_t from = arrival[columns.entity[i]];
          if (from != kUnreached && columns.valid_time[i] >= from) {
            next[columns.target[i]] = std::min(next[columns.target[i]], columns.valid_time[i]);
          }
        }
        arrival = next;
      }
      Reach expected;
      for (uint32_t u = 0; u < columns.entity_count; ++u) {
        if (u == start || arrival[u] == kUnreached) continue;
        ++expected.reached;
        expected.arrival_sum += static_cast<uint64_t>(arrival[u]);
      }
      const Reach got = TraverseFrom(*index, start, hops);
      CHECK_EQ(got.reached, expected.reached);
      CHECK_EQ(got.arrival_sum, expected.arrival_sum);
      if (hops == 3) CHECK(got.reached > 0);
    }
  }
}

TEST(IntervalJoinMatchesBruteForce) {
  const EventColumns columns = SmallStore(3, 2000, 100);
  std::vector<Interval> probes = MakeProbes(5, 200);
  probes.push_back({kWindowStart, kWindowStart});  // a point at the start
  probes.push_back({kWindowEnd + kMaxRecordingDelay, kWindowEnd + kMaxRecordingDelay + 1});
  const JoinCounts got = JoinIntervals(columns, probes);
  CHECK_EQ(got.per_probe.size(), probes.size());
  uint64_t total = 0;
  for (size_t p = 0; p < probes.size(); ++p) {
    uint64_t expected = 0;
    for (size_t i = 0; i < columns.size(); ++i) {
      expected +=
          columns.valid_time[i] <= probes[p].end && columns.recorded_time[i] >= probes[p].begin;
    }
    CHECK_EQ(got.per_probe[p], expected);
    total += expected;
  }
  CHECK_EQ(got.Total(), total);
  CHECK(total > 0);
}

TEST(SessionHoldsAndReleasesStructures) {
  Session session(StoreOptions{1, 4000, 0});
  std::string error;
  for (const std::string& name : Session::HoldableNames()) {
    CHECK(!session.IsResident(name));
    CHECK(!session.Release(name, &error));
    CHECK(error.find("not resident") != std::string::npos);
    CHECK(session.Hold(name, &error));
    CHECK(session.Hold(name, &error));  // idempotent
    CHECK(session.IsResident(name));
    CHECK(session.Release(name, &error));
    CHECK(!session.IsResident(name));
  }
  CHECK(!session.Hold("bogus", &error));
  CHECK(error.find("traversal_index") != std::string::npos);
  // path.traverse builds the index and leaves it resident.
  QueryRun run;
  CHECK(session.Run("path.traverse", &run, &error));
  CHECK(session.IsResident("traversal_index"));
  CHECK(!session.Run("no.such.query", &run, &error));
  CHECK(error.find("series.count") != std::string::npos);
}

TEST(SessionAnswersAreStableAcrossRunsAndResidency) {
  std::string error;
  for (const std::string& query : Session::QueryNames()) {
    // A fresh session per query: nothing is resident for the first run
    // (path.traverse builds the index it needs), then each structure is held.
    Session session(StoreOptions{9, 20000, 0});
    QueryRun first, second;
    CHECK(session.Run(query, &first, &error));
    CHECK(session.Run(query, &second, &error));
    CHECK_EQ(first.checksum, second.checksum);
    for (const std::string& structure : Session::HoldableNames()) {
      QueryRun held;
      CHECK(session.Hold(structure, &error));
      CHECK(session.Run(query, &held, &error));
      CHECK_EQ(first.checksum, held.checksum);
      CHECK(session.Release(structure, &error));
    }
  }
  Session session(StoreOptions{9, 20000, 0});
  QueryRun other;
  Session different(StoreOptions{10, 20000, 0});
  QueryRun mine;
  CHECK(session.Run("series.count", &mine, &error));
  CHECK(different.Run("series.count", &other, &error));
  CHECK(mine.checksum != other.checksum);
}
