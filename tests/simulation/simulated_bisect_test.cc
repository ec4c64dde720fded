// The real bisect (BisectRunner, the tool's default [measure] and [bisect]) on scripted
// worlds: SimulatedEngine behind the history, build and measurement interfaces. Seeds are
// fixed, so every figure here is the same on every run; the effects are large (>= 1.5x on a
// quiet host) where a test asserts an exact answer, and the cell tests assert only what the
// benchmark's full grid (docs/bisect-evidence.md) leaves a margin for.

#include "simulation/simulated_bisect.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "base/interrupt.h"
#include "bisect/bisect_budget.h"
#include "bisect/bisect_runner.h"
#include "bisect/bisect_state.h"
#include "bisect/search.h"
#include "probes/comparison.h"
#include "probes/measure_commands.h"
#include "probes/sitting.h"
#include "records/record_store.h"

namespace culprit {
namespace {

std::filesystem::path TrialDir(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("culprit-simulated-" + name + "-" + std::to_string(::getpid()));
}

WorldOptions Quiet(std::vector<SimChange> changes, int n = 64) {
  return QuietWorld(std::move(changes), n);
}

// The bench's 18%/24% cell, its outliers included (`bisect-sim --cell 100,0.18,0.24,0`).
WorldOptions NoisyCell() {
  WorldOptions options;
  options.effect = 0.18;
  options.sigma = 0.24;
  return options;
}

RunnerTrialResult Trial(const WorldOptions& options, uint64_t seed, const std::string& name,
                        SimWorld** world_out = nullptr) {
  static std::unique_ptr<SimWorld> world;
  world = std::make_unique<SimWorld>(options, seed);
  if (world_out) *world_out = world.get();
  Result<RunnerTrialResult> r = RunRunnerTrial(*world, TrialDir(name), seed);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
  if (!r.ok()) return RunnerTrialResult{};
  EXPECT_EQ(r->error, "");
  return *r;
}

// The judge holds every settled part to the world's truth, after a CULPRIT as well as before
// it: a tie to the band, a rule-out of ×(1 + A) to A. A slow tail counts by its mean (x2 in
// 10% of the runs: x1.10).
TEST(WrongSettledClaim, HoldsEachTieAndRuleOutToTheNetMeanMoveOfItsPart) {
  SimWorld world(Quiet({{0.30}, {1.0, 0, 0.10}}, 100), 3);
  const int culprit = world.change_commits()[0], tail = world.change_commits()[1];
  ASSERT_LT(culprit, tail);
  EXPECT_NEAR(NetMeanLogMove(world, culprit, 99), std::log(1.10), 1e-12);
  EXPECT_NEAR(NetMeanLogMove(world, 0, 99), std::log(1.30 * 1.10), 1e-12);
  EXPECT_DOUBLE_EQ(NetMeanLogMove(world, 0, culprit - 1), 0);
  const double log_band = std::log1p(0.05);
  auto part = [](int lo, int hi, SegmentCheck check, double alternative, bool ruled_out) {
    BisectSegment s;
    s.lo = lo;
    s.hi = hi;
    s.check = check;
    s.alternative = alternative;
    s.ruled_out = ruled_out;
    return s;
  };
  // Before the culprit nothing moves: its tie and a rule-out there are right.
  EXPECT_EQ(
      WrongSettledClaim(world, {part(0, culprit - 1, SegmentCheck::kTie, 0, false)}, log_band), "");
  EXPECT_EQ(WrongSettledClaim(world, {part(0, culprit - 1, SegmentCheck::kUndecided, 0.10, true)},
                              log_band),
            "");
  // After it the tail moves the mean x1.10: not a tie, and x1.10 not ruled out; x1.13 is.
  EXPECT_EQ(WrongSettledClaim(world, {part(culprit, 99, SegmentCheck::kTie, 0, false)}, log_band),
            fmt::format("c{}..c99, measured a tie, moves x1.100", culprit));
  EXPECT_EQ(
      WrongSettledClaim(world, {part(culprit, 99, SegmentCheck::kUndecided, 0.10, true)}, log_band),
      fmt::format("c{}..c99, moves of x1.100 or more ruled out, moves x1.100", culprit));
  EXPECT_EQ(
      WrongSettledClaim(world, {part(culprit, 99, SegmentCheck::kUndecided, 0.13, true)}, log_band),
      "");
  // A check that ruled nothing out claims nothing.
  EXPECT_EQ(WrongSettledClaim(world, {part(culprit, 99, SegmentCheck::kUndecided, 0.10, false)},
                              log_band),
            "");
}

TEST(SimulatedEngine, IdsResolveAndRangesRunOldestFirst) {
  SimWorld world(Quiet({{0.5}}, 20), 1);
  SimulatedEngine engine(world);
  const History& history = engine;
  EXPECT_EQ(*history.Resolve("good"), SimulatedEngine::Id(0));
  EXPECT_EQ(*history.Resolve("c7"), SimulatedEngine::Id(7));
  EXPECT_EQ(*history.Resolve(SimulatedEngine::Id(20)), SimulatedEngine::Id(20));
  EXPECT_FALSE(history.Resolve("c21").ok());
  EXPECT_FALSE(history.Resolve(std::string(40, 'f')).ok());
  for (int i = 0; i < 20; ++i) {
    EXPECT_NE(SimulatedEngine::Id(i).substr(0, 10), SimulatedEngine::Id(i + 1).substr(0, 10));
  }
  Result<std::vector<CommitInfo>> range = history.Range("good", "bad", true);
  ASSERT_TRUE(range.ok());
  ASSERT_EQ(range->size(), 20u);
  EXPECT_EQ(range->front().id, SimulatedEngine::Id(1));
  EXPECT_EQ(range->back().parents.at(0), SimulatedEngine::Id(19));
  EXPECT_TRUE(*history.IsAncestor("c3", "c9"));
  EXPECT_FALSE(*history.IsAncestor("c9", "c3"));
}

TEST(SimulatedEngine, UnbuildableCommitsFailAndAreRemembered) {
  WorldOptions options = Quiet({{0.5}}, 40);
  options.unbuildable_fraction = 0.5;
  SimWorld world(options, 3);
  SimulatedEngine engine(world);
  BuildProvider& builds = engine;
  int unbuildable = 0;
  for (int i = 1; i < 40; ++i) {
    const std::string id = SimulatedEngine::Id(i);
    EXPECT_EQ(builds.KnownBuildable(id), std::nullopt);
    EXPECT_EQ(builds.Resolve(id).ok(), !world.Unbuildable(i));
    EXPECT_EQ(builds.KnownBuildable(id), !world.Unbuildable(i));
    unbuildable += world.Unbuildable(i);
  }
  EXPECT_GT(unbuildable, 5);
  EXPECT_EQ(engine.builds_attempted(), 39);
}

TEST(SimulatedEngine, RunsCarryTheChangesAndTheTimeouts) {
  WorldOptions options = Quiet({{1.0}}, 10);
  options.timeout_rate = 0.5;
  SimWorld world(options, 5);
  SimulatedEngine engine(world);
  Result<ResolvedBuild> good = static_cast<BuildProvider&>(engine).Resolve("good");
  Result<ResolvedBuild> bad = static_cast<BuildProvider&>(engine).Resolve("bad");
  Result<PairedRuns> runs = engine.Pair(QueryConfig{}, *good, *bad);
  ASSERT_TRUE(runs.ok());
  int timed_out[2] = {0, 0};
  double sum[2] = {0, 0};
  int ok[2] = {0, 0};
  for (int i = 0; i < 400; ++i) {
    for (int arm : {0, 1}) {
      SampleOutcome s = runs->source->Run(arm);
      timed_out[arm] += s.timed_out;
      if (s.ok) sum[arm] += std::log(s.value), ++ok[arm];
    }
  }
  EXPECT_EQ(timed_out[0], 0);
  EXPECT_GT(timed_out[1], 150);
  EXPECT_LT(timed_out[1], 250);
  EXPECT_NEAR(std::exp(sum[1] / ok[1] - sum[0] / ok[0]), 2.0, 0.1);
}

TEST(SimulatedEngine, AnIntermittentChangeSlowsOnlyItsShareOfTheRuns) {
  SimWorld world(Quiet({{1.0, 0, 0.15}}, 10), 8);
  const int first = world.first_bad();
  int slow = 0;
  for (int i = 0; i < 2000; ++i) slow += world.Sample(world.n_commits()) > std::log(1.5);
  EXPECT_NEAR(slow / 2000.0, 0.15, 0.025);
  for (int i = 0; i < 200; ++i) EXPECT_LT(world.Sample(first - 1), std::log(1.5));
}

TEST(BisectRunnerOnScriptedWorld, OneLargeChangeIsTheCulpritInAboutLog2NBuilds) {
  SimWorld* world = nullptr;
  RunnerTrialResult r = Trial(Quiet({{1.0}}), 11, "one", &world);
  EXPECT_EQ(r.score, TrialResult::Score::kExact) << r.report;
  EXPECT_TRUE(r.claimed_first) << r.report;
  EXPECT_NE(r.report.find("CULPRIT " + SimulatedEngine::Id(world->first_bad())), std::string::npos)
      << r.report;
  EXPECT_LE(r.builds, 6 + 2);
}

TEST(BisectRunnerOnScriptedWorld, TwoChangesAreBothNamedAndVerified) {
  SimWorld* world = nullptr;
  RunnerTrialResult r = Trial(Quiet({{0.5}, {0.5}}), 12, "two", &world);
  EXPECT_EQ(r.score, TrialResult::Score::kExact) << r.report;
  EXPECT_EQ(r.changes_named, 2) << r.report;
  for (int c : world->change_commits()) {
    EXPECT_NE(r.report.find(SimulatedEngine::Id(c)), std::string::npos) << r.report;
  }
}

// The CULPRIT line's commit, or "" when there is none.
std::string CulpritLine(const std::string& report) {
  const size_t at = report.find("CULPRIT ");
  if (at == std::string::npos) return "";
  return report.substr(at, report.find('\n', at) - at);
}

TEST(BisectRunnerOnScriptedWorld, APartialUndoIsNamedTheOtherWayNotAsTheRegression) {
  SimWorld* world = nullptr;
  RunnerTrialResult r = Trial(Quiet({{1.0}, {-0.3}}), 13, "undo", &world);
  EXPECT_EQ(r.score, TrialResult::Score::kExact) << r.report;
  // The undoing is searched the other way and named, as what it is.
  EXPECT_TRUE(r.others_named) << r.report;
  EXPECT_EQ(r.changes_named, 2) << r.report;
  EXPECT_NE(r.report.find("CHANGE " + SimulatedEngine::Id(world->change_commits()[1])),
            std::string::npos)
      << r.report;
  EXPECT_NE(r.report.find("EFFECT the other way from the range, verified"), std::string::npos)
      << r.report;
  // The regression keeps the CULPRIT line.
  EXPECT_TRUE(r.claimed_first) << r.report;
  EXPECT_NE(CulpritLine(r.report).find(SimulatedEngine::Id(world->change_commits()[0])),
            std::string::npos)
      << r.report;
}

TEST(BisectRunnerOnScriptedWorld, AnEarlierImprovementIsNamedButNotTheCulprit) {
  SimWorld* world = nullptr;
  RunnerTrialResult r = Trial(Quiet({{-0.4}, {1.5}}), 14, "improve", &world);
  EXPECT_NE(r.score, TrialResult::Score::kWrong) << r.wrong << "\n" << r.report;
  EXPECT_EQ(r.score, TrialResult::Score::kExact) << r.report;
  // The commits before the regression move the other way: they are searched that way, the
  // improvement is named, and with the rest of them ties the regression is the first bad
  // commit (nothing before it is slower than the good end).
  EXPECT_TRUE(r.others_named) << r.report;
  EXPECT_TRUE(r.claimed_first) << r.report;
  const std::string culprit = CulpritLine(r.report);
  EXPECT_NE(culprit.find(SimulatedEngine::Id(world->change_commits()[1])), std::string::npos)
      << r.report;
  EXPECT_NE(culprit.find("is a verified change the other way"), std::string::npos) << r.report;
  EXPECT_EQ(culprit.find(SimulatedEngine::Id(world->change_commits()[0])), std::string::npos)
      << r.report;
}

TEST(BisectRunnerOnScriptedWorld, AChangeThatOnlyHangsIsReportedNotCalledATieOrBisected) {
  // The change makes a third of its runs hang and nothing else slower. The confirmation's
  // failure-rate test sees it (B's runs fail more, Fisher's test) and the sitting stops
  // there: INCONCLUSIVE, saying the arms differ in failures; never NOT REPRODUCIBLE, never a
  // commit named. (Searching for the commit that started hanging is not done yet.)
  WorldOptions options = Quiet({{0.0}});
  options.timeout_rate = 0.34;
  RunnerTrialResult r = Trial(options, 15, "timeouts");
  EXPECT_EQ(r.score, TrialResult::Score::kInconclusive) << r.report;
  EXPECT_EQ(r.changes_named, 0) << r.report;
  EXPECT_FALSE(r.not_reproducible) << r.report;
  EXPECT_NE(r.report.find("the arms differ in failures"), std::string::npos) << r.report;
}

TEST(BisectRunnerOnScriptedWorld, ASlowChangeThatAlsoHangsIsNeverPassedAsGood) {
  WorldOptions options = Quiet({{0.5}});
  options.timeout_rate = 0.25;
  RunnerTrialResult r = Trial(options, 16, "flaky");
  EXPECT_EQ(r.score, TrialResult::Score::kExact) << r.wrong << "\n" << r.report;
}

TEST(BisectRunnerOnScriptedWorld, AnIntermittentSlowdownIsNeverNotReproducibleNorAWrongCommit) {
  // The only change makes runs twice as slow in 15% of them (mean x1.15) on a quiet host. The
  // pseudo-median of the endpoints' pairs ties; the mean and the tails do not, so the
  // confirmation never says NOT REPRODUCIBLE, and no commit is named that holds no change.
  // (Where the pseudo-median's interval lies inside the band, the range is not searched:
  // AMoveInTheSlowTailIsNotSearchedAndSaysWhatPlacesIt.)
  for (uint64_t seed : {31, 32, 33}) {
    SCOPED_TRACE(seed);
    RunnerTrialResult r = Trial(Quiet({{1.0, 0, 0.15}}, 32), seed, "intermittent");
    EXPECT_FALSE(r.not_reproducible) << r.report;
    EXPECT_NE(r.score, TrialResult::Score::kWrong) << r.wrong << "\n" << r.report;
  }
}

TEST(BisectRunnerOnScriptedWorld, ACommitThatIsIntermittentlySlowIsNotPassedAsGood) {
  // An intermittent slowdown (twice as slow in 15% of the runs), then a clean +30%: the +30%
  // may be named and verified, but never called the first bad commit while the intermittent
  // one before it is taken for good.
  for (uint64_t seed : {34, 35, 36}) {
    SCOPED_TRACE(seed);
    RunnerTrialResult r = Trial(Quiet({{1.0, 0, 0.15}, {0.30}}, 32), seed, "intermittent-then");
    EXPECT_NE(r.score, TrialResult::Score::kWrong) << r.wrong << "\n" << r.report;
    EXPECT_TRUE(r.wrong.empty()) << r.wrong << "\n" << r.report;
  }
}

TEST(BisectRunnerOnScriptedWorld, ACheckWhoseRunsKeepFailingLeavesTheVerifiedChangeStanding) {
  // Most runs from the change on hang: the verification against the parent is an EFFECT (the
  // timeouts are censored), but the check of the change against the bad end loses most of
  // its pairs (both sides timed out) and breaks. The change stands; the part is undecided.
  // (A commit whose warm-up tries all hang, 0.6^4 = 13% of the time, cannot be measured and
  // is skipped like an unbuildable one: then the answer is a range holding the change.)
  WorldOptions options = Quiet({{0.5}});
  options.timeout_rate = 0.6;
  // Which seed's check breaks depends on every step before it (seed 22 until the verification
  // of a quiet host's change moved to 6 pairs; 20 before the censored sides left the ratio),
  // so the first of a few seeds whose check breaks is the one asserted on; every seed tried
  // must leave the change standing.
  bool broke = false;
  for (uint64_t seed = 20; seed < 40 && !broke; ++seed) {
    SCOPED_TRACE(seed);
    RunnerTrialResult r = Trial(options, seed, "failing-check");
    EXPECT_TRUE(r.score == TrialResult::Score::kExact || r.score == TrialResult::Score::kRange)
        << r.wrong << "\n"
        << r.report;
    broke = r.report.find("its runs kept failing") != std::string::npos;
  }
  EXPECT_TRUE(broke);
}

TEST(BisectRunnerOnScriptedWorld, AHostThatJumpsMidBisectDoesNotMoveTheAnswer) {
  WorldOptions options = Quiet({{1.0}});
  options.host_jump = 0.5;
  options.host_jump_at = 300;
  RunnerTrialResult r = Trial(options, 17, "jump");
  EXPECT_EQ(r.score, TrialResult::Score::kExact) << r.report;
}

TEST(BisectRunnerOnScriptedWorld, EqualEndpointsAreNotReproducibleAndNothingIsNamed) {
  RunnerTrialResult r = Trial(Quiet({{0.0}}), 18, "aa");
  EXPECT_EQ(r.changes_named, 0) << r.report;
  EXPECT_TRUE(r.not_reproducible) << r.report;
  EXPECT_EQ(r.builds, 0);
}

TEST(BisectRunnerOnScriptedWorld, ABadEndThatAlwaysHangsEndsWithAnErrorNotAVerdict) {
  WorldOptions options = Quiet({{0.0}});
  options.timeout_rate = 1.0;
  SimWorld world(options, 25);
  Result<RunnerTrialResult> r = RunRunnerTrial(world, TrialDir("hangs"), 25);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_NE(r->error.find("every warm-up run of arm B failed"), std::string::npos) << r->error;
  EXPECT_EQ(r->changes_named, 0);
  EXPECT_EQ(r->builds, 0);
}

TEST(BisectRunnerOnScriptedWorld, ChecksOnANoisyHostSeekATieWithinTheirBudgetAndSaySoInTheLabel) {
  // A doubling on a 24%-noise host: verified quickly, but a tie of the parts around it takes
  // hundreds of pairs. A check looks for a further move with the confirmation's 640 pairs,
  // but for a tie only within [measure]'s 160: it stops once neither is within reach, and
  // the change is named without the CULPRIT label. With [bisect] check_max_pairs = 640 the
  // tie is sought, and shown, with the whole budget.
  WorldOptions options = Quiet({{1.0}});
  options.sigma = 0.24;
  // The patient check shows the tie in about two bisects of three at 18%/24%
  // (docs/bisect-evidence.md, "More for the tie"); seed 28 is one of them (26, 27 and 30 are
  // not: still undecided at 640 pairs, which the label then says).
  const uint64_t seed = 28;
  RunnerTrialResult r = Trial(options, seed, "noisy-checks");
  EXPECT_EQ(r.score, TrialResult::Score::kExact) << r.report;
  EXPECT_FALSE(r.claimed_first) << r.report;
  EXPECT_NE(r.report.find("NOT SHOWN TO BE THE FIRST BAD COMMIT"), std::string::npos) << r.report;
  EXPECT_LT(r.check_pairs, 2 * 640) << r.report;  // stopped for futility, not at the budget

  BisectConfig patient;
  patient.check_max_pairs = 640;
  SimWorld world(options, seed);
  Result<RunnerTrialResult> p = RunRunnerTrial(world, TrialDir("patient-checks"), seed, patient);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->score, TrialResult::Score::kExact) << p->report;
  EXPECT_GT(p->check_pairs, r.check_pairs) << p->report;
  EXPECT_TRUE(p->claimed_first) << p->report;
}

TEST(BisectRunnerOnScriptedWorld, ANoisyHostsTieIsNotMeasuredUnlessProveFirstAsksForIt) {
  // An 18% change on a 24%-noise host (the bench's cell, its outliers included): the search's
  // pairs put a tie of the parent against the good end at about 550 pairs, more than the
  // check's 160, so the check hunts a further move only and the report says what showing the
  // first bad commit would take. With --prove-first ([bisect] prove_first) the tie is sought
  // with a budget that holds the prediction, and shown.
  const WorldOptions options = NoisyCell();
  const uint64_t seed = 5;
  RunnerTrialResult r = Trial(options, seed, "tie-not-sought");
  EXPECT_EQ(r.score, TrialResult::Score::kExact) << r.report;
  EXPECT_FALSE(r.claimed_first) << r.report;
  EXPECT_NE(r.report.find("NOT SHOWN TO BE THE FIRST BAD COMMIT"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("showing it would take ≈ "), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("pairs (`--prove-first`)"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("checked for a further move only"), std::string::npos) << r.report;

  BisectConfig prove;
  prove.prove_first = true;
  SimWorld world(options, seed);
  Result<RunnerTrialResult> p = RunRunnerTrial(world, TrialDir("prove-first"), seed, prove);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->score, TrialResult::Score::kExact) << p->report;
  EXPECT_TRUE(p->claimed_first) << p->report;
  EXPECT_GT(p->check_pairs, r.check_pairs) << p->report;
  EXPECT_EQ(p->report.find("showing it would take"), std::string::npos) << p->report;
}

// The bench's 18%/24% cell, trial 68 of seed 5 (`bisect-sim --cell 100,0.18,0.24,0 --seed 5
// --trace 68`: c11 is +18%), with one host event: the first sitting of c10 against c0, the
// check of the part before c11 begun beside c11's verification, sees c0's runs x1.35 faster,
// so that check says c10 moved though the part holds no change (a check's error). The trial
// did so by itself (x1.350 on 12 pairs) while an EFFECT of the mean alone did not need the
// tails to lean; since that rule (2026-12-07) its check no longer errs, so the error is
// scripted. Fresh sittings of c10 against c0 see no event.
constexpr uint64_t kFalseMoveTrialSeed = 5;
constexpr int kFalseMoveTrial = 68;
void ScriptAFalseMoveBeforeTheChange(SimWorld& world) {
  // The search measures c10 against c0 too, before c11's verification (of c11 against c10)
  // opens; the check is the first sitting of c10 against c0 after it.
  world.ShiftSittings([verifying = false, opened = false](int a, int b) mutable {
    if (a == 10 && b == 11) verifying = true;
    if (a != 0 || b != 10 || !verifying || opened) return 0.0;
    opened = true;
    return -std::log(1.35);
  });
}

TEST(BisectRunnerOnScriptedWorld, AFalseMoveInAPartIsRecheckedNotSearchedToItsBudget) {
  // c11 is named and verified, and the check of c0..c10 beside its verification comes out an
  // EFFECT (ScriptAFalseMoveBeforeTheChange). The part's search finds nothing that moves and
  // its first verification does not hold, so the part is re-checked on fresh pairs: the move
  // is not there again, the search ends, and the part is left unplaced with both sittings
  // said. Without the re-check such a search runs to its pair budget (5,178 pairs in the
  // bisect of the trial this test used before the checks shared the verification's runs,
  // trial 64 of seed 1).
  const WorldOptions options = NoisyCell();
  const uint64_t seed = TrialSeed(kFalseMoveTrialSeed, kFalseMoveTrial);
  SimWorld world(options, seed);
  ScriptAFalseMoveBeforeTheChange(world);
  ASSERT_EQ(world.change_commits(), std::vector<int>{11});
  Result<RunnerTrialResult> r = RunRunnerTrial(world, TrialDir("recheck"), seed | 1);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->score, TrialResult::Score::kExact) << r->report;
  EXPECT_NE(r->report.find("did not reproduce: once a verification in it had not held, a "
                           "re-check on fresh pairs said"),
            std::string::npos)
      << r->report;
  EXPECT_NE(r->report.find("UNPLACED: "), std::string::npos) << r->report;
  // The unplaced part is before the change: it is not called the first bad commit.
  EXPECT_FALSE(r->claimed_first) << r->report;
  EXPECT_LT(r->pairs, 2000) << r->report;
}

TEST(BisectRunnerOnScriptedWorld, AMoveThatReturnsBeforeTheCulpritNeverMakesItLiterallyFirst) {
  // +10%, undone four commits later, then +20% (issue 27): the part before the +20% ties at
  // its ends. The +20% may be called CULPRIT, but only with the line that says its ties show
  // their ends, and never "the first bad commit" in the literal sense; no claim is wrong.
  int culprits = 0;
  for (uint64_t seed : {41, 42, 43, 44, 45, 46}) {
    const WorldOptions options = Quiet({{0.10}, {1 / 1.10 - 1, 4}, {0.20}});
    const RunnerTrialResult r = Trial(options, seed, "returning-move");
    EXPECT_NE(r.score, TrialResult::Score::kWrong) << r.wrong << "\n" << r.report;
    EXPECT_FALSE(r.literally_first) << r.report;
    if (!r.claimed_first) continue;
    culprits += 1;
    EXPECT_NE(r.report.find("  shown at the ends only: "), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("--every 1"), std::string::npos) << r.report;
  }
  EXPECT_GT(culprits, 0);  // the rule was exercised, not skipped
}

TEST(BisectRunnerOnScriptedWorld, UnbuildableNeighboursGiveARangeNeverAWrongCommit) {
  for (uint64_t seed : {21, 22, 23, 24}) {
    WorldOptions options = Quiet({{1.0}});
    options.unbuildable_fraction = 0.3;
    RunnerTrialResult r = Trial(options, seed, "unbuildable");
    EXPECT_TRUE(r.score == TrialResult::Score::kExact || r.score == TrialResult::Score::kRange)
        << "seed " << seed << ": " << r.wrong << "\n"
        << r.report;
  }
}

TEST(BisectRunnerOnScriptedWorld, TheSameSeedGivesTheSameBisect) {
  WorldOptions options = Quiet({{0.3}});
  options.sigma = 0.10;
  RunnerTrialResult a = Trial(options, 19, "seed");
  RunnerTrialResult b = Trial(options, 19, "seed");
  EXPECT_EQ(a.pairs, b.pairs);
  EXPECT_EQ(a.builds, b.builds);
  EXPECT_EQ(a.score, b.score);
}

// Cells of bench/bisect-sim at a trial count that runs in seconds: no confident wrong
// answer, and what the full grid's figures leave a margin for.
TEST(BisectRunnerCells, NoisyHostModerateEffectIsFoundOrInconclusiveNeverWrong) {
  WorldOptions world;
  world.effect = 0.18;
  world.sigma = 0.24;
  Result<RunnerCellSummary> cell = RunRunnerCell(world, 20, 7, TrialDir("cell-18-24"));
  ASSERT_TRUE(cell.ok()) << cell.error().message();
  EXPECT_EQ(cell->wrong, 0);
  EXPECT_GE(cell->exact, 0.75);
  EXPECT_LE(cell->mean_builds, std::ceil(std::log2(100.0)) + 3);
}

TEST(BisectRunnerCells, TwoChangesOnAQuietHostAreNeverMisreported) {
  WorldOptions world;
  world.sigma = 0.05;
  world.changes = {{0.07}, {0.15}};
  Result<RunnerCellSummary> cell = RunRunnerCell(world, 20, 8, TrialDir("cell-two"));
  ASSERT_TRUE(cell.ok()) << cell.error().message();
  EXPECT_EQ(cell->wrong, 0) << (cell->wrong_examples.empty() ? "" : cell->wrong_examples[0]);
  // Both named and verified (the goal: 90%; 98% of 100 in bisect-sim): the earlier +7%, 2%
  // beyond the band, is found by the parent-against-good check's hunt for a move, which
  // has the confirmation's budget.
  EXPECT_GE(cell->exact, 0.85) << "partly named " << cell->partial;
}

TEST(BisectRunnerCells, AnAaHistoryIsRarelyAnEffect) {
  WorldOptions world;
  world.sigma = 0.10;
  world.changes = {{0.0}};
  Result<RunnerCellSummary> cell = RunRunnerCell(world, 40, 9, TrialDir("cell-aa"));
  ASSERT_TRUE(cell.ok()) << cell.error().message();
  EXPECT_LE(cell->wrong, 0.05);
}

class QuietReporter : public BisectReporter {
 public:
  void Line(const std::string&) override {}
};

// The checks of what the culprit leaves unexplained are measured beside its verification:
// their runs of the culprit and of its parent are the verification's, taken once, and the
// bisect counts them once. The threads they run on take turns in a fixed order, so the same
// seed gives the same bisect, run for run.
TEST(BisectRunnerOnScriptedWorld, ChecksBesideTheVerificationShareItsRunsAndCountThemOnce) {
  std::string text[2];
  int runs[2] = {0, 0};
  for (int attempt : {0, 1}) {
    SimWorld world(NoisyCell(), 30);
    SimulatedEngine engine(world);
    QuietReporter reporter;
    Result<BisectReport> report =
        RunSimulatedBisect(engine, TrialDir("shared-checks"), 30, reporter);
    ASSERT_TRUE(report.ok()) << report.error().message();
    ASSERT_TRUE(report->found) << report->text;
    int pairs = 0, shared = 0, checks = 0;
    for (const BisectStepLog& step : report->state.log) {
      pairs += step.pairs;
      shared += step.shared_runs;
      if (step.kind != BisectStepKind::kCheck) {
        EXPECT_EQ(step.shared_runs, 0) << step.step;
        continue;
      }
      ++checks;
      // One arm's runs at most: one a pair, and the warm-up.
      EXPECT_GT(step.shared_runs, 0) << step.step;
      EXPECT_LE(step.shared_runs, step.pairs + 1) << step.step;
    }
    EXPECT_EQ(checks, 2) << report->text;
    EXPECT_EQ(PairsMeasured(report->state.log), pairs - shared / 2);
    EXPECT_NE(report->text.find(fmt::format(
                  "(the checks' {} runs shared with verifications counted once)", shared)),
              std::string::npos)
        << report->text;
    text[attempt] = report->text;
    runs[attempt] = world.runs();
  }
  // The record's id and path differ; the bisect does not.
  const auto body = [](const std::string& t) { return t.substr(0, t.find("record ")); };
  EXPECT_EQ(body(text[0]), body(text[1]));
  EXPECT_EQ(runs[0], runs[1]);
}

// Trial `trial` of the bench's seed `seed` in the world `options` (`bisect-sim --seed S
// --trace T`): its bisect, as the bench runs it, with nothing printed.
Result<BisectReport> BenchTrial(const WorldOptions& options, uint64_t seed, int trial,
                                const std::string& dir) {
  const uint64_t trial_seed = TrialSeed(seed, trial);
  SimWorld world(options, trial_seed);
  SimulatedEngine engine(world);
  QuietReporter reporter;
  return RunSimulatedBisect(engine, TrialDir(dir), trial_seed | 1, reporter);
}

// The world of AFalseMoveInAPartIsRecheckedNotSearchedToItsBudget: inside the part before
// c11, the search verifies c10 and the verification does not hold. The check begun beside it
// (of c0..c9) is stopped once no part waits for it, and what it measured is kept: logged as
// a check that was stopped, with its pairs counted and its record linked. The check of the part
// after c11, begun beside c11's own verification, goes on and is the part's check.
TEST(BisectRunnerOnScriptedWorld, TheCheckBesideARefutedCandidateIsStoppedAndKept) {
  const uint64_t seed = TrialSeed(kFalseMoveTrialSeed, kFalseMoveTrial);
  SimWorld world(NoisyCell(), seed);
  ScriptAFalseMoveBeforeTheChange(world);
  SimulatedEngine engine(world);
  QuietReporter reporter;
  Result<BisectReport> r =
      RunSimulatedBisect(engine, TrialDir("stopped-check"), seed | 1, reporter);
  ASSERT_TRUE(r.ok()) << r.error().message();
  int stopped = 0, after = 0;
  for (const BisectStepLog& step : r->state.log) {
    if (step.kind != BisectStepKind::kCheck) continue;
    if (step.note.starts_with("stopped: ")) {
      ++stopped;
      EXPECT_EQ(step.index, 9);
      EXPECT_EQ(step.baseline, 0);
      EXPECT_GT(step.pairs, 0);
      EXPECT_GT(step.shared_runs, 0);
      EXPECT_NE(std::find(r->state.records.begin(), r->state.records.end(), step.record_id),
                r->state.records.end());
    }
    if (step.index == 100 && step.baseline == 11) {
      ++after;
      EXPECT_GT(step.shared_runs, 0) << step.note;
    }
  }
  EXPECT_EQ(stopped, 1) << r->text;
  EXPECT_EQ(after, 1) << r->text;
  int pairs = 0, shared = 0;
  for (const BisectStepLog& step : r->state.log) {
    pairs += step.pairs;
    shared += step.shared_runs;
  }
  EXPECT_EQ(PairsMeasured(r->state.log), pairs - shared / 2);
}

// Three checks in flight at once, trial 4 of the bench's "+7% then +15%" world at 10% noise
// (`bisect-sim --scenario "+7% then +15%" --trials 30 --trace 4`, its second world): the
// check after c99, which a part waits for, and the two begun beside c96's verification,
// which the search leaves to verify c97. Those two are stopped while the first goes on, the
// middle one of the three first. Each check is held on its own (behind a unique_ptr), so
// dropping one moves no other whose thread still writes its outcome; in a std::deque the
// middle erase moved the running check's slot, and its outcome was written where it no
// longer was (found in review, eb43dd1).
TEST(BisectRunnerOnScriptedWorld, ChecksStoppedBesideOneStillRunningLeaveItsOutcomeWhole) {
  WorldOptions options;
  options.sigma = 0.10;
  options.changes = {{0.07}, {0.15}};
  ASSERT_EQ(SimWorld(options, TrialSeed(1, 4)).change_commits(), (std::vector<int>{97, 99}));
  Result<BisectReport> r = BenchTrial(options, 1, 4, "three-checks");
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(r->found) << r->text;
  EXPECT_NE(r->text.find("CHANGE " + SimulatedEngine::Id(97)), std::string::npos) << r->text;
  EXPECT_NE(r->text.find("CHANGE " + SimulatedEngine::Id(99)), std::string::npos) << r->text;
  int stopped = 0, after = 0;
  for (const BisectStepLog& step : r->state.log) {
    if (step.kind != BisectStepKind::kCheck) continue;
    const bool linked = std::find(r->state.records.begin(), r->state.records.end(),
                                  step.record_id) != r->state.records.end();
    if (step.note.starts_with("stopped: the search went on to verify another candidate")) {
      ++stopped;
      EXPECT_GT(step.pairs, 0);
      EXPECT_TRUE(linked) << step.record_id;
    }
    if (step.index == 100 && step.baseline == 99) {
      // The check that ran on while the two beside it were stopped: its own sitting, whole.
      ++after;
      EXPECT_GE(step.pairs, 40);
      EXPECT_GT(step.shared_runs, 0) << step.note;
      EXPECT_TRUE(step.has_interval);
      EXPECT_LT(step.low, step.ratio);
      EXPECT_LT(step.ratio, step.high);
      EXPECT_TRUE(linked) << step.record_id;
    }
  }
  EXPECT_EQ(stopped, 2) << r->text;
  EXPECT_EQ(after, 1) << r->text;
  const auto part = std::find_if(r->state.segments.begin(), r->state.segments.end(),
                                 [](const BisectSegment& s) { return s.lo == 99 && s.hi == 100; });
  ASSERT_NE(part, r->state.segments.end());
  EXPECT_NE(part->check, SegmentCheck::kNotMeasured);
  EXPECT_GE(part->pairs, 40);
}

// A verification the search pauses (its first batch did not hold; the search measures other
// commits) and comes back to keeps the checks begun beside it: they wait meanwhile and share
// its runs again, rather than being stopped and begun anew. The bench's 18%/24% cell, trial
// 49 of seed 1 (`bisect-sim --cell 100,0.18,0.24,0 --trace 49`).
TEST(BisectRunnerOnScriptedWorld, AVerificationThePausedSearchComesBackToKeepsItsChecks) {
  Result<BisectReport> r = BenchTrial(NoisyCell(), 1, 49, "paused-verify");
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(r->found) << r->text;
  int verifies = 0, checks = 0;
  for (const BisectStepLog& step : r->state.log) {
    if (step.kind == BisectStepKind::kVerify) ++verifies;
    if (step.kind != BisectStepKind::kCheck) continue;
    ++checks;
    EXPECT_FALSE(step.note.starts_with("stopped: ")) << step.note;
    EXPECT_GT(step.shared_runs, 0) << step.step;
  }
  EXPECT_GE(verifies, 2) << r->text;  // the verification in two steps, the search between
  EXPECT_EQ(checks, 2) << r->text;
}

// Ctrl-C at the third sitting (the confirmation is the first); `break_state` first makes
// the state file a directory, so that saving it fails. Returns the bisect's error.
Error InterruptMidSearch(const std::string& name, bool break_state) {
  SimWorld world(Quiet({{1.0}}), 27);
  const std::filesystem::path dir = TrialDir(name);
  SimulatedEngine engine(world);
  engine.OnPair([&](int pair) {
    if (pair != 3) return;
    if (break_state) {
      const std::filesystem::path state = BisectStatePath(SimulatedBisectConfig(dir));
      std::filesystem::remove(state);
      std::filesystem::create_directories(state);
      std::ofstream(state / "in-the-way") << "x";
    }
    SetInterruptRequested(true);
  });
  QuietReporter reporter;
  Result<BisectReport> report = RunSimulatedBisect(engine, dir, 27, reporter);
  SetInterruptRequested(false);
  EXPECT_FALSE(report.ok());
  return report.ok() ? Error("the bisect finished") : report.error();
}

TEST(BisectRunnerOnScriptedWorld, AnInterruptedBisectSaysWhereItsStateIsSaved) {
  Error e = InterruptMidSearch("interrupt-saved", /*break_state=*/false);
  EXPECT_EQ(e.kind(), ErrorKind::kInterrupted) << e.message();
  EXPECT_NE(e.message().find("; its state is saved in "), std::string::npos) << e.message();
  EXPECT_EQ(e.message().find("could not be saved"), std::string::npos) << e.message();
}

TEST(BisectRunnerOnScriptedWorld, AnInterruptedBisectWhoseStateCannotBeSavedSaysSoNotSaved) {
  Error e = InterruptMidSearch("interrupt-unsaved", /*break_state=*/true);
  EXPECT_EQ(e.kind(), ErrorKind::kInterrupted) << e.message();
  EXPECT_EQ(e.message().find("its state is saved"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("the bisect state could not be saved"), std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find("a resume continues from the last state that was"), std::string::npos)
      << e.message();
}

// Pairs of segment 0's search (the confirmation's and every step's, a verification's apart)
// and the pairs that the bisect's linked records of each kind and commit hold.
struct PairsHeld {
  std::map<std::string, size_t> searched, archived;
};

PairsHeld PairsOfTheSearchAndTheArchive(const std::filesystem::path& dir) {
  PairsHeld held;
  const BisectSections config = SimulatedBisectConfig(dir);
  Result<BisectState> state = LoadBisectState(BisectStatePath(config));
  EXPECT_TRUE(state.ok()) << state.error().message();
  if (!state) return held;
  Result<BisectSearch> search = BisectSearch::FromJson(state->search_json);
  EXPECT_TRUE(search.ok()) << search.error().message();
  if (!search) return held;
  for (const Observation& o : search->observations()) {
    held.searched[(o.verification ? "verify " : "") + state->commits[o.commit]] += o.d.size();
  }
  RecordStore store(config.records.dir);
  for (const std::string& id : state->records) {
    Result<Record> record = store.Find(id);
    EXPECT_TRUE(record.ok()) << "a record the bisect names is missing: " << id;
    if (!record || record->arms.size() != 2) continue;
    const std::string kind = record->Detail("step_kind");
    held.archived[(kind == "verify" ? "verify " : "") + record->arms[1].commit] +=
        KeptLogRatios(record->samples).size();
  }
  return held;
}

TEST(BisectRunnerOnScriptedWorld, AKillAfterASaveMidStepLosesNoPairFromTheArchive) {
  // A noisy host, so that steps span several batches: the state is saved after each batch,
  // the step's record is written when the step ends. A process killed between the two is
  // stood for by a copy of the bisect's files taken at that moment (the next batch's start,
  // when the last save holds a step in flight), resumed by a fresh runner. Every pair the
  // resumed search counts must be in a record the bisect links: the step in flight travels
  // in the state (BisectPendingStep) until its record is written.
  // +25%: a +50% change is verified in one batch of 8 pairs now that the verification's
  // looks are planned from the search's fit (issue 27); +25% takes two batches, 12 and 8.
  WorldOptions options = Quiet({{0.25}}, 40);
  options.sigma = 0.24;
  const std::filesystem::path dir = TrialDir("kill-mid-step");
  const BisectSections config = SimulatedBisectConfig(dir);
  std::map<BisectStepKind, std::filesystem::path> copies;
  // A seed whose search and verification both have a step of several batches (42 is the
  // first from 41 on since a tie needs the tails to agree; before, 43 was).
  const uint64_t seed = 42;
  SimWorld world(options, seed);
  SimulatedEngine engine(world);
  engine.OnPair([&](int) {
    Result<BisectState> state = LoadBisectState(BisectStatePath(config));
    if (!state || !state->pending_step) return;
    const BisectStepKind kind = state->pending_step->kind;
    if (copies.count(kind)) return;
    copies[kind] = TrialDir(fmt::format("kill-mid-{}", BisectStepKindName(kind)));
    std::filesystem::remove_all(copies[kind]);
    std::filesystem::copy(dir, copies[kind], std::filesystem::copy_options::recursive);
  });
  QuietReporter reporter;
  Result<BisectReport> whole = RunSimulatedBisect(engine, dir, seed, reporter);
  ASSERT_TRUE(whole.ok()) << whole.error().message();
  ASSERT_EQ(copies.size(), 2u);
  for (const auto& [kind, copy] : copies) {
    SCOPED_TRACE(fmt::format("killed mid {}", BisectStepKindName(kind)));
    SimulatedEngine resumed_engine(world);
    const BisectSections resumed_config = SimulatedBisectConfig(copy);
    BisectRunner runner(resumed_config, {resumed_engine, resumed_engine, resumed_engine},
                        /*host=*/nullptr, reporter);
    Result<BisectReport> resumed = runner.Resume();
    ASSERT_TRUE(resumed.ok()) << resumed.error().message();
    EXPECT_TRUE(resumed->found) << resumed->text;
    PairsHeld held = PairsOfTheSearchAndTheArchive(copy);
    ASSERT_FALSE(held.searched.empty());
    for (const auto& [commit, pairs] : held.searched) {
      EXPECT_GE(held.archived[commit], pairs)
          << "pairs of " << commit << " the search used but no record holds";
    }
    std::filesystem::remove_all(copy);
  }
}

// Every sitting and batch of a bisect reports its pairs' progress where the reporter says,
// labelled with what it measures; the command line shows it as probe's live line.
class ProgressRecorder : public BisectReporter, public SittingProgress {
 public:
  void Line(const std::string&) override {}
  SittingProgress* StartSitting(const std::string& label) override {
    labels.push_back(label);
    updates.push_back(0);
    return this;
  }
  void OnProgress(int done, int target, std::optional<double>) override {
    ++updates.back();
    if (done > target) ++overshoots;
  }
  std::vector<std::string> labels;
  std::vector<int> updates;  ///< Per sitting.
  int overshoots = 0;
};

TEST(BisectRunnerOnScriptedWorld, EverySittingReportsItsPairsProgress) {
  SimWorld world(Quiet({{1.0}}), 28);
  SimulatedEngine engine(world);
  ProgressRecorder recorder;
  Result<BisectReport> report = RunSimulatedBisect(engine, TrialDir("progress"), 28, recorder);
  ASSERT_TRUE(report.ok()) << report.error().message();
  ASSERT_GE(recorder.labels.size(), 3u);  // the confirmation, the search, the verification
  EXPECT_EQ(recorder.labels.front().rfind("confirm ", 0), 0u) << recorder.labels.front();
  bool verify = false;
  for (const std::string& label : recorder.labels)
    verify = verify || label.rfind("verify ", 0) == 0;
  EXPECT_TRUE(verify);
  for (size_t i = 0; i < recorder.updates.size(); ++i) {
    EXPECT_GT(recorder.updates[i], 0) << recorder.labels[i];
  }
  EXPECT_EQ(recorder.overshoots, 0);
}

// A check measured beside the verification goes on alone once the verification has ended, for
// as many pairs as its own test needs: while the bisect waits for it, it has the live line
// (from where it stands), not a silent pause.
TEST(BisectRunnerOnScriptedWorld, AChecksBesideTheVerificationShowTheirProgressWhileAwaited) {
  SimWorld world(Quiet({{1.0}}), 28);
  SimulatedEngine engine(world);
  ProgressRecorder recorder;
  Result<BisectReport> report =
      RunSimulatedBisect(engine, TrialDir("progress-shared"), 28, recorder);
  ASSERT_TRUE(report.ok()) << report.error().message();
  int shared_checks = 0;
  for (const BisectStepLog& step : report->state.log) {
    shared_checks += step.kind == BisectStepKind::kCheck && step.shared_runs > 0;
  }
  ASSERT_GT(shared_checks, 0) << "no check was measured beside the verification";
  int shown = 0;
  for (size_t i = 0; i < recorder.labels.size(); ++i) {
    if (recorder.labels[i].find("(begun beside the verification)") == std::string::npos) continue;
    EXPECT_EQ(recorder.labels[i].rfind("check ", 0), 0u) << recorder.labels[i];
    EXPECT_GT(recorder.updates[i], 0) << recorder.labels[i];
    ++shown;
  }
  EXPECT_EQ(shown, shared_checks);
}

// What a bisect told the user, line by line.
class LineRecorder : public BisectReporter {
 public:
  void Line(const std::string& text) override { lines += text + "\n"; }
  std::string lines;
};

// An empty directory for one test's bisect files.
std::filesystem::path FreshTrialDir(const std::string& name) {
  const std::filesystem::path dir = TrialDir(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `bisect run --good good --bad bad -q q --seed S --confirmed-by ID`.
BisectRequest WholeRangeRequest(uint64_t seed, std::string confirmed_by) {
  BisectRequest request;
  request.good = "good";
  request.bad = "bad";
  request.query = "q";
  request.flags.seed = seed;
  request.confirmed_by = std::move(confirmed_by);
  return request;
}

// A sitting of `a_rev` against `b_rev` of query q on `engine`, archived in `config`'s
// records as `culprit compare` (investigate's step 1) would archive it; its record.
Record ArchiveSitting(SimulatedEngine& engine, const BisectSections& config,
                      const std::string& a_rev, const std::string& b_rev) {
  BuildProvider& builds = engine;
  Result<ResolvedBuild> a = builds.Resolve(a_rev);
  Result<ResolvedBuild> b = builds.Resolve(b_rev);
  EXPECT_TRUE(a.ok() && b.ok());
  Result<PairedRuns> runs = engine.Pair(config.queries.at("q"), *a, *b);
  EXPECT_TRUE(runs.ok());
  ComparisonPlan plan;
  plan.kind = RecordKind::kCompare;
  plan.query = "q";
  plan.a = MakeComparisonArm("A", a_rev, runs->a, *a);
  plan.b = MakeComparisonArm("B", b_rev, runs->b, *b);
  plan.options.min_pairs = 10;
  plan.options.max_pairs = 160;
  plan.options.seed = 5;
  RecordStore store(config.records.dir);
  Result<ComparisonOutcome> outcome = RunComparison(plan, *runs->source, nullptr, store, nullptr);
  EXPECT_TRUE(outcome.ok()) << (outcome.ok() ? "" : outcome.error().message());
  return outcome.ok() ? outcome->record : Record{};
}

// Issue 11: investigate confirmed the move in step 1, and the bisect confirmed it again.
// Given that sitting's record, the bisect adopts it: its pairs seed the search, the first
// sitting the bisect measures is a search batch, the step log names the record, and the
// culprit is the one a bisect that confirms by itself finds.
TEST(BisectRunnerOnScriptedWorld, AnArchivedConfirmationOfTheEndpointsIsAdoptedNotRemeasured) {
  SimWorld world(Quiet({{1.0}}, 32), 31);
  SimulatedEngine engine(world);
  const std::filesystem::path dir = FreshTrialDir("adopt");
  const BisectSections config = SimulatedBisectConfig(dir);
  Record confirmation = ArchiveSitting(engine, config, "good", "bad");
  ASSERT_EQ(confirmation.verdict, Verdict::kEffect);
  std::vector<std::string> labels;
  class Labels : public LineRecorder {
   public:
    explicit Labels(std::vector<std::string>& out) : out_(out) {}
    SittingProgress* StartSitting(const std::string& label) override {
      out_.push_back(label);
      return nullptr;
    }
    std::vector<std::string>& out_;
  } reporter(labels);
  BisectRunner runner(config, {engine, engine, engine}, nullptr, reporter);
  // A prefix of the id, as a user types it.
  Result<BisectReport> report = runner.Run(WholeRangeRequest(31, confirmation.id.substr(0, 12)));
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_NE(reporter.lines.find("the move was confirmed by record " + confirmation.id),
            std::string::npos)
      << reporter.lines;
  ASSERT_FALSE(labels.empty());
  EXPECT_EQ(labels.front().rfind("measure ", 0), 0u) << labels.front();
  for (const std::string& label : labels) EXPECT_NE(label.rfind("confirm ", 0), 0u) << label;
  const BisectStepLog& first = report->state.log.front();
  EXPECT_EQ(first.kind, BisectStepKind::kConfirm);
  EXPECT_EQ(first.record_id, confirmation.id);
  EXPECT_EQ(first.pairs, static_cast<int>(KeptLogRatios(confirmation.samples).size()));
  // The whole range's part counts the adopted pairs too (they were once read after the move
  // that emptied them: unsequenced arguments).
  ASSERT_FALSE(report->state.segments.empty());
  EXPECT_EQ(report->state.segments.front().pairs, first.pairs);
  ASSERT_TRUE(report->found) << report->text;
  EXPECT_NE(report->text.find("CULPRIT " + SimulatedEngine::Id(world.first_bad())),
            std::string::npos)
      << report->text;
  std::filesystem::remove_all(dir);
}

// A record that is not a sitting of the bisect's endpoints cannot stand for their
// confirmation: the bisect says why and confirms in a sitting of its own.
TEST(BisectRunnerOnScriptedWorld, ARecordOfOtherCommitsIsNotAdoptedAndSaysWhy) {
  SimWorld world(Quiet({{1.0}}, 32), 32);
  SimulatedEngine engine(world);
  const std::filesystem::path dir = FreshTrialDir("adopt-other");
  const BisectSections config = SimulatedBisectConfig(dir);
  Record other = ArchiveSitting(engine, config, "good", "c" + std::to_string(world.first_bad()));
  LineRecorder reporter;
  BisectRunner runner(config, {engine, engine, engine}, nullptr, reporter);
  Result<BisectReport> report = runner.Run(WholeRangeRequest(32, other.id));
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_NE(
      reporter.lines.find("not using record " + other.id + " as the confirmation: it measured " +
                          SimulatedEngine::Id(world.first_bad()).substr(0, 10)),
      std::string::npos)
      << reporter.lines;
  EXPECT_NE(reporter.lines.find("confirming the move: good vs bad in one sitting"),
            std::string::npos)
      << reporter.lines;
  EXPECT_NE(report->state.log.front().record_id, other.id);
  std::filesystem::remove_all(dir);
}

// A record id that names nothing is a typing error: refused before any state is written, so
// the next `bisect run` is not told to resume or reset a bisect that never started.
TEST(BisectRunnerOnScriptedWorld, AConfirmationRecordThatDoesNotExistIsAUsageErrorAndNoState) {
  SimWorld world(Quiet({{1.0}}, 16), 33);
  SimulatedEngine engine(world);
  const std::filesystem::path dir = FreshTrialDir("adopt-missing");
  const BisectSections config = SimulatedBisectConfig(dir);
  LineRecorder reporter;
  BisectRunner runner(config, {engine, engine, engine}, nullptr, reporter);
  Result<BisectReport> report = runner.Run(WholeRangeRequest(33, "no-such-record"));
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().kind(), ErrorKind::kUsage) << report.error().message();
  EXPECT_NE(report.error().message().find("--confirmed-by"), std::string::npos)
      << report.error().message();
  EXPECT_FALSE(std::filesystem::exists(BisectStatePath(config)));
  std::filesystem::remove_all(dir);
}

// [bisect] max_total_pairs bounds the whole bisect, its recursion included. The same two-change
// world is bisected without a cap, then with a cap that the confirmation, the first search
// and its verification fit into but a check does not: the bisect measures no more than the
// cap, keeps the change it verified, calls it no first bad commit, and reports the parts it
// could not check as unplaced, with the cap as the reason.
TEST(BisectRunnerOnScriptedWorld, TheTotalPairCapStopsTheRecursionAndSaysSo) {
  auto bisect = [](const BisectConfig& config, const std::string& name) {
    SimWorld world(Quiet({{0.5}, {0.5}}), 12);
    SimulatedEngine engine(world);
    QuietReporter reporter;
    Result<BisectReport> report = RunSimulatedBisect(engine, TrialDir(name), 12, reporter, config);
    EXPECT_TRUE(report.ok()) << report.error().message();
    return report.ok() ? *report : BisectReport{};
  };
  auto measured = [](const BisectState& state) {
    int pairs = 0;
    for (const BisectStepLog& l : state.log) pairs += l.pairs;
    return pairs;
  };
  const BisectReport free = bisect(BisectConfig{}, "cap-free");
  ASSERT_TRUE(free.found) << free.text;
  int through_first_verification = 0;
  for (const BisectStepLog& l : free.state.log) {
    if (l.kind == BisectStepKind::kCheck) break;
    through_first_verification += l.pairs;
  }
  ASSERT_LT(through_first_verification, measured(free.state)) << "no check ran: " << free.text;

  BisectConfig capped;
  // Less than a check's first look (10) is left. Capped, the confirmation's looks run to the
  // cap instead of 640, and its first look comes at 10 pairs rather than 12
  // (StoppableLooks), and the verification's looks, planned from the search's fit of those
  // pairs (issue 27), move with them: 2 more than the uncapped prefix leaves fewer than 10
  // (6 more did before the looks were planned).
  capped.max_total_pairs = through_first_verification + 2;
  const BisectReport report = bisect(capped, "cap");
  ASSERT_TRUE(report.found) << report.text;
  EXPECT_LE(measured(report.state), capped.max_total_pairs) << report.text;
  for (const BisectStepLog& l : report.state.log)
    EXPECT_NE(l.kind, BisectStepKind::kCheck) << report.text;
  EXPECT_EQ(report.text.find("CULPRIT "), std::string::npos) << report.text;
  EXPECT_NE(report.text.find("UNPLACED: "), std::string::npos) << report.text;
  // A part left unchecked has no figures: nothing is printed that was not measured.
  EXPECT_EQ(report.text.find("0 pairs"), std::string::npos) << report.text;
  EXPECT_EQ(report.text.find("×1.000 [1.000, 1.000]"), std::string::npos) << report.text;
  EXPECT_NE(report.text.find("not checked: the bisect's pair budget ([bisect] max_total_pairs = " +
                             std::to_string(capped.max_total_pairs) + ") is spent"),
            std::string::npos)
      << report.text;
  EXPECT_NE(
      report.text.find("of [bisect] max_total_pairs = " + std::to_string(capped.max_total_pairs)),
      std::string::npos)
      << report.text;
}

TEST(BisectRunnerOnScriptedWorld, AKillDuringARecheckResumesIntoTheRecheckNotPastIt) {
  // The world of AFalseMoveInAPartIsRecheckedNotSearchedToItsBudget. A process killed
  // inside the re-check's sitting is stood for by a copy of the bisect's files taken at its
  // first pair; a fresh runner resumes the copy. The state holds no re-check yet, so the
  // resumed bisect measures it again before its search takes another step, and the part
  // ends with one.
  const WorldOptions options = NoisyCell();
  const uint64_t seed = TrialSeed(kFalseMoveTrialSeed, kFalseMoveTrial);
  const std::filesystem::path dir = TrialDir("kill-in-recheck");
  const std::filesystem::path copy = TrialDir("kill-in-recheck-copy");
  SimWorld world(options, seed);
  ScriptAFalseMoveBeforeTheChange(world);
  SimulatedEngine engine(world);
  class RecheckWatch : public BisectReporter {
   public:
    void Line(const std::string& text) override {
      if (text.starts_with("re-checking ")) rechecking = true;
    }
    bool rechecking = false;
  } watch;
  bool copied = false;
  engine.OnPair([&](int) {
    if (!watch.rechecking || copied) return;
    copied = true;
    std::filesystem::remove_all(copy);
    std::filesystem::copy(dir, copy, std::filesystem::copy_options::recursive);
  });
  Result<BisectReport> whole = RunSimulatedBisect(engine, dir, seed | 1, watch);
  ASSERT_TRUE(whole.ok()) << whole.error().message();
  ASSERT_TRUE(copied) << whole->text;

  Result<BisectState> killed = LoadBisectState(BisectStatePath(SimulatedBisectConfig(copy)));
  ASSERT_TRUE(killed.ok()) << killed.error().message();
  ASSERT_GT(killed->active_segment, 0);
  EXPECT_EQ(killed->segments[killed->active_segment].recheck, SegmentCheck::kNotMeasured);

  SimulatedEngine resumed_engine(world);
  LineRecorder lines;
  const BisectSections resumed_config =
      SimulatedBisectConfig(copy);  // the runner keeps a reference
  BisectRunner runner(resumed_config, {resumed_engine, resumed_engine, resumed_engine},
                      /*host=*/nullptr, lines);
  Result<BisectReport> resumed = runner.Resume();
  ASSERT_TRUE(resumed.ok()) << resumed.error().message();
  EXPECT_TRUE(resumed->found) << resumed->text;
  // The re-check comes first, before any step of the search.
  const size_t recheck = lines.lines.find("re-checking ");
  ASSERT_NE(recheck, std::string::npos) << lines.lines;
  EXPECT_EQ(lines.lines.substr(0, recheck).find(" measure "), std::string::npos) << lines.lines;
  const BisectSegment& part = resumed->state.segments[killed->active_segment];
  EXPECT_NE(part.recheck, SegmentCheck::kNotMeasured);
  EXPECT_FALSE(part.recheck_record.empty());
  std::filesystem::remove_all(copy);
}

TEST(BisectRunnerOnScriptedWorld, ARecheckWhoseRunsKeepFailingEndsThePartsSearchAndSaysSo) {
  // The world of AFalseMoveInAPartIsRecheckedNotSearchedToItsBudget, where from the
  // re-check on every run hangs. Runs that keep failing
  // are information, not the move found again: the part's search ends there, the part is
  // unplaced with the failure in its reason, and the change verified before stands.
  const WorldOptions options = NoisyCell();
  const uint64_t seed = TrialSeed(kFalseMoveTrialSeed, kFalseMoveTrial);
  SimWorld world(options, seed);
  ScriptAFalseMoveBeforeTheChange(world);
  SimulatedEngine engine(world);
  class Watch : public LineRecorder {
   public:
    explicit Watch(SimWorld& world) : world_(world) {}
    void Line(const std::string& text) override {
      LineRecorder::Line(text);
      if (text.starts_with("re-checking ")) world_.SetTimeoutRate(1.0, /*every_commit=*/true);
    }

   private:
    SimWorld& world_;
  } watch(world);
  Result<BisectReport> r = RunSimulatedBisect(engine, TrialDir("failing-recheck"), seed | 1, watch);
  ASSERT_TRUE(r.ok()) << r.error().message() << "\n" << watch.lines;
  ASSERT_NE(watch.lines.find("re-checking "), std::string::npos) << watch.lines;
  EXPECT_TRUE(r->found) << r->text;
  EXPECT_NE(r->text.find("CHANGE " + SimulatedEngine::Id(11)), std::string::npos) << r->text;
  int rechecked = 0;
  for (const BisectSegment& part : r->state.segments) {
    if (part.recheck == SegmentCheck::kNotMeasured) continue;
    ++rechecked;
    EXPECT_EQ(part.recheck, SegmentCheck::kUndecided);
    EXPECT_EQ(part.outcome, SegmentOutcome::kInconclusive);
    // No pair was measured: the check's figures are not said again as the re-check's.
    EXPECT_NE(part.reason.find("a re-check on fresh pairs measured nothing (0 pairs): its runs "
                               "kept failing: "),
              std::string::npos)
        << part.reason;
    EXPECT_EQ(part.reason.find("said x"), std::string::npos) << part.reason;
  }
  EXPECT_EQ(rechecked, 1) << r->text;
  EXPECT_NE(r->text.find("its runs kept failing"), std::string::npos) << r->text;
}

TEST(BisectRunnerOnScriptedWorld, APartThatMovesInItsTailIsUnplacedWithTheTableNotSearched) {
  // bisect-sim's "x2 in 15% then +30%" (3% noise, 100 commits), trial 3 of seed 1: the +30% is
  // named and verified, and the part before it, which holds the intermittent commit, checks
  // out an EFFECT of its mean with its pseudo-median inside the band. It is not searched (the
  // search spent 1,843 pairs a bisect there before): UNPLACED, with the table as its next
  // command instead of a sweep, which places shifts of the typical run as the search does.
  // (About 4 trials in 10 check out so; the others leave the part undecided, also UNPLACED.
  // Which trials do moves with every change to the runs each step draws: trial 1 did until the
  // confirmation spent on √t, trial 6 until the checks shared the verification's runs, and
  // trial 3 does now: `bisect-sim --scenario "x2 in 15% then" --trace 3`.)
  WorldOptions options;
  options.sigma = 0.03;
  options.changes = {{1.0, 0, 0.15}, {0.30}};
  const uint64_t seed = TrialSeed(1, 3);
  SimWorld world(options, seed);
  Result<RunnerTrialResult> r = RunRunnerTrial(world, TrialDir("tail-part"), seed | 1);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r->wrong.empty()) << r->wrong << "\n" << r->report;
  EXPECT_TRUE(r->partial) << r->report;
  EXPECT_NE(r->report.find("CHANGE " + SimulatedEngine::Id(world.change_commits()[1])),
            std::string::npos)
      << r->report;
  const size_t unplaced = r->report.find("UNPLACED: ");
  ASSERT_NE(unplaced, std::string::npos) << r->report;
  const std::string rest = r->report.substr(unplaced);
  EXPECT_NE(rest.find("its move is in the slow tail of its runs"), std::string::npos) << rest;
  EXPECT_NE(rest.find("\n  next: culprit table --rev " + SimulatedEngine::Id(0).substr(0, 10)),
            std::string::npos)
      << rest;
  EXPECT_EQ(rest.find("next: culprit sweep"), std::string::npos) << rest;
  // The +30%'s search alone: the part's search would have run to its budget.
  EXPECT_LT(r->search_pairs, 200) << r->report;
}

TEST(BisectRunnerOnScriptedWorld, AMoveInTheSlowTailIsNotSearchedAndSaysWhatPlacesIt) {
  // The only change makes runs twice as slow in 15% of them on a quiet host. Seed 31's
  // confirmation ties in the pairs' pseudo-median and moves in their mean: no shift of the
  // typical run for the search to place. In bisect-sim's 100-commit world the search spent
  // 3,813 pairs a bisect there and named the change in 17% (by chance: its posterior never
  // settles). It is not run: the report says why, and names the table that places the move.
  // A process killed after the state said so resumes to the same report, measuring nothing.
  SimWorld world(Quiet({{1.0, 0, 0.15}}, 32), 31);
  SimulatedEngine engine(world);
  const std::filesystem::path dir = TrialDir("tail-only");
  const std::filesystem::path copy = TrialDir("tail-only-copy");
  class Watch : public LineRecorder {
   public:
    void Line(const std::string& text) override {
      LineRecorder::Line(text);
      if (text.starts_with("not searching: ") && !copied) {
        copied = true;
        std::filesystem::remove_all(copy);
        std::filesystem::copy(dir, copy, std::filesystem::copy_options::recursive);
      }
    }
    std::filesystem::path dir, copy;
    bool copied = false;
  } watch;
  watch.dir = dir;
  watch.copy = copy;
  Result<BisectReport> whole = RunSimulatedBisect(engine, dir, 31, watch);
  ASSERT_TRUE(whole.ok()) << whole.error().message();
  ASSERT_TRUE(watch.copied) << watch.lines;
  EXPECT_FALSE(whole->found) << whole->text;
  const std::string good = SimulatedEngine::Id(0).substr(0, 10);
  const std::string bad = SimulatedEngine::Id(32).substr(0, 10);
  EXPECT_NE(whole->text.find("INCONCLUSIVE: its move is in the slow tail of its runs"),
            std::string::npos)
      << whole->text;
  EXPECT_NE(whole->text.find("their mean ratio "), std::string::npos) << whole->text;
  EXPECT_NE(whole->text.find("next: culprit table --rev " + good), std::string::npos)
      << whole->text;
  EXPECT_NE(whole->text.find("--rev " + bad + " -q q"), std::string::npos) << whole->text;
  // Nothing but the confirmation was measured: no step of a search, no build.
  for (const BisectStepLog& step : whole->state.log) {
    EXPECT_EQ(step.kind, BisectStepKind::kConfirm) << whole->text;
  }
  EXPECT_EQ(whole->state.segments.at(0).outcome, SegmentOutcome::kUnsearched);

  int pairs = 0;
  SimulatedEngine resumed_engine(world);
  resumed_engine.OnPair([&](int) { ++pairs; });
  LineRecorder lines;
  const BisectSections resumed_config = SimulatedBisectConfig(copy);  // the runner keeps it
  BisectRunner runner(resumed_config, {resumed_engine, resumed_engine, resumed_engine},
                      /*host=*/nullptr, lines);
  Result<BisectReport> resumed = runner.Resume();
  ASSERT_TRUE(resumed.ok()) << resumed.error().message();
  EXPECT_EQ(pairs, 0) << lines.lines;
  EXPECT_FALSE(resumed->found);
  EXPECT_NE(resumed->text.find("INCONCLUSIVE: its move is in the slow tail of its runs"),
            std::string::npos)
      << resumed->text;
  std::filesystem::remove_all(copy);
}

}  // namespace
}  // namespace culprit
