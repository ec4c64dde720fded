// [engine] fetch on a real git repository: prebuilt artifacts placed by a real command are
// used without building; a fetch that fails, or that places nothing, falls back to building,
// and the entry and the progress say which happened.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/build_cache.h"
#include "engine/engine_config.h"
#include "tests/support/config_text.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

class FetchProgress : public BuildProgress {
 public:
  void OnStep(const CommitInfo&, int, int, const std::string&, std::chrono::milliseconds) override {
    ++steps;
  }
  void OnDone(const CommitInfo&, bool, std::chrono::milliseconds) override {}
  void OnFetch(const CommitInfo&, bool ok, const std::string& why) override {
    fetched = ok;
    failure = why;
  }
  int steps = 0;
  std::optional<bool> fetched;
  std::string failure;
};

class BuildFetchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    git_ = std::make_unique<GitFixture>(dir_.path() / "repo");
    commit_ = git_->Commit({{"prog.sh", "echo built here\n"}}, {}, "one");
    Result<GitRepo> repo = GitRepo::Open(git_->path());
    ASSERT_TRUE(repo) << repo.error().message();
    repo_ = std::make_unique<GitRepo>(std::move(*repo));
  }

  BuildSettings Settings(const std::string& fetch_line) {
    BuildSettings settings;
    settings.steps = {{"cp", "prog.sh", "prog"}};
    settings.artifacts = {"prog"};
    settings.cache_dir = dir_.path() / "cache";
    settings.fetch = {"sh", "-c", fetch_line};
    return settings;
  }

  nlohmann::json Entry(const Build& build) {
    return nlohmann::json::parse(ReadAll(build.dir / "entry.json"));
  }

  TempDir dir_;
  std::unique_ptr<GitFixture> git_;
  std::unique_ptr<GitRepo> repo_;
  std::string commit_;
};

TEST_F(BuildFetchTest, PrebuiltArtifactsAreUsedWithoutBuilding) {
  // The team's artifact store: one directory per commit.
  WriteTextFile(dir_.path() / "store" / commit_ / "prog", "echo from the store\n");
  BuildCache cache(
      *repo_, Settings("cp " + (dir_.path() / "store").string() + "/{commit}/prog {artifacts}/"));
  FetchProgress progress;
  Result<Build> build = cache.Ensure(commit_, false, &progress);
  ASSERT_TRUE(build) << build.error().message();
  EXPECT_TRUE(build->fetched);
  EXPECT_EQ(progress.fetched, std::optional<bool>(true));
  EXPECT_EQ(progress.steps, 0);
  EXPECT_EQ(cache.build_steps_run(), 0);
  EXPECT_EQ(ReadAll(build->artifacts.at("prog")), "echo from the store\n");
  EXPECT_EQ(Entry(*build).value("fetched", false), true);
  // Served from the cache afterwards, still saying where it came from.
  Result<Build> again = cache.Ensure(commit_);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->reused);
  EXPECT_TRUE(again->fetched);
}

TEST_F(BuildFetchTest, AFailingFetchFallsBackToBuilding) {
  BuildCache cache(*repo_, Settings("echo 'no such artifact' >&2; exit 4"));
  FetchProgress progress;
  Result<Build> build = cache.Ensure(commit_, false, &progress);
  ASSERT_TRUE(build) << build.error().message();
  EXPECT_FALSE(build->fetched);
  EXPECT_EQ(progress.fetched, std::optional<bool>(false));
  EXPECT_NE(progress.failure.find("exited with status 4"), std::string::npos) << progress.failure;
  EXPECT_EQ(cache.build_steps_run(), 1);
  EXPECT_EQ(ReadAll(build->artifacts.at("prog")), "echo built here\n");
  EXPECT_NE(Entry(*build).value("fetch_failure", "").find("exited with status 4"),
            std::string::npos);
  const std::string log = ReadAll(build->dir / "build.log");
  EXPECT_NE(log.find("no such artifact"), std::string::npos) << log;
  EXPECT_NE(log.find("building instead"), std::string::npos) << log;
}

TEST_F(BuildFetchTest, AFetchThatPlacesNothingFallsBackToBuilding) {
  BuildCache cache(*repo_, Settings("true"));
  FetchProgress progress;
  Result<Build> build = cache.Ensure(commit_, false, &progress);
  ASSERT_TRUE(build) << build.error().message();
  EXPECT_FALSE(build->fetched);
  EXPECT_NE(progress.failure.find("placed no prog"), std::string::npos) << progress.failure;
  EXPECT_EQ(ReadAll(build->artifacts.at("prog")), "echo built here\n");
}

TEST(BuildFetchConfig, KnowsItsTwoPlaceholdersOnly) {
  EngineConfig engine;
  Status read = ReadConfigText(
      "[engine]\nbuild = [[\"make\"]]\nfetch = [\"fetch-artifacts\", \"{commit}\", "
      "\"{artifacts}\"]\n",
      [&](const ConfigTable& root) { return ReadEngineSection(root, &engine); });
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(engine.fetch, (std::vector<std::string>{"fetch-artifacts", "{commit}", "{artifacts}"}));
  const std::string error =
      ConfigErrorOf("[engine]\nbuild = [[\"make\"]]\nfetch = [\"fetch-artifacts\", \"{comit}\"]\n",
                    [](const ConfigTable& root) {
                      EngineConfig e;
                      return ReadEngineSection(root, &e);
                    });
  EXPECT_NE(error.find(":3:29: engine.fetch[1]: unknown placeholder '{comit}'"), std::string::npos)
      << error;
  EXPECT_NE(error.find("did you mean '{commit}'"), std::string::npos) << error;
}

}  // namespace
}  // namespace culprit
