// Known answers for what a bisect's result may claim: NOT REPRODUCIBLE only for
// a NULL confirmation, drift over 10% in a step said in the result.

#include "bisect/claims.h"

#include <gtest/gtest.h>

namespace culprit {
namespace {

UnconfirmedMove Move(Verdict verdict) {
  UnconfirmedMove m;
  m.good = "v1";
  m.bad = "v2";
  m.verdict = verdict;
  m.ratio = 1.04;
  m.low = 0.97;
  m.high = 1.12;
  m.confidence = 0.995;
  m.pairs = 40;
  m.detectable_ratio = 1.213;
  m.advice = "collect more pairs (--max-pairs 160)";
  return m;
}

TEST(BisectClaims, OnlyANullConfirmationIsNotReproducible) {
  UnconfirmedMove tie = Move(Verdict::kNull);
  tie.ratio = 1.01;
  tie.low = 0.99;
  tie.high = 1.03;
  std::string text = DescribeUnconfirmedMove(tie);
  EXPECT_EQ(text.rfind("NOT REPRODUCIBLE: the move between v1 and v2 is a tie here", 0), 0u)
      << text;
  EXPECT_NE(text.find("99.5% confidence over 40 pairs"), std::string::npos) << text;

  // Underpowered: INCONCLUSIVE, with the effect these pairs could have seen and what it
  // would take; never "not reproducible".
  text = DescribeUnconfirmedMove(Move(Verdict::kInconclusive));
  EXPECT_EQ(text.rfind("INCONCLUSIVE: the move between v1 and v2 was neither confirmed nor "
                       "ruled out",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("could have seen a move of ×1.213 or more"), std::string::npos) << text;
  EXPECT_NE(text.find("--max-pairs 160"), std::string::npos) << text;
  EXPECT_EQ(text.find("NOT REPRODUCIBLE"), std::string::npos) << text;
}

BisectStepLog Step(int step, bool calibrated, double drift) {
  BisectStepLog l;
  l.step = step;
  l.kind = BisectStepKind::kMeasure;
  l.commit = std::string(40, 'a' + step);
  l.calibrated = calibrated;
  l.drift = drift;
  return l;
}

TEST(BisectClaims, ADriftOverTenPercentInAStepIsReported) {
  std::vector<BisectStepLog> log = {Step(1, true, 0.02), Step(2, true, -0.09), Step(3, false, 0.5)};
  // Within 10% everywhere it was measured (an uncalibrated step has no drift to report).
  EXPECT_EQ(StepWithLargestDrift(log), -1);
  log.push_back(Step(4, true, -0.14));
  log.push_back(Step(5, true, 0.12));
  EXPECT_EQ(StepWithLargestDrift(log), 3);
  std::string text = DescribeDrift(log[3]);
  EXPECT_EQ(text.rfind("HOST DRIFT: the calibration loop ran -14.0% faster during step 4", 0), 0u)
      << text;
  EXPECT_EQ(StepWithLargestDrift(log, 0.15), -1);
}

TEST(BisectClaims, StepsWhoseRunsCameInBurstsAreNamedWithTheirCounts) {
  std::vector<BisectStepLog> log = {Step(1, true, 0.0), Step(2, true, 0.0), Step(3, true, 0.0)};
  EXPECT_EQ(DescribeBurstSteps(log), "");  // none had bursts: nothing said
  SlowRunBursts bursts;
  bursts.slow[0] = 24;
  bursts.slow[1] = 21;
  bursts.runs[0] = bursts.runs[1] = 160;
  bursts.factor = 1.71;
  log[1].kind = BisectStepKind::kCheck;
  log[1].bursts = bursts;
  log[2].bursts = bursts;
  EXPECT_EQ(DescribeBurstSteps(log),
            "HOST NOISE: the runs of step 2 (check of cccccccccc: 45 of 320 runs far slower, "
            "x1.71), step 3 (measure of dddddddddd: 45 of 320 runs far slower, x1.71) came in "
            "bursts, in both arms alike and bunched in time (each step's record says more): the "
            "host stalled some runs, which widens a sitting's mean and costs it pairs, since a "
            "tie must agree with the mean; re-run on a quiet host");
}

}  // namespace
}  // namespace culprit
