#include "probes/comparison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "base/atomic_file.h"
#include "tests/support/temp_dir.h"

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

// B is twice A; after `break_at` runs the archive directory is replaced by a
// file, as when a disk is unmounted or a directory removed mid-sitting.
class BreakingArchiveSource : public SampleSource {
 public:
  BreakingArchiveSource(std::filesystem::path archive, int break_at)
      : archive_(std::move(archive)), break_at_(break_at) {}
  SampleOutcome Run(int arm) override {
    if (++calls_ == break_at_) {
      std::filesystem::remove_all(archive_);
      EXPECT_TRUE(WriteFileAtomically(archive_, "in the way"));
    }
    SampleOutcome outcome;
    outcome.ok = true;
    outcome.value = (arm == 1 ? 20.0 : 10.0) * (1 + 0.001 * (calls_ % 7));
    return outcome;
  }

 private:
  std::filesystem::path archive_;
  int break_at_;
  int calls_ = 0;
};

ComparisonPlan TwoArmPlan() {
  ComparisonPlan plan;
  plan.kind = "probe";
  plan.query = "q";
  plan.a.name = "A";
  plan.b.name = "B";
  plan.options.seed = 5;
  return plan;
}

TEST(RunComparison, AnArchiveThatBreaksAtTheEndKeepsTheVerdictAndTheRecord) {
  TempDir dir;
  RecordStore store(dir.path() / "records");
  BreakingArchiveSource source(dir.path() / "records", 6);
  Result<ComparisonOutcome> outcome =
      RunComparison(TwoArmPlan(), source, nullptr, store, nullptr);
  ASSERT_TRUE(outcome) << outcome.error().message();
  ASSERT_TRUE(outcome->archive_error);
  EXPECT_EQ(outcome->record.verdict, "EFFECT");  // the result is still there to print
  ASSERT_FALSE(outcome->record_path.empty());
  EXPECT_TRUE(std::filesystem::exists(outcome->record_path));
  Status status = OutcomeStatus(*outcome);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().hint().find(outcome->record_path.string()), std::string::npos);
  std::filesystem::remove(outcome->record_path);
}

TEST(RunComparison, AnUnwritableArchiveStopsBeforeAnythingIsMeasured) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.path() / "records", "in the way"));
  RecordStore store(dir.path() / "records");
  class Counting : public SampleSource {
   public:
    SampleOutcome Run(int) override {
      ++runs;
      return {};
    }
    int runs = 0;
  } counting;
  Result<ComparisonOutcome> outcome =
      RunComparison(TwoArmPlan(), counting, nullptr, store, nullptr);
  ASSERT_FALSE(outcome);
  EXPECT_NE(outcome.error().message().find("not writable"), std::string::npos);
  EXPECT_EQ(counting.runs, 0);
}

}  // namespace
}  // namespace culprit
