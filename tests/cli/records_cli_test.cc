// Integration tests of `culprit records` through the real executable: the
// records that real probes and runs wrote are listed, filtered and shown;
// damaged or unknown-schema files are skipped with a warning; ambiguous and
// unknown ids are usage errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/process.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The lines of `text` that hold `part`.
int LinesContaining(const std::string& text, const std::string& part) {
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += Contains(line, part) ? 1 : 0;
  return n;
}

// One archive shared by the suite (measuring it takes a few seconds): an
// EFFECT probe, a probe of an ignored variable (NULL or INCONCLUSIVE) and a
// run, written by the real commands. Tests that damage the archive work on a copy.
class RecordsCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    WriteTextFile(dir_->path() / "culprit.toml", std::string(R"([engine]
repo = "."
build = [["true"]]

[queries.work]
command = [")") + FixturePath("fixture_work") + R"(", "--scale", "0.25"]
metric = { regex = 'median_ms=([0-9.]+)' }
timeout = "20s"

[measure]
warmup = 1
min_pairs = 10
max_pairs = 40

[records]
dir = "records"
)");
    ProcessResult effect = Run({"probe", "-o", "CULPRIT_FIXTURE_SLOW=1", "--json"});
    ASSERT_EQ(effect.exit_code, 3) << DescribeRun(effect);
    effect_ = new Json(Json::parse(effect.stdout_text));
    ProcessResult ignored = Run({"probe", "-o", "SOME_IGNORED_VAR=1", "--json"});
    ASSERT_EQ(ignored.exit_code, 0) << DescribeRun(ignored);
    ignored_ = new Json(Json::parse(ignored.stdout_text));
    ProcessResult run = Run({"run", "-n", "4", "--json"});
    ASSERT_EQ(run.exit_code, 0) << DescribeRun(run);
    run_ = new Json(Json::parse(run.stdout_text));
  }

  static void TearDownTestSuite() {
    delete effect_;
    delete ignored_;
    delete run_;
    delete dir_;
    effect_ = ignored_ = run_ = nullptr;
    dir_ = nullptr;
  }

  void SetUp() override {
    ASSERT_NE(run_, nullptr) << "the archive could not be made; see the first failure";
  }

  static ProcessResult Run(std::vector<std::string> args) {
    args.push_back("--config");
    args.push_back((dir_->path() / "culprit.toml").string());
    return RunCulprit(args, dir_->path());
  }

  static std::string Id(const Json* record) { return (*record)["id"].get<std::string>(); }
  static fs::path RecordsDir() { return dir_->path() / "records"; }

  static TempDir* dir_;
  static Json* effect_;
  static Json* ignored_;
  static Json* run_;
};

TempDir* RecordsCliTest::dir_ = nullptr;
Json* RecordsCliTest::effect_ = nullptr;
Json* RecordsCliTest::ignored_ = nullptr;
Json* RecordsCliTest::run_ = nullptr;

TEST_F(RecordsCliTest, EveryMeasurementWroteItsRecord) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(RecordsDir())) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> expected = {Id(effect_) + ".json", Id(ignored_) + ".json",
                                       Id(run_) + ".json"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(files, expected);
  EXPECT_EQ((*effect_)["kind"], "probe");
  EXPECT_EQ((*ignored_)["kind"], "probe");
  EXPECT_EQ((*run_)["kind"], "run");
}

TEST_F(RecordsCliTest, ListShowsAllRecordsAndFilters) {
  ProcessResult all = Run({"records", "list"});
  ASSERT_EQ(all.exit_code, 0) << DescribeRun(all);
  EXPECT_TRUE(all.stderr_text.empty()) << DescribeRun(all);
  for (const Json* r : {effect_, ignored_, run_}) {
    EXPECT_EQ(LinesContaining(all.stdout_text, Id(r)), 1) << Id(r) << "\n" << DescribeRun(all);
  }
  EXPECT_TRUE(Contains(all.stdout_text, "\n3 records\n")) << DescribeRun(all);

  ProcessResult probes = Run({"records", "list", "--kind", "probe"});
  ASSERT_EQ(probes.exit_code, 0) << DescribeRun(probes);
  EXPECT_TRUE(Contains(probes.stdout_text, Id(effect_))) << DescribeRun(probes);
  EXPECT_TRUE(Contains(probes.stdout_text, Id(ignored_))) << DescribeRun(probes);
  EXPECT_FALSE(Contains(probes.stdout_text, Id(run_))) << DescribeRun(probes);
  EXPECT_TRUE(Contains(probes.stdout_text, "\n2 records\n")) << DescribeRun(probes);

  ProcessResult effects = Run({"records", "list", "--kind", "probe", "--verdict", "EFFECT"});
  ASSERT_EQ(effects.exit_code, 0) << DescribeRun(effects);
  EXPECT_TRUE(Contains(effects.stdout_text, Id(effect_))) << DescribeRun(effects);
  EXPECT_FALSE(Contains(effects.stdout_text, Id(ignored_))) << DescribeRun(effects);
  EXPECT_FALSE(Contains(effects.stdout_text, Id(run_))) << DescribeRun(effects);
  EXPECT_TRUE(Contains(effects.stdout_text, "\n1 record\n")) << DescribeRun(effects);

  ProcessResult runs = Run({"records", "list", "--kind", "run"});
  ASSERT_EQ(runs.exit_code, 0) << DescribeRun(runs);
  EXPECT_TRUE(Contains(runs.stdout_text, Id(run_))) << DescribeRun(runs);
  EXPECT_TRUE(Contains(runs.stdout_text, "\n1 record\n")) << DescribeRun(runs);

  // --dir reads an archive without any configuration.
  TempDir elsewhere;
  ProcessResult by_dir = RunCulprit(
      {"records", "list", "--dir", RecordsDir().string(), "--verdict", "EFFECT"}, elsewhere.path());
  ASSERT_EQ(by_dir.exit_code, 0) << DescribeRun(by_dir);
  EXPECT_TRUE(Contains(by_dir.stdout_text, Id(effect_))) << DescribeRun(by_dir);
  EXPECT_TRUE(Contains(by_dir.stdout_text, "\n1 record\n")) << DescribeRun(by_dir);

  ProcessResult typo = Run({"records", "list", "--verdict", "EFECT"});
  EXPECT_EQ(typo.exit_code, 2) << DescribeRun(typo);
  EXPECT_TRUE(Contains(typo.stderr_text, "did you mean 'EFFECT'")) << DescribeRun(typo);
}

TEST_F(RecordsCliTest, ShowPrintsTheVerdictAndEverySample) {
  const std::string id = Id(effect_);
  // A prefix: the id without its last random hex digit, unless that is ambiguous.
  std::string prefix = id.substr(0, id.size() - 1);
  for (const Json* other : {ignored_, run_}) {
    if (Id(other).rfind(prefix, 0) == 0) prefix = id;
  }
  ProcessResult text = Run({"records", "show", prefix});
  ASSERT_EQ(text.exit_code, 0) << DescribeRun(text);
  EXPECT_TRUE(Contains(text.stdout_text, "record " + id)) << DescribeRun(text);
  EXPECT_TRUE(Contains(text.stdout_text, "EFFECT")) << DescribeRun(text);
  EXPECT_TRUE(Contains(text.stdout_text, "CULPRIT_FIXTURE_SLOW=1")) << DescribeRun(text);
  const size_t samples = (*effect_)["samples"].size();
  EXPECT_TRUE(
      Contains(text.stdout_text, "samples in execution order (" + std::to_string(samples) + ";"))
      << DescribeRun(text);
  // Every sample's value is printed (as sequence:arm=value, 4 significant digits).
  for (const Json& s : (*effect_)["samples"]) {
    const std::string prefix =
        std::to_string(s["sequence"].get<int>()) + ":" + std::to_string(s["arm"].get<int>()) + "=";
    EXPECT_TRUE(Contains(text.stdout_text, prefix)) << prefix << "\n" << DescribeRun(text);
  }

  ProcessResult json = Run({"records", "show", id, "--json"});
  ASSERT_EQ(json.exit_code, 0) << DescribeRun(json);
  EXPECT_EQ(Json::parse(json.stdout_text), *effect_);
}

TEST_F(RecordsCliTest, AmbiguousOrUnknownIdIsAUsageError) {
  // Every id starts with the year.
  const std::string year = Id(effect_).substr(0, 4);
  ProcessResult ambiguous = Run({"records", "show", year});
  EXPECT_EQ(ambiguous.exit_code, 2) << DescribeRun(ambiguous);
  EXPECT_EQ(ambiguous.stderr_text.rfind("culprit: error: ", 0), 0u) << DescribeRun(ambiguous);
  EXPECT_TRUE(Contains(ambiguous.stderr_text, "matches 3 records")) << DescribeRun(ambiguous);
  for (const Json* r : {effect_, ignored_, run_}) {
    EXPECT_TRUE(Contains(ambiguous.stderr_text, Id(r))) << DescribeRun(ambiguous);
  }
  EXPECT_TRUE(ambiguous.stdout_text.empty()) << DescribeRun(ambiguous);

  ProcessResult unknown = Run({"records", "show", "no-such-record"});
  EXPECT_EQ(unknown.exit_code, 2) << DescribeRun(unknown);
  EXPECT_TRUE(Contains(unknown.stderr_text, "no record 'no-such-record'")) << DescribeRun(unknown);
  EXPECT_TRUE(unknown.stdout_text.empty()) << DescribeRun(unknown);
}

TEST_F(RecordsCliTest, DamagedAndUnknownSchemaFilesAreSkippedWithAWarning) {
  TempDir copy;
  const fs::path records = copy.path() / "records";
  fs::copy(RecordsDir(), records);
  const fs::path damaged = records / "2020-01-01T000000Z-probe-work-dead.json";
  WriteTextFile(damaged, ReadAll(RecordsDir() / (Id(effect_) + ".json")).substr(0, 200));
  Json future = *ignored_;
  future["schema"] = "culprit.record/v9";
  future["id"] = "2020-01-02T000000Z-probe-work-beef";
  const fs::path v9 = records / "2020-01-02T000000Z-probe-work-beef.json";
  WriteTextFile(v9, future.dump(2));

  ProcessResult list = RunCulprit({"records", "list", "--dir", records.string()}, copy.path());
  ASSERT_EQ(list.exit_code, 0) << DescribeRun(list);
  EXPECT_EQ(LinesContaining(list.stderr_text, "culprit: warning: "), 2) << DescribeRun(list);
  EXPECT_EQ(LinesContaining(list.stderr_text, damaged.string()), 1) << DescribeRun(list);
  EXPECT_EQ(LinesContaining(list.stderr_text, v9.string()), 1) << DescribeRun(list);
  EXPECT_TRUE(Contains(list.stderr_text, "culprit.record/v9")) << DescribeRun(list);
  // The rest still lists, and the skipped files are not among them.
  for (const Json* r : {effect_, ignored_, run_}) {
    EXPECT_TRUE(Contains(list.stdout_text, Id(r))) << DescribeRun(list);
  }
  EXPECT_FALSE(Contains(list.stdout_text, "dead")) << DescribeRun(list);
  EXPECT_FALSE(Contains(list.stdout_text, "beef")) << DescribeRun(list);
  EXPECT_TRUE(Contains(list.stdout_text, "\n3 records\n")) << DescribeRun(list);

  // A filtered listing warns too, and still filters.
  ProcessResult effects = RunCulprit(
      {"records", "list", "--dir", records.string(), "--verdict", "EFFECT"}, copy.path());
  ASSERT_EQ(effects.exit_code, 0) << DescribeRun(effects);
  EXPECT_EQ(LinesContaining(effects.stderr_text, "culprit: warning: "), 2) << DescribeRun(effects);
  EXPECT_TRUE(Contains(effects.stdout_text, "\n1 record\n")) << DescribeRun(effects);

  // Showing an intact record works beside them; showing the damaged one says why not.
  ProcessResult intact =
      RunCulprit({"records", "show", Id(run_), "--dir", records.string()}, copy.path());
  EXPECT_EQ(intact.exit_code, 0) << DescribeRun(intact);
  ProcessResult broken =
      RunCulprit({"records", "show", "2020-01-01", "--dir", records.string()}, copy.path());
  EXPECT_NE(broken.exit_code, 0) << DescribeRun(broken);
  EXPECT_TRUE(Contains(broken.stderr_text, "damaged record")) << DescribeRun(broken);
}

}  // namespace
}  // namespace culprit
