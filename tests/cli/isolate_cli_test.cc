// Integration tests of `culprit isolate` and `culprit harness check` through
// the real executable, on tests/fixtures/residency_engine: holding its
// `rollup` makes every scan also walk the rollup (real work), holding its
// `ballast` costs nothing. Also engines that break mid-sitting, Ctrl-C, and
// the two minimal adapters of docs/harness.md.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "engine/process.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace culprit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const std::string kEngine = FixturePath("residency_engine");

std::string TomlArray(const std::vector<std::string>& words) {
  std::string out = "[";
  for (size_t i = 0; i < words.size(); ++i) out += (i ? ", " : "") + Quoted(words[i]);
  return out + "]";
}

class IsolateCliTest : public ::testing::Test {
 protected:
  // culprit.toml with `harness` as the [harness] command.
  // The plan holds structures[0] (a control), structures[1] (the suspect), and releases the latter.
  void WriteConfig(const std::vector<std::string>& harness, const std::string& timeout = "30s",
                   const std::string& query = "scan",
                   const std::vector<std::string>& structures = {"ballast", "rollup"}) {
    const std::string& control = structures[0];
    const std::string& suspect = structures[1];
    WriteTextFile(dir_.path() / "culprit.toml", R"([engine]
repo = "."
build = [["true"]]

[queries.)" + query + R"(]
command = ["true"]
metric = "wall"

[harness]
command = )" + TomlArray(harness) + R"(
timeout = ")" + timeout + R"("

[residency."rollup"]
query = ")" + query + R"("
conditions = [
  { name = "nothing held" },
  { name = ")" + control + R"( held", hold = [")" + control +
                                                    R"("] },
  { name = ")" + suspect + R"( held", hold = [")" + suspect +
                                                    R"("] },
  { name = ")" + suspect + R"( released", hold = [")" +
                                                    suspect + R"("], release = [")" + suspect +
                                                    R"("] },
]

[measure]
min_pairs = 20
max_pairs = 160

[records]
dir = "records"
)");
  }

  fs::path Config() const { return dir_.path() / "culprit.toml"; }
  fs::path Log() const { return dir_.path() / "runs.log"; }
  fs::path Pidfile() const { return dir_.path() / "engine.pid"; }

  ProcessResult Culprit(const std::vector<std::string>& args) {
    ProcessSpec spec;
    spec.argv = {CulpritExe()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.push_back("--config");
    spec.argv.push_back(Config().string());
    spec.cwd = dir_.path();
    spec.timeout = std::chrono::minutes(3);  // a guard against a wedged test only
    return RunProcess(spec);
  }

  std::vector<fs::path> RecordFiles() const {
    std::vector<fs::path> files;
    if (!fs::exists(dir_.path() / "records")) return files;
    for (const auto& entry : fs::directory_iterator(dir_.path() / "records")) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    return files;
  }

  Json OnlyRecord() const {
    std::vector<fs::path> files = RecordFiles();
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? Json() : Json::parse(ReadAll(files[0]));
  }

  bool EngineGone() const {
    std::string text = ReadAll(Pidfile());
    pid_t pid = static_cast<pid_t>(std::stol(text));
    return ::kill(pid, 0) == -1 && errno == ESRCH;
  }

  TempDir dir_;
};

Json ConditionNamed(const Json& payload, const std::string& name) {
  for (const Json& c : payload["conditions"]) {
    if (c["name"] == name) return c;
  }
  return Json();
}

TEST_F(IsolateCliTest, NamesTheResidentStructureNotTheOthers) {
  WriteConfig({kEngine, "--pidfile", Pidfile().string()});
  ProcessResult r = Culprit({"isolate", "--json"});
  ASSERT_EQ(r.exit_code, 3) << DescribeRun(r);  // the suspect is EFFECT
  Json record = Json::parse(r.stdout_text);
  EXPECT_EQ(record["kind"], "isolate");
  EXPECT_EQ(record["verdict"], "EFFECT");
  EXPECT_GE(record["estimate"]["low"].get<double>(), 2.0);
  Json payload = record["payload"];
  const Json rollup = ConditionNamed(payload, "rollup held");
  const Json ballast = ConditionNamed(payload, "ballast held");
  const Json released = ConditionNamed(payload, "rollup released");
  EXPECT_EQ(rollup["verdict"], "EFFECT") << payload.dump(1);
  EXPECT_EQ(rollup["bytes"]["rollup"], 2 * (1 << 20) * 8);
  // The rollup's cost is >= 2x by construction; memory merely held (the
  // ballast) or the rollup once released costs the scan far less. On a quiet
  // host those are ties; on a loaded one, 16 MiB held can cost a real +10..30%
  // (cache and TLB pressure), so the test compares ratios, not verdicts.
  ASSERT_TRUE(ballast.contains("ratio") && released.contains("ratio")) << payload.dump(1);
  const double rollup_low = rollup["low"].get<double>();
  EXPECT_LT(ballast["ratio"].get<double>() * 1.4, rollup_low) << payload.dump(1);
  EXPECT_LT(released["ratio"].get<double>() * 1.4, rollup_low) << payload.dump(1);
  // Reversibility follows the released condition's verdict, whatever it is.
  const std::string reversibility = payload["reversibility"]["verdict"];
  if (released["verdict"] == "NULL") {
    EXPECT_EQ(reversibility, "reversible");
  } else {
    EXPECT_NE(reversibility, "reversible") << payload.dump(1);
  }
  EXPECT_EQ(record["arms"].size(), 4u);
  // Every sample is tagged with its condition and round.
  int measured = 0;
  for (const Json& s : record["samples"]) {
    EXPECT_LT(s["arm"].get<int>(), 4);
    if (!s["warmup"].get<bool>()) {
      ++measured;
      EXPECT_GE(s["pair"].get<int>(), 0);
    }
  }
  EXPECT_GT(measured, 0);
  EXPECT_EQ(payload["design"]["orders"].size(),
            std::stoul(record["details"]["rounds"].get<std::string>()));
  EXPECT_TRUE(EngineGone());

  // The summary says the same in words.
  ProcessResult text = Culprit({"isolate", "--seed", "3"});
  ASSERT_EQ(text.exit_code, 3) << DescribeRun(text);
  EXPECT_TRUE(Contains(text.stdout_text, "holding `rollup` (16.0 MiB) costs scan +"))
      << text.stdout_text;
  EXPECT_TRUE(Contains(text.stdout_text, "released: ")) << text.stdout_text;
  // Only a released tie supports "a residency effect of the rollup itself".
  if (Contains(text.stdout_text, "released: tie")) {
    EXPECT_TRUE(Contains(text.stdout_text, "a residency effect of `rollup` itself"))
        << text.stdout_text;
  } else {
    EXPECT_FALSE(Contains(text.stdout_text, "a residency effect of `rollup` itself"))
        << text.stdout_text;
  }
  EXPECT_EQ(RecordFiles().size(), 2u);
}

TEST_F(IsolateCliTest, APlansMaxRoundsIsItsBudgetUnlessMaxPairsIsGiven) {
  WriteConfig({kEngine, "--pidfile", Pidfile().string()});
  const std::string text = ReadAll(Config());
  auto with_max_rounds = [&](int rounds) {
    std::string edited = text;
    edited.replace(edited.find("conditions = ["), 0,
                   "max_rounds = " + std::to_string(rounds) + "\n");
    WriteTextFile(Config(), edited);
  };
  with_max_rounds(24);
  ProcessResult r = Culprit({"isolate", "--json"});
  ASSERT_EQ(r.exit_code, 3) << DescribeRun(r);
  Json record = Json::parse(r.stdout_text);
  EXPECT_EQ(record["details"]["max_rounds"], "24");
  EXPECT_LE(std::stoi(record["details"]["rounds"].get<std::string>()), 24);

  // --max-pairs is this run's budget, the plan's notwithstanding.
  r = Culprit({"isolate", "--max-pairs", "30"});
  ASSERT_EQ(r.exit_code, 3) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "(at most 30) x 4 conditions")) << r.stdout_text;

  // A budget below the first look is refused before the engine starts.
  with_max_rounds(12);
  r = Culprit({"isolate"});
  EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text,
                       "residency plan 'rollup' has max_rounds = 12, below the 20 "
                       "rounds of the first look"))
      << r.stderr_text;
  EXPECT_EQ(RecordFiles().size(), 2u);
}

TEST_F(IsolateCliTest, EngineThatCrashesMidRoundGivesAPartialRecord) {
  WriteConfig(
      {kEngine, "--fault", "crash", "--fault-after", "30", "--pidfile", Pidfile().string()});
  ProcessResult r = Culprit({"isolate"});
  ASSERT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "the engine broke, so there is no verdict")) << r.stderr_text;
  EXPECT_TRUE(Contains(r.stderr_text, "condition '")) << r.stderr_text;
  EXPECT_TRUE(Contains(r.stderr_text, "'run scan ")) << r.stderr_text;
  EXPECT_TRUE(Contains(r.stderr_text, "SIGSEGV")) << r.stderr_text;
  Json record = OnlyRecord();
  EXPECT_EQ(record["verdict"], "ERROR");
  EXPECT_EQ(record["details"]["partial"], "true");
  EXPECT_TRUE(record["payload"]["partial"].get<bool>());
  EXPECT_FALSE(record["samples"].empty());
  EXPECT_TRUE(EngineGone());
}

TEST_F(IsolateCliTest, EngineThatHangsIsKilled) {
  WriteConfig({kEngine, "--fault", "hang", "--fault-after", "12", "--pidfile", Pidfile().string()},
              "1s");
  ProcessResult r = Culprit({"isolate"});
  ASSERT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "did not answer 'run scan")) << r.stderr_text;
  EXPECT_EQ(OnlyRecord()["verdict"], "ERROR");
  EXPECT_TRUE(EngineGone());
}

TEST_F(IsolateCliTest, GarbageAndWrongCountAreProtocolErrors) {
  WriteConfig({kEngine, "--fault", "wrong-count", "--fault-after", "9"});
  ProcessResult r = Culprit({"isolate"});
  ASSERT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "values, expected")) << r.stderr_text;
  WriteConfig({kEngine, "--fault", "garbage", "--fault-after", "9"});
  r = Culprit({"isolate"});
  ASSERT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "hello, this is not the protocol")) << r.stderr_text;
  EXPECT_EQ(RecordFiles().size(), 2u);
}

int CountLines(const fs::path& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

TEST_F(IsolateCliTest, InterruptWritesAnInterruptedRecordAndStopsTheEngine) {
  WriteConfig({kEngine, "--log", Log().string(), "--pidfile", Pidfile().string()});
  // One look only, at 160 rounds: the sitting cannot stop by itself soon.
  const std::vector<std::string> args = {CulpritExe(), "isolate",        "--min-pairs",
                                         "160",        "--max-pairs",    "160",
                                         "--config",   Config().string()};
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const fs::path out = dir_.path() / "stdout.txt", err = dir_.path() / "stderr.txt";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, CulpritExe().c_str(), &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);

  // A wait, not a timed assertion: the deadline only keeps a broken culprit from wedging the test.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  bool exited = false;
  while (CountLines(Log()) < 40 && std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(exited) << "culprit ended before the interrupt:\n" << ReadAll(err);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  while (!exited && std::chrono::steady_clock::now() < deadline + std::chrono::seconds(30)) {
    if (waitpid(pid, &status, WNOHANG) == pid) exited = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "culprit did not stop after SIGINT:\n" << ReadAll(err);
  }
  const std::string stderr_text = ReadAll(err);
  ASSERT_TRUE(WIFEXITED(status)) << stderr_text;
  EXPECT_EQ(WEXITSTATUS(status), 130) << stderr_text;
  EXPECT_TRUE(Contains(stderr_text, "interrupted")) << stderr_text;
  Json record = OnlyRecord();
  EXPECT_TRUE(record["interrupted"].get<bool>());
  EXPECT_EQ(record["verdict"], "INCONCLUSIVE");
  EXPECT_FALSE(record["samples"].empty());
  EXPECT_TRUE(EngineGone());
}

TEST_F(IsolateCliTest, HarnessCheckPassesAGoodEngine) {
  WriteConfig({kEngine});
  ProcessResult r = Culprit({"harness", "check"});
  EXPECT_EQ(r.exit_code, 0) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "the harness speaks the protocol")) << r.stdout_text;
  EXPECT_FALSE(Contains(r.stdout_text, "FAIL")) << r.stdout_text;
}

TEST_F(IsolateCliTest, HarnessCheckSaysWhatALaxEngineDoesWrong) {
  WriteConfig({kEngine, "--lax"});
  ProcessResult r = Culprit({"harness", "check"});
  EXPECT_EQ(r.exit_code, 1) << DescribeRun(r);
  const std::string& out = r.stdout_text;
  EXPECT_TRUE(Contains(out, "FAIL  release rollup ")) << out;
  EXPECT_TRUE(Contains(out, "FAIL  hold culprit-no-such-structure")) << out;
  EXPECT_TRUE(Contains(out, "FAIL  run scan 0 ")) << out;
  EXPECT_TRUE(Contains(out, "FAIL  culprit-no-such-verb")) << out;
  EXPECT_TRUE(Contains(out, "expected error MESSAGE")) << out;
  EXPECT_TRUE(Contains(out, "checks failed")) << out;
}

TEST_F(IsolateCliTest, HarnessCheckSurvivesACrashAndAQuitThatNeverComes) {
  WriteConfig({kEngine, "--fault", "no-quit"}, "2s");
  ProcessResult r = Culprit({"harness", "check"});
  EXPECT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "FAIL  quit")) << r.stdout_text;
  WriteConfig({kEngine, "--fault", "crash", "--fault-after", "2"});
  r = Culprit({"harness", "check"});
  EXPECT_EQ(r.exit_code, 1) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "SIGSEGV")) << r.stdout_text;
  EXPECT_TRUE(Contains(r.stdout_text, "started it again")) << r.stdout_text;
}

// The adapters of docs/harness.md are these fixture files, verbatim, and they pass the check.
std::string DocsHarness() { return ReadAll(fs::path(CULPRIT_SOURCE_DIR) / "docs/harness.md"); }

TEST_F(IsolateCliTest, CppAdapterOfTheDocsPassesTheCheck) {
  const std::string source =
      ReadAll(fs::path(CULPRIT_SOURCE_DIR) / "tests/fixtures/minimal_harness.cc");
  EXPECT_TRUE(Contains(DocsHarness(), source)) << "docs/harness.md must show minimal_harness.cc";
  WriteConfig({FixturePath("minimal_harness")}, "30s", "sum", {"cache", "index"});
  ProcessResult r = Culprit({"harness", "check"});
  EXPECT_FALSE(Contains(r.stdout_text, "FAIL")) << r.stdout_text;
  EXPECT_EQ(r.exit_code, 0) << DescribeRun(r);
}

TEST_F(IsolateCliTest, PythonAdapterOfTheDocsPassesTheCheck) {
  const fs::path script = fs::path(CULPRIT_SOURCE_DIR) / "tests/fixtures/harness_adapter.py";
  EXPECT_TRUE(Contains(DocsHarness(), ReadAll(script)))
      << "docs/harness.md must show harness_adapter.py";
  ProcessSpec which;
  which.argv = {"/bin/sh", "-c", "command -v python3"};
  if (!RunProcess(which).ok()) GTEST_SKIP() << "python3 is not installed";
  WriteConfig({"python3", script.string()}, "30s", "sum", {"cache", "index"});
  ProcessResult r = Culprit({"harness", "check"});
  EXPECT_FALSE(Contains(r.stdout_text, "FAIL")) << r.stdout_text;
  EXPECT_EQ(r.exit_code, 0) << DescribeRun(r);
}

}  // namespace
}  // namespace culprit
