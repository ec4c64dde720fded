// `culprit bisect run` on a real branchy history (libgit2 commits with interleaved dates, a
// feature branch merged into main), through the culprit executable, real builds with cc and
// real measurements of a tiny C program. The slowdown is 2x, so the answers are the same on a
// loaded host; the assertions are about which commit is named and against what.
//
//   main:    c0 - c1 - c2 - c3 - c4 - M - c5 - c6
//                   \                  /
//   feature:         f1 - f2 - f3 -----
//
// Commits are made alternately on the two branches, so in date order a branch commit's
// neighbour is a main commit, not its parent: where a search over every parent once
// "verified" the wrong commit (issue 30). On the first-parent chain the move arrives with M;
// M is never the answer, the branch it brought in is searched, and f2 is named, verified
// against f1, its real parent.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bisect/bisect_state.h"
#include "records/record_store.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {
namespace fs = std::filesystem;

constexpr long kFastWork = 2000000;
constexpr long kSlowWork = 4000000;  // 2x

std::string Fast(const std::string& tag) { return LoopEngineSource(tag, kFastWork); }
std::string Slow(const std::string& tag) { return LoopEngineSource(tag, kSlowWork); }

class BisectMerges : public ::testing::Test {
 protected:
  // `evil`: the branch stays fast and the merge itself makes main.c slow (a resolution that
  // neither parent holds): the branch alone does not move.
  void MakeHistory(bool evil) {
    GitFixture git(dir_.path() / "repo");
    c_.push_back(git.Commit({{"main.c", Fast("base")}, {"NOTES", "0\n"}}, {}, "c0"));
    c_.push_back(git.Commit({{"NOTES", "1\n"}}, {}, "c1"));
    git.Branch("feature", c_[1]);
    git.Switch("main");
    c_.push_back(git.Commit({{"NOTES", "2\n"}}, {}, "c2"));
    git.Switch("feature");
    f_.push_back(git.Commit({{"FEATURE", "1\n"}}, {}, "f1"));
    git.Switch("main");
    c_.push_back(git.Commit({{"NOTES", "3\n"}}, {}, "c3"));
    git.Switch("feature");
    const std::string feature_main = evil ? Fast("feature") : Slow("feature");
    f_.push_back(git.Commit({{"main.c", feature_main}}, {}, "f2: rework the loop"));
    f_.push_back(git.Commit({{"FEATURE", "3\n"}}, {}, "f3"));
    git.Switch("main");
    c_.push_back(git.Commit({{"NOTES", "4\n"}}, {}, "c4"));
    merge_ =
        git.Merge(f_.back(), {{"main.c", evil ? Slow("merged") : feature_main}, {"FEATURE", "3\n"}},
                  "Merge branch 'feature'");
    c_.push_back(git.Commit({{"NOTES", "5\n"}}, {}, "c5"));
    c_.push_back(git.Commit({{"NOTES", "6\n"}}, {}, "c6"));
    // A 20% band: the changes are 2x, and the parts around them must come out ties, which
    // two real processes within 10% do not promise on a loaded host.
    config_ = WriteLoopEngineConfig(dir_.path(), "10s", 0.2);
  }

  ProcessResult Bisect(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"--config", config_.string(), "bisect", "run",
                                     "--good",   c_.front(),       "--bad",  c_.back()};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCulprit(args, dir_.path());
  }

  std::vector<Record> BisectRecords() const {
    RecordStore::Listing listing = RecordStore(dir_.path() / "records").List();
    EXPECT_TRUE(listing.problems.empty());
    std::vector<Record> out;
    for (Record& r : listing.records) {
      if (r.kind == RecordKind::kBisect) out.push_back(std::move(r));
    }
    return out;
  }

  TempDir dir_;
  std::vector<std::string> c_, f_;
  std::string merge_;
  fs::path config_;
};

TEST_F(BisectMerges, TheCommitInsideTheMergeIsNamedAgainstItsRealParent) {
  MakeHistory(/*evil=*/false);
  ProcessResult run = Bisect();
  ASSERT_EQ(run.exit_code, 0) << DescribeRun(run);
  const std::string& out = run.stdout_text;
  // The first-parent search lands on the merge, and says it is a merge, not the culprit.
  EXPECT_TRUE(Contains(out, "MERGE " + merge_)) << DescribeRun(run);
  EXPECT_FALSE(NamesVerifiedChange(out, merge_)) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "descending into merge " + merge_.substr(0, 10)))
      << DescribeRun(run);
  // Inside it: f2, verified against f1, its parent, and said to come in with the merge.
  EXPECT_TRUE(NamesVerifiedChange(out, f_[1])) << DescribeRun(run);
  EXPECT_TRUE(Contains(out, "against its parent " + f_[0].substr(0, 10))) << DescribeRun(run);
  EXPECT_TRUE(Contains(out, "brought in by merge " + merge_.substr(0, 10))) << DescribeRun(run);

  // Two results archived: the merge (not a culprit) and the branch's (f2).
  std::vector<Record> bisects = BisectRecords();
  ASSERT_EQ(bisects.size(), 2u) << DescribeRun(run);
  int merges = 0, culprits = 0;
  for (const Record& r : bisects) {
    if (r.Detail("merge_commit") == merge_) {
      ++merges;
      EXPECT_EQ(r.Detail("culprit_commit"), "");
      EXPECT_EQ(r.Detail("merge_branch_good"), c_[1]);  // where the branch forked
      EXPECT_EQ(r.Detail("merge_branch_bad"), f_.back());
      EXPECT_EQ(r.Detail("merge_brought_in"), "3");
    }
    if (r.Detail("culprit_commit") == f_[1]) {
      ++culprits;
      ASSERT_EQ(r.arms.size(), 2u);
      EXPECT_EQ(r.arms[0].commit, f_[0]);  // verified against its real parent
    }
  }
  EXPECT_EQ(merges, 1);
  EXPECT_EQ(culprits, 1);
  Result<BisectState> state = LoadBisectState(dir_.path() / ".culprit" / "bisect.json");
  ASSERT_TRUE(state) << state.error().message();
  EXPECT_EQ(state->descended_from, merge_);
  EXPECT_EQ(state->commits.front(), c_[1]);
  EXPECT_EQ(state->commits.back(), f_.back());
}

TEST_F(BisectMerges, AMergeWhoseBranchDoesNotMoveAloneIsWhereTheMoveAppears) {
  // The merge's own resolution is slow; the branch is not. Nothing inside it is named.
  MakeHistory(/*evil=*/true);
  ProcessResult run = Bisect();
  EXPECT_EQ(run.exit_code, 4) << DescribeRun(run);
  const std::string& out = run.stdout_text;
  EXPECT_TRUE(Contains(out, "MERGE " + merge_)) << DescribeRun(run);
  for (const std::string& f : f_) EXPECT_FALSE(NamesVerifiedChange(out, f)) << DescribeRun(run);
  EXPECT_FALSE(NamesVerifiedChange(out, merge_)) << DescribeRun(run);
  EXPECT_TRUE(Contains(out, "does not move on its own")) << DescribeRun(run);
  // Not the generic ending of an unreproduced move: the merge did move it, measured.
  EXPECT_FALSE(Contains(out, "the host drifted")) << DescribeRun(run);
}

TEST_F(BisectMerges, AllParentsIsRefusedWithTheReason) {
  MakeHistory(/*evil=*/false);
  ProcessResult run = Bisect({"--all-parents"});
  EXPECT_EQ(run.exit_code, 2) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "--all-parents is not supported")) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "descended into")) << DescribeRun(run);
  EXPECT_FALSE(fs::exists(dir_.path() / ".culprit" / "bisect.json"));
}

}  // namespace
}  // namespace culprit
