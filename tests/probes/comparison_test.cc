#include "probes/comparison.h"

#include <gtest/gtest.h>

#include "records/record.h"
#include "tests/records/record_fixture.h"

namespace culprit {
namespace {

// The host probe's HostState is the record's: a record carries what was read
// at the sitting's start and end, and archives what records keep.
TEST(MakeComparisonRecord, CarriesTheSittingsHostStates) {
  SittingResult sitting;
  sitting.start.time = "2026-11-30T10:15:00Z";
  sitting.start.calibration_ms = 29.5;
  sitting.start.load1 = 1.5;
  sitting.start.load5 = 1.25;
  sitting.start.load15 = 0.75;
  sitting.start.cpu_mhz = 2450.0;
  sitting.start.governor = "performance";
  sitting.start.memory_available_kb = 20L * 1024 * 1024;
  sitting.start.swap_used_kb = 4096;
  sitting.start.swap_in_pages = 7;
  sitting.end.time = "2026-11-30T10:16:00Z";
  ComparisonPlan plan;
  plan.kind = "compare";
  plan.query = "q";
  plan.unit = "ms";
  Record record = MakeComparisonRecord(plan, sitting, HostIdentityInfo{});
  EXPECT_EQ(record.start, sitting.start);
  EXPECT_EQ(record.end, sitting.end);

  Record archived = FullRecord();  // complete, so that it reads back
  archived.start = record.start;
  Result<Record> parsed = RecordFromJson(RecordToJson(archived), "test");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(parsed->start.memory_available_kb, 20L * 1024 * 1024);
  EXPECT_EQ(parsed->start.load15, 0.75);
  EXPECT_EQ(parsed->start.governor, "performance");
  // Swap page counters only mean something within a sitting: not archived.
  EXPECT_FALSE(parsed->start.swap_in_pages.has_value());
}

TEST(MakeComparisonRecord, WhatWasNotReadStaysAbsent) {
  Record record = MakeComparisonRecord(ComparisonPlan{}, SittingResult{}, HostIdentityInfo{});
  EXPECT_FALSE(record.start.calibration_ms || record.start.load1 || record.start.load5 ||
               record.start.load15 || record.start.cpu_mhz);
  EXPECT_FALSE(record.start.memory_available_kb || record.start.swap_used_kb);
  EXPECT_EQ(record.start.governor, "");
}

}  // namespace
}  // namespace culprit
