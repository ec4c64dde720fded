// BisectRunner::RunOrResume on a scripted world (SimulatedEngine behind the history, build
// and measurement interfaces): which saved bisect is the request's own, and that a finished
// one is returned without measuring, an unfinished one resumed, anything else run anew.
// One large change (2x on 3% noise) and fixed seeds: the same answers on every run.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/interrupt.h"
#include "bisect/bisect_runner.h"
#include "bisect/bisect_state.h"
#include "simulation/simulated_bisect.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

class QuietBisect : public BisectReporter {
 public:
  void Line(const std::string&) override {}
};

WorldOptions OneChange() {
  WorldOptions w;
  w.n_commits = 32;
  w.sigma = 0.03;
  w.outlier_rate = 0;
  w.changes = {{1.0}};
  return w;
}

struct ScriptedBisect {
  ScriptedBisect()
      : world(OneChange(), 21), engine(world), config(SimulatedBisectConfig(dir.path())) {
    engine.OnPair([this](int) { ++pairs; });
  }
  BisectRequest Request(const std::string& bad = "bad") const {
    BisectRequest request;
    request.good = "good";
    request.bad = bad;
    request.query = "q";
    request.flags.seed = 3;
    return request;
  }
  /// RunOrResume with `not_before`; `entries` gets what it was told before measuring.
  BisectAttempt Attempt(const BisectRequest& request, std::string_view not_before) {
    BisectRunner runner(config, {engine, engine, engine}, /*host=*/nullptr, quiet);
    return runner.RunOrResume(request, not_before,
                              [this](BisectEntry entry) { entries.push_back(entry); });
  }
  Result<BisectReport> RunByHand(const BisectRequest& request) {
    BisectRunner runner(config, {engine, engine, engine}, /*host=*/nullptr, quiet);
    return runner.Run(request);
  }

  TempDir dir;
  SimWorld world;
  SimulatedEngine engine;
  BisectSections config;
  QuietBisect quiet;
  std::vector<BisectEntry> entries;
  int pairs = 0;
};

TEST(BisectRunnerRunOrResume, NothingSavedRunsANewBisect) {
  ScriptedBisect s;
  BisectAttempt attempt = s.Attempt(s.Request(), "");
  ASSERT_TRUE(attempt.report.ok()) << attempt.report.error().message();
  EXPECT_EQ(attempt.entry, BisectEntry::kRun);
  EXPECT_EQ(s.entries, std::vector<BisectEntry>{BisectEntry::kRun});
  EXPECT_TRUE(attempt.report->found) << attempt.report->text;
  EXPECT_NE(attempt.report->text.find(SimulatedEngine::Id(s.world.first_bad())), std::string::npos)
      << attempt.report->text;
  EXPECT_EQ(attempt.records, attempt.report->state.records);
  EXPECT_GT(s.pairs, 1);
}

TEST(BisectRunnerRunOrResume, AFinishedBisectOfTheRequestIsReturnedWithoutMeasuring) {
  ScriptedBisect s;
  Result<BisectReport> done = s.RunByHand(s.Request());
  ASSERT_TRUE(done.ok()) << done.error().message();
  const int pairs = s.pairs;
  BisectAttempt attempt = s.Attempt(s.Request(), done->state.started);
  ASSERT_TRUE(attempt.report.ok()) << attempt.report.error().message();
  EXPECT_EQ(attempt.entry, BisectEntry::kFinished);
  EXPECT_EQ(s.entries, std::vector<BisectEntry>{BisectEntry::kFinished});
  EXPECT_EQ(s.pairs, pairs);
  EXPECT_EQ(attempt.report->state.result_record, done->state.result_record);
  EXPECT_EQ(attempt.report->text, "bisect record " + done->state.result_record + "\n");
  EXPECT_EQ(attempt.records, done->state.records);
}

TEST(BisectRunnerRunOrResume, ABisectStartedBeforeNotBeforeOrOfAnotherRangeIsNotItsOwn) {
  ScriptedBisect s;
  ASSERT_TRUE(s.RunByHand(s.Request()).ok());
  // Started before the caller's time: run again.
  BisectAttempt later = s.Attempt(s.Request(), "9999-01-01T00:00:00Z");
  ASSERT_TRUE(later.report.ok()) << later.report.error().message();
  EXPECT_EQ(later.entry, BisectEntry::kRun);
  // Another bad end than the saved bisect's: run.
  const std::string bad = SimulatedEngine::Id(s.world.n_commits());
  BisectAttempt other = s.Attempt(s.Request(bad), "");
  ASSERT_TRUE(other.report.ok()) << other.report.error().message();
  EXPECT_EQ(other.entry, BisectEntry::kRun);
  EXPECT_EQ(s.entries, (std::vector<BisectEntry>{BisectEntry::kRun, BisectEntry::kRun}));
}

TEST(BisectRunnerRunOrResume, AnInterruptedBisectIsResumedAndKeepsWhatItArchived) {
  ScriptedBisect s;
  // Ctrl-C in the third sitting (the confirmation is the first).
  s.engine.OnPair([&s](int) {
    if (++s.pairs == 3) SetInterruptRequested(true);
  });
  BisectAttempt stopped = s.Attempt(s.Request(), "");
  SetInterruptRequested(false);
  ASSERT_FALSE(stopped.report.ok());
  EXPECT_EQ(stopped.report.error().kind(), ErrorKind::kInterrupted);
  // What it archived before Ctrl-C, said also of a bisect that ended with an error.
  Result<BisectState> saved = LoadBisectState(BisectStatePath(s.config));
  ASSERT_TRUE(saved.ok()) << saved.error().message();
  EXPECT_EQ(stopped.records, saved->records);
  ASSERT_FALSE(stopped.records.empty());

  BisectAttempt resumed = s.Attempt(s.Request(), saved->started);
  ASSERT_TRUE(resumed.report.ok()) << resumed.report.error().message();
  EXPECT_EQ(resumed.entry, BisectEntry::kResumed);
  EXPECT_TRUE(resumed.report->found) << resumed.report->text;
  ASSERT_GE(resumed.records.size(), stopped.records.size());
  EXPECT_EQ(std::vector<std::string>(resumed.records.begin(),
                                     resumed.records.begin() + stopped.records.size()),
            stopped.records);
}

}  // namespace
}  // namespace culprit
