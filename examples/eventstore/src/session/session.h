#pragma once

// A session: one generated store plus whatever the process keeps resident
// (the traversal index, and the structures the harness can hold on purpose),
// and the registry of queries that run against it.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "index/traversal_index.h"
#include "store/event_store.h"

namespace eventstore {

/// One run of one query: its answer's checksum, a short human summary, and
/// how long it took (wall clock, milliseconds).
struct QueryRun {
  uint64_t checksum = 0;
  std::string summary;
  double ms = 0;
};

class Session {
 public:
  explicit Session(const StoreOptions& options);

  /// The registry's queries, in the order a published table runs them.
  static const std::vector<std::string>& QueryNames();
  /// What `Hold`/`Release` accept.
  static const std::vector<std::string>& HoldableNames();

  const EventColumns& columns() const { return columns_; }

  /// Runs `query` once. Returns false and sets `error` for an unknown query.
  bool Run(const std::string& query, QueryRun* run, std::string* error);

  /// Makes a structure resident:
  ///   traversal_index  the index path.traverse builds (built now if absent);
  ///   index_sources    copies of the columns the index is built from;
  ///   plain_columns    plain integer columns of about the index's size.
  /// Holding what is already held is not an error.
  bool Hold(const std::string& name, std::string* error);
  /// Frees a held structure; an error if it is not resident.
  bool Release(const std::string& name, std::string* error);
  bool IsResident(const std::string& name) const;

  /// The traversal index, built on first use.
  const TraversalIndex& EnsureTraversalIndex();

 private:
  struct IndexSources {
    std::vector<uint32_t> entity;
    std::vector<uint32_t> target;
    std::vector<int64_t> valid_time;
  };

  uint64_t RunSeriesCount(std::string* summary);
  uint64_t RunPathTraverse(std::string* summary);
  uint64_t RunIntervalJoin(std::string* summary);

  StoreOptions options_;
  EventColumns columns_;
  std::unique_ptr<TraversalIndex> traversal_index_;
  std::unique_ptr<IndexSources> index_sources_;
  std::vector<int64_t> plain_columns_;
};

}  // namespace eventstore
