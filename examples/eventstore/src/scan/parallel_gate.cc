#include "scan/parallel_gate.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>
#include <vector>

namespace eventstore {
namespace {

unsigned HardwareThreads() {
  // Forcing parallelism on a one-core machine still splits in two, so the
  // override demonstrably changes the plan everywhere.
  return std::max(2u, std::thread::hardware_concurrency());
}

}  // namespace

ScanPlan PlanScan(size_t rows) {
  const char* forced = std::getenv("PARALLEL");
  if (forced != nullptr && std::strcmp(forced, "1") == 0) {
    return {HardwareThreads(), "PARALLEL=1 forces a parallel scan"};
  }
  if (forced != nullptr && std::strcmp(forced, "0") == 0) {
    return {1, "PARALLEL=0 forces a serial scan"};
  }
  if (rows >= kParallelScanThreshold) {
    return {HardwareThreads(), "rows at or above the parallel threshold"};
  }
  return {1, "rows below the parallel threshold"};
}

void ForEachChunk(size_t rows, const ScanPlan& plan,
                  const std::function<void(size_t, size_t, unsigned)>& body) {
  const unsigned threads = std::max(1u, plan.threads);
  // Morsels rather than one fixed slice per thread: with fixed slices the scan
  // waits for the slowest slice, and a slice whose core is shared with any
  // other thread makes the whole scan twice as slow.
  std::atomic<size_t> next{0};
  auto work = [&](unsigned chunk) {
    for (;;) {
      const size_t begin = next.fetch_add(kScanMorselRows, std::memory_order_relaxed);
      if (begin >= rows) return;
      body(begin, std::min(rows, begin + kScanMorselRows), chunk);
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  try {
    for (unsigned c = 1; c < threads; ++c) workers.emplace_back(work, c);
  } catch (const std::system_error&) {
    // No more threads: the ones running (and this one) take every morsel.
  }
  work(0);
  for (std::thread& worker : workers) worker.join();
}

}  // namespace eventstore
