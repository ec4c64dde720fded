#include "probes/comparison.h"

#include <gtest/gtest.h>

namespace culprit {
namespace {

TEST(ToRecordHostState, CarriesEveryFactTheHostProbeRead) {
  HostSnapshot snapshot;
  snapshot.time = "2026-11-30T10:15:00Z";
  snapshot.calibration_ms = 29.5;
  snapshot.load1 = 1.5;
  snapshot.load5 = 1.25;
  snapshot.load15 = 0.75;
  snapshot.cpu_mhz = 2450.0;
  snapshot.governor = "performance";
  snapshot.memory_available_kb = 20u * 1024 * 1024;
  snapshot.swap_used_kb = 4096;
  HostState state = ToRecordHostState(snapshot);
  EXPECT_EQ(state.time, "2026-11-30T10:15:00Z");
  EXPECT_EQ(state.calibration_ms, 29.5);
  EXPECT_EQ(state.load1, 1.5);
  EXPECT_EQ(state.load5, 1.25);
  EXPECT_EQ(state.load15, 0.75);
  EXPECT_EQ(state.cpu_mhz, 2450.0);
  EXPECT_EQ(state.governor, "performance");
  EXPECT_EQ(state.memory_available_kb, 20L * 1024 * 1024);
  EXPECT_EQ(state.swap_used_kb, 4096);
}

TEST(ToRecordHostState, WhatWasNotReadStaysAbsent) {
  HostState state = ToRecordHostState(HostSnapshot{});
  EXPECT_FALSE(state.calibration_ms || state.load1 || state.load5 || state.load15 ||
               state.cpu_mhz);
  EXPECT_FALSE(state.memory_available_kb || state.swap_used_kb);
  EXPECT_EQ(state.governor, "");
}

}  // namespace
}  // namespace culprit
