// End to end: `culprit sweep` on a real temporary git history (libgit2), real builds with cc
// and real measurements of a tiny C program, run through the culprit executable. The change
// is 2.5x, far beyond the noise of a loaded host, so the assertions are about where the sweep
// places it and what it prints, never about how long it took.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "engine/process.h"
#include "records/record_store.h"
#include "records/sweep_payload.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

constexpr long kFastWork = 2000000;
constexpr long kSlowWork = 5000000;  // 2.5x

class SweepCommand : public ::testing::Test {
 protected:
  // Commits 0..last, slow from `slow_from` on; `broken` (or -1) does not compile.
  void MakeHistory(int last, int slow_from, int broken) {
    GitFixture git(dir_.path() / "repo");
    for (int i = 0; i <= last; ++i) {
      std::string message = "revision " + std::to_string(i);
      if (i == slow_from) message = "Unroll the hash loop (slower)";
      if (i == broken) message = "Half-finished edit that does not compile";
      commits_.push_back(git.Commit(
          {{"main.c",
            LoopEngineSource(
                "revision " + std::to_string(i), i >= slow_from ? kSlowWork : kFastWork,
                i == broken ? LoopEngineVariant::kSyntaxError : LoopEngineVariant::kNormal)}},
          {}, message));
    }
    // A 20% band, as the bisect's integration tests use: the parts on either side of a 2.5x
    // change must come out ties on a loaded host.
    config_ = WriteLoopEngineConfig(dir_.path(), "10s", 0.2);
  }

  ProcessResult Culprit(const std::vector<std::string>& args) {
    ProcessSpec spec;
    spec.argv = {CulpritExe(), "--config", config_.string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.timeout = std::chrono::minutes(6);
    spec.output_limit = 1 << 22;
    return RunProcess(spec);
  }

  std::string Short(int i) const { return commits_[i].substr(0, 10); }
  std::string Range() const { return commits_.front() + ".." + commits_.back(); }

  std::vector<Record> Sweeps() const {
    std::vector<Record> out;
    for (Record& r : RecordStore(dir_.path() / "records").List().records) {
      if (r.kind == RecordKind::kSweep) out.push_back(std::move(r));
    }
    return out;
  }

  TempDir dir_;
  std::vector<std::string> commits_;
  fs::path config_;
};

TEST_F(SweepCommand, LocatesTheChangeBetweenTheRightTwoCommitsAndBisectsIt) {
  MakeHistory(12, 7, -1);
  ProcessResult run = Culprit({"sweep", Range(), "--every", "4", "-q", "loop", "--bisect"});
  ASSERT_EQ(run.exit_code, 3) << DescribeRun(run);
  const std::string& out = run.stdout_text;
  // Points 0, 4, 8, 12: the change (at 7) lies between #4 and #8.
  EXPECT_TRUE(Contains(out, "between #4 " + Short(4) + " and #8 " + Short(8) + " (4 commits)"))
      << DescribeRun(run);
  EXPECT_TRUE(
      Contains(out, "culprit bisect run --good " + Short(4) + " --bad " + Short(8) + " -q loop"))
      << DescribeRun(run);
  EXPECT_TRUE(Contains(out, "moved ×")) << DescribeRun(run);
  // --bisect ran that bisect, which names commit 7.
  EXPECT_TRUE(NamesVerifiedChange(out, commits_[7])) << DescribeRun(run);

  std::vector<Record> sweeps = Sweeps();
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_EQ(sweeps[0].verdict, Verdict::kEffect);
  // Counted in words; how many of the other two parts tie depends on the host's noise.
  EXPECT_TRUE(sweeps[0].verdict_detail.starts_with("1 change located, "))
      << sweeps[0].verdict_detail;
  EXPECT_TRUE(sweeps[0].verdict_detail.ends_with(", over 1 query")) << sweeps[0].verdict_detail;
  std::optional<SweepFacts> facts = ReadSweepFacts(sweeps[0]);
  ASSERT_TRUE(facts);
  ASSERT_EQ(facts->queries.size(), 1u);
  const SweepQueryFacts& q = facts->queries[0];
  ASSERT_EQ(q.points.size(), 4u);
  EXPECT_EQ(q.points[1].commit, commits_[4]);
  int changes = 0;
  for (const SweepPartFacts& p : q.parts) {
    if (p.kind != "change") continue;
    ++changes;
    EXPECT_EQ(q.points[p.from].index, 4);
    EXPECT_EQ(q.points[p.to].index, 8);
    ASSERT_TRUE(p.ratio);
    EXPECT_GT(*p.ratio, 1.5);
  }
  EXPECT_EQ(changes, 1);
  // The record's samples are the sitting's: every point ran against the start.
  EXPECT_EQ(sweeps[0].arms.size(), 4u);
  EXPECT_FALSE(sweeps[0].samples.empty());
}

TEST_F(SweepCommand, ACommitThatDoesNotBuildIsNotMeasuredAndTheRestIsKept) {
  MakeHistory(12, 9, 4);
  ProcessResult run = Culprit({"sweep", Range(), "--every", "4"});
  ASSERT_EQ(run.exit_code, 3) << DescribeRun(run);
  const std::string& out = run.stdout_text;
  // The point that did not build says so on one line; the record keeps the build's log.
  const size_t line = out.find("#4    " + Short(4) + "  not measured: ");
  ASSERT_NE(line, std::string::npos) << DescribeRun(run);
  const std::string point = out.substr(line, out.find('\n', line) - line);
  EXPECT_TRUE(Contains(point, "does not build")) << point;
  EXPECT_FALSE(Contains(point, "\\x0a")) << point;
  EXPECT_TRUE(Contains(out, "between #8 " + Short(8) + " and #12 " + Short(12)))
      << DescribeRun(run);
  EXPECT_TRUE(
      Contains(out, "culprit bisect run --good " + Short(8) + " --bad " + Short(12) + " -q loop"))
      << DescribeRun(run);
}

// Two queries, each its own C program in the same history, slowing at different commits:
// one sweep builds each measured commit once for both and places each query's change in its
// own part.
TEST_F(SweepCommand, SeveralQueriesShareTheBuildsAndEachGetsItsOwnChange) {
  GitFixture git(dir_.path() / "repo");
  const std::map<std::string, int> slow_from = {{"early", 3}, {"late", 10}};
  for (int i = 0; i <= 12; ++i) {
    std::map<std::string, std::string> files;
    for (const auto& [name, from] : slow_from) {
      files[name + ".c"] = LoopEngineSource(name + " revision " + std::to_string(i),
                                            i >= from ? kSlowWork : kFastWork);
    }
    commits_.push_back(git.Commit(files, {}, "revision " + std::to_string(i)));
  }
  std::string toml = "[engine]\nrepo = " + Quoted((dir_.path() / "repo").string()) +
                     "\nbuild = [[\"cc\", \"-O1\", \"-o\", \"early\", \"early.c\"], "
                     "[\"cc\", \"-O1\", \"-o\", \"late\", \"late.c\"]]\n"
                     "artifacts = [\"early\", \"late\"]\n\n";
  for (const auto& [name, from] : slow_from) {
    toml += fmt::format(
        "[queries.\"{0}\"]\ncommand = [\"{{artifact:{0}}}\"]\nmetric = {{ regex = "
        "'min_ms=([0-9.]+)' }}\ntimeout = \"10s\"\n\n",
        name);
  }
  // A 20% band, as above: the parts on either side of a 2.5x change must come out ties.
  toml +=
      "[measure]\nband = 0.2\n\n[records]\ndir = " + Quoted((dir_.path() / "records").string()) +
      "\n\n[cache]\ndir = " + Quoted((dir_.path() / "cache").string()) + "\n";
  config_ = dir_.path() / "culprit.toml";
  ASSERT_TRUE(WriteFileAtomically(config_, toml));

  ProcessResult run = Culprit({"sweep", Range(), "--every", "4", "-q", "early", "-q", "late"});
  ASSERT_EQ(run.exit_code, 3) << DescribeRun(run);
  const std::string& out = run.stdout_text;
  EXPECT_TRUE(
      Contains(out, "culprit bisect run --good " + Short(0) + " --bad " + Short(4) + " -q early"))
      << DescribeRun(run);
  EXPECT_TRUE(
      Contains(out, "culprit bisect run --good " + Short(8) + " --bad " + Short(12) + " -q late"))
      << DescribeRun(run);

  std::vector<Record> sweeps = Sweeps();
  ASSERT_EQ(sweeps.size(), 1u);
  std::optional<SweepFacts> facts = ReadSweepFacts(sweeps[0]);
  ASSERT_TRUE(facts);
  ASSERT_EQ(facts->queries.size(), 2u);
  const std::map<std::string, std::pair<int, int>> expected = {{"early", {0, 4}},
                                                               {"late", {8, 12}}};
  for (const SweepQueryFacts& q : facts->queries) {
    ASSERT_TRUE(expected.count(q.query)) << q.query;
    ASSERT_EQ(q.points.size(), 4u) << q.query;
    int changes = 0;
    for (const SweepPartFacts& p : q.parts) {
      if (p.kind != "change") continue;
      ++changes;
      EXPECT_EQ(q.points[p.from].index, expected.at(q.query).first) << q.query;
      EXPECT_EQ(q.points[p.to].index, expected.at(q.query).second) << q.query;
    }
    EXPECT_EQ(changes, 1) << q.query;
  }
  // One build a measured commit, serving both queries: points 0, 4, 8, 12.
  int builds = 0;
  for (const auto& engine : fs::directory_iterator(dir_.path() / "cache")) {
    if (!fs::is_directory(engine.path() / "builds")) continue;
    for (const auto& entry : fs::directory_iterator(engine.path() / "builds")) {
      builds += entry.is_directory() ? 1 : 0;
    }
  }
  EXPECT_EQ(builds, 4);
}

TEST_F(SweepCommand, BadInputIsRefusedBeforeAnythingIsBuilt) {
  MakeHistory(3, 2, -1);
  ProcessResult no_dots = Culprit({"sweep", commits_[0]});
  EXPECT_EQ(no_dots.exit_code, 2) << DescribeRun(no_dots);
  EXPECT_TRUE(Contains(no_dots.stderr_text, "GOOD..BAD")) << DescribeRun(no_dots);
  ProcessResult every0 = Culprit({"sweep", Range(), "--every", "0"});
  EXPECT_EQ(every0.exit_code, 2) << DescribeRun(every0);
  EXPECT_TRUE(Contains(every0.stderr_text, "--every 0")) << DescribeRun(every0);
  ProcessResult reversed = Culprit({"sweep", commits_.back() + ".." + commits_.front()});
  EXPECT_EQ(reversed.exit_code, 2) << DescribeRun(reversed);
  EXPECT_TRUE(Contains(reversed.stderr_text, "not an ancestor")) << DescribeRun(reversed);
  ProcessResult unknown = Culprit({"sweep", "v9.9.." + commits_.back()});
  EXPECT_NE(unknown.exit_code, 0) << DescribeRun(unknown);
  EXPECT_TRUE(Contains(unknown.stderr_text, "v9.9")) << DescribeRun(unknown);
  ProcessResult both = Culprit({"sweep", Range(), "--every", "2", "--points", "3"});
  EXPECT_EQ(both.exit_code, 2) << DescribeRun(both);
  // Nothing was built or archived.
  EXPECT_TRUE(Sweeps().empty());
  EXPECT_FALSE(fs::exists(dir_.path() / "cache") && !fs::is_empty(dir_.path() / "cache"));
}

}  // namespace
}  // namespace culprit
