// The investigation's ladder (investigate/investigation.h) on a scripted world: SimulatedEngine
// behind the history, build and measurement interfaces the bisect runs on, so every answer
// is known (the world's first bad commit) and nothing runs a process. No [overrides] are
// configured (the probe step says nothing), no [residency] plans, --no-explain; the query's
// code_path globs decide where the ladder ends. Seeds are fixed and the effects large (2x on
// 3% noise), so the answers are the same on every run.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/interrupt.h"
#include "bisect/bisect_runner.h"
#include "investigate/investigation.h"
#include "records/record_store.h"
#include "simulation/simulated_bisect.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

class Lines : public InvestigationReporter {
 public:
  void Line(const std::string& text) override { text_ += text + "\n"; }
  void Result(const std::string& text) override { text_ += text; }
  const std::string& text() const { return text_; }
  bool Says(const std::string& words) const { return text_.find(words) != std::string::npos; }

 private:
  std::string text_;
};

class QuietBisect : public BisectReporter {
 public:
  void Line(const std::string&) override {}
};

WorldOptions Quiet(std::vector<SimChange> changes, int n = 32) {
  return QuietWorld(std::move(changes), n);
}

// One scripted world and the ladder's configuration over it: the query "q" of the simulated
// bisect, its code path the globs given.
struct ScriptedLadder {
  ScriptedLadder(const WorldOptions& options, uint64_t seed, std::vector<std::string> code_path)
      : world(options, seed), engine(world), config(SimulatedBisectConfig(dir.path())) {
    config.queries.at("q").code_path = std::move(code_path);
    engine.OnPair([this](int) { ++pairs; });
  }

  InvestigateRequest Request() const {
    InvestigateRequest request;
    request.good = "good";
    request.bad = "bad";
    request.query = "q";
    request.explain = false;
    request.flags.seed = 5;
    return request;
  }

  std::string FirstBad() const { return SimulatedEngine::Id(world.first_bad()); }
  std::string Glob() const { return fmt::format("src/module{}.cc", world.first_bad() % 7); }

  TempDir dir;
  SimWorld world;
  SimulatedEngine engine;
  BisectSections config;
  InvestigationEngine ladder{engine, engine, engine};
  int pairs = 0;  ///< Sittings and batches measured (SimulatedEngine::Pair calls).
};

int RecordsOfKind(const BisectSections& config, RecordKind kind) {
  int n = 0;
  for (const Record& r : RecordStore(config.records.dir).List().records) n += r.kind == kind;
  return n;
}

TEST(InvestigationOnScriptedWorld, NoHypothesisThenTheBisectNamesTheScriptedCulprit) {
  ScriptedLadder s(Quiet({{1.0}}), 11, {});
  s.config.queries.at("q").code_path = {s.Glob()};
  Lines lines;
  Result<InvestigationReport> report =
      RunInvestigation(s.config, s.ladder, /*host=*/nullptr, lines, s.Request());
  ASSERT_TRUE(report.ok()) << report.error().message() << "\n" << lines.text();
  const InvestigationState& state = report->state;
  EXPECT_EQ(state.status, InvestigationStatus::kDone);
  ASSERT_TRUE(state.confirm);
  EXPECT_EQ(state.confirm->verdict, Verdict::kEffect) << lines.text();
  EXPECT_TRUE(state.probes_done);
  EXPECT_TRUE(state.probes.empty());
  EXPECT_TRUE(lines.Says("no [overrides] hypotheses are configured")) << lines.text();
  // The bisect adopted step 1's sitting as its confirmation, and named the world's culprit.
  EXPECT_TRUE(lines.Says("--confirmed-by " + state.confirm->record_id)) << lines.text();
  EXPECT_TRUE(state.bisect_found) << lines.text();
  EXPECT_EQ(state.culprit, s.FirstBad()) << lines.text();
  EXPECT_EQ(state.parent, SimulatedEngine::Id(s.world.first_bad() - 1));
  EXPECT_EQ(state.changed_files, std::vector<std::string>{s.Glob()});
  EXPECT_FALSE(state.bisect_records.empty());
  // Its changed file is on the query's path: the ladder ends there, with its record.
  EXPECT_EQ(state.relevance, CulpritRelevance::kOnPath);
  EXPECT_EQ(state.outcome, LadderOutcome::kOnPath);
  EXPECT_TRUE(std::filesystem::exists(report->record_path)) << report->record_path;
  EXPECT_EQ(RecordsOfKind(s.config, RecordKind::kCompare), 1);
  EXPECT_EQ(RecordsOfKind(s.config, RecordKind::kInvestigation), 1);
}

TEST(InvestigationOnScriptedWorld, ACulpritOffThePathWithNoPlanEndsWithNoPlan) {
  ScriptedLadder s(Quiet({{1.0}}), 12, {"include/**"});
  Lines lines;
  Result<InvestigationReport> report =
      RunInvestigation(s.config, s.ladder, /*host=*/nullptr, lines, s.Request());
  ASSERT_TRUE(report.ok()) << report.error().message() << "\n" << lines.text();
  EXPECT_EQ(report->state.culprit, s.FirstBad()) << lines.text();
  EXPECT_EQ(report->state.relevance, CulpritRelevance::kOffPath);
  EXPECT_EQ(report->state.outcome, LadderOutcome::kNoPlan);
}

TEST(InvestigationOnScriptedWorld, AMoveThatDoesNotReproduceStopsBeforeTheBisect) {
  ScriptedLadder s(Quiet({{0.0}}), 13, {});
  Lines lines;
  Result<InvestigationReport> report =
      RunInvestigation(s.config, s.ladder, /*host=*/nullptr, lines, s.Request());
  ASSERT_TRUE(report.ok()) << report.error().message() << "\n" << lines.text();
  ASSERT_TRUE(report->state.confirm);
  EXPECT_EQ(report->state.confirm->verdict, Verdict::kNull) << lines.text();
  EXPECT_EQ(report->state.outcome, LadderOutcome::kNotReproducible);
  EXPECT_FALSE(report->state.bisect_done);
  EXPECT_EQ(s.pairs, 1);  // the confirmation alone
  EXPECT_EQ(s.engine.builds_attempted(), 0);
  EXPECT_FALSE(std::filesystem::exists(BisectStatePath(s.config)));
}

TEST(InvestigationOnScriptedWorld, AnInterruptedBisectIsResumedNotMeasuredAgain) {
  ScriptedLadder s(Quiet({{1.0}}), 14, {});
  // Ctrl-C in the bisect's second batch (the first sitting is step 1's confirmation, which
  // the bisect adopts).
  s.engine.OnPair([&s](int) {
    if (++s.pairs == 3) SetInterruptRequested(true);
  });
  Lines first;
  Result<InvestigationReport> stopped =
      RunInvestigation(s.config, s.ladder, /*host=*/nullptr, first, s.Request());
  SetInterruptRequested(false);
  ASSERT_FALSE(stopped.ok()) << first.text();
  EXPECT_EQ(stopped.error().kind(), ErrorKind::kInterrupted) << stopped.error().message();
  Result<std::optional<InvestigationState>> saved = LoadInvestigationState(s.config);
  ASSERT_TRUE(saved.ok() && *saved);
  ASSERT_TRUE((*saved)->confirm);
  EXPECT_FALSE((*saved)->bisect_done);
  // What the bisect archived before Ctrl-C is linked by the interrupted investigation.
  const std::vector<std::string> before = (*saved)->partial_records;
  ASSERT_FALSE(before.empty());

  Lines second;
  Result<InvestigationReport> resumed =
      ResumeInvestigation(s.config, s.ladder, /*host=*/nullptr, second, std::nullopt);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message() << "\n" << second.text();
  EXPECT_TRUE(second.Says("step 1 done")) << second.text();
  EXPECT_TRUE(second.Says("step 3: resuming the bisect")) << second.text();
  EXPECT_EQ(resumed->state.culprit, s.FirstBad()) << second.text();
  // Neither the confirmation nor the bisect's archived steps were measured again: the
  // records the bisect had archived lead its records, and there is one compare.
  const std::vector<std::string>& records = resumed->state.bisect_records;
  ASSERT_GE(records.size(), before.size());
  EXPECT_EQ(std::vector<std::string>(records.begin(), records.begin() + before.size()), before);
  EXPECT_EQ(RecordsOfKind(s.config, RecordKind::kCompare), 1);
  EXPECT_EQ(resumed->state.confirm->record_id, (*saved)->confirm->record_id);
}

TEST(InvestigationOnScriptedWorld, ABisectThatFinishedWhileTheLadderWasStoppedIsAdopted) {
  ScriptedLadder s(Quiet({{1.0}}), 15, {});
  InvestigateRequest request = s.Request();
  request.stop_after = InvestigationStep::kProbes;
  Lines first;
  Result<InvestigationReport> stopped =
      RunInvestigation(s.config, s.ladder, /*host=*/nullptr, first, request);
  ASSERT_TRUE(stopped.ok()) << stopped.error().message() << "\n" << first.text();
  EXPECT_TRUE(stopped->stopped);
  // The same bisect, run by hand before the ladder is resumed.
  QuietBisect quiet;
  BisectRunner runner(s.config, {s.engine, s.engine, s.engine}, /*host=*/nullptr, quiet);
  BisectRequest by_hand;
  by_hand.good = "good";
  by_hand.bad = "bad";
  by_hand.query = "q";
  Result<BisectReport> bisect = runner.Run(by_hand);
  ASSERT_TRUE(bisect.ok()) << bisect.error().message();

  const int pairs_before = s.pairs;
  Lines second;
  Result<InvestigationReport> resumed =
      ResumeInvestigation(s.config, s.ladder, /*host=*/nullptr, second, std::nullopt);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message() << "\n" << second.text();
  EXPECT_TRUE(second.Says("the bisect had finished before the investigation stopped"))
      << second.text();
  EXPECT_EQ(s.pairs, pairs_before);
  EXPECT_EQ(resumed->state.bisect_record, bisect->state.result_record);
  EXPECT_EQ(resumed->state.bisect_records, bisect->state.records);
  EXPECT_EQ(resumed->state.culprit, s.FirstBad()) << second.text();
}

}  // namespace
}  // namespace culprit
