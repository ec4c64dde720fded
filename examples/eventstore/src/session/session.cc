#include "session/session.h"

#include <chrono>

#include "join/interval_join.h"
#include "scan/parallel_gate.h"
#include "scan/series_count.h"

namespace eventstore {
namespace {

constexpr int kTraverseHops = 3;
constexpr size_t kTraverseStarts = 32;
constexpr size_t kJoinProbes = 4096;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

Session::Session(const StoreOptions& options)
    : options_(options), columns_(GenerateEvents(options)) {}

const std::vector<std::string>& Session::QueryNames() {
  static const std::vector<std::string> names = {"path.traverse", "series.count", "interval.join"};
  return names;
}

const std::vector<std::string>& Session::HoldableNames() {
  static const std::vector<std::string> names = {"traversal_index", "index_sources",
                                                 "plain_columns"};
  return names;
}

bool Session::Run(const std::string& query, QueryRun* run, std::string* error) {
  const auto start = std::chrono::steady_clock::now();
  if (query == "series.count") {
    run->checksum = RunSeriesCount(&run->summary);
  } else if (query == "path.traverse") {
    run->checksum = RunPathTraverse(&run->summary);
  } else if (query == "interval.join") {
    run->checksum = RunIntervalJoin(&run->summary);
  } else {
    *error = "unknown query '" + query + "' (queries: " + JoinNames(QueryNames()) + ")";
    return false;
  }
  run->ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return true;
}

uint64_t Session::RunSeriesCount(std::string* summary) {
  const SeriesCountOptions options = DefaultSeriesCountOptions();
  const SeriesCount counts = CountSeries(columns_, options, PlanScan(columns_.size()));
  uint64_t visible = 0;  // events visible in the last snapshot
  for (uint32_t b = 0; b < counts.buckets; ++b) {
    visible += counts.counts[(options.as_of.size() - 1) * counts.buckets + b];
  }
  *summary = "visible=" + std::to_string(visible);
  return counts.Checksum();
}

uint64_t Session::RunPathTraverse(std::string* summary) {
  const TraversalIndex& index = EnsureTraversalIndex();
  SplitMix64 rng(options_.seed ^ 0x7472617665727365ULL);
  uint64_t reached = 0;
  uint64_t checksum = 0xcbf29ce484222325ULL;
  for (size_t s = 0; s < kTraverseStarts; ++s) {
    const uint32_t start = static_cast<uint32_t>(rng.Below(index.entity_count()));
    const Reach reach = TraverseFrom(index, start, kTraverseHops);
    reached += reach.reached;
    checksum = (checksum ^ reach.reached) * 0x100000001b3ULL;
    checksum = (checksum ^ reach.arrival_sum) * 0x100000001b3ULL;
  }
  *summary = "reached=" + std::to_string(reached);
  return checksum;
}

uint64_t Session::RunIntervalJoin(std::string* summary) {
  const JoinCounts counts = JoinIntervals(columns_, MakeProbes(options_.seed, kJoinProbes));
  *summary = "pairs=" + std::to_string(counts.Total());
  return counts.Checksum();
}

const TraversalIndex& Session::EnsureTraversalIndex() {
  if (traversal_index_ == nullptr) traversal_index_ = TraversalIndex::Build(columns_);
  return *traversal_index_;
}

bool Session::Hold(const std::string& name, std::string* error) {
  if (name == "traversal_index") {
    EnsureTraversalIndex();
  } else if (name == "index_sources") {
    if (index_sources_ == nullptr) {
      index_sources_ = std::make_unique<IndexSources>(
          IndexSources{columns_.entity, columns_.target, columns_.valid_time});
    }
  } else if (name == "plain_columns") {
    if (plain_columns_.empty()) {
      // As many bytes as the index would hold, as plain values (written, so
      // the pages are really resident).
      const size_t bytes = TraversalIndex::EstimateBytes(columns_.size(), columns_.entity_count);
      plain_columns_.resize(bytes / sizeof(int64_t));
      for (size_t i = 0; i < plain_columns_.size(); ++i) {
        plain_columns_[i] = columns_.size() == 0 ? 0 : columns_.value[i % columns_.size()];
      }
    }
  } else {
    *error = "unknown structure '" + name + "' (holdable: " + JoinNames(HoldableNames()) + ")";
    return false;
  }
  return true;
}

bool Session::Release(const std::string& name, std::string* error) {
  if (name != "traversal_index" && name != "index_sources" && name != "plain_columns") {
    *error = "unknown structure '" + name + "' (holdable: " + JoinNames(HoldableNames()) + ")";
    return false;
  }
  if (!IsResident(name)) {
    *error = name + " is not resident; hold it first";
    return false;
  }
  if (name == "traversal_index") traversal_index_.reset();
  if (name == "index_sources") index_sources_.reset();
  if (name == "plain_columns") std::vector<int64_t>().swap(plain_columns_);
  return true;
}

bool Session::IsResident(const std::string& name) const {
  if (name == "traversal_index") return traversal_index_ != nullptr;
  if (name == "index_sources") return index_sources_ != nullptr;
  if (name == "plain_columns") return !plain_columns_.empty();
  return false;
}

}  // namespace eventstore
