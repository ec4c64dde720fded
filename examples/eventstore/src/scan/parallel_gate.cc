#include "scan/parallel_gate.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
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
  const unsigned chunks = std::max(1u, plan.threads);
  const size_t per_chunk = (rows + chunks - 1) / chunks;
  std::vector<std::thread> workers;
  workers.reserve(chunks - 1);
  for (unsigned c = 1; c < chunks; ++c) {
    const size_t begin = std::min(rows, c * per_chunk);
    const size_t end = std::min(rows, begin + per_chunk);
    workers.emplace_back(body, begin, end, c);
  }
  body(0, std::min(rows, per_chunk), 0);
  for (std::thread& worker : workers) worker.join();
}

}  // namespace eventstore
