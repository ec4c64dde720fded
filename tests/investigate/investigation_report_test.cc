// What an investigation says, from hand-built states: each step's sentence,
// the conclusion where the ladder ends, the records it links, and the
// `investigation` record of a ladder that ended or was interrupted. No I/O.

#include "investigate/investigation_report.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace culprit {
namespace {

InvestigateRequest Request() {
  InvestigateRequest r;
  r.good = "v1";
  r.bad = "v2";
  r.query = "scan";
  r.invocation = {"culprit", "investigate"};
  return r;
}

InvestigationStepRecord Step(std::string name, std::string id, Verdict verdict, double ratio,
                             double low, double high, std::string sentence = "") {
  InvestigationStepRecord s;
  s.name = std::move(name);
  s.record_id = std::move(id);
  s.verdict = verdict;
  s.ratio = ratio;
  s.low = low;
  s.high = high;
  s.sentence = std::move(sentence);
  return s;
}

// A ladder that confirmed, ruled out one override, bisected to a culprit off the path and
// isolated one plan on it.
InvestigationState Isolated() {
  InvestigationState s;
  s.run_id = "run-1";
  s.request = Request();
  s.confirm = Step("confirm", "r1", Verdict::kEffect, 1.5, 1.4, 1.6, "confirmed: it moved");
  s.probes = {Step("threads", "r2", Verdict::kNull, 1.0, 0.98, 1.02, "ruled out")};
  s.bisect_records = {"r3", "r1"};
  s.bisect_record = "r4";
  s.bisect_found = true;
  s.culprit = "0123456789abcdef";
  s.culprit_subject = "keep the index";
  s.relevance = CulpritRelevance::kOffPath;
  s.relevance_detail = "it touches nothing on scan's code path";
  s.isolations = {Step("idx on culprit", "r5", Verdict::kEffect, 1.4, 1.3, 1.5, "held costs")};
  s.partial_records = {"r6", "r5"};
  s.outcome = LadderOutcome::kIsolated;
  s.step_wall_ms = {{"confirm", 1200}, {"bisect", 3400}};
  return s;
}

TEST(InvestigationReportTest, RatioTextAndStepSentences) {
  InvestigationStepRecord step = Step("confirm", "r1", Verdict::kEffect, 1.5, 1.4, 1.6);
  EXPECT_EQ(InvestigationRatioText(step), "ratio 1.500 [1.400, 1.600]");
  EXPECT_EQ(ConfirmSentence(Request(), step),
            "confirmed: scan moved +50.0% between v1 and v2 in one sitting");
  step.verdict = Verdict::kNull;
  EXPECT_EQ(ConfirmSentence(Request(), step),
            "NOT REPRODUCIBLE: v1 and v2 tie on scan here (ratio 1.500 [1.400, 1.600]). Either "
            "the host drifted since the number was taken, or the move was never what it was "
            "said to be");
  step.verdict = Verdict::kInconclusive;
  step.low.reset();
  step.high.reset();
  EXPECT_EQ(ConfirmSentence(Request(), step),
            "NOT CONFIRMED: the move between v1 and v2 on scan is neither an EFFECT nor a tie "
            "within the pair budget (ratio 1.500 [1.500, 1.500], INCONCLUSIVE). More pairs "
            "(--max-pairs) or a quieter host could settle it; nothing was bisected on an "
            "unconfirmed move");
  step.ratio.reset();
  EXPECT_EQ(InvestigationRatioText(step), "no estimate");
  EXPECT_EQ(ProbeSentence(step),
            "not settled: neither ruled out nor supported within the pair budget (no estimate)");
  step = Step("threads", "r2", Verdict::kNull, 1.0, 0.98, 1.02);
  EXPECT_EQ(ProbeSentence(step),
            "ruled out: forcing it changes nothing measurable (ratio 1.000 [0.980, 1.020])");
  step.verdict = Verdict::kEffect;
  EXPECT_EQ(ProbeSentence(step), "supported: this knob moves it (ratio 1.000 [0.980, 1.020])");
}

TEST(InvestigationReportTest, AnUndecidedStepWhoseRunsCameInBurstsNamesTheHost) {
  SlowRunBursts bursts;
  bursts.slow[0] = 20;
  bursts.slow[1] = 21;
  bursts.runs[0] = bursts.runs[1] = 160;
  bursts.factor = 1.8;
  InvestigationStepRecord step =
      Step("parallel_gate", "r1", Verdict::kInconclusive, 1.007, 0.975, 1.048);
  EXPECT_EQ(ProbeSentence(step, bursts),
            "not settled: neither ruled out nor supported within the pair budget (ratio 1.007 "
            "[0.975, 1.048]); the host's noise came in bursts during it (41 of 320 runs far "
            "slower, x1.80, in both arms alike and bunched in time: its record's note), so a "
            "quieter host may settle it");
  EXPECT_NE(ConfirmSentence(Request(), step, bursts).find("(41 of 320 runs far slower"),
            std::string::npos);
  // A step that decided says what it decided, bursts or not: they did not hold it back.
  step.verdict = Verdict::kNull;
  EXPECT_EQ(ProbeSentence(step, bursts), ProbeSentence(step));
  step.verdict = Verdict::kEffect;
  EXPECT_EQ(ConfirmSentence(Request(), step, bursts), ConfirmSentence(Request(), step));
}

TEST(InvestigationReportTest, RelevanceDetailSaysWhatThePathIs) {
  Relevance found;
  found.on_path = {"src/scan.cc"};
  found.off_path = {"src/index.cc"};
  found.known = true;
  found.how_known = "globs src/scan/**";
  const std::vector<std::string> changed = {"src/scan.cc", "src/index.cc"};
  EXPECT_EQ(RelevanceDetail(CulpritRelevance::kOnPath, "scan", found, changed),
            "it changes code scan runs: src/scan.cc (code path: globs src/scan/**)");
  EXPECT_EQ(RelevanceDetail(CulpritRelevance::kOffPath, "scan", found, changed),
            "it touches nothing on scan's code path (globs src/scan/**): changed src/scan.cc, "
            "src/index.cc. A commit that cannot slow the query, unless something it keeps "
            "alive does");
  found.how_known = "not given";
  EXPECT_EQ(RelevanceDetail(CulpritRelevance::kUnknown, "scan", found, changed),
            "the code path of scan is not given, so whether the culprit changes code it runs "
            "is unknown; give code_path globs, \"auto\" (coverage) or a command to decide");
}

TEST(InvestigationReportTest, LinksEveryRecordOnceInLadderOrder) {
  EXPECT_EQ(InvestigationLinks(Isolated()),
            (std::vector<std::string>{"r1", "r2", "r3", "r4", "r5", "r6"}));
  EXPECT_TRUE(InvestigationLinks(InvestigationState{}).empty());
}

TEST(InvestigationReportTest, ConclusionFollowsWhereTheLadderEnded) {
  const std::map<std::string, ResidencyPlan> none;
  InvestigationState s = Isolated();
  EXPECT_EQ(InvestigationConclusion(s, none),
            "confirmed: it moved. Override threads: ruled out. The bisect names 0123456789 "
            "\"keep the index\", verified against its parent. It touches nothing on scan's code "
            "path. Isolation 'idx on culprit': held costs.");

  s.outcome = LadderOutcome::kNotReproducible;
  EXPECT_EQ(InvestigationConclusion(s, none), "confirmed: it moved.");

  s = Isolated();
  s.bisect_found = false;
  EXPECT_EQ(InvestigationConclusion(s, none),
            "confirmed: it moved. Override threads: ruled out. The bisect named no verified "
            "culprit (see its record r4), so the ladder stopped there.");

  s = Isolated();
  s.outcome = LadderOutcome::kOnPath;
  EXPECT_EQ(InvestigationConclusion(s, none),
            "confirmed: it moved. Override threads: ruled out. The bisect names 0123456789 "
            "\"keep the index\", verified against its parent. It touches nothing on scan's code "
            "path. The commit changes code the query runs: read those files' diff.");

  s.outcome = LadderOutcome::kNoPlan;
  std::map<std::string, ResidencyPlan> plans;
  plans["rollup"].query = "rollup.q";
  const std::string no_plan = InvestigationConclusion(s, plans);
  EXPECT_NE(no_plan.find(" No [residency] plan measures scan, so the ladder stops after the "
                         "relevance step without isolating anything (plans: 'rollup' on "
                         "rollup.q). Add a plan"),
            std::string::npos)
      << no_plan;
}

TEST(InvestigationReportTest, RecordOfALadderThatEnded) {
  InvestigationState s = Isolated();
  s.conclusion = "the conclusion";
  s.culprit = "c0ffee";
  HostState end;
  end.time = "2026-01-01T00:00:00Z";
  Record record = MakeInvestigationRecord(s, nullptr, "digest", end);
  EXPECT_EQ(record.kind, RecordKind::kInvestigation);
  EXPECT_EQ(record.query, "scan");
  EXPECT_EQ(record.config_digest, "digest");
  EXPECT_EQ(record.invocation, Request().invocation);
  EXPECT_EQ(record.links, InvestigationLinks(s));
  EXPECT_EQ(record.verdict, Verdict::kEffect);
  ASSERT_TRUE(record.estimate);
  EXPECT_DOUBLE_EQ(record.estimate->ratio, 1.5);
  EXPECT_DOUBLE_EQ(record.estimate->low, 1.4);
  EXPECT_EQ(record.verdict_detail, "the conclusion");
  EXPECT_EQ(record.details.at("investigation_run"), "run-1");
  EXPECT_EQ(record.details.at("good"), "v1");
  EXPECT_EQ(record.details.at("outcome"), "isolated");
  EXPECT_EQ(record.details.at("culprit_commit"), "c0ffee");
  EXPECT_EQ(record.details.at("relevance"), "off path");
  EXPECT_EQ(record.details.at("wall_ms.bisect"), "3400");
  EXPECT_EQ(record.end.time, end.time);
  EXPECT_FALSE(record.interrupted);

  // The confirmation's own record, when the store has it, gives the sitting's band, unit
  // and estimate (its method and confidence with it).
  Record confirm;
  confirm.band = 0.1;
  confirm.unit = "ms";
  Estimate e;
  e.ratio = 1.51;
  e.low = 1.41;
  e.high = 1.61;
  e.method = "paired";
  confirm.estimate = e;
  record = MakeInvestigationRecord(s, &confirm, "digest", std::nullopt);
  EXPECT_DOUBLE_EQ(record.band, 0.1);
  EXPECT_EQ(record.unit, "ms");
  EXPECT_EQ(record.estimate->method, "paired");
  EXPECT_DOUBLE_EQ(record.estimate->ratio, 1.51);
  EXPECT_TRUE(record.end.time.empty());

  // Before any confirmation (a state stopped at once): no verdict, no estimate, no relevance.
  InvestigationState bare;
  bare.request = Request();
  record = MakeInvestigationRecord(bare, &confirm, "digest", std::nullopt);
  EXPECT_FALSE(record.verdict);
  EXPECT_FALSE(record.estimate);
  EXPECT_EQ(record.details.count("relevance"), 0u);
  EXPECT_EQ(record.details.count("culprit_commit"), 0u);
}

TEST(InvestigationReportTest, RecordOfALadderInterruptedDuringAStep) {
  Record record = MakeInterruptedInvestigationRecord(Isolated(), InvestigationStep::kBisect,
                                                     "digest", std::nullopt);
  EXPECT_EQ(record.kind, RecordKind::kInvestigation);
  EXPECT_TRUE(record.interrupted);
  EXPECT_EQ(record.links, InvestigationLinks(Isolated()));
  EXPECT_EQ(record.details.at("interrupted_at"), "bisect");
  EXPECT_EQ(record.details.at("investigation_run"), "run-1");
  EXPECT_EQ(record.verdict_detail,
            "interrupted during the bisect step; the steps before it are done and archived; "
            "`culprit investigate --resume` continues without measuring them again");
}

}  // namespace
}  // namespace culprit
