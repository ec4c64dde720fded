#include "base/run_id.h"

#include <fmt/format.h>

#include <random>

#include "base/timestamp.h"

namespace culprit {

std::string FormatRunId(std::chrono::system_clock::time_point now, uint32_t salt) {
  return fmt::format("{}-{:04x}", FormatCompactUtc(now), salt & 0xffff);
}

std::string NewRunId() {
  std::random_device entropy;
  return FormatRunId(std::chrono::system_clock::now(), entropy());
}

}  // namespace culprit
