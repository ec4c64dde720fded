// What an investigation says of the explains it runs after its bisect (pure): the one line of
// an explained change (the functions that moved most, the "impossible" culprit's
// fingerprint), of one not run or failed, in the conclusion and the record (linked, never
// turning the verdict), and the state that keeps them across --resume.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "investigate/investigation_report.h"

namespace culprit {
namespace {

ExplainFunctionFacts Fn(std::string name, std::string file, uint64_t parent, uint64_t change,
                        FunctionPlace place) {
  ExplainFunctionFacts fn;
  fn.function = std::move(name);
  fn.file = std::move(file);
  fn.first_line = 4;
  fn.parent_instructions = parent;
  fn.change_instructions = change;
  fn.place = place;
  return fn;
}

// 10,000,000 instructions at the parent: the floor is 10,000.
ExplainFacts Facts(std::vector<ExplainFunctionFacts> functions, uint64_t change_total) {
  ExplainFacts f;
  f.query = "scan";
  f.parent = "0123456789abcdef";
  f.change = "fedcba9876543210";
  f.parent_instructions = 10'000'000;
  f.change_instructions = change_total;
  f.functions = std::move(functions);
  return f;
}

TEST(InvestigationExplainTest, DetailNamesTheFunctionsThatMovedBeyondTheFloor) {
  ExplainFacts f =
      Facts({Fn("Hash", "hash.c", 1'000'000, 2'000'000, FunctionPlace::kTouched),
             Fn("memcpy", "???", 100'000, 150'000, FunctionPlace::kElsewhere),
             Fn("Scan", "scan.c", 500'000, 520'000, FunctionPlace::kOnPath),
             Fn("Tiny", "main.c", 100, 9'000, FunctionPlace::kOnPath)},  // within the floor
            11'070'000);
  EXPECT_EQ(ExplainDetail(f),
            "instructions +10.7%; moved most: Hash in hash.c:4 +1,000,000 (+100.0%), touched by "
            "the change; memcpy +50,000 (+50.0%); Scan in scan.c:4 +20,000 (+4.0%), on the "
            "query's path, untouched");
}

TEST(InvestigationExplainTest, DetailSaysTheImpossibleCulpritsFingerprint) {
  ExplainFacts f =
      Facts({Fn("Scan", "scan.c", 1'000'000, 3'000'000, FunctionPlace::kOnPath)}, 12'000'000);
  const std::string detail = ExplainDetail(f);
  EXPECT_NE(detail.find("moved most: Scan in scan.c:4 +2,000,000 (+200.0%), on the query's path, "
                        "untouched; the function that moved most is on the query's path in a "
                        "file the change did not touch: the \"impossible\" culprit's fingerprint"),
            std::string::npos)
      << detail;
}

TEST(InvestigationExplainTest, DetailSaysWhenNothingMovedBeyondTheFloor) {
  ExplainFacts f =
      Facts({Fn("Scan", "scan.c", 1'000'000, 1'005'000, FunctionPlace::kOnPath)}, 10'008'000);
  EXPECT_EQ(ExplainDetail(f),
            "instructions +0.1%; no function moved by more than the run-to-run floor (0.1% of "
            "the parent's instructions): the change did not move the query's work, function "
            "by function");
}

InvestigationExplain Explain(InvestigationExplain::Status status, std::string commit,
                             std::string detail, std::string record = "") {
  InvestigationExplain e;
  e.status = status;
  e.commit = std::move(commit);
  e.parent = "beef";
  e.detail = std::move(detail);
  e.record_id = std::move(record);
  return e;
}

TEST(InvestigationExplainTest, LinesSayWhatWasNotRunOrFailed) {
  EXPECT_EQ(InvestigationExplainLine(Explain(InvestigationExplain::Status::kNotRun,
                                             "0123456789abcdef", "valgrind not found")),
            "explain of 0123456789: not run: valgrind not found");
  EXPECT_EQ(InvestigationExplainLine(
                Explain(InvestigationExplain::Status::kFailed, "0123456789abcdef", "it broke")),
            "explain of 0123456789 failed: it broke");
  EXPECT_EQ(InvestigationExplainLine(Explain(InvestigationExplain::Status::kExplained,
                                             "0123456789abcdef", "instructions +1.0%")),
            "explain of 0123456789: instructions +1.0%");
}

// A ladder that bisected to a culprit and a later change: one explained, one failed. The
// record links the explain record and names both; the verdict is the confirmation's.
InvestigationState TwoExplains() {
  InvestigationState s;
  s.run_id = "run-1";
  s.request.good = "v1";
  s.request.bad = "v2";
  s.request.query = "scan";
  InvestigationStepRecord confirm;
  confirm.name = "confirm";
  confirm.record_id = "r1";
  confirm.verdict = Verdict::kEffect;
  confirm.ratio = 1.5;
  confirm.sentence = "confirmed: it moved";
  s.confirm = confirm;
  s.bisect_done = true;
  s.bisect_record = "r4";
  s.bisect_found = true;
  s.culprit = "0123456789abcdef";
  s.culprit_subject = "Scan twice";
  s.later_changes = {{"cafe0123456789", "cafe00"}};
  s.explain_done = true;
  s.explains = {Explain(InvestigationExplain::Status::kExplained, "0123456789abcdef",
                        "instructions +50.0%; moved most: Scan", "r7"),
                Explain(InvestigationExplain::Status::kFailed, "cafe0123456789",
                        "query 'scan' at cafe012345 failed under valgrind")};
  s.relevance = CulpritRelevance::kOnPath;
  s.relevance_detail = "it changes code scan runs: scan.c";
  s.outcome = LadderOutcome::kOnPath;
  return s;
}

TEST(InvestigationExplainTest, TheConclusionAndTheRecordCarryEachExplain) {
  InvestigationState s = TwoExplains();
  s.conclusion = InvestigationConclusion(s, {});
  EXPECT_NE(s.conclusion.find("verified against its parent. Explain of 0123456789: instructions "
                              "+50.0%; moved most: Scan. Explain of cafe012345 failed: query "
                              "'scan' at cafe012345 failed under valgrind. It changes code"),
            std::string::npos)
      << s.conclusion;
  const std::vector<std::string> links = InvestigationLinks(s);
  EXPECT_EQ(links, (std::vector<std::string>{"r1", "r4", "r7"}));
  Record r = MakeInvestigationRecord(s, nullptr, "digest", std::nullopt);
  EXPECT_EQ(r.verdict, Verdict::kEffect);  // the confirmation's, whatever the explains did
  EXPECT_EQ(r.Detail("explain.0123456789"), "r7");
  EXPECT_EQ(r.Detail("explain.cafe012345"),
            "failed: query 'scan' at cafe012345 failed under valgrind");
  EXPECT_EQ(r.Detail("outcome"), "on path");
}

TEST(InvestigationExplainTest, TheStateKeepsTheExplainsAndTheOptOut) {
  InvestigationState s = TwoExplains();
  s.request.explain = false;
  s.explains[0].text = "explain scan: ...\nrecord r7.json\n";
  Result<InvestigationState> back =
      InvestigationStateFromJson(InvestigationStateToJson(s), "investigate.json");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_FALSE(back->request.explain);
  EXPECT_TRUE(back->explain_done);
  ASSERT_EQ(back->explains.size(), 2u);
  EXPECT_EQ(back->explains[0].status, InvestigationExplain::Status::kExplained);
  EXPECT_EQ(back->explains[0].record_id, "r7");
  EXPECT_EQ(back->explains[0].parent, "beef");
  EXPECT_EQ(back->explains[0].text, s.explains[0].text);
  EXPECT_EQ(back->explains[1].status, InvestigationExplain::Status::kFailed);
  EXPECT_EQ(back->explains[1].detail, s.explains[1].detail);

  // A state saved before the ladder explained: explain asked for, and a finished bisect is
  // not followed by explains on --resume.
  nlohmann::json old = nlohmann::json::parse(InvestigationStateToJson(s));
  old["request"].erase("explain");
  old.erase("explain_done");
  old.erase("explains");
  back = InvestigationStateFromJson(old.dump(), "investigate.json");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_TRUE(back->request.explain);
  EXPECT_TRUE(back->explain_done);
  EXPECT_TRUE(back->explains.empty());
}

}  // namespace
}  // namespace culprit
