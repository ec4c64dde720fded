// End to end: `culprit bisect run -q A -q B ...` on a real temporary git history, real builds
// with cc and real measurements of small C programs (one per query), run through the culprit
// executable. Every change is 2.5x, far beyond the noise of a loaded host, so the assertions
// are about what each query's bisect names, what the whole merges and keeps, and how often a
// commit is built, never about how long it took.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "bisect/bisect_queue.h"
#include "bisect/bisect_state.h"
#include "engine/process.h"
#include "records/multi_bisect_payload.h"
#include "records/record_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

constexpr long kFastWork = 2000000;
constexpr long kSlowWork = 5000000;  // 2.5x
constexpr int kLast = 12;

// One C program per query, each its own artifact; a query slows from its commit on (-1:
// never).
struct QueryMove {
  std::string name;
  int slow_from = -1;
  LoopEngineVariant variant = LoopEngineVariant::kNormal;  ///< At every commit.
};

class MultiQueryBisectCommand : public ::testing::Test {
 protected:
  void MakeHistory(const std::vector<QueryMove>& queries) {
    GitFixture git(dir_.path() / "repo");
    for (int i = 0; i <= kLast; ++i) {
      std::map<std::string, std::string> files;
      std::string message = "revision " + std::to_string(i);
      for (const QueryMove& q : queries) {
        const bool slow = q.slow_from >= 0 && i >= q.slow_from;
        files[q.name + ".c"] = LoopEngineSource(q.name + " revision " + std::to_string(i),
                                                slow ? kSlowWork : kFastWork, q.variant);
        if (i == q.slow_from) message = "Slow down " + q.name;
      }
      commits_.push_back(git.Commit(files, {}, message));
    }
    std::string toml =
        "[engine]\nrepo = " + Quoted((dir_.path() / "repo").string()) + "\nbuild = [";
    std::string artifacts;
    for (const QueryMove& q : queries) {
      toml += fmt::format(R"(["cc", "-O1", "-o", "{0}", "{0}.c"], )", q.name);
      artifacts += fmt::format(R"("{}", )", q.name);
    }
    toml += "]\nartifacts = [" + artifacts + "]\n\n";
    for (const QueryMove& q : queries) {
      toml += fmt::format(
          "[queries.\"{0}\"]\ncommand = [\"{{artifact:{0}}}\"]\nmetric = {{ regex = "
          "'min_ms=([0-9.]+)' }}\ntimeout = \"10s\"\n\n",
          q.name);
    }
    // A 20% band, as the single-query bisect's integration tests use: the parts on either
    // side of a 2.5x change must come out ties on a loaded host.
    toml += "[measure]\nband = 0.2\nmin_pairs = 10\nmax_pairs = 40\n\n[records]\ndir = " +
            Quoted((dir_.path() / "records").string()) +
            "\n\n[cache]\ndir = " + Quoted((dir_.path() / "cache").string()) + "\n";
    config_ = dir_.path() / "culprit.toml";
    ASSERT_TRUE(WriteFileAtomically(config_, toml));
  }

  std::vector<std::string> Args(const std::vector<std::string>& args) const {
    std::vector<std::string> all = {"--config", config_.string()};
    all.insert(all.end(), args.begin(), args.end());
    return all;
  }

  ProcessResult Culprit(const std::vector<std::string>& args) {
    ProcessSpec spec;
    spec.argv = {CulpritExe()};
    for (const std::string& a : Args(args)) spec.argv.push_back(a);
    spec.timeout = std::chrono::minutes(8);
    spec.output_limit = 1 << 22;
    return RunProcess(spec);
  }

  std::vector<std::string> RunArgs(const std::vector<std::string>& queries) const {
    std::vector<std::string> args = {"bisect",         "run",   "--good",
                                     commits_.front(), "--bad", commits_.back()};
    for (const std::string& q : queries) {
      args.push_back("-q");
      args.push_back(q);
    }
    return args;
  }

  std::vector<Record> RecordsOf(RecordKind kind) const {
    std::vector<Record> out;
    for (Record& r : RecordStore(dir_.path() / "records").List().records) {
      if (r.kind == kind) out.push_back(std::move(r));
    }
    return out;
  }

  // Cache entries built (one per commit and configuration).
  int Builds() const {
    int n = 0;
    for (const auto& engine : fs::directory_iterator(dir_.path() / "cache")) {
      if (!fs::is_directory(engine.path() / "builds")) continue;
      for (const auto& entry : fs::directory_iterator(engine.path() / "builds")) {
        n += fs::exists(entry.path() / "entry.json") ? 1 : 0;
      }
    }
    return n;
  }

  std::string Short(int i) const { return commits_[i].substr(0, 10); }
  fs::path queue_path() const { return dir_.path() / ".culprit" / "bisect-queue.json"; }
  fs::path state_path() const { return dir_.path() / ".culprit" / "bisect.json"; }

  TempDir dir_;
  std::vector<std::string> commits_;
  fs::path config_;
};

// The facts of the one multi-bisect record, by query name.
const MultiBisectQueryFacts* QueryIn(const MultiBisectFacts& f, const std::string& name) {
  for (const MultiBisectQueryFacts& q : f.queries) {
    if (q.query == name) return &q;
  }
  return nullptr;
}

TEST_F(MultiQueryBisectCommand, EachQuerysChangeAndOneChangeThatMovedTwoQueries) {
  MakeHistory({{"a", 4}, {"b", 9}, {"c", 9}, {"flat", -1}});
  ProcessResult run = Culprit(RunArgs({"a", "b", "c", "flat"}));
  // flat's endpoints do not move: nothing found for it, said as such; the others still ran.
  ASSERT_EQ(run.exit_code, 4) << DescribeRun(run);
  const std::string& out = run.stdout_text;
  EXPECT_TRUE(Contains(out, "CHANGE " + Short(9) + " moved 2 queries:\n  b  ×")) << out;
  EXPECT_TRUE(Contains(out, "query a: found")) << out;
  EXPECT_TRUE(Contains(out, "  CHANGE " + Short(4) + " ×")) << out;
  EXPECT_TRUE(Contains(out, "query flat: nothing found")) << out;
  EXPECT_TRUE(NamesVerifiedChange(out, commits_[4])) << out;
  EXPECT_TRUE(NamesVerifiedChange(out, commits_[9])) << out;

  // Every query's bisect is archived as today, and the whole points at them.
  std::vector<Record> bisects = RecordsOf(RecordKind::kBisect);
  EXPECT_EQ(bisects.size(), 4u);
  std::vector<Record> whole = RecordsOf(RecordKind::kMultiBisect);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].links.size(), 4u);
  std::optional<MultiBisectFacts> facts = ReadMultiBisectFacts(whole[0]);
  ASSERT_TRUE(facts);
  ASSERT_EQ(facts->queries.size(), 4u);
  const MultiBisectQueryFacts* a = QueryIn(*facts, "a");
  const MultiBisectQueryFacts* flat = QueryIn(*facts, "flat");
  ASSERT_TRUE(a && flat);
  ASSERT_EQ(a->changes.size(), 1u);
  EXPECT_EQ(a->changes[0].commit, commits_[4]);
  EXPECT_GT(a->changes[0].ratio, 1.5);
  EXPECT_EQ(flat->status, MultiBisectStatus::kNothing);
  EXPECT_TRUE(flat->changes.empty());
  bool shared = false;
  for (const MultiBisectCommonChange& c : facts->changes) {
    if (c.commit == commits_[9]) shared = c.moved.size() == 2;
  }
  EXPECT_TRUE(shared) << out;

  // Each commit was built once for all four queries: no more entries than commits.
  EXPECT_LE(Builds(), kLast + 1);
  Result<BisectQueue> queue = LoadBisectQueue(queue_path());
  ASSERT_TRUE(queue) << queue.error().message();
  EXPECT_TRUE(queue->finished);
  EXPECT_EQ(queue->result_record, whole[0].id);
  // `records show` says what the run said.
  ProcessResult show = Culprit({"records", "show", whole[0].id});
  ASSERT_TRUE(show.ok()) << DescribeRun(show);
  EXPECT_TRUE(Contains(show.stdout_text, "CHANGE " + Short(9) + " moved 2 queries:"))
      << show.stdout_text;
}

TEST_F(MultiQueryBisectCommand, InterruptedWhileTheSecondQueryRunsResumesAndKeepsTheFirst) {
  MakeHistory({{"a", 4}, {"b", 9}});
  const fs::path out = dir_.path() / "run.out", err = dir_.path() / "run.err";
  pid_t pid = SpawnCulprit(Args(RunArgs({"a", "b"})), dir_.path(), out, err);
  ASSERT_GT(pid, 0);
  int status = 0;
  // Ctrl-C once the second query's bisect has logged a step (a's is then finished).
  const bool ready = WaitWhileRunning(
      pid,
      [&] {
        Result<BisectState> state = LoadBisectState(state_path());
        return state && state->query == "b" && !state->log.empty();
      },
      std::chrono::seconds(300), &status);
  if (!ready) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "the bisect ended (or hung) before b's first step\n" << *ReadFile(err);
  }
  ASSERT_EQ(kill(pid, SIGINT), 0);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << *ReadFile(err);
  EXPECT_EQ(WEXITSTATUS(status), 130) << *ReadFile(err);
  EXPECT_TRUE(Contains(*ReadFile(err), "bisect resume")) << *ReadFile(err);

  Result<BisectQueue> queue = LoadBisectQueue(queue_path());
  ASSERT_TRUE(queue) << queue.error().message();
  EXPECT_FALSE(queue->finished);
  ASSERT_EQ(queue->done.size(), 1u);
  EXPECT_EQ(queue->done[0].query, "a");
  const std::string a_record = queue->done[0].result_record;
  EXPECT_FALSE(a_record.empty());
  // Nothing new starts while it is unfinished.
  ProcessResult again = Culprit(RunArgs({"a", "b"}));
  EXPECT_EQ(again.exit_code, 2) << DescribeRun(again);

  ProcessResult resumed = Culprit({"bisect", "resume"});
  ASSERT_EQ(resumed.exit_code, 0) << DescribeRun(resumed);
  EXPECT_TRUE(Contains(resumed.stdout_text, "query a: found")) << resumed.stdout_text;
  EXPECT_TRUE(Contains(resumed.stdout_text, "query b: found")) << resumed.stdout_text;
  EXPECT_TRUE(NamesVerifiedChange(resumed.stdout_text, commits_[9])) << resumed.stdout_text;
  std::vector<Record> whole = RecordsOf(RecordKind::kMultiBisect);
  ASSERT_EQ(whole.size(), 1u);
  std::optional<MultiBisectFacts> facts = ReadMultiBisectFacts(whole[0]);
  ASSERT_TRUE(facts);
  ASSERT_EQ(facts->queries.size(), 2u);
  EXPECT_EQ(facts->queries[0].result_record, a_record);  // a was not bisected again
  ASSERT_EQ(facts->queries[1].changes.size(), 1u);
  EXPECT_EQ(facts->queries[1].changes[0].commit, commits_[9]);
  EXPECT_EQ(RecordsOf(RecordKind::kBisect).size(), 2u);
}

TEST_F(MultiQueryBisectCommand, AQueryWhoseBisectFailsIsReportedAndTheNextStillRuns) {
  MakeHistory({{"crash", -1, LoopEngineVariant::kCrash}, {"a", 4}});
  ProcessResult run = Culprit(RunArgs({"crash", "a"}));
  // A failed query's bisect is an error of that query (exit 1), never a lost result of a.
  ASSERT_EQ(run.exit_code, 1) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stdout_text, "query crash: failed\n  FAILED: ")) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stdout_text, "query a: found")) << DescribeRun(run);
  EXPECT_TRUE(NamesVerifiedChange(run.stdout_text, commits_[4])) << DescribeRun(run);
  std::vector<Record> whole = RecordsOf(RecordKind::kMultiBisect);
  ASSERT_EQ(whole.size(), 1u);
  std::optional<MultiBisectFacts> facts = ReadMultiBisectFacts(whole[0]);
  ASSERT_TRUE(facts);
  ASSERT_EQ(facts->queries.size(), 2u);
  EXPECT_EQ(facts->queries[0].status, MultiBisectStatus::kFailed);
  EXPECT_EQ(facts->queries[1].status, MultiBisectStatus::kFound);
}

TEST_F(MultiQueryBisectCommand, FromTableBisectsTheQueriesWhoseCellMoved) {
  MakeHistory({{"a", 4}, {"flat", -1}});
  ProcessResult table = Culprit({"table", "--rev", commits_.front(), "--rev", commits_.back(), "-q",
                                 "a", "-q", "flat", "--seed", "3"});
  std::vector<Record> tables = RecordsOf(RecordKind::kTable);
  ASSERT_EQ(tables.size(), 1u) << DescribeRun(table);
  ProcessResult run = Culprit({"bisect", "run", "--good", commits_.front(), "--bad",
                               commits_.back(), "--from-table", tables[0].id});
  ASSERT_EQ(run.exit_code, 0) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stdout_text, "bisect of 1 query,")) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stdout_text, "(the queries that moved in table " + tables[0].id))
      << DescribeRun(run);
  EXPECT_TRUE(NamesVerifiedChange(run.stdout_text, commits_[4])) << DescribeRun(run);
  EXPECT_FALSE(Contains(run.stdout_text, "query flat")) << DescribeRun(run);
}

}  // namespace
}  // namespace culprit
