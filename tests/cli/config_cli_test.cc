// Integration tests of configuration handling through the real executable:
// bad culprit.toml files are usage errors (exit 2) printed once with their
// file:line:column; `culprit init` writes a file that `culprit run` accepts
// once its query is set; `culprit host` and `culprit run` report; --config
// works before and after the command.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "engine/process.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const std::string kFixture = FixturePath("fixture_work");

std::vector<fs::path> JsonFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::exists(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  return files;
}

// A valid start for the bad files below: the mistakes come after it.
const std::string kEngine = R"([engine]
repo = "."
build = [["true"]]

)";

struct BadConfig {
  std::string name;
  std::string text;
  std::string position;  ///< "LINE:COLUMN"
  std::string says;      ///< A part of the message.
};

TEST(ConfigCliTest, BadConfigurationsAreUsageErrorsWithTheirPosition) {
  const std::vector<BadConfig> cases = {
      {"misspelt key", kEngine + "[queries.q]\ncommand = [\"x\"]\nmetirc = \"wall\"\n", "7:1",
       "did you mean 'metric'"},
      {"misspelt section", "[engnie]\nrepo = \".\"\n", "1:2", "did you mean 'engine'"},
      {"regex without a group",
       kEngine + "[queries.q]\ncommand = [\"x\"]\nmetric = { regex = 'median_ms=[0-9.]+' }\n",
       "7:20", "capture group"},
      {"bad duration", kEngine + "[queries.q]\ncommand = [\"x\"]\ntimeout = \"5 parsecs\"\n",
       "7:11", "expected a duration"},
      {"band out of range", kEngine + "[queries.q]\ncommand = [\"x\"]\n[measure]\nband = 2.0\n",
       "8:8", "measure.band"},
      {"min above max",
       kEngine + "[queries.q]\ncommand = [\"x\"]\n[measure]\nmin_pairs = 20\nmax_pairs = 10\n",
       "8:13", "measure.min_pairs"},
      {"unknown artifact", kEngine + "[queries.q]\ncommand = [\"{artifact:nope}\"]\n", "6:12",
       "engine.artifacts"},
      {"TOML syntax", kEngine + "[queries.q]\ncommand = [\"x\"\n", "6:16", "invalid TOML"},
      {"bad variable name",
       kEngine + "[queries.q]\ncommand = [\"x\"]\nenv = { \"1BAD\" = \"x\" }\n", "7:9",
       "environment variable name"},
      {"number as env value",
       kEngine + "[overrides.o]\nenv = { A = 1 }\n[queries.q]\ncommand = [\"x\"]\n", "6:13",
       "expected a string"},
      {"registry names no query",
       kEngine + "[registry]\norder = [\"nosuch\"]\n[queries.q]\ncommand = [\"x\"]\n", "6:10",
       "registry.order"},
      {"query without command", kEngine + "[queries.q]\nmetric = \"wall\"\n", "5:1",
       "missing 'command'"},
  };
  for (const BadConfig& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    WriteTextFile(dir.path() / "culprit.toml", c.text);
    // Found in the current directory: named as "culprit.toml".
    ProcessResult run = RunCulprit({"run"}, dir.path());
    EXPECT_EQ(run.exit_code, 2) << DescribeRun(run);
    const std::string expected = "culprit: error: culprit.toml:" + c.position + ": ";
    EXPECT_EQ(run.stderr_text.rfind(expected, 0), 0u) << expected << "\n" << DescribeRun(run);
    EXPECT_TRUE(Contains(run.stderr_text, c.says)) << c.says << "\n" << DescribeRun(run);
    // Printed once.
    EXPECT_EQ(run.stderr_text.find("culprit: error: ", 1), std::string::npos) << DescribeRun(run);
    EXPECT_TRUE(run.stdout_text.empty()) << DescribeRun(run);

    // Given with --config from elsewhere: named by the path given, and every
    // command that loads the configuration refuses it the same way.
    TempDir elsewhere;
    const std::string path = (dir.path() / "culprit.toml").string();
    ProcessResult probe = RunCulprit({"probe", "-o", "A=1", "--config", path}, elsewhere.path());
    EXPECT_EQ(probe.exit_code, 2) << DescribeRun(probe);
    EXPECT_EQ(probe.stderr_text.rfind("culprit: error: " + path + ":" + c.position + ": ", 0), 0u)
        << DescribeRun(probe);
    EXPECT_FALSE(fs::exists(dir.path() / "benchmarks")) << "nothing may be measured";
  }
}

// An engine repository that cannot serve the command is refused where the file names it,
// before anything runs: a directory that is not there for every command, one that is not a
// git repository for the commands that build; measuring its working tree needs no git.
TEST(ConfigCliTest, AnEngineRepoThatCannotServeTheCommandIsRefusedWhereItIsWritten) {
  TempDir dir;
  fs::create_directories(dir.path() / "plain");
  const std::string query = "[queries.q]\ncommand = [\"true\"]\nmetric = \"wall\"\n";
  WriteTextFile(dir.path() / "culprit.toml",
                "[engine]\nrepo = \"missing\"\nbuild = [[\"true\"]]\n" + query);
  ProcessResult run = RunCulprit({"run", "-n", "2"}, dir.path());
  EXPECT_EQ(run.exit_code, 2) << DescribeRun(run);
  EXPECT_EQ(run.stderr_text.rfind("culprit: error: culprit.toml:2:8: engine.repo: ", 0), 0u)
      << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "missing does not exist")) << DescribeRun(run);

  WriteTextFile(dir.path() / "culprit.toml",
                "[engine]\nrepo = \"plain\"\nbuild = [[\"true\"]]\n" + query);
  ProcessResult compare = RunCulprit({"compare", "v1", "v2", "-q", "q"}, dir.path());
  EXPECT_EQ(compare.exit_code, 2) << DescribeRun(compare);
  EXPECT_TRUE(Contains(compare.stderr_text, "culprit.toml:2:8: engine.repo: "))
      << DescribeRun(compare);
  EXPECT_TRUE(Contains(compare.stderr_text, "is not a git repository (nor inside one)"))
      << DescribeRun(compare);
  EXPECT_FALSE(fs::exists(dir.path() / "benchmarks")) << "nothing may be measured";
  ProcessResult tree = RunCulprit({"run", "-n", "2"}, dir.path());
  EXPECT_EQ(tree.exit_code, 0) << DescribeRun(tree);
}

TEST(ConfigCliTest, MissingConfigurationIsAUsageErrorWithAHint) {
  TempDir dir;
  ProcessResult none = RunCulprit({"run"}, dir.path());
  EXPECT_EQ(none.exit_code, 2) << DescribeRun(none);
  EXPECT_EQ(none.stderr_text.rfind("culprit: error: ", 0), 0u) << DescribeRun(none);
  EXPECT_TRUE(Contains(none.stderr_text, "culprit init")) << DescribeRun(none);

  ProcessResult missing = RunCulprit({"--config", "nope.toml", "probe", "-o", "A=1"}, dir.path());
  EXPECT_EQ(missing.exit_code, 2) << DescribeRun(missing);
  EXPECT_TRUE(Contains(missing.stderr_text, "nope.toml")) << DescribeRun(missing);

  ProcessResult unknown_command = RunCulprit({"porbe"}, dir.path());
  EXPECT_EQ(unknown_command.exit_code, 2) << DescribeRun(unknown_command);
  EXPECT_EQ(unknown_command.stderr_text.rfind("culprit: error: ", 0), 0u)
      << DescribeRun(unknown_command);
}

// Replaces the whole line starting with `key = ` in the first table named
// `table`, as a user editing the starter file would.
std::string SetKey(std::string text, const std::string& table, const std::string& key,
                   const std::string& value) {
  size_t at = text.find("\n" + table + "\n");
  EXPECT_NE(at, std::string::npos) << table << " not in:\n" << text;
  if (at == std::string::npos) return text;
  size_t line = text.find("\n" + key + " = ", at);
  EXPECT_NE(line, std::string::npos) << key << " not in " << table;
  if (line == std::string::npos) return text;
  ++line;
  size_t end = text.find('\n', line);
  return text.replace(line, end - line, key + " = " + value);
}

TEST(ConfigCliTest, InitWritesAFileThatRunAcceptsAndNeverOverwritesIt) {
  TempDir dir;
  const fs::path config = dir.path() / "culprit.toml";
  ProcessResult init = RunCulprit({"init"}, dir.path());
  ASSERT_EQ(init.exit_code, 0) << DescribeRun(init);
  ASSERT_TRUE(fs::exists(config));
  const std::string starter = ReadAll(config);

  // Set the query's command and metric, as the file's comments say.
  std::string edited = SetKey(starter, "[queries.\"example\"]", "command",
                              "[\"" + kFixture + "\", \"--scale\", \"0.25\"]");
  edited = SetKey(edited, "[queries.\"example\"]", "metric", "{ regex = 'median_ms=([0-9.]+)' }");
  WriteTextFile(config, edited);

  // Refused without --force, and the edited file is left alone.
  ProcessResult again = RunCulprit({"init"}, dir.path());
  EXPECT_EQ(again.exit_code, 2) << DescribeRun(again);
  EXPECT_TRUE(Contains(again.stderr_text, "already exists")) << DescribeRun(again);
  EXPECT_TRUE(Contains(again.stderr_text, "--force")) << DescribeRun(again);
  EXPECT_EQ(ReadAll(config), edited);

  ProcessResult run = RunCulprit({"run", "example", "-n", "3", "--json"}, dir.path());
  ASSERT_EQ(run.exit_code, 0) << DescribeRun(run);
  Json record = Json::parse(run.stdout_text);
  EXPECT_EQ(record["kind"], "run");
  EXPECT_EQ(record["query"], "example");
  EXPECT_EQ(record["arms"][0]["ok_samples"], 3);
  // The starter's records directory, relative to the file.
  EXPECT_EQ(JsonFiles(dir.path() / "benchmarks" / "results-v1").size(), 1u);

  ProcessResult force = RunCulprit({"init", "--force"}, dir.path());
  EXPECT_EQ(force.exit_code, 0) << DescribeRun(force);
  EXPECT_EQ(ReadAll(config), starter);

  // --output names another file.
  ProcessResult other = RunCulprit({"init", "--output", "other.toml"}, dir.path());
  EXPECT_EQ(other.exit_code, 0) << DescribeRun(other);
  EXPECT_TRUE(fs::exists(dir.path() / "other.toml"));
}

TEST(ConfigCliTest, RunOnAWorkingTreeWithNothingBuiltSaysToBuildOrGiveARevision) {
  // Right after `culprit init` in an engine's clone nothing is built in its working tree.
  TempDir dir;
  GitFixture git(dir.path() / "repo");
  git.Commit({{"main.c", LoopEngineSource("engine", 1000)}}, {}, "engine");
  const fs::path config = WriteLoopEngineConfig(dir.path(), "10s", 0.2);
  ProcessResult run =
      RunCulprit({"--config", config.string(), "run", "loop", "-n", "2"}, dir.path());
  EXPECT_EQ(run.exit_code, 2) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "which the engine's working tree does not have"))
      << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "--rev HEAD")) << DescribeRun(run);
  // Nothing was measured, so nothing is archived.
  EXPECT_FALSE(fs::exists(dir.path() / "records"));
  ProcessResult at_head = RunCulprit(
      {"--config", config.string(), "run", "loop", "-n", "2", "--rev", "HEAD"}, dir.path());
  EXPECT_EQ(at_head.exit_code, 0) << DescribeRun(at_head);
}

TEST(ConfigCliTest, InitKeepsCulpritsOwnFilesOutOfGitStatus) {
  TempDir dir;
  GitFixture git(dir.path() / "engine");
  git.Commit({{"main.c", "int main(void) { return 0; }\n"}}, {}, "engine");
  const fs::path sub = dir.path() / "engine" / "bench";
  fs::create_directories(sub);
  ProcessResult init = RunCulprit({"init"}, sub);
  ASSERT_EQ(init.exit_code, 0) << DescribeRun(init);
  EXPECT_TRUE(Contains(init.stdout_text, "kept out of `git status`")) << DescribeRun(init);
  const std::string exclude = ReadAll(dir.path() / "engine" / ".git" / "info" / "exclude");
  for (const char* line :
       {"/bench/culprit.toml\n", "/bench/.culprit/\n", "/bench/benchmarks/results-v1/\n"}) {
    EXPECT_TRUE(Contains(exclude, line)) << exclude;
  }
  // git agrees: the new file is not untracked.
  ProcessSpec status;
  status.argv = {"git", "status", "--porcelain"};
  status.cwd = dir.path() / "engine";
  ProcessResult porcelain = RunProcess(status);
  ASSERT_EQ(porcelain.exit_code, 0) << DescribeRun(porcelain);
  EXPECT_FALSE(Contains(porcelain.stdout_text, "culprit.toml")) << porcelain.stdout_text;
  // A second init adds nothing twice.
  ProcessResult again = RunCulprit({"init", "--force"}, sub);
  ASSERT_EQ(again.exit_code, 0) << DescribeRun(again);
  EXPECT_FALSE(Contains(again.stdout_text, "kept out of")) << DescribeRun(again);
  EXPECT_EQ(ReadAll(dir.path() / "engine" / ".git" / "info" / "exclude"), exclude);
}

TEST(ConfigCliTest, InitFitsTheBuildSystemItFindsAndSaysWhenThereIsNoGitRepository) {
  TempDir dir;
  WriteTextFile(dir.path() / "Cargo.toml", "[package]\nname = \"engine\"\n");
  ProcessResult init = RunCulprit({"init"}, dir.path());
  ASSERT_EQ(init.exit_code, 0) << DescribeRun(init);
  EXPECT_TRUE(Contains(init.stdout_text, "build steps for the Cargo project")) << DescribeRun(init);
  EXPECT_TRUE(
      Contains(ReadAll(dir.path() / "culprit.toml"), "[[\"cargo\", \"build\", \"--release\"]]"));
  // The temporary directory is no git repository.
  EXPECT_TRUE(Contains(init.stderr_text, "is not in a git repository")) << DescribeRun(init);
}

TEST(ConfigCliTest, InitOffersCcacheWhenThisHostHasIt) {
  // With a PATH that holds no ccache, the line is written commented out, with the reason.
  TempDir bare;
  ProcessResult without = RunCulprit({"init"}, bare.path(), {{"PATH", "/nonexistent-bin"}});
  ASSERT_EQ(without.exit_code, 0) << DescribeRun(without);
  EXPECT_TRUE(Contains(without.stdout_text, "no compiler cache: ccache is not on PATH"))
      << DescribeRun(without);
  EXPECT_TRUE(Contains(ReadAll(bare.path() / "culprit.toml"), "# compiler_cache = \"ccache\""));

  if (!fs::exists("/usr/lib/ccache/cc")) {
    GTEST_SKIP() << "ccache is not installed here (scripts/install-deps installs it)";
  }
  TempDir dir;
  ProcessResult with = RunCulprit({"init"}, dir.path());
  ASSERT_EQ(with.exit_code, 0) << DescribeRun(with);
  EXPECT_TRUE(Contains(with.stdout_text, "ccache found (")) << DescribeRun(with);
  const std::string starter = ReadAll(dir.path() / "culprit.toml");
  EXPECT_TRUE(Contains(starter, "\ncompiler_cache = \"ccache\"\n")) << starter;
}

TEST(ConfigCliTest, HostReportsCalibrationAndFrequencyGovernor) {
  TempDir dir;
  ProcessResult host = RunCulprit({"host"}, dir.path());
  ASSERT_EQ(host.exit_code, 0) << DescribeRun(host);
  EXPECT_TRUE(Contains(host.stdout_text, "calibration")) << DescribeRun(host);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(host.stdout_text, match, std::regex("calibration +([0-9.]+) ms")))
      << DescribeRun(host);
  EXPECT_GT(std::stod(match[1]), 0);
  // The governor line says what the host exposes: on the development VM,
  // which has no cpufreq, "unavailable".
  ASSERT_TRUE(std::regex_search(host.stdout_text, match, std::regex("governor +(\\S+)")))
      << DescribeRun(host);
  const fs::path governor = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor";
  if (fs::exists(governor)) {
    std::string expected = ReadAll(governor);
    expected.erase(expected.find_last_not_of(" \n") + 1);
    EXPECT_EQ(match[1].str(), expected) << DescribeRun(host);
  } else {
    EXPECT_EQ(match[1].str(), "unavailable") << DescribeRun(host);
  }
  // No configuration is needed, and nothing is archived.
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(ConfigCliTest, HostOnOneCpuSaysThreadsWillNotHelp) {
  // A VM that names two cores and gives one core's worth of time, made real with taskset:
  // `host` measures one busy loop against two and says a thread-count probe would measure
  // contention. The effect is 2x (two loops on one CPU), not a timing threshold.
  if (::system("command -v taskset >/dev/null 2>&1") != 0) GTEST_SKIP() << "no taskset";
  TempDir dir;
  ProcessSpec spec;
  spec.argv = {"taskset", "-c", "0", CulpritExe(), "host"};
  spec.cwd = dir.path();
  spec.timeout = std::chrono::minutes(1);
  ProcessResult pinned = RunProcess(spec);
  ASSERT_EQ(pinned.exit_code, 0) << DescribeRun(pinned);
  if (Contains(pinned.stdout_text, "parallelism: unavailable")) GTEST_SKIP() << "a one-core host";
  EXPECT_TRUE(Contains(pinned.stdout_text, "more threads will not make")) << DescribeRun(pinned);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(pinned.stdout_text, match,
                                std::regex("parallelism: effective ([0-9.]+) of 2 threads")))
      << DescribeRun(pinned);
  EXPECT_LT(std::stod(match[1]), 1.4) << DescribeRun(pinned);
}

class RunCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteTextFile(config_, R"([engine]
repo = "."
build = [["true"]]

[queries.work]
command = [")" + kFixture + R"(", "--scale", "0.25"]
metric = { regex = 'median_ms=([0-9.]+)' }
unit = "ms"

[measure]
warmup = 1

[records]
dir = "archive"
)");
  }

  TempDir dir_;
  fs::path config_ = dir_.path() / "culprit.toml";
};

TEST_F(RunCliTest, RunPrintsAMedianAndWritesARunRecord) {
  ProcessResult run = RunCulprit({"run", "work", "-n", "5"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << DescribeRun(run);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(run.stdout_text, match,
                                std::regex("work +worktree +median ([0-9.]+) ms +\\(n=5,")))
      << DescribeRun(run);
  const double median = std::stod(match[1]);
  EXPECT_GT(median, 0);
  const std::vector<fs::path> files = JsonFiles(dir_.path() / "archive");
  ASSERT_EQ(files.size(), 1u) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stdout_text, "record " + files[0].string())) << DescribeRun(run);
  Json record = Json::parse(ReadAll(files[0]));
  EXPECT_EQ(record["kind"], "run");
  EXPECT_EQ(record["query"], "work");
  ASSERT_EQ(record["arms"].size(), 1u);
  EXPECT_EQ(record["arms"][0]["ok_samples"], 5);
  // The printed median is the median of the archived samples.
  std::vector<double> values;
  for (const Json& s : record["samples"]) {
    if (!s["warmup"].get<bool>() && s["ok"].get<bool>()) values.push_back(s["value"]);
  }
  ASSERT_EQ(values.size(), 5u);
  std::sort(values.begin(), values.end());
  EXPECT_NEAR(median, values[2], values[2] * 1e-4);
}

TEST_F(RunCliTest, ConfigOptionWorksBeforeAndAfterTheCommand) {
  // From another directory: the records go next to the config file, not here.
  TempDir elsewhere;
  ProcessResult before =
      RunCulprit({"--config", config_.string(), "run", "-n", "2"}, elsewhere.path());
  EXPECT_EQ(before.exit_code, 0) << DescribeRun(before);
  ProcessResult after =
      RunCulprit({"run", "-n", "2", "--config", config_.string()}, elsewhere.path());
  EXPECT_EQ(after.exit_code, 0) << DescribeRun(after);
  ProcessResult list = RunCulprit(
      {"records", "list", "--kind", "run", "--config", config_.string()}, elsewhere.path());
  EXPECT_EQ(list.exit_code, 0) << DescribeRun(list);
  EXPECT_TRUE(Contains(list.stdout_text, "\n2 records\n")) << DescribeRun(list);
  EXPECT_EQ(JsonFiles(dir_.path() / "archive").size(), 2u);
  EXPECT_TRUE(fs::is_empty(elsewhere.path()));
}

}  // namespace
}  // namespace culprit
