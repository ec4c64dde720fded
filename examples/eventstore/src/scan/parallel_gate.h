#pragma once

// The scan-parallelism gate: how many threads a column scan uses.
//
// Small scans stay on one thread (spawning threads costs more than it saves);
// scans above a row threshold split across all hardware threads. The
// environment variable PARALLEL forces the decision: "1" always splits, "0"
// never does. Any other value (or none) lets the row threshold decide.

#include <cstddef>
#include <functional>
#include <string>

namespace eventstore {

/// Scans with at least this many rows run in parallel unless PARALLEL says otherwise.
constexpr size_t kParallelScanThreshold = 524288;

/// How one scan will run.
struct ScanPlan {
  unsigned threads = 1;
  std::string reason;  ///< why, for `bench --explain` and logs
};

/// Decides the plan for a scan of `rows` rows, honouring PARALLEL.
ScanPlan PlanScan(size_t rows);

/// Runs `body(begin, end, chunk)` over [0, rows) in `plan.threads` contiguous
/// chunks, one per thread (the calling thread takes the first), and returns
/// when all are done. Chunk indexes are 0..plan.threads-1.
void ForEachChunk(size_t rows, const ScanPlan& plan,
                  const std::function<void(size_t, size_t, unsigned)>& body);

}  // namespace eventstore
