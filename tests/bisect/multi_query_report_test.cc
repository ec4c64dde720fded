// The report of a bisect of several queries, on hand-built states with known answers: each
// query's changes and unplaced parts, changes whose commit coincides merged into one, the
// exit status, the record's payload read back, the queue file and --from-table's queries.

#include "bisect/multi_query_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bisect/bisect_queue.h"
#include "bisect/multi_query_bisect.h"
#include "records/table_payload.h"

namespace culprit {
namespace {

// Ten commits whose short form shows their index.
std::string Id(int i) { return std::string(10, static_cast<char>('0' + i)) + std::string(30, 'a'); }

std::vector<std::string> Commits() {
  std::vector<std::string> out;
  for (int i = 0; i <= 9; ++i) out.push_back(Id(i));
  return out;
}

BisectSegment Change(int lo, int hi, int at, double ratio) {
  BisectSegment s;
  s.lo = lo;
  s.hi = hi;
  s.check = SegmentCheck::kSame;
  s.outcome = SegmentOutcome::kChange;
  s.first = s.change = at;
  s.log_ratio = std::log(ratio);
  s.log_low = std::log(ratio * 0.95);
  s.log_high = std::log(ratio * 1.05);
  s.verification_pairs = 12;
  return s;
}

// A bisect of `query` that verified a change at each of `at` (ratios `ratios`).
BisectState State(const std::string& query, const std::vector<int>& at,
                  const std::vector<double>& ratios) {
  BisectState state;
  state.query = query;
  state.commits = Commits();
  state.result_record = "rec-" + query;
  BisectSegment whole;
  whole.lo = 0;
  whole.hi = 9;
  whole.check = SegmentCheck::kSame;
  whole.ratio = 3.0;
  whole.low = 2.8;
  whole.high = 3.2;
  state.segments.push_back(whole);
  for (size_t k = 0; k < at.size(); ++k) state.segments.push_back(Change(0, 9, at[k], ratios[k]));
  return state;
}

TEST(MultiQueryReport, QueryFactsListTheVerifiedChangesAndTheRangeMove) {
  SearchOutcome outcome;
  outcome.kind = SearchOutcome::Kind::kCulprit;
  const MultiBisectQueryFacts q =
      QueryBisectFacts("a", State("a", {7, 3}, {2.0, 1.5}), &outcome, true);
  EXPECT_EQ(q.status, MultiBisectStatus::kFound);
  EXPECT_EQ(q.outcome, "CULPRIT");
  EXPECT_EQ(q.result_record, "rec-a");
  ASSERT_TRUE(q.ratio);
  EXPECT_DOUBLE_EQ(*q.ratio, 3.0);
  ASSERT_EQ(q.changes.size(), 2u);
  EXPECT_EQ(q.changes[0].commit, Id(3));  // In commit order.
  EXPECT_NEAR(q.changes[0].ratio, 1.5, 1e-12);
  EXPECT_NEAR(q.changes[1].low, 1.9, 1e-12);
  EXPECT_EQ(q.changes[1].pairs, 12);
  EXPECT_TRUE(q.unplaced.empty());
}

// A failed query's reason may quote an engine's stderr in any encoding: the queue and the
// record are written with it replaced, never thrown on (a lost queue would lose the other
// queries' results).
TEST(MultiQueryReport, AReasonThatIsNotUtf8IsWrittenNotThrownOn) {
  MultiBisectQueryFacts facts;
  facts.query = "scan";
  facts.status = MultiBisectStatus::kFailed;
  facts.outcome = "FAILED";
  facts.reason = "engine said: caf\xe9";
  std::optional<MultiBisectQueryFacts> read =
      MultiBisectQueryFromJson(MultiBisectQueryToJson(facts));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->reason, "engine said: caf\uFFFD");

  BisectQueue queue;
  queue.good = "v1";
  queue.bad = "v2";
  queue.queries = {"scan"};
  queue.done = {facts};
  Result<BisectQueue> back = BisectQueueFromJson(BisectQueueToJson(queue), "test");
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->done.size(), 1u);
  EXPECT_EQ(back->done[0].reason, "engine said: caf\uFFFD");
}

TEST(MultiQueryReport, AnUnplacedPartAndANullConfirmationAreSaidAsSuch) {
  BisectState state = State("b", {}, {});
  BisectSegment part;
  part.lo = 2;
  part.hi = 6;
  part.check = SegmentCheck::kSame;
  part.outcome = SegmentOutcome::kInconclusive;
  part.ratio = 1.4;
  state.segments.push_back(part);
  const MultiBisectQueryFacts q = QueryBisectFacts("b", state, nullptr, false);
  EXPECT_EQ(q.status, MultiBisectStatus::kNothing);
  ASSERT_EQ(q.unplaced.size(), 1u);
  EXPECT_EQ(q.unplaced[0].good, Id(2));
  EXPECT_EQ(q.unplaced[0].bad, Id(6));
  EXPECT_EQ(q.unplaced[0].check, "same");

  // Not reproduced: no segments, the confirmation step's ratio is the range's move.
  BisectState tie;
  tie.query = "c";
  tie.commits = Commits();
  BisectStepLog confirm;
  confirm.kind = BisectStepKind::kConfirm;
  confirm.pairs = 20;
  confirm.ratio = 1.01;
  confirm.low = 0.99;
  confirm.high = 1.03;
  tie.log.push_back(confirm);
  SearchOutcome none;
  none.kind = SearchOutcome::Kind::kNotReproducible;
  none.reason = "the endpoints tie";
  const MultiBisectQueryFacts c = QueryBisectFacts("c", tie, &none, false);
  EXPECT_EQ(c.outcome, "NOT REPRODUCIBLE");
  ASSERT_TRUE(c.ratio);
  EXPECT_DOUBLE_EQ(*c.ratio, 1.01);
  EXPECT_TRUE(c.changes.empty());
}

// Three queries: a moved at 3 and 7, b at 7, c at 5; commit 7 is one change of two queries.
MultiBisectFacts ThreeQueries() {
  SearchOutcome found;
  found.kind = SearchOutcome::Kind::kCulprit;
  MultiBisectFacts f;
  f.good = Id(0);
  f.bad = Id(9);
  f.queries.push_back(QueryBisectFacts("a", State("a", {3, 7}, {1.5, 2.0}), &found, true));
  f.queries.push_back(QueryBisectFacts("b", State("b", {7}, {2.5}), &found, true));
  f.queries.push_back(QueryBisectFacts("c", State("c", {5}, {3.0}), &found, true));
  f.changes = CoincidingChanges(f.queries);
  return f;
}

TEST(MultiQueryReport, ChangesAtTheSameCommitAreOneChangeOfSeveralQueries) {
  const MultiBisectFacts f = ThreeQueries();
  ASSERT_EQ(f.changes.size(), 3u);
  EXPECT_EQ(f.changes[0].commit, Id(3));
  EXPECT_EQ(f.changes[0].moved, (std::vector<std::pair<int, int>>{{0, 0}}));
  EXPECT_EQ(f.changes[1].commit, Id(7));
  EXPECT_EQ(f.changes[1].moved, (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}}));
  EXPECT_EQ(f.changes[2].commit, Id(5));
  EXPECT_EQ(f.changes[2].moved, (std::vector<std::pair<int, int>>{{2, 0}}));

  const std::string text = MultiBisectFactsText(f);
  EXPECT_NE(text.find("CHANGE 7777777777 moved 2 queries:\n"
                      "  a  ×2.000 [1.900, 2.100], verified over 12 pairs\n"
                      "  b  ×2.500 [2.375, 2.625], verified over 12 pairs\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  CHANGE 7777777777 ×2.000 [1.900, 2.100], verified over 12 pairs (also "
                      "moved b)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("query c: found, the range moved it ×3.000 [2.800, 3.200] (record rec-c)\n"
                      "  CHANGE 5555555555 ×3.000"),
            std::string::npos)
      << text;
  // One change per query at 3 and at 5: not listed among the shared ones.
  EXPECT_EQ(text.find("CHANGE 3333333333 moved"), std::string::npos) << text;
}

TEST(MultiQueryReport, ARangeAndASingleCommitAtTheSameCommitAreNotMerged) {
  MultiBisectQueryFacts a, b;
  a.query = "a";
  b.query = "b";
  a.changes.push_back({Id(5), Id(7), 2, 1.9, 2.1, 10});
  b.changes.push_back({Id(7), Id(7), 2, 1.9, 2.1, 10});
  EXPECT_EQ(CoincidingChanges({a, b}).size(), 2u);
}

TEST(MultiQueryReport, ExitStatusIsTheWorstOfTheQueries) {
  MultiBisectFacts f = ThreeQueries();
  EXPECT_EQ(MultiBisectExitCode(f), 0);
  f.queries[1].status = MultiBisectStatus::kNothing;
  EXPECT_EQ(MultiBisectExitCode(f), 4);
  f.queries[2] = FailedQueryFacts("c", "does not build");
  EXPECT_EQ(MultiBisectExitCode(f), 1);
  EXPECT_EQ(MultiBisectExitCode(MultiBisectFacts{}), 4);
}

TEST(MultiQueryReport, TheRecordLinksEveryQueryAndItsPayloadReadsBack) {
  MultiBisectFacts f = ThreeQueries();
  f.queries.push_back(FailedQueryFacts("d", "its endpoints did not build"));
  const Record record = MultiBisectRecord(f, "digest");
  EXPECT_EQ(record.kind, RecordKind::kMultiBisect);
  EXPECT_EQ(RecordKindName(record.kind), "multi-bisect");
  EXPECT_EQ(record.links, (std::vector<std::string>{"rec-a", "rec-b", "rec-c"}));
  EXPECT_EQ(record.verdict, Verdict::kEffect);
  std::optional<MultiBisectFacts> back = ReadMultiBisectFacts(record);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, f);
  EXPECT_NE(MultiBisectFactsText(*back).find("query d: failed\n  FAILED: its endpoints did not "
                                             "build\n"),
            std::string::npos)
      << MultiBisectFactsText(*back);
  // Another version, or damaged indexes, never read as this one.
  Record other = record;
  other.details_json = R"({"multi_bisect": {"version": 99}})";
  EXPECT_FALSE(ReadMultiBisectFacts(other));
  other.details_json =
      R"({"multi_bisect": {"version": 1, "queries": [], "changes": [{"commit": "x", "moved": [{"query": 3, "change": 0}]}]}})";
  std::optional<MultiBisectFacts> damaged = ReadMultiBisectFacts(other);
  ASSERT_TRUE(damaged);
  ASSERT_EQ(damaged->changes.size(), 1u);
  EXPECT_TRUE(damaged->changes[0].moved.empty());
}

TEST(BisectQueue, RoundTripsAndRefusesOtherSchemas) {
  BisectQueue q;
  q.started = "2026-12-04T23:00:00Z";
  q.good = "v1";
  q.bad = "v2";
  q.queries = {"a", "b"};
  q.seed = 7;
  q.max_pairs = 80;
  q.done.push_back(ThreeQueries().queries[0]);
  Result<BisectQueue> back = BisectQueueFromJson(BisectQueueToJson(q), "queue.json");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->queries, q.queries);
  EXPECT_EQ(back->seed, 7u);
  EXPECT_EQ(back->max_pairs, 80);
  ASSERT_EQ(back->done.size(), 1u);
  EXPECT_EQ(back->done[0], q.done[0]);
  EXPECT_FALSE(back->finished);

  Result<BisectQueue> other =
      BisectQueueFromJson(R"({"schema": "culprit.bisect-queue/v9"})", "queue.json");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message().find("culprit.bisect-queue/v9"), std::string::npos);
  EXPECT_FALSE(BisectQueueFromJson("[1]", "queue.json"));
}

TEST(MultiQueryReport, FromTableTakesTheQueriesWithACellThatMoved) {
  TableFacts t;
  t.rows = {{"scan", "ms", 10}, {"count", "ms", 10}, {"join", "ms", 10}};
  t.arms = {{"v1.0", "revision v1.0"}, {"HEAD", "revision HEAD"}};
  for (int row = 0; row < 3; ++row) {
    TableCellFacts base;
    base.row = row;
    base.status = "baseline";
    TableCellFacts cell;
    cell.row = row;
    cell.arm = 1;
    cell.verdict = row == 1 ? "NULL" : "EFFECT";
    t.cells.push_back(base);
    t.cells.push_back(cell);
  }
  Record table;
  table.id = "t1";
  table.kind = RecordKind::kTable;
  table.details_json = TableFactsToJson(t);
  Result<std::vector<std::string>> moved = QueriesThatMoved(table);
  ASSERT_TRUE(moved) << moved.error().message();
  EXPECT_EQ(*moved, (std::vector<std::string>{"scan", "join"}));

  table.kind = RecordKind::kCompare;
  EXPECT_FALSE(QueriesThatMoved(table));
}

}  // namespace
}  // namespace culprit
