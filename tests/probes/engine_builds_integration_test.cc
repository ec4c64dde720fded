// EngineBuilds over a real repository and build cache: what a sitting's
// builds hold, and --rebuild building a commit once per run.

#include <gtest/gtest.h>

#include <string>

#include "probes/engine_builds.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

class EngineBuildsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fixture_ = std::make_unique<GitFixture>(dir_.path() / "engine");
    commit_ = fixture_->Commit({{"main.c", "int main(void) { return 0; }\n"}}, {}, "Base");
    config_.file = dir_.path() / "culprit.toml";
    config_.base_dir = dir_.path();
    config_.engine.repo = fixture_->path();
    config_.engine.build = {{"cc", "-o", "prog", "main.c"}};
    config_.engine.artifacts = {"prog"};
    config_.cache.dir = dir_.path() / "cache";
  }

  TempDir dir_;
  std::unique_ptr<GitFixture> fixture_;
  std::string commit_;
  EngineSections config_;
};

// `compare X X --rebuild`: the second arm must not rebuild under the first,
// which holds the build; it reuses the build this run made.
TEST_F(EngineBuildsTest, RebuildMakesEachCommitOnceAndTheBuildsHoldTheirEntry) {
  auto builds = EngineBuilds::Open(config_, /*rebuild=*/true, nullptr);
  ASSERT_TRUE(builds) << builds.error().message();
  auto first = (*builds)->Resolve(commit_);
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_FALSE(first->reused);
  EXPECT_TRUE(first->in_use);
  auto second = (*builds)->Resolve(std::string("HEAD"));
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_TRUE(second->reused);
  EXPECT_EQ((*builds)->cache().build_steps_run(), 1);

  // Another culprit cannot prune what this one holds.
  auto other = EngineBuilds::Open(config_, false, nullptr);
  ASSERT_TRUE(other) << other.error().message();
  std::vector<std::string> in_use;
  auto pruned = (*other)->cache().Prune(std::chrono::hours(0), true, &in_use);
  ASSERT_TRUE(pruned) << pruned.error().message();
  EXPECT_EQ(*pruned, 0);
  EXPECT_EQ(in_use, std::vector<std::string>{commit_});
}

}  // namespace
}  // namespace culprit
