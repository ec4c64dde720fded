// The isolation sitting against a scripted harness: verdicts per condition,
// pairing by round, the multiple-condition correction, the reversibility
// rule, a broken engine and Ctrl-C, and the record.

#include "probes/isolation.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "base/interrupt.h"

namespace culprit {
namespace {

using Json = nlohmann::json;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A scripted engine: each run's value is value(held, visit) times a small
// log-normal noise; it checks that isolation never releases what is not held.
class FakeHarness : public HarnessSession {
 public:
  explicit FakeHarness(uint64_t seed = 1) : rng_(seed) {}

  std::function<double(const std::set<std::string>& held, int visit)> value =
      [](const std::set<std::string>&, int) { return 10.0; };
  double noise = 0.01;
  std::map<std::string, uint64_t> sizes;
  std::optional<int> fail_at_visit;  ///< This visit's run answers an error.
  std::function<void(int visit)> before_run;

  std::set<std::string> held;
  std::vector<std::set<std::string>> held_at_visit;
  std::vector<std::string> log;
  int visits = 0;
  bool quit = false;

  Result<HoldReply> Hold(const std::string& name) override {
    log.push_back("hold " + name);
    held.insert(name);
    HoldReply reply;
    if (sizes.count(name)) reply.bytes = sizes.at(name);
    return reply;
  }
  Status Release(const std::string& name) override {
    log.push_back("release " + name);
    if (held.erase(name) == 0) {
      return Error("'release " + name + "': the engine answered error: " + name + " is not held");
    }
    return {};
  }
  Result<std::vector<double>> Run(const std::string& query, int n) override {
    const int visit = visits++;
    log.push_back("run " + query);
    held_at_visit.push_back(held);
    if (before_run) before_run(visit);
    if (fail_at_visit && visit == *fail_at_visit) {
      return Error(fmt::format("'run {} {}': the engine answered error: boom", query, n));
    }
    std::normal_distribution<double> z(0, noise);
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(value(held, visit) * std::exp(z(rng_)));
    return out;
  }
  Status Quit() override {
    quit = true;
    return {};
  }

 private:
  std::mt19937_64 rng_;
};

ResidencyCondition Cond(std::string name, std::vector<std::string> hold = {},
                        std::vector<std::string> release = {}) {
  return ResidencyCondition{std::move(name), std::move(hold), std::move(release)};
}

IsolationPlan DemoPlan() {
  IsolationPlan plan;
  plan.name = "big index";
  plan.query = "scan";
  plan.conditions = {Cond("nothing held"), Cond("ballast held", {"ballast"}),
                     Cond("index held", {"index"}), Cond("index released", {"index"}, {"index"})};
  return plan;
}

IsolationOptions Options(uint64_t seed = 5) {
  IsolationOptions o;
  o.seed = seed;
  o.min_rounds = 10;
  o.max_rounds = 80;
  return o;
}

TEST(IsolationTest, ResidentStructureIsEffectOthersNullReleasedNull) {
  FakeHarness harness;
  harness.value = [](const std::set<std::string>& held, int) {
    return held.count("index") ? 20.0 : 10.0;
  };
  harness.sizes = {{"index", 64u << 20}, {"ballast", 64u << 20}};
  IsolationResult r = RunIsolationSitting(harness, DemoPlan(), nullptr, Options(), nullptr);
  ASSERT_FALSE(r.failure) << r.failure->message();
  ASSERT_EQ(r.conditions.size(), 4u);
  EXPECT_EQ(r.suspect, 2);
  ASSERT_TRUE(r.conditions[2].verdict);
  EXPECT_EQ(r.conditions[2].verdict->verdict, Verdict::kEffect);
  EXPECT_NEAR(std::exp(r.conditions[2].shift->estimate), 2.0, 0.05);
  EXPECT_EQ(r.conditions[1].verdict->verdict, Verdict::kNull);
  EXPECT_EQ(r.conditions[3].verdict->verdict, Verdict::kNull);
  EXPECT_EQ(r.reversibility.verdict, Reversibility::kReversible);
  EXPECT_EQ(r.conditions[2].bytes.at("index"), 64u << 20);
  EXPECT_TRUE(Contains(r.conclusion, "holding `index` (64.0 MiB) costs scan +")) << r.conclusion;
  EXPECT_TRUE(Contains(r.conclusion, "; `ballast` (64.0 MiB) ")) << r.conclusion;
  EXPECT_TRUE(Contains(r.conclusion, "released: tie")) << r.conclusion;
  EXPECT_TRUE(Contains(r.conclusion,
                       "→ a residency effect of `index` itself, not of memory held in general"))
      << r.conclusion;
  EXPECT_TRUE(harness.quit);
  // Every visit undid its holds: the baseline and the released condition ran with nothing held.
  EXPECT_TRUE(harness.held.empty());
  int empty_runs = 0, index_runs = 0;
  for (const auto& held : harness.held_at_visit) {
    empty_runs += held.empty();
    index_runs += held.count("index") > 0;
  }
  // One warm-up visit each, then per round a settling run and the measured run.
  EXPECT_EQ(index_runs, 1 + 2 * r.rounds_done);
  EXPECT_EQ(empty_runs, 2 * (1 + 2 * r.rounds_done));
}

// Records what a sitting reports as it goes.
class RecordingProgress : public SittingProgress {
 public:
  void OnProgress(int done, int target, std::optional<double> ratio) override {
    ratios.push_back(ratio);
  }
  void OnPhase(const std::string& phase) override {
    phases.push_back(phase);
    if (on_phase) on_phase(phase);
  }
  std::vector<std::optional<double>> ratios;
  std::vector<std::string> phases;
  std::function<void(const std::string&)> on_phase;
};

// Progress says what the sitting knows now, per condition: the suspect was
// decided at the first look (x1.5), the sitting went on for an undecided
// control, and the engine then got slower still (x2.5). Later looks and the
// progress ratio must show that, not repeat the first look's estimate.
TEST(IsolationTest, ProgressShowsEachConditionAsItStandsAtEachLook) {
  FakeHarness harness;
  bool first_look_seen = false;
  harness.value = [&](const std::set<std::string>& held, int) {
    if (held.count("index")) return first_look_seen ? 25.0 : 15.0;
    return held.count("ballast") ? 10.5 : 10.0;  // At the band's edge: undecided for long.
  };
  RecordingProgress progress;
  progress.on_phase = [&](const std::string& phase) {
    if (phase.starts_with("look at")) first_look_seen = true;
  };
  IsolationResult r = RunIsolationSitting(harness, DemoPlan(), nullptr, Options(), &progress);
  ASSERT_FALSE(r.failure) << r.failure->message();
  std::vector<std::string> looks;
  for (const std::string& phase : progress.phases) {
    if (phase.starts_with("look at")) looks.push_back(phase);
  }
  ASSERT_GE(looks.size(), 2u) << "the sitting stopped at its first look";
  // "NAME +12.3%" in a look's line, as a number.
  auto percent = [](const std::string& line, const std::string& name) {
    size_t at = line.find(name + " ");
    return at == std::string::npos ? NAN : std::stod(line.substr(at + name.size() + 1));
  };
  EXPECT_NEAR(percent(looks.front(), "index held"), 50, 5) << looks.front();
  EXPECT_TRUE(Contains(looks.front(), "% (effect)")) << looks.front();
  EXPECT_NEAR(percent(looks.front(), "ballast held"), 5, 3) << looks.front();
  EXPECT_NEAR(percent(looks.front(), "index released"), 0, 3) << looks.front();
  // Most rounds ran at x2.5 by the end: the estimate moved there.
  EXPECT_GT(percent(looks.back(), "index held"), 100) << looks.back();
  ASSERT_FALSE(progress.ratios.empty());
  ASSERT_TRUE(progress.ratios.back());
  EXPECT_GT(*progress.ratios.back(), 2.0);
}

TEST(IsolationTest, RoundsFollowTheBalancedDesign) {
  FakeHarness harness;
  IsolationResult r = RunIsolationSitting(harness, DemoPlan(), nullptr, Options(), nullptr);
  ASSERT_GT(r.rounds_done, 0);
  ASSERT_EQ(static_cast<int>(r.orders.size()), r.rounds_done);
  EXPECT_EQ(r.rounds_done % 4, 0);  // looks fall on whole blocks
  // The samples tag each value with its condition (arm) and round (pair), in design order.
  std::vector<int> visited;
  int last_pair = -2, last_arm = -1;
  for (const Sample& s : r.samples) {
    if (s.pair < 0) continue;
    if (s.pair != last_pair || s.arm != last_arm) visited.push_back(s.arm);
    last_pair = s.pair;
    last_arm = s.arm;
  }
  std::vector<int> expected;
  for (const auto& order : r.orders) expected.insert(expected.end(), order.begin(), order.end());
  EXPECT_EQ(visited, expected);
  // Warm-up visits (3 values), then per visit one settling value and 3 measured ones.
  EXPECT_EQ(r.samples.size(), static_cast<size_t>(4 * 3 + r.rounds_done * 4 * (1 + 3)));
}

TEST(IsolationTest, PairedByRound) {
  // The host's speed changes threefold from round to round; within a round it
  // holds. Paired by round, the 1.3x cost of the index still shows sharply.
  std::vector<double> speed;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 400; ++i) speed.push_back(1 + 2.0 * (rng() % 1000) / 1000.0);
  FakeHarness harness;
  harness.noise = 0.005;
  harness.value = [&](const std::set<std::string>& held, int visit) {
    // Four warm-up runs, then eight runs a round (a settling run and the measured one per visit).
    int round = (visit + 4) / 8;
    return speed[round] * (held.count("index") ? 13.0 : 10.0);
  };
  IsolationResult r = RunIsolationSitting(harness, DemoPlan(), nullptr, Options(), nullptr);
  ASSERT_TRUE(r.conditions[2].shift);
  EXPECT_EQ(r.conditions[2].verdict->verdict, Verdict::kEffect);
  EXPECT_NEAR(std::exp(r.conditions[2].shift->estimate), 1.3, 0.02);
  EXPECT_LT(r.conditions[2].shift->high - r.conditions[2].shift->low, 0.05);
  EXPECT_EQ(r.conditions[1].verdict->verdict, Verdict::kNull);

  // The pure pairing: round r's ratio uses round r's baseline, whatever the drift.
  std::vector<std::vector<double>> visits = {{10, 20, 5}, {100, 200, 50}, {1, 2, 0.5}};
  std::vector<double> d = PairedLogRatios(visits, 1, 3);
  ASSERT_EQ(d.size(), 3u);
  for (double v : d) EXPECT_NEAR(v, std::log(2.0), 1e-12);
  EXPECT_EQ(PairedLogRatios(visits, 2, 2).size(), 2u);
}

TEST(IsolationTest, AlphaIsSplitBetweenConditions) {
  EXPECT_NEAR(PerConditionAlpha(0.95, 4), 0.0125, 1e-12);
  EXPECT_NEAR(PerConditionAlpha(0.95, 1), 0.05, 1e-12);
  FakeHarness harness;
  harness.value = [](const std::set<std::string>& held, int) {
    return held.count("index") ? 20.0 : 10.0;
  };
  IsolationResult r = RunIsolationSitting(harness, DemoPlan(), nullptr, Options(), nullptr);
  EXPECT_NEAR(r.condition_alpha, 0.05 / 3, 1e-12);
  for (int c = 1; c < 4; ++c) {
    ASSERT_TRUE(r.conditions[c].shift);
    EXPECT_GT(r.conditions[c].nominal_confidence, 1 - 0.05 / 3);
    EXPECT_GE(r.conditions[c].shift->confidence, r.conditions[c].nominal_confidence);
  }
}

TEST(IsolationTest, FamilyWiseErrorRateStaysBelowAlpha) {
  // Pure noise, four conditions, a band so narrow that almost any interval
  // excluding zero is an EFFECT: uncorrected, about 1 - 0.95^4 = 19% of
  // sittings would call some condition an EFFECT. Split, at most 5%.
  IsolationPlan plan;
  plan.query = "q";
  plan.conditions = {Cond("base"), Cond("a", {"a"}), Cond("b", {"b"}), Cond("c", {"c"}),
                     Cond("d", {"d"})};
  int any_effect = 0, any_uncorrected = 0;
  const int sittings = 300;
  for (int i = 0; i < sittings; ++i) {
    FakeHarness harness(1000 + i);
    harness.noise = 0.05;
    IsolationOptions o = Options(77 + i);
    o.band = 0.0001;
    o.min_rounds = 20;
    o.max_rounds = 20;
    o.warmup = 0;
    o.runs_per_visit = 1;
    IsolationResult r = RunIsolationSitting(harness, plan, nullptr, o, nullptr);
    bool effect = false, uncorrected_effect = false;
    for (int c = 1; c < 5; ++c) {
      Result<ShiftEstimate> alone = SignedRankEstimate(r.conditions[c].log_ratios, 0.95);
      uncorrected_effect = uncorrected_effect || (alone && (alone->low > 0 || alone->high < 0));
      effect = effect ||
               (r.conditions[c].verdict && r.conditions[c].verdict->verdict == Verdict::kEffect);
    }
    any_effect += effect;
    any_uncorrected += uncorrected_effect;
  }
  EXPECT_LE(any_effect, sittings * 8 / 100) << any_effect << " of " << sittings;
  // The same sittings at 95% per condition: the test can tell the difference.
  EXPECT_GE(any_uncorrected, sittings * 12 / 100) << any_uncorrected << " of " << sittings;
}

TEST(IsolationTest, ReversibilityRule) {
  IsolationPlan plan;
  plan.query = "scan";
  plan.conditions = {Cond("nothing held"), Cond("index held", {"index"}),
                     Cond("index released", {"index"}, {"index"})};
  // The rule itself, on outcomes.
  std::vector<ConditionOutcome> outcomes(3);
  outcomes[0].condition = plan.conditions[0];
  outcomes[1].condition = plan.conditions[1];
  outcomes[2].condition = plan.conditions[2];
  VerdictResult effect, null_verdict, inconclusive;
  effect.verdict = Verdict::kEffect;
  null_verdict.verdict = Verdict::kNull;
  inconclusive.verdict = Verdict::kInconclusive;
  outcomes[1].verdict = effect;
  outcomes[2].verdict = effect;
  ShiftEstimate shift;
  shift.estimate = std::log(1.25);
  shift.low = std::log(1.2);
  shift.high = std::log(1.3);
  outcomes[2].shift = shift;
  ReversibilityResult rev = JudgeReversibility(outcomes, 1);
  EXPECT_EQ(rev.verdict, Reversibility::kNotReversible);
  EXPECT_EQ(rev.condition, 2);
  EXPECT_TRUE(
      Contains(rev.sentence, "the cost stays after release: damage or a leak, not residency"))
      << rev.sentence;
  outcomes[2].verdict = null_verdict;
  EXPECT_EQ(JudgeReversibility(outcomes, 1).verdict, Reversibility::kReversible);
  EXPECT_TRUE(Contains(JudgeReversibility(outcomes, 1).sentence, "a residency effect, not damage"));
  outcomes[2].verdict = inconclusive;
  EXPECT_EQ(JudgeReversibility(outcomes, 1).verdict, Reversibility::kUndecided);
  outcomes.pop_back();
  EXPECT_EQ(JudgeReversibility(outcomes, 1).verdict, Reversibility::kNotTested);
}

TEST(IsolationTest, LeakAfterReleaseIsSaidInTheConclusion) {
  // Holding then releasing leaves a cost (say, fragmented memory), holding does too.
  FakeHarness harness;
  IsolationPlan plan = DemoPlan();
  // The released condition is slow: the engine "leaks" during its visit.
  bool in_release_visit = false;
  harness.before_run = [&](int) {
    // The last thing before this run (and its settling run) was a release.
    in_release_visit = false;
    for (size_t i = harness.log.size(); i-- > 0;) {
      if (harness.log[i].rfind("run ", 0) == 0) continue;
      in_release_visit = harness.log[i] == "release index";
      break;
    }
  };
  harness.value = [&](const std::set<std::string>& held, int) {
    if (held.count("index")) return 20.0;
    return in_release_visit ? 19.0 : 10.0;
  };
  IsolationResult r = RunIsolationSitting(harness, plan, nullptr, Options(), nullptr);
  EXPECT_EQ(r.conditions[3].verdict->verdict, Verdict::kEffect);
  EXPECT_EQ(r.reversibility.verdict, Reversibility::kNotReversible);
  EXPECT_TRUE(
      Contains(r.conclusion, "→ the cost stays after release: damage or a leak, not residency"))
      << r.conclusion;
}

TEST(IsolationTest, ControlsThatCostTooMeanMemoryInGeneral) {
  FakeHarness harness;
  harness.value = [](const std::set<std::string>& held, int) { return held.empty() ? 10.0 : 15.0; };
  IsolationResult r = RunIsolationSitting(harness, DemoPlan(), nullptr, Options(), nullptr);
  EXPECT_EQ(r.conditions[1].verdict->verdict, Verdict::kEffect);
  EXPECT_TRUE(Contains(r.conclusion, "memory held in general, not `index` alone")) << r.conclusion;
}

TEST(IsolationTest, SuspectIsWhatAConditionReleases) {
  EXPECT_EQ(SuspectCondition(DemoPlan().conditions), 2);
  std::vector<ResidencyCondition> no_release = {Cond("base"), Cond("a", {"a"}), Cond("b", {"b"})};
  EXPECT_EQ(SuspectCondition(no_release), 2);
  EXPECT_EQ(SuspectCondition({Cond("base")}), -1);
}

TEST(IsolationTest, BrokenEngineGivesPartialResultWithoutVerdict) {
  FakeHarness harness;
  harness.fail_at_visit = 4 + 8 + 5;  // after the warm-up, in round 1
  IsolationPlan plan = DemoPlan();
  IsolationResult r = RunIsolationSitting(harness, plan, nullptr, Options(), nullptr);
  ASSERT_TRUE(r.failure);
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(r.rounds_done, 1);
  EXPECT_TRUE(Contains(r.failure->message(), "condition '")) << r.failure->message();
  EXPECT_TRUE(Contains(r.failure->message(), "'run scan 3'")) << r.failure->message();
  EXPECT_TRUE(Contains(r.failure->message(), "boom")) << r.failure->message();
  EXPECT_EQ(r.failed_command, "run scan 3");
  for (const ConditionOutcome& c : r.conditions) EXPECT_FALSE(c.verdict);
  EXPECT_TRUE(Contains(r.conclusion, "no conclusion"));

  Record record = MakeIsolationRecord(plan, Options(), r, IsolationProvenance{}, {});
  EXPECT_EQ(record.kind, RecordKind::kIsolate);
  EXPECT_EQ(record.verdict, Verdict::kError);
  EXPECT_EQ(record.details.at("partial"), "true");
  EXPECT_FALSE(record.estimate);
  ASSERT_FALSE(record.samples.empty());
  EXPECT_FALSE(record.samples.back().ok);
  EXPECT_TRUE(record.samples.back().dropped);  // its round never completed
  Json payload = Json::parse(record.details_json);
  EXPECT_TRUE(payload["partial"].get<bool>());
}

TEST(IsolationTest, InterruptStopsWithoutVerdict) {
  FakeHarness harness;
  harness.before_run = [](int visit) {
    if (visit == 4 + 8 * 5 + 2) SetInterruptRequested(true);
  };
  IsolationResult r = RunIsolationSitting(harness, DemoPlan(), nullptr, Options(), nullptr);
  SetInterruptRequested(false);
  EXPECT_TRUE(r.interrupted);
  EXPECT_FALSE(r.failure);
  EXPECT_EQ(r.rounds_done, 5);
  for (int c = 1; c < 4; ++c) {
    ASSERT_TRUE(r.conditions[c].verdict);
    EXPECT_EQ(r.conditions[c].verdict->verdict, Verdict::kInconclusive);
  }
  EXPECT_TRUE(harness.quit);
}

TEST(IsolationTest, RecordHoldsTheDesignAndEveryVerdict) {
  FakeHarness harness;
  harness.value = [](const std::set<std::string>& held, int) {
    return held.count("index") ? 20.0 : 10.0;
  };
  harness.sizes = {{"index", 1000}};
  IsolationPlan plan = DemoPlan();
  IsolationResult r = RunIsolationSitting(harness, plan, nullptr, Options(), nullptr);
  IsolationProvenance provenance;
  provenance.revision = "v1";
  provenance.commit = "abc";
  provenance.command = {"engine", "serve"};
  Record record = MakeIsolationRecord(plan, Options(), r, provenance, {});
  record.id = "test-record";
  record.time = "2025-01-01T00:00:00Z";
  EXPECT_EQ(record.verdict, Verdict::kEffect);
  ASSERT_TRUE(record.estimate);
  EXPECT_NEAR(record.estimate->ratio, 2.0, 0.05);
  ASSERT_EQ(record.arms.size(), 4u);
  EXPECT_EQ(record.arms[2].condition, "index held");
  EXPECT_EQ(record.arms[2].command, provenance.command);
  EXPECT_NEAR(record.arms[2].median / record.arms[0].median, 2.0, 0.05);
  EXPECT_EQ(record.details.at("reversibility"), "reversible");
  EXPECT_EQ(record.details.at("correction"), "bonferroni");
  Json payload = Json::parse(record.details_json);
  EXPECT_EQ(payload["design"]["orders"].size(), static_cast<size_t>(r.rounds_done));
  EXPECT_EQ(payload["conditions"][2]["verdict"], "EFFECT");
  EXPECT_EQ(payload["conditions"][1]["verdict"], "NULL");
  EXPECT_EQ(payload["conditions"][2]["bytes"]["index"], 1000);
  EXPECT_EQ(payload["reversibility"]["verdict"], "reversible");
  EXPECT_EQ(payload["suspect"], 2);
  // It survives the archive's JSON round trip.
  Result<Record> back = RecordFromJson(RecordToJson(record), "test");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->samples, record.samples);
  EXPECT_EQ(back->details, record.details);
}

}  // namespace
}  // namespace culprit
