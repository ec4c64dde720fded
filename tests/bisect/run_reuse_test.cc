// RunReuse (bisect/run_reuse.h) on scripted runs: kept runs stand in for an arm's first
// measured runs and never for warm-ups; a failed run or runs that spread close a commit to
// re-use; a step never takes its own runs or one run twice; what is kept survives JSON.

#include "bisect/run_reuse.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace culprit {
namespace {

// Arm 0 gives 1000, 1000, ...; arm 1 gives 1040, ...; `fail_arm` fails every run of that arm.
class Counted : public SampleSource {
 public:
  SampleOutcome Run(int arm) override {
    ++runs[arm];
    SampleOutcome o;
    o.ok = arm != fail_arm;
    o.value = (arm == 0 ? 1000 : 1040) * (1 + spread * runs[arm]);
    if (!o.ok) o.failure = "crashed";
    return o;
  }
  int runs[2] = {0, 0};
  int fail_arm = -1;
  double spread = 0;
};

// One batch through `source`: `warmup` warm-ups per arm, then `pairs` pairs (A then B), its
// samples as a sitting numbers them.
std::vector<Sample> Take(SampleSource& source, int warmup, int pairs) {
  std::vector<Sample> samples;
  for (int i = 0; i < warmup; ++i) {
    for (int arm : {0, 1}) {
      samples.push_back(SampleFrom(source.Run(arm), static_cast<int>(samples.size()), arm, -1,
                                   /*warmup=*/true));
    }
  }
  for (int p = 0; p < pairs; ++p) {
    for (int arm : {0, 1}) {
      samples.push_back(
          SampleFrom(source.Run(arm), static_cast<int>(samples.size()), arm, p, false));
    }
  }
  return samples;
}

const std::string kGood = "good", kC1 = "c1", kC2 = "c2";

// A sitting of good against c1 (step 1), 4 pairs, kept.
RunReuse Confirmed(Counted& inner) {
  RunReuse reuse;
  reuse.Enable(true);
  auto source = reuse.Wrap(inner, kGood, kC1, 1, 3, /*in_step=*/false);
  std::vector<Sample> samples = Take(*source, 1, 4);
  EXPECT_TRUE(reuse.Settle(*source, kGood, kC1, samples, true, 1).empty());
  return reuse;
}

TEST(RunReuse, KeptRunsStandInForMeasuredRunsNeverForWarmUps) {
  Counted inner;
  RunReuse reuse = Confirmed(inner);
  EXPECT_EQ(reuse.KeptRuns(kGood), 4);
  EXPECT_EQ(inner.runs[0], 5);  // 1 warm-up + 4
  // A search batch of good against c2: the good end's warm-up runs, its 2 measured runs are
  // the confirmation's.
  auto source = reuse.Wrap(inner, kGood, kC2, 1, 3, /*in_step=*/true);
  std::vector<Sample> samples = Take(*source, 1, 2);
  EXPECT_EQ(inner.runs[0], 6);
  EXPECT_EQ(inner.runs[1], 5 + 1 + 2);
  const Reuse used = reuse.Settle(*source, kGood, kC2, samples, true, 0);
  ASSERT_EQ(used.runs.size(), 1u);
  EXPECT_EQ(used.runs[0], (ReusedRuns{0, kGood, 1, 2}));
  EXPECT_EQ(used.samples, (std::vector<int>{2, 4}));
  EXPECT_EQ(samples[2].value, 1000);
  reuse.AddToStep(used, 0);
  const Reuse step = reuse.EndStep(2);
  EXPECT_EQ(step.RunsOf(0), 2);
  EXPECT_EQ(DescribeReuse(step), "A good: 2 runs of step 1");
  EXPECT_EQ(reuse.KeptRuns(kC2), 2);
}

TEST(RunReuse, AStepNeverTakesItsOwnRunsNorOneRunTwice) {
  Counted inner;
  RunReuse reuse = Confirmed(inner);
  // Two batches of one step of c1 against good: the first takes the 4 kept runs of each; the
  // second has none left to take and runs its own.
  for (int batch = 0; batch < 2; ++batch) {
    const int before[2] = {inner.runs[0], inner.runs[1]};
    auto source = reuse.Wrap(inner, kGood, kC1, 0, 3, /*in_step=*/true);
    std::vector<Sample> samples = Take(*source, 0, 4);
    const Reuse used = reuse.Settle(*source, kGood, kC1, samples, true, 0);
    if (batch == 0) {
      EXPECT_EQ(used.RunsOf(0), 4);
      EXPECT_EQ(used.RunsOf(1), 4);
      EXPECT_EQ(inner.runs[0], before[0]);
    } else {
      EXPECT_TRUE(used.empty());
      EXPECT_EQ(inner.runs[0], before[0] + 4);
      EXPECT_EQ(inner.runs[1], before[1] + 4);
    }
  }
  // The next step may take them again.
  reuse.EndStep(2);
  auto source = reuse.Wrap(inner, kGood, kC1, 0, 3, /*in_step=*/true);
  std::vector<Sample> samples = Take(*source, 0, 2);
  EXPECT_EQ(reuse.Settle(*source, kGood, kC1, samples, true, 0).RunsOf(0), 2);
}

TEST(RunReuse, AFailedRunClosesItsCommit) {
  Counted inner;
  RunReuse reuse = Confirmed(inner);
  // c2 against good: c2's 2 runs kept, good's served.
  auto source = reuse.Wrap(inner, kC2, kGood, 0, 3, /*in_step=*/false);
  std::vector<Sample> samples = Take(*source, 0, 2);
  reuse.Settle(*source, kC2, kGood, samples, true, 2);
  EXPECT_EQ(reuse.KeptRuns(kC2), 2);
  // c2 against c1: c2's 2 kept runs are served, its third really runs and fails.
  inner.fail_arm = 0;
  auto failing = reuse.Wrap(inner, kC2, kC1, 0, 3, /*in_step=*/false);
  samples = Take(*failing, 0, 3);
  reuse.Settle(*failing, kC2, kC1, samples, false, 3);
  EXPECT_EQ(reuse.KeptRuns(kC2), 0);
  // From then on c2 runs fresh.
  inner.fail_arm = -1;
  auto after = reuse.Wrap(inner, kC2, kC1, 0, 3, /*in_step=*/false);
  samples = Take(*after, 0, 2);
  const Reuse used = reuse.Settle(*after, kC2, kC1, samples, true, 4);
  EXPECT_EQ(used.RunsOf(0), 0);
  EXPECT_EQ(used.RunsOf(1), 2);
}

TEST(RunReuse, RunsThatSpreadAreNeverReused) {
  Counted inner;
  inner.spread = 0.002;  // each run 0.2% above the last: beyond the rule's 0.1%
  RunReuse reuse = Confirmed(inner);
  EXPECT_EQ(reuse.KeptRuns(kGood), 0);
  auto source = reuse.Wrap(inner, kGood, kC2, 0, 3, /*in_step=*/false);
  std::vector<Sample> samples = Take(*source, 0, 2);
  EXPECT_TRUE(reuse.Settle(*source, kGood, kC2, samples, true, 2).empty());
}

TEST(RunReuse, OffItKeepsAndServesNothing) {
  Counted inner;
  RunReuse reuse;
  for (int step = 1; step <= 2; ++step) {
    auto source = reuse.Wrap(inner, kGood, kC1, 0, 3, /*in_step=*/false);
    std::vector<Sample> samples = Take(*source, 0, 4);
    EXPECT_TRUE(reuse.Settle(*source, kGood, kC1, samples, true, step).empty());
  }
  EXPECT_EQ(inner.runs[0], 8);
  EXPECT_EQ(reuse.ToJson(), "");
}

TEST(RunReuse, WhatIsKeptSurvivesJson) {
  Counted inner;
  RunReuse reuse = Confirmed(inner);
  auto source = reuse.Wrap(inner, kGood, kC2, 0, 3, /*in_step=*/true);
  std::vector<Sample> samples = Take(*source, 0, 2);
  reuse.AddToStep(reuse.Settle(*source, kGood, kC2, samples, true, 0), 0);
  Result<RunReuse> back = RunReuse::FromJson(reuse.ToJson());
  ASSERT_TRUE(back.ok()) << back.error().message();
  back->Enable(true);
  EXPECT_EQ(back->KeptRuns(kGood), 4);
  EXPECT_EQ(back->KeptRuns(kC2), 2);
  EXPECT_EQ(back->StepReuse().RunsOf(0), 2);
  // The step in flight continues: its own runs of c2 are not served to it.
  auto next = back->Wrap(inner, kGood, kC2, 0, 3, /*in_step=*/true);
  const int c2_runs = inner.runs[1];
  samples = Take(*next, 0, 2);
  EXPECT_EQ(inner.runs[1], c2_runs + 2);
  EXPECT_EQ(back->EndStep(5).RunsOf(0), 2);
  EXPECT_FALSE(RunReuse::FromJson("{\"kept\": 3}").ok());
}

}  // namespace
}  // namespace culprit
