// The isolation's verdicts as pure functions of scripted visit values: a look,
// the last look, an interrupt, a broken engine, the ratio progress prints and
// the looks' schedule. No harness, no process.

#include "probes/isolation_verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace culprit {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

ResidencyCondition Cond(std::string name, std::vector<std::string> hold = {},
                        std::vector<std::string> release = {}) {
  return ResidencyCondition{std::move(name), std::move(hold), std::move(release)};
}

// A result of three conditions (baseline, "slow" at twice the baseline, "same"
// at the baseline) over `rounds` complete rounds, with a small deterministic
// wobble of +-0.5% so that the intervals have a width.
IsolationResult Scripted(int rounds) {
  IsolationResult r;
  for (const ResidencyCondition& c : {Cond("base"), Cond("slow", {"a"}), Cond("same", {"b"})}) {
    ConditionOutcome outcome;
    outcome.condition = c;
    r.conditions.push_back(outcome);
  }
  for (int i = 0; i < rounds; ++i) {
    const double wobble = 1 + 0.005 * ((i % 3) - 1);
    r.visit_values.push_back({10.0, 20.0 * wobble, 10.0 / wobble});
  }
  r.rounds_done = rounds;
  return r;
}

TEST(IsolationVerdictTest, ALookDecidesWhatItsIntervalSettles) {
  IsolationResult r = Scripted(12);
  std::vector<bool> decided = {true, false, false};
  EXPECT_EQ(DecideAtLook(r, 0.05, 0.05, decided), 2);
  EXPECT_EQ(decided, (std::vector<bool>{true, true, true}));
  ASSERT_TRUE(r.conditions[1].verdict);
  EXPECT_EQ(r.conditions[1].verdict->verdict, Verdict::kEffect);
  ASSERT_TRUE(r.conditions[2].verdict);
  EXPECT_EQ(r.conditions[2].verdict->verdict, Verdict::kNull);
  EXPECT_EQ(r.conditions[1].decided_at, 12);
  EXPECT_DOUBLE_EQ(r.conditions[1].nominal_confidence, 0.95);
  EXPECT_EQ(r.conditions[1].log_ratios.size(), 12u);
  EXPECT_NEAR(std::exp(r.conditions[1].shift->estimate), 2.0, 0.02);
  EXPECT_FALSE(r.conditions[0].verdict);  // the baseline is never compared with itself

  // A later look leaves what is decided as it was.
  r.visit_values.push_back({10.0, 10.0, 40.0});
  r.rounds_done = 13;
  EXPECT_EQ(DecideAtLook(r, 0.05, 0.05, decided), 0);
  EXPECT_EQ(r.conditions[2].decided_at, 12);
}

TEST(IsolationVerdictTest, AnIntervalTooWideForTheBandIsNotDecidedAtALook) {
  // Two rounds at 95% give no interval at all; the condition stays undecided.
  IsolationResult r = Scripted(2);
  std::vector<bool> decided = {true, false, false};
  EXPECT_EQ(DecideAtLook(r, 0.05, 0.05, decided), 0);
  EXPECT_FALSE(r.conditions[1].verdict);
  EXPECT_FALSE(decided[1]);
}

TEST(IsolationVerdictTest, TheLastLookDecidesFromTheLastIntervalOrSaysTooFewRounds) {
  IsolationResult r = Scripted(12);
  // "slow" has an interval no look decided; "same" never had one.
  r.conditions[1].shift = SignedRankEstimate(PairedLogRatios(r.visit_values, 1, 12), 0.95).value();
  DecideTheUndecided(r, 0.05);
  ASSERT_TRUE(r.conditions[1].verdict);
  EXPECT_EQ(r.conditions[1].verdict->verdict, Verdict::kEffect);
  ASSERT_TRUE(r.conditions[2].verdict);
  EXPECT_EQ(r.conditions[2].verdict->verdict, Verdict::kInconclusive);
  EXPECT_EQ(r.conditions[2].verdict->explanation,
            "only 12 rounds, too few for an interval at this confidence");
  EXPECT_FALSE(r.conditions[0].verdict);
}

TEST(IsolationVerdictTest, AnInterruptEstimatesWithoutAVerdict) {
  IsolationResult r = Scripted(5);
  EstimateWithoutVerdict(r, 0.2);
  for (int c = 1; c < 3; ++c) {
    ASSERT_TRUE(r.conditions[c].verdict);
    EXPECT_EQ(r.conditions[c].verdict->verdict, Verdict::kInconclusive);
    EXPECT_EQ(r.conditions[c].verdict->explanation,
              "interrupted after 5 rounds, before the sitting could decide");
    ASSERT_TRUE(r.conditions[c].shift);
    EXPECT_DOUBLE_EQ(r.conditions[c].nominal_confidence, 0.8);
    EXPECT_EQ(r.conditions[c].decided_at, 5);
  }
  EXPECT_EQ(r.notes, (std::vector<std::string>{"interrupted after 5 complete rounds; no verdict"}));

  // With one round there is nothing to estimate, and still no verdict.
  IsolationResult one = Scripted(1);
  EstimateWithoutVerdict(one, 0.2);
  EXPECT_FALSE(one.conditions[1].shift);
  EXPECT_EQ(one.conditions[1].verdict->verdict, Verdict::kInconclusive);
}

TEST(IsolationVerdictTest, ABrokenEngineLeavesNoVerdict) {
  IsolationResult r = Scripted(12);
  std::vector<bool> decided = {true, false, false};
  DecideAtLook(r, 0.05, 0.05, decided);
  DropVerdicts(r);
  for (const ConditionOutcome& c : r.conditions) {
    EXPECT_FALSE(c.verdict);
    EXPECT_FALSE(c.shift);
  }
  EXPECT_EQ(r.notes,
            (std::vector<std::string>{"partial: the engine broke after 12 complete rounds"}));
}

TEST(IsolationVerdictTest, RatioNowIsTheEstimateOverEveryCompleteRound) {
  IsolationResult r = Scripted(1);
  EXPECT_FALSE(RatioNow(r, 1));
  r.visit_values = {{10, 20, 10}, {12, 24, 12}, {8, 16, 8}, {1, 1, 1}};
  r.rounds_done = 3;  // the fourth round is not complete: not counted
  ASSERT_TRUE(RatioNow(r, 1));
  EXPECT_NEAR(*RatioNow(r, 1), 2.0, 1e-12);
  EXPECT_NEAR(*RatioNow(r, 2), 1.0, 1e-12);
}

TEST(IsolationVerdictTest, LooksOfTheBaselineAloneAndOfSeveralConditions) {
  IsolationOptions options;
  options.min_rounds = 10;
  options.max_rounds = 160;
  EXPECT_EQ(IsolationLooks(options, 1, PerConditionAlpha(0.95, 0)), std::vector<int>{10});
  options.min_rounds = 0;
  EXPECT_EQ(IsolationLooks(options, 1, PerConditionAlpha(0.95, 0)), std::vector<int>{1});

  options.min_rounds = 10;
  const std::vector<int> looks = IsolationLooks(options, 5, PerConditionAlpha(0.95, 4));
  ASSERT_FALSE(looks.empty());
  EXPECT_GE(looks.front(), 10);
  for (size_t i = 1; i < looks.size(); ++i) EXPECT_GT(looks[i], looks[i - 1]);
  // Every look ends a whole block of rounds: the design is balanced at each.
  for (int look : looks) EXPECT_EQ(look % 5, 0) << look;
}

TEST(IsolationVerdictTest, ReversibilitySentenceNamesTheReleasedOutcome) {
  std::vector<ConditionOutcome> outcomes(3);
  outcomes[0].condition = Cond("nothing held");
  outcomes[1].condition = Cond("index held", {"index"});
  outcomes[2].condition = Cond("index released", {"index"}, {"index"});
  ReversibilityResult rev = JudgeReversibility(outcomes, 1);
  EXPECT_EQ(rev.verdict, Reversibility::kUndecided);
  EXPECT_EQ(rev.sentence, "released: no verdict");
  VerdictResult inconclusive;
  inconclusive.verdict = Verdict::kInconclusive;
  outcomes[2].verdict = inconclusive;
  EXPECT_TRUE(Contains(JudgeReversibility(outcomes, 1).sentence,
                       "released: no estimate: reversibility undecided"))
      << JudgeReversibility(outcomes, 1).sentence;
}

}  // namespace
}  // namespace culprit
