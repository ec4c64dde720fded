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

/// Rows per morsel: the unit of work a scan thread takes at a time.
constexpr size_t kScanMorselRows = 16384;

/// Runs `body(begin, end, chunk)` over [0, rows) on `plan.threads` threads (the
/// calling thread is one of them) and returns when all are done. The rows are
/// cut into morsels of kScanMorselRows that the threads take in turn, so a
/// thread that gets less CPU simply takes fewer morsels. `chunk` is the index
/// (0..plan.threads-1) of the thread running the call: calls with the same
/// index never run concurrently. Every row is covered exactly once.
void ForEachChunk(size_t rows, const ScanPlan& plan,
                  const std::function<void(size_t, size_t, unsigned)>& body);

}  // namespace eventstore
