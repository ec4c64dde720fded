// StepRecorder on a scripted world (SimulatedEngine): batches of one step are archived as one
// record, the state keeps the step in flight between batches, and a skipped commit is logged.

#include "bisect/step_recorder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "records/record_store.h"
#include "simulation/simulated_bisect.h"

namespace culprit {
namespace {

class Lines : public BisectReporter {
 public:
  void Line(const std::string& text) override { lines.push_back(text); }
  std::vector<std::string> lines;
};

class StepRecorderTest : public testing::Test {
 protected:
  StepRecorderTest()
      : dir_(std::filesystem::temp_directory_path() /
             ("culprit-step-recorder-" + std::to_string(::getpid()))),
        world_(World(), 7),
        engine_(world_),
        config_(SimulatedBisectConfig(dir_)),
        store_(config_.records.dir),
        recorder_(config_, {engine_, engine_, engine_}, /*host=*/nullptr, reporter_, store_),
        search_(8, SearchOptions{}) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    SittingOptions options;
    options.seed = 7;
    recorder_.Prepare(config_.queries.at("q"), options, HostState{});
    for (int i = 0; i <= 8; ++i) state_.commits.push_back(SimulatedEngine::Id(i));
    state_.run_id = "run";
  }
  ~StepRecorderTest() override { std::filesystem::remove_all(dir_); }

  static WorldOptions World() {
    WorldOptions w;
    w.n_commits = 8;
    w.sigma = 0.03;
    w.outlier_rate = 0;
    w.changes = {{0.5, 0}};
    return w;
  }

  std::filesystem::path dir_;
  SimWorld world_;
  SimulatedEngine engine_;
  BisectSections config_;
  RecordStore store_;
  Lines reporter_;
  StepRecorder recorder_;
  BisectSearch search_;
  BisectState state_;
};

TEST_F(StepRecorderTest, BatchesOfOneStepAreOneRecord) {
  EXPECT_TRUE(recorder_.empty());
  EXPECT_FALSE(recorder_.Pending());
  Batch first = recorder_.Measure(state_.commits, BisectStepKind::kMeasure, 4, 0, 4, 0);
  ASSERT_EQ(first.kind, Batch::Kind::kMeasured) << first.reason;
  ASSERT_EQ(first.d.size(), 4u);
  recorder_.Add(BisectStepKind::kMeasure, 4, 0, first);
  EXPECT_TRUE(recorder_.Holds(BisectStepKind::kMeasure, 4, 0));
  EXPECT_FALSE(recorder_.Holds(BisectStepKind::kVerify, 4, 0));
  EXPECT_FALSE(recorder_.Holds(BisectStepKind::kMeasure, 5, 0));
  Batch second = recorder_.Measure(state_.commits, BisectStepKind::kMeasure, 4, 0, 2, 4);
  ASSERT_EQ(second.kind, Batch::Kind::kMeasured) << second.reason;
  recorder_.Add(BisectStepKind::kMeasure, 4, 0, second);

  // Between batches the state keeps the step in flight, pairs numbered across batches.
  std::optional<BisectPendingStep> pending = recorder_.Pending();
  ASSERT_TRUE(pending);
  EXPECT_EQ(pending->index, 4);
  EXPECT_EQ(pending->pairs, 6);
  EXPECT_EQ(pending->d.size(), 6u);
  int last_pair = -1;
  for (const Sample& s : pending->samples) last_pair = std::max(last_pair, s.pair);
  EXPECT_EQ(last_pair, 5);

  ASSERT_TRUE(recorder_.Flush(state_, search_, 0));
  EXPECT_TRUE(recorder_.empty());
  ASSERT_EQ(state_.log.size(), 1u);
  ASSERT_EQ(state_.records.size(), 1u);
  const BisectStepLog& log = state_.log[0];
  EXPECT_EQ(log.step, 1);
  EXPECT_EQ(log.kind, BisectStepKind::kMeasure);
  EXPECT_EQ(log.commit, state_.commits[4]);
  EXPECT_EQ(log.pairs, 6);
  EXPECT_TRUE(log.has_interval);  // 6 pairs: enough for a 95% interval.
  EXPECT_GT(log.ratio, 1.2);      // The world's change (x1.5) is at or before commit 4.
  EXPECT_EQ(log.record_id, state_.records[0]);
  Result<Record> record = store_.Find(log.record_id);
  ASSERT_TRUE(record) << record.error().message();
  EXPECT_EQ(record->kind, RecordKind::kBisectStep);
  EXPECT_EQ(record->details["candidate_commit"], state_.commits[4]);
  EXPECT_EQ(record->details["pairs"], "6");
  EXPECT_EQ(record->details["bisect_run"], "run");
  ASSERT_EQ(reporter_.lines.size(), 1u);
  EXPECT_TRUE(reporter_.lines[0].starts_with("step  1 measure " + state_.commits[4].substr(0, 10)))
      << reporter_.lines[0];
}

// A step's record says where its runs ran ([measure] aslr and cpus), as a compare's does: a
// search or verification step said "aslr on" beside confirmation steps saying "off" before.
TEST_F(StepRecorderTest, AStepRecordSaysWhereItsRunsRan) {
  config_.measured_runs.aslr = false;
  config_.measured_runs.cpus = {0};
  StepRecorder recorder(config_, {engine_, engine_, engine_}, nullptr, reporter_, store_);
  recorder.Prepare(config_.queries.at("q"), SittingOptions{}, HostState{});
  Batch batch = recorder.Measure(state_.commits, BisectStepKind::kMeasure, 4, 0, 4, 0);
  ASSERT_EQ(batch.kind, Batch::Kind::kMeasured) << batch.reason;
  recorder.Add(BisectStepKind::kMeasure, 4, 0, batch);
  ASSERT_TRUE(recorder.Flush(state_, search_, 0));
  ASSERT_EQ(state_.log.size(), 1u);
  Result<Record> record = store_.Find(state_.log[0].record_id);
  ASSERT_TRUE(record) << record.error().message();
  EXPECT_EQ(record->details["aslr"], "off");
  EXPECT_EQ(record->details["cpus"], "0");
}

TEST_F(StepRecorderTest, FlushOfNoStepDoesNothing) {
  ASSERT_TRUE(recorder_.Flush(state_, search_, 0));
  EXPECT_TRUE(state_.log.empty());
  EXPECT_TRUE(state_.records.empty());
  EXPECT_TRUE(reporter_.lines.empty());
}

TEST_F(StepRecorderTest, ResumedStepIsArchivedWithItsPairs) {
  Batch batch = recorder_.Measure(state_.commits, BisectStepKind::kVerify, 3, 2, 4, 0);
  ASSERT_EQ(batch.kind, Batch::Kind::kMeasured) << batch.reason;
  recorder_.Add(BisectStepKind::kVerify, 3, 2, batch);
  const BisectPendingStep pending = *recorder_.Pending();

  StepRecorder resumed(config_, {engine_, engine_, engine_}, nullptr, reporter_, store_);
  resumed.Prepare(config_.queries.at("q"), SittingOptions{}, HostState{});
  resumed.Resume(pending);
  EXPECT_TRUE(resumed.Holds(BisectStepKind::kVerify, 3, 2));
  resumed.MarkInterrupted();
  ASSERT_TRUE(resumed.Flush(state_, search_, 0));
  ASSERT_EQ(state_.log.size(), 1u);
  EXPECT_EQ(state_.log[0].pairs, 4);
  EXPECT_EQ(state_.log[0].baseline, 2);
  EXPECT_FALSE(state_.log[0].has_interval);  // 4 pairs: the median, no interval.
  EXPECT_EQ(state_.log[0].note, "interrupted");
}

TEST_F(StepRecorderTest, SkippedCommitIsLoggedWithTheFirstLineOfWhy) {
  recorder_.Skip(state_, BisectStepKind::kMeasure, 5, 0, "build failed\ncompiler output");
  ASSERT_EQ(state_.log.size(), 1u);
  EXPECT_EQ(state_.log[0].note, "skipped: build failed");
  EXPECT_EQ(state_.log[0].pairs, 0);
  EXPECT_TRUE(state_.records.empty());
  ASSERT_EQ(reporter_.lines.size(), 1u);
  EXPECT_EQ(reporter_.lines[0], "step  1 " + state_.commits[5].substr(0, 10) +
                                    " is unbuildable or unmeasurable: skipped (build failed)");
}

}  // namespace
}  // namespace culprit
