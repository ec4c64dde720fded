#include "probes/comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "records/comparison_details.h"
#include "records/record.h"
#include "records/report_payload.h"
#include "records/sitting_details.h"
#include "tests/records/record_fixture.h"
#include "tests/support/temp_dir.h"

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
  plan.kind = RecordKind::kCompare;
  plan.query = "q";
  plan.unit = "ms";
  Record record = MakeComparisonRecord(plan, sitting, HostIdentity{});
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

TEST(MakeComparisonRecord, KeepsTheCalibrationsBetweenLooksForTheHostPlot) {
  SittingResult sitting;
  sitting.start.calibration_ms = 30.0;
  sitting.checkpoint_calibrations_ms = {30.5, 31.25};
  sitting.end.calibration_ms = 32.0;
  Record record = MakeComparisonRecord(ComparisonPlan{}, sitting, HostIdentity{});
  EXPECT_EQ(record.details["checkpoint_calibrations_ms"], "30.5000,31.2500");
  CalibrationSeries series = ReadCalibrations(record);
  ASSERT_EQ(series.values_ms.size(), 4u);
  EXPECT_EQ(series.values_ms[1], std::optional<double>(30.5));
  EXPECT_EQ(series.values_ms[2], std::optional<double>(31.25));
  EXPECT_EQ(series.values_ms[3], std::optional<double>(32.0));
  // Without checkpoints the record says nothing about them.
  EXPECT_EQ(MakeComparisonRecord(ComparisonPlan{}, SittingResult{}, HostIdentity{})
                .details.count("checkpoint_calibrations_ms"),
            0u);
}

// The record says how the sitting spent its α: Pocock's increments, or, for the bisect's
// confirmation (EFFECT on √t), that EFFECT's were on the square root of the budget's share.
TEST(MakeComparisonRecord, SaysHowTheSittingSpentItsAlpha) {
  SittingResult sitting;
  sitting.shift = ShiftEstimate{
      .estimate = 0.2, .low = 0.1, .high = 0.3, .confidence = 0.99, .n = 80, .exact = true};
  sitting.nominal_confidence = 0.99;
  EXPECT_EQ(
      ComparisonDetails::FromRecord(MakeComparisonRecord(ComparisonPlan{}, sitting, HostIdentity{}))
          .sitting.alpha_spending,
      std::optional<std::string>(std::string(kPocockIncrements)));
  sitting.effect_spending = Spending::kPocockOnRootTime;
  EXPECT_EQ(
      ComparisonDetails::FromRecord(MakeComparisonRecord(ComparisonPlan{}, sitting, HostIdentity{}))
          .sitting.alpha_spending,
      std::optional<std::string>(std::string(kEffectOnRootTimeIncrements)));
}

TEST(MakeComparisonRecord, WhatWasNotReadStaysAbsent) {
  Record record = MakeComparisonRecord(ComparisonPlan{}, SittingResult{}, HostIdentity{});
  EXPECT_FALSE(record.start.calibration_ms || record.start.load1 || record.start.load5 ||
               record.start.load15 || record.start.cpu_mhz);
  EXPECT_FALSE(record.start.memory_available_kb || record.start.swap_used_kb);
  EXPECT_EQ(record.start.governor, "");
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
  plan.kind = RecordKind::kProbe;
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
  Result<ComparisonOutcome> outcome = RunComparison(TwoArmPlan(), source, nullptr, store, nullptr);
  ASSERT_TRUE(outcome) << outcome.error().message();
  ASSERT_TRUE(outcome->archive_error);
  EXPECT_EQ(outcome->record.verdict, Verdict::kEffect);  // the result is still there to print
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

// Slow runs in both arms during the sitting's first 30 pairs or so, at a ratio of 1 between the
// arms.
class BurstingSource : public SampleSource {
 public:
  SampleOutcome Run(int /*arm*/) override {
    const int i = calls_++;
    SampleOutcome outcome;
    outcome.ok = true;
    outcome.value = 7.0 * (1 + 0.01 * ((i * 7) % 5)) * (i >= 10 && i < 70 && i % 3 ? 1.8 : 1.0);
    return outcome;
  }

 private:
  int calls_ = 0;
};

TEST(RunComparison, SlowRunsInBurstsAreNotedInTheRecordAndTheVerdictStands) {
  TempDir dir;
  RecordStore store(dir.path() / "records");
  ComparisonPlan plan = TwoArmPlan();
  plan.options.min_pairs = 80;
  plan.options.max_pairs = 80;
  BurstingSource source;
  Result<ComparisonOutcome> outcome = RunComparison(plan, source, nullptr, store, nullptr);
  ASSERT_TRUE(outcome) << outcome.error().message();
  ASSERT_TRUE(outcome->bursts);
  EXPECT_EQ(outcome->bursts->Runs(), 160);
  const auto noted = [](const std::vector<std::string>& notes) {
    return std::ranges::any_of(
        notes, [](const std::string& n) { return n.starts_with("slow runs came in bursts"); });
  };
  EXPECT_TRUE(noted(outcome->sitting.notes));
  EXPECT_TRUE(noted(outcome->record.notes));
  // The note changes no verdict: the slow runs stay in the statistics.
  EXPECT_EQ(outcome->sitting.pairs_kept, 80);
  EXPECT_EQ(outcome->sitting.pairs_dropped, 0);
}

}  // namespace
}  // namespace culprit
