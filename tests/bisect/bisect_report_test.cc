#include "bisect/bisect_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace culprit {
namespace {

// Five commits, good (0) to bad (4), with ids that show their index in their short form.
std::vector<std::string> Commits() {
  std::vector<std::string> commits;
  for (char c = '0'; c <= '4'; ++c) commits.push_back(std::string(10, c) + std::string(30, 'f'));
  return commits;
}

BisectStepLog Step(int step, BisectStepKind kind, int index, int pairs) {
  BisectStepLog log;
  log.step = step;
  log.kind = kind;
  log.index = index;
  log.commit = Commits()[index];
  log.pairs = pairs;
  log.ratio = 1.2;
  log.low = 1.1;
  log.high = 1.3;
  log.mass_at_or_before = 0.5;
  log.best_commit = Commits()[3];
  log.best_probability = 0.75;
  log.record_id = "rec-" + std::to_string(step);
  return log;
}

TEST(BisectReportText, StepRatioWithAndWithoutAnInterval) {
  BisectStepLog s = Step(1, BisectStepKind::kMeasure, 2, 4);
  EXPECT_EQ(StepRatioText(s), "1.200 [1.100, 1.300]");
  s.has_interval = false;
  EXPECT_EQ(StepRatioText(s), "1.200 (median, 4 pairs: no interval)");
}

TEST(BisectReportText, ChangedFilesListedThenCounted) {
  EXPECT_EQ(ChangedFilesText({"a.cc", "b.h"}), "a.cc, b.h");
  std::vector<std::string> files;
  for (int i = 0; i < 22; ++i) files.push_back("f" + std::to_string(i));
  const std::string text = ChangedFilesText(files);
  EXPECT_TRUE(text.starts_with("f0, f1, ")) << text;
  EXPECT_TRUE(text.ends_with(", f19 … and 2 more")) << text;
}

Record CompareRecord() {
  Record record;
  record.kind = RecordKind::kCompare;
  record.arms.resize(2);
  record.arms[0].commit = Commits()[0];
  record.arms[1].commit = Commits()[4];
  record.query = "scan";
  record.band = 0.05;
  record.verdict = Verdict::kEffect;
  record.estimate = Estimate{};
  return record;
}

TEST(BisectReportText, ConfirmationMismatchSaysWhy) {
  const std::vector<std::string> c = Commits();
  EXPECT_EQ(ConfirmationMismatch(CompareRecord(), c[0], c[4], "scan", 0.05), "");
  Record record = CompareRecord();
  record.arms[1].commit = c[3];
  EXPECT_EQ(ConfirmationMismatch(record, c[0], c[4], "scan", 0.05),
            "it measured 3333333333 against 0000000000, not the bisect's endpoints");
  record = CompareRecord();
  record.band = 0.02;
  EXPECT_EQ(ConfirmationMismatch(record, c[0], c[4], "scan", 0.05),
            "its band is ±2.0%, the bisect's ±5.0%");
  record = CompareRecord();
  record.verdict = Verdict::kNull;
  EXPECT_EQ(ConfirmationMismatch(record, c[0], c[4], "scan", 0.05),
            "its verdict is NULL, not EFFECT");
  EXPECT_EQ(ConfirmationMismatch(CompareRecord(), c[0], c[4], "other", 0.05),
            "it measured query 'scan'");
}

TEST(BisectReportText, CheckAndSkippedStepLines) {
  BisectSegment segment;
  segment.lo = 1;
  segment.hi = 4;
  segment.check = SegmentCheck::kTie;
  BisectStepLog log = Step(7, BisectStepKind::kCheck, 4, 30);
  EXPECT_EQ(CheckStepLine(log, segment, Commits(), Verdict::kNull),
            "step  7 check   4444444444 (#4 of 4)   30 pairs  ratio 1.200 [1.100, 1.300] "
            "against 1111111111 (#1): NULL (tie)");
  EXPECT_EQ(SkippedStepLine(Step(3, BisectStepKind::kMeasure, 2, 0),
                            "build failed: step compile\nerror: x.cc:3"),
            "step  3 2222222222 is unbuildable or unmeasurable: skipped (build failed: step "
            "compile)");
}

// A measured tie, or a ruling out of further moves, states its reach; an undecided part that
// ruled nothing out, a move, or a check not measured does not.
TEST(BisectReportText, ATieOrARuleOutSaysTheSlowTailItCouldHaveMissed) {
  const std::string reach =
      "a slow tail in 15% or more of the runs would have shown; a sparser one may not";
  BisectSegment segment;
  segment.check = SegmentCheck::kTie;
  EXPECT_EQ(SightingReachText(segment), "");  // Not measured: no sitting, no reach.
  segment.check_record = "2026-12-07T150000Z-bisect-step-q-0001";
  EXPECT_EQ(SightingReachText(segment), reach);
  for (SegmentCheck other :
       {SegmentCheck::kUndecided, SegmentCheck::kSame, SegmentCheck::kOpposite}) {
    segment.check = other;
    EXPECT_EQ(SightingReachText(segment), "");
  }
  segment.check = SegmentCheck::kUndecided;
  segment.ruled_out = true;
  EXPECT_EQ(SightingReachText(segment), reach);
}

// A check whose runs timed out says how many beside its verdict and its rule-out: the tie or
// the rule-out read them as censored, and a reader of the line should see them.
TEST(BisectReportText, ACheckLineSaysHowManyRunsGaveNoNumber) {
  BisectSegment segment;
  segment.lo = 1;
  segment.hi = 4;
  segment.check = SegmentCheck::kTie;
  BisectStepLog log = Step(7, BisectStepKind::kCheck, 4, 30);
  // Every run gave a number: the line ends at the check's class, as it always did.
  segment.check_failures.runs[0] = segment.check_failures.runs[1] = 30;
  EXPECT_EQ(CheckFailuresText(segment.check_failures, "1111111111", "4444444444"), "");
  EXPECT_EQ(CheckStepLine(log, segment, Commits(), Verdict::kNull),
            "step  7 check   4444444444 (#4 of 4)   30 pairs  ratio 1.200 [1.100, 1.300] "
            "against 1111111111 (#1): NULL (tie)");
  FailureComparison& failures = segment.check_failures;
  failures.timed_out[1] = 8;
  failures.failed[1] = 1;
  failures.timed_out[0] = 7;
  failures.p_value = 0.77;
  EXPECT_EQ(CheckStepLine(log, segment, Commits(), Verdict::kNull),
            "step  7 check   4444444444 (#4 of 4)   30 pairs  ratio 1.200 [1.100, 1.300] "
            "against 1111111111 (#1): NULL (tie); runs without a number: 9 of 30 runs of "
            "4444444444 (8 timed out), 7 of 30 runs of 1111111111 (all timed out); Fisher's exact "
            "test p = 0.77");
  failures = FailureComparison{};
  failures.runs[0] = failures.runs[1] = 1;
  failures.timed_out[0] = 1;
  EXPECT_EQ(CheckFailuresText(failures, "1111111111", "4444444444"),
            "runs without a number: 0 of 1 run of 4444444444, 1 of 1 run of 1111111111 (timed "
            "out)");
}

TEST(BisectReportText, StepRecordIsEvidenceNotAVerdict) {
  Record record;
  DescribeStepRecord(Step(2, BisectStepKind::kMeasure, 2, 2), Commits()[0], 1.25, 2, record);
  EXPECT_EQ(record.details["evidence"], "bisect search");
  EXPECT_EQ(record.details["pairs"], "2");
  EXPECT_EQ(record.details["posterior_at_or_before"], "0.500000");
  EXPECT_EQ(record.verdict_detail,
            "evidence for the search: 2222222222 vs 0000000000 ratio 1.250 (median of 2 pairs: "
            "too few for a 95% interval); after it P(first bad ≤ 2222222222) = 0.500, best guess "
            "3333333333 (p = 0.750)");
  ASSERT_EQ(record.notes.size(), 1u);
}

TEST(BisectReportText, UnconfirmedTieInADescendedBranch) {
  BisectState state;
  state.commits = Commits();
  state.descended_from = std::string(10, 'm') + std::string(30, 'f');
  BisectStepLog confirm = Step(1, BisectStepKind::kConfirm, 4, 40);
  confirm.ratio = 1.01;
  confirm.low = 0.99;
  confirm.high = 1.03;
  state.log = {confirm};
  UnconfirmedMove move;
  move.good = "v1";
  move.bad = "v2";
  move.verdict = Verdict::kNull;
  move.ratio = 1.01;
  move.low = 0.99;
  move.high = 1.03;
  move.confidence = 0.95;
  move.pairs = 40;
  Record record;
  BisectReport report;
  const std::string text = UnconfirmedEnding(state, move, "SUMMARY\n", record, report);
  const std::string line = DescribeUnconfirmedMove(move);
  EXPECT_EQ(text, line + "\nSUMMARY\n" +
                      "The branch merge mmmmmmmmmm brought in does not move on its own: the move "
                      "appears only once it is merged (the branch and the line it was merged into "
                      "together). The merge is where it happens; no commit inside the branch is "
                      "to blame alone.\nThe confirmation is archived as a record.\n");
  EXPECT_EQ(report.outcome.kind, SearchOutcome::Kind::kNotReproducible);
  EXPECT_EQ(record.verdict, Verdict::kNull);
  ASSERT_TRUE(record.estimate);
  EXPECT_DOUBLE_EQ(record.estimate->ratio, 1.01);
  EXPECT_EQ(record.estimate->pairs, 40);
  EXPECT_DOUBLE_EQ(record.estimate->confidence, 0.95);
}

TEST(BisectReportText, UnconfirmedInconclusiveConcludesNothing) {
  BisectState state;
  state.commits = Commits();
  state.log = {Step(1, BisectStepKind::kConfirm, 4, 40)};
  UnconfirmedMove move;
  move.verdict = Verdict::kInconclusive;
  Record record;
  BisectReport report;
  const std::string text = UnconfirmedEnding(state, move, "", record, report);
  EXPECT_TRUE(
      text.ends_with("\nNothing is concluded either way. The confirmation is archived as a "
                     "record.\n"))
      << text;
  EXPECT_EQ(report.outcome.kind, SearchOutcome::Kind::kInconclusive);
  EXPECT_EQ(record.verdict, Verdict::kInconclusive);
}

// A bisect of 4 commits whose search verified commit 3 against its parent 2, and whose check
// of 0..2 measured a tie: commit 3 is the CULPRIT, shown first at the ends of 0..2 (commit 1
// inside it was not measured).
struct Searched {
  BisectState state;
  QueryConfig query;
  SearchedFacts facts;

  Searched() {
    state.commits = Commits();
    state.search_json = BisectSearch(4, SearchOptions{}).ToJson();
    BisectSegment whole;
    whole.lo = 0;
    whole.hi = 4;
    whole.check = SegmentCheck::kSame;
    whole.ratio = 1.2;
    whole.low = 1.1;
    whole.high = 1.3;
    whole.confidence = 0.95;
    whole.pairs = 40;
    whole.check_record = "rec-1";
    whole.outcome = SegmentOutcome::kChange;
    whole.first = whole.change = 3;
    whole.log_ratio = std::log(1.2);
    whole.log_low = std::log(1.1);
    whole.log_high = std::log(1.3);
    whole.verify_confidence = 0.99;
    whole.verification_pairs = 60;
    whole.probability = 0.995;
    whole.reason = "verified";
    BisectSegment before;
    before.lo = 0;
    before.hi = 2;
    before.check = SegmentCheck::kTie;
    before.ratio = 1.0;
    before.low = 0.98;
    before.high = 1.02;
    before.confidence = 0.95;
    before.pairs = 80;
    before.check_record = "rec-9";
    state.segments = {whole, before};
    query.name = "scan";
    facts.state = &state;
    facts.query = &query;
  }
};

CommitFacts Facts() {
  CommitFacts f;
  f.info = CommitInfo{};
  f.info->subject = "Index: flush on every insert";
  f.info->author = "Ann";
  f.info->author_email = "ann@example.com";
  f.info->time = 1764806400;  // 2025-12-04T00:00:00Z
  f.changed_files = std::vector<std::string>{"src/index.cc", "src/index.h"};
  return f;
}

TEST(BisectReportText, AVerificationThatReusedRunsIsNotCalledFresh) {
  Searched s;
  s.facts.commits[s.state.commits[3]] = Facts();
  s.facts.reused.runs = 40;
  s.facts.reused.reused = 8;
  s.facts.reused.verifications[s.state.commits[3]] = "2 runs of A from step 4, 2 of B from step 4";
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(text->find("fresh"), std::string::npos) << *text;
  EXPECT_NE(text->find("(60 pairs, re-using 2 runs of A from step 4, 2 of B from step 4, against "
                       "its parent 2222222222): EFFECT, verified\n"),
            std::string::npos)
      << *text;
}

TEST(BisectReportText, ReusedRunsEndingSaysHowManyAndWhatEachVerificationReused) {
  ReusedRunFacts none;
  none.runs = 56;
  EXPECT_EQ(ReusedRunsText(none), "");
  ReusedRunFacts some;
  some.runs = 56;
  some.reused = 32;
  some.verifications["511d53a826760dd11cd82947184583e2d094e2d2"] = "2 runs of A from step 8";
  EXPECT_EQ(ReusedRunsText(some),
            "runs re-used from earlier steps: 32 of the 56 in the step records (a count that "
            "repeats is measured once, at most 4 runs a commit; each record's reused_runs says "
            "which)\n"
            "  the verification of 511d53a826 re-used 2 runs of A from step 8\n");
}

TEST(BisectReportText, CulpritWithItsCommitFacts) {
  Searched s;
  s.facts.commits[s.state.commits[3]] = Facts();
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_TRUE(text->starts_with("CULPRIT " + s.state.commits[3] +
                                "  Index: flush on every insert\n"
                                "  author   Ann <ann@example.com>, 2025-12-04T00:00:00Z\n"
                                "  changed  src/index.cc, src/index.h\n"
                                "  ratio across it "))
      << *text;
  EXPECT_NE(text->find("(60 fresh pairs against its parent 2222222222): EFFECT, verified\n"
                       "  model posterior 99.5% (one change in 0000000000..4444444444)\n"),
            std::string::npos)
      << *text;
  // The tie says what it could have missed (SightingReachText): the label rests on it.
  EXPECT_NE(text->find("  checked 0000000000..2222222222 (2 commits): a tie 1.000 [0.980, 1.020] "
                       "at 95% confidence, 80 pairs; a slow tail in 15% or more of the runs "
                       "would have shown; a sparser one may not\n"),
            std::string::npos)
      << *text;
  EXPECT_TRUE(report.found);
  EXPECT_FALSE(report.descend);
  EXPECT_EQ(report.outcome.kind, SearchOutcome::Kind::kCulprit);
  EXPECT_EQ(record.verdict, Verdict::kEffect);
  EXPECT_EQ(record.verdict_detail, "verified");
  EXPECT_EQ(record.details["culprit_commit"], s.state.commits[3]);
  EXPECT_EQ(record.details["culprit_subject"], "Index: flush on every insert");
  EXPECT_EQ(record.details["changed_files"], "src/index.cc,src/index.h");
  EXPECT_EQ(record.details["culprit_is_first"], "ends");
  ASSERT_EQ(record.arms.size(), 2u);
  EXPECT_EQ(record.arms[0].commit, s.state.commits[2]);
}

// Issue 27: a tie of 0..2 shows its ends, not commit 1 inside it, where a move that returns
// (+10% then -10%) may hide: the CULPRIT says so, with the one command that measures it.
TEST(BisectReportText, ACulpritOverATieOfItsEndsOnlySaysWhatItsInsideLacks) {
  Searched s;
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_TRUE(text->starts_with("CULPRIT ")) << *text;
  EXPECT_NE(text->find("  shown at the ends only: 0000000000..2222222222 ties at its ends; the "
                       "commit inside was not measured, so a move there that returns "
                       "(+10% then -10%) is not ruled out; to measure each: culprit sweep "
                       "0000000000..2222222222 --every 1 -q scan\n"),
            std::string::npos)
      << *text;
  EXPECT_EQ(record.details["culprit_is_first"], "ends");
}

TEST(BisectReportText, ATieOfItsEndsOnlyCountsTheCommitsItsInsideLacks) {
  Searched s;
  s.state.segments[0].first = s.state.segments[0].change = 4;
  s.state.segments[1].hi = 3;
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_NE(text->find("  shown at the ends only: 0000000000..3333333333 ties at its ends; the 2 "
                       "commits inside were not each measured, so a move there"),
            std::string::npos)
      << *text;
}

// A tie of one commit (its parent against the good end) measures every commit before the
// culprit: then it is the first bad commit literally, and no such line is printed.
TEST(BisectReportText, ACulpritWhoseEveryEarlierCommitWasMeasuredIsFirst) {
  Searched s;
  s.state.segments[0].first = s.state.segments[0].change = 2;
  s.state.segments[1].hi = 1;
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_TRUE(text->starts_with("CULPRIT ")) << *text;
  EXPECT_EQ(text->find("shown at the ends only"), std::string::npos) << *text;
  EXPECT_EQ(record.details["culprit_is_first"], "yes");
}

TEST(BisectReportText, CommitWithoutFactsIsNamedWithoutThem) {
  Searched s;
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_TRUE(text->starts_with("CULPRIT " + s.state.commits[3] + "\n  ratio across it ")) << *text;
  EXPECT_EQ(record.details.count("changed_files"), 0u);
}

TEST(BisectReportText, ATieNotSoughtSaysWhatShowingItWouldTake) {
  // The part before the change was checked for a further move only: a tie was predicted to
  // need about 550 pairs, more than the check's 160.
  Searched s;
  BisectSegment& before = s.state.segments[1];
  before.check = SegmentCheck::kUndecided;
  before.low = 0.90;
  before.high = 1.11;
  before.pairs = 40;
  before.tie_sought = false;
  before.tie_pairs_needed = 549;
  before.reason = UndecidedTieText(before, 160);
  EXPECT_EQ(before.reason,
            "a tie was not sought: showing one would take ≈ 550 pairs at this noise, more than "
            "the check's 160 ([bisect] check_max_pairs)");
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_TRUE(text->starts_with("CHANGE " + s.state.commits[3])) << *text;
  EXPECT_EQ(text->find("CULPRIT"), std::string::npos) << *text;
  EXPECT_NE(text->find("NOT SHOWN TO BE THE FIRST BAD COMMIT: 3333333333: showing it would take "
                       "≈ 550 pairs (`--prove-first`); 2222222222 against 0000000000 checked for "
                       "a further move only: neither a tie nor a move beyond the band "
                       "(undecided) (1.000 [0.900, 1.110] at 95% confidence, 40 pairs); a change "
                       "before it is not ruled out\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("UNPLACED: 0000000000..2222222222 ×1.000 [0.900, 1.110] (commits after "
                       "0000000000 up to 2222222222): its check hunted a further move only, and "
                       "found none within reach; a tie was not sought: showing one would take ≈ "
                       "550 pairs"),
            std::string::npos)
      << *text;
  EXPECT_EQ(record.details["culprit_is_first"], "no");
  // Not shown first: the record counts its changes in words before the decomposition.
  EXPECT_TRUE(record.verdict_detail.starts_with("1 verified change; ")) << record.verdict_detail;
}

// The part after the change (3..4) that hunted a further move only, as its tie earns no
// label, and ruled ×1.127 out on an interval well inside the band.
BisectSegment PartAfterRuledOut() {
  BisectSegment after;
  after.lo = 3;
  after.hi = 4;
  after.check = SegmentCheck::kUndecided;
  after.ratio = 1.0;
  after.low = 0.997;
  after.high = 1.002;
  after.confidence = 0.95;
  after.pairs = 40;
  after.check_record = "rec-10";
  after.tie_sought = false;
  after.tie_earns_label = false;
  after.alternative = 1.127;
  after.ruled_out = true;
  return after;
}

TEST(BisectReportText, APartPastTheChangeSaysItsTieWasNotSoughtRatherThanMissed) {
  Searched s;
  s.state.segments.push_back(PartAfterRuledOut());
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_NE(
      text->find("  checked 3333333333..4444444444 (1 commit): no move beyond the band found; "
                 "a tie not sought (no label rides on it past the earliest change) 1.000 "
                 "[0.997, 1.002] at 95% confidence, 40 pairs; further moves of x1.127 or "
                 "more ruled out; a slow tail in 15% or more of the runs would have shown; a "
                 "sparser one may not\n"),
      std::string::npos)
      << *text;
  EXPECT_EQ(text->find("neither a tie"), std::string::npos) << *text;
  EXPECT_EQ(text->find("UNPLACED"), std::string::npos) << *text;  // ruled out: placed
}

// The ending's line of a checked part says how many of its runs gave no number, as the check's
// step line did: a rule-out that read a quarter of its runs as censored is not read as any
// other. A check whose every run gave a number keeps the line it always had.
TEST(BisectReportText, AnEndingsCheckedLineSaysHowManyRunsGaveNoNumber) {
  Searched s;
  s.state.segments.push_back(PartAfterRuledOut());
  Record record;
  BisectReport report;
  Result<std::string> clean = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(clean) << clean.error().message();
  const std::string line =
      "  checked 3333333333..4444444444 (1 commit): no move beyond the band found; a tie not "
      "sought (no label rides on it past the earliest change) 1.000 [0.997, 1.002] at 95% "
      "confidence, 40 pairs; further moves of x1.127 or more ruled out; a slow tail in 15% or "
      "more of the runs would have shown; a sparser one may not";
  EXPECT_NE(clean->find(line + "\n"), std::string::npos) << *clean;

  FailureComparison& failures = s.state.segments.back().check_failures;
  failures.runs[0] = failures.runs[1] = 42;
  failures.timed_out[0] = 11;
  failures.timed_out[1] = 8;
  failures.failed[1] = 2;
  failures.p_value = 0.71;
  Record again;
  Result<std::string> text = SearchedEnding(s.facts, again, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_NE(text->find(line + "; runs without a number: 10 of 42 runs of 4444444444 (8 timed out), "
                              "11 of 42 runs of 3333333333 (all timed out); Fisher's exact test "
                              "p = 0.71\n"),
            std::string::npos)
      << *text;
}

TEST(BisectReportText, AnUnplacedPartOfSeveralCommitsNamesItsSweepAsTheNextCommand) {
  Searched s;
  BisectSegment& before = s.state.segments[1];
  before.check = SegmentCheck::kUndecided;
  before.low = 0.90;
  before.high = 1.11;
  before.pairs = 40;
  before.tie_sought = false;
  before.reason = "undecided";
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  const size_t unplaced = text->find("UNPLACED: 0000000000..2222222222");
  ASSERT_NE(unplaced, std::string::npos) << *text;
  const size_t next = text->find('\n', unplaced);
  EXPECT_EQ(
      text->substr(next + 1).rfind("  next: culprit sweep 0000000000..2222222222 -q scan\n", 0), 0u)
      << *text;
}

TEST(BisectReportText, ProveFirstShortOfTheTieSaysSo) {
  Searched s;
  BisectSegment& before = s.state.segments[1];
  before.check = SegmentCheck::kUndecided;
  before.low = 0.90;
  before.high = 1.11;
  before.pairs = 1280;
  before.tie_pairs_needed = 2500;
  before.tie_budget = 1280;
  before.tie_short = true;
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_NE(text->find("NOT SHOWN TO BE THE FIRST BAD COMMIT: 3333333333: showing it would take "
                       "≈ 2500 pairs, more than the 1280 a check may spend ([bisect] "
                       "confirm_max_pairs), which did not show it; 2222222222 against "
                       "0000000000 neither a tie"),
            std::string::npos)
      << *text;
  EXPECT_EQ(UndecidedTieText(before, 160),
            "a tie would take ≈ 2500 pairs at this noise, more than the 1280 it was sought "
            "within (the check's cap, [bisect] confirm_max_pairs)");
}

TEST(BisectReportText, TheCheckLineSaysWhatItDoesAboutTheTie) {
  TiePlan plan;
  plan.budget = 160;
  plan.pairs_needed = 25;
  EXPECT_EQ(CheckPlanText(plan, 160), "");
  plan.seek = false;
  plan.pairs_needed = 1234;
  plan.noise = 0.3726;
  EXPECT_EQ(CheckPlanText(plan, 160),
            "; a further move only: a tie would take ≈ 1200 pairs at this noise (0.373 per "
            "pair), more than its 160");
  plan.seek = true;
  plan.budget = 1280;
  plan.pairs_to_prove = 973;
  EXPECT_EQ(CheckPlanText(plan, 160),
            "; a tie sought within 1280 pairs (--prove-first: ≈ 970 "
            "needed)");
  // NULL's spending from a later look (TiePlan::null_from_pairs): said on the line.
  plan.null_from_pairs = 633;
  EXPECT_EQ(CheckPlanText(plan, 160),
            "; a tie sought within 1280 pairs (--prove-first: ≈ 970 needed; no tie stated "
            "before the last look at or under ≈ 630 pairs, where it is shown half the time)");
  EXPECT_EQ(RoundedPairs(88), 88);
  EXPECT_EQ(RoundedPairs(549), 550);
  EXPECT_EQ(RoundedPairs(1234), 1200);
}

TEST(BisectReportText, MergeIsDescendedIntoNotNamed) {
  Searched s;
  CommitFacts f = Facts();
  f.merge = MergeDescent{s.state.commits[3], std::string(10, 'a') + std::string(30, 'f'),
                         std::string(10, 'b') + std::string(30, 'f'), 5};
  s.facts.commits[s.state.commits[3]] = f;
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_TRUE(text->starts_with("MERGE " + s.state.commits[3])) << *text;
  EXPECT_NE(text->find("  a merge: it brought in 5 commits from bbbbbbbbbb; a merge is not "
                       "named as the culprit: the commit inside it is searched on the branch "
                       "aaaaaaaaaa..bbbbbbbbbb\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("MERGE " + s.state.commits[3] +
                       "  the earliest change the way the range moved is a merge; next, the "
                       "5 commits it brought in, searched on the branch's first-parent "
                       "chain: culprit bisect run --good aaaaaaaaaa --bad bbbbbbbbbb -q scan\n"),
            std::string::npos)
      << *text;
  EXPECT_FALSE(report.found);
  ASSERT_TRUE(report.descend);
  EXPECT_EQ(report.descend->brought_in, 5);
  EXPECT_EQ(record.details["merge_commit"], s.state.commits[3]);
  EXPECT_EQ(record.details["culprit_is_first"], "merge");
  EXPECT_EQ(record.details.count("culprit_commit"), 0u);
}

TEST(BisectReportText, NoChangeIsInconclusiveWithTheCredibleSet) {
  Searched s;
  s.state.segments.resize(1);
  s.state.segments[0].outcome = SegmentOutcome::kInconclusive;
  s.facts.max_total_pairs = 500;
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_TRUE(text->starts_with("INCONCLUSIVE: ")) << *text;
  EXPECT_NE(text->find("  builds 0 (⌈log2 4⌉ = 2), pairs 0 (measured 0 of [bisect] "
                       "max_total_pairs = 500)\n"),
            std::string::npos)
      << *text;
  EXPECT_FALSE(report.found);
  EXPECT_EQ(record.verdict, Verdict::kInconclusive);
}

// The part before the change ties at its ends, but the search measured commit 1 beyond the
// band against the good end: a move that returns lies there, so 3 is not called the first bad
// commit, and the sweep of that part is the next command.
TEST(BisectReportText, AMoveTheSearchSawBeforeTheChangeWithholdsCulprit) {
  Searched s;
  BisectStepLog step;
  step.kind = BisectStepKind::kMeasure;
  step.index = 1;
  step.baseline = 0;
  step.commit = s.state.commits[1];
  step.ratio = 1.15;
  step.low = 1.10;
  step.high = 1.20;
  s.state.log = {step};
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_TRUE(text->starts_with("CHANGE " + s.state.commits[3])) << *text;
  EXPECT_EQ(text->find("CULPRIT"), std::string::npos) << *text;
  EXPECT_NE(text->find("NOT SHOWN TO BE THE FIRST BAD COMMIT: 3333333333: the search measured "
                       "1111111111 at 1.150 [1.100, 1.200] against 0000000000, beyond the band, "
                       "though the part before it ties: a move that returns lies in "
                       "0000000000..2222222222; next: culprit sweep 0000000000..2222222222 -q "
                       "scan\n"),
            std::string::npos)
      << *text;
  EXPECT_EQ(record.details["culprit_is_first"], "no");
}

// The credible set holds the target in force: 90% by default, 99% once the search turned
// wary (a verification lost its candidate); the label says which.
TEST(BisectReportText, TheCredibleSetSaysTheTargetInForce) {
  Searched s;
  s.state.segments.resize(1);
  s.state.segments[0].outcome = SegmentOutcome::kInconclusive;
  Record record;
  BisectReport report;
  Result<std::string> text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_NE(text->find("credible set (90%)"), std::string::npos) << *text;

  BisectSearch wary(4);
  wary.AddObservation(4, std::vector<double>(12, 0.2));
  wary.AddObservation(2, std::vector<double>(4, 0.0));
  wary.AddVerification(3, 2, std::vector<double>(4, 0.0));
  wary.AddObservation(2, std::vector<double>(4, 0.0));
  ASSERT_TRUE(wary.Wary());
  s.state.search_json = wary.ToJson();
  text = SearchedEnding(s.facts, record, report);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_NE(text->find("credible set (99%)"), std::string::npos) << *text;
}

// A zstd bisect ran out of builds with the first bad commit one of two neighbours: the
// command that settles it bisects just those two, from the commit before them.
TEST(BisectReportText, ANarrowCredibleSetGetsTheCommandThatSettlesIt) {
  const std::vector<std::string> commits = Commits();  // 0000000000 .. 4444444444
  EXPECT_EQ(SettleCommand({2, 3}, commits, "scan"),
            "to settle it: culprit bisect run --good 1111111111 --bad 3333333333 -q scan  (2 "
            "commits, about 1 build); or raise [bisect] max_builds and max_pairs and run "
            "this range again");
  EXPECT_TRUE(SettleCommand({4}, commits, "scan")
                  .starts_with("to settle it: culprit bisect run --good 3333333333 --bad "
                               "4444444444 -q scan  (1 commit, about 1 build)"));
  // The whole range, or nothing: no command that the user has not just run.
  EXPECT_EQ(SettleCommand({1, 2, 3, 4}, commits, "scan"), "");
  EXPECT_EQ(SettleCommand({}, commits, "scan"), "");
}

TEST(BisectReportText, DamagedSearchIsAnError) {
  Searched s;
  s.state.search_json = "{";
  Record record;
  BisectReport report;
  EXPECT_FALSE(SearchedEnding(s.facts, record, report));
}

TEST(BisectReportText, StatusAndLog) {
  BisectState state;
  state.good_rev = "v1";
  state.bad_rev = "v2";
  state.query = "scan";
  state.commits = Commits();
  state.started = "2026-12-04T01:00:00Z";
  state.updated = "2026-12-04T01:05:00Z";
  BisectStepLog skipped = Step(2, BisectStepKind::kMeasure, 2, 0);
  skipped.note = "skipped: build failed";
  skipped.record_id = "";
  state.log = {Step(1, BisectStepKind::kConfirm, 4, 40), skipped};
  EXPECT_EQ(FormatBisectStatus(state),
            "bisect v1..v2 on scan: running\n"
            "  4 commits, 2 steps, started 2026-12-04T01:00:00Z, updated 2026-12-04T01:05:00Z\n"
            "  best guess 3333333333 (p=0.750)\n");
  EXPECT_EQ(FormatBisectLog(state),
            "step  kind     commit     index  pairs  ratio [interval]          P(≤ it)  record / "
            "note\n"
            "   1  confirm  4444444444     4     40  1.200 [1.100, 1.300]        0.500  rec-1\n"
            "   2  measure  2222222222     2      0  -                           0.500  skipped: "
            "build failed  \n");
}

TEST(BisectReportText, HostNoiseOnlyWhenAStepsRunsCameInBursts) {
  Record record;
  std::vector<BisectStepLog> log = {Step(1, BisectStepKind::kCheck, 2, 10)};
  EXPECT_EQ(BurstsEnding(log, record), "");
  EXPECT_TRUE(record.notes.empty());
  SlowRunBursts bursts;
  bursts.slow[0] = bursts.slow[1] = 10;
  bursts.runs[0] = bursts.runs[1] = 100;
  bursts.factor = 1.8;
  log[0].bursts = bursts;
  EXPECT_EQ(BurstsEnding(log, record), DescribeBurstSteps(log) + "\n");
  ASSERT_EQ(record.notes.size(), 1u);
  EXPECT_EQ(record.notes[0], DescribeBurstSteps(log));
}

TEST(BisectReportText, DriftOnlyWhenAStepDrifted) {
  Record record;
  std::vector<BisectStepLog> log = {Step(1, BisectStepKind::kMeasure, 2, 10)};
  EXPECT_EQ(DriftEnding(log, record), "");
  EXPECT_TRUE(record.notes.empty());
  log[0].calibrated = true;
  log[0].drift = 0.25;
  EXPECT_EQ(DriftEnding(log, record), DescribeDrift(log[0]) + "\n");
  EXPECT_EQ(record.details["largest_step_drift"], "+0.2500");
}

}  // namespace
}  // namespace culprit
