// `culprit audit` refuses bad input with a clear error and computes no factor
// from it: a published value that is not a positive number, a published
// commit that does not exist or does not build, a published record of another
// query, a registry that does not run the query, no registry at all. The
// engine is a small C program in a temporary git repository; no test here
// measures more than a build, but the one that interrupts an audit mid-sitting.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/process.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

class AuditCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = std::make_unique<GitFixture>(dir_.path() / "repo");
    good_ = repo_->Commit({{"main.c", LoopEngineSource("good", 1000)}}, {}, "base");
    broken_ = repo_->Commit(
        {{"main.c", LoopEngineSource("broken", 1000, LoopEngineVariant::kSyntaxError)}}, {},
        "does not compile");
    repo_->Commit({{"main.c", LoopEngineSource("fixed", 1000)}}, {}, "fix");
    WriteConfig(
        "[registry]\norder = [\"other\", \"loop\"]\n"
        "command = [\"{artifact:prog}\", \"{query}\"]\n");
  }

  void WriteConfig(const std::string& registry) {
    WriteTextFile(dir_.path() / "culprit.toml", R"([engine]
repo = ')" + (dir_.path() / "repo").string() + R"('
build = [["cc", "-O1", "-o", "prog", "main.c"]]
artifacts = ["prog"]

[queries.loop]
command = ["{artifact:prog}"]
metric = { regex = 'min_ms=([0-9.]+)' }

[queries.other]
command = ["{artifact:prog}"]
metric = { regex = 'min_ms=([0-9.]+)' }

[queries.lonely]
command = ["{artifact:prog}"]
metric = { regex = 'min_ms=([0-9.]+)' }

[records]
dir = 'records'

[cache]
dir = 'cache'

)" + registry);
  }

  ProcessResult Audit(std::vector<std::string> args) {
    args.insert(args.begin(), "audit");
    args.push_back("--config");
    args.push_back((dir_.path() / "culprit.toml").string());
    return RunCulprit(args, dir_.path());
  }

  // Nothing was measured: no record of any kind in the archive.
  bool NoRecords() {
    const fs::path records = dir_.path() / "records";
    if (!fs::exists(records)) return true;
    for (const auto& entry : fs::directory_iterator(records)) {
      if (entry.path().extension() == ".json") return false;
    }
    return true;
  }

  TempDir dir_;
  std::unique_ptr<GitFixture> repo_;
  std::string good_, broken_;
};

TEST_F(AuditCliTest, PublishedValueMustBeAPositiveNumber) {
  for (const char* bad : {"abc", "-5", "0", "59ms"}) {
    ProcessResult r = Audit({"-q", "loop", "--published", bad, "--published-rev", good_});
    EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
    EXPECT_TRUE(
        Contains(r.stderr_text, std::string("--published '") + bad + "' is not a positive number"))
        << DescribeRun(r);
  }
  EXPECT_TRUE(NoRecords());
}

TEST_F(AuditCliTest, NeedsOnePublishedSource) {
  ProcessResult none = Audit({"-q", "loop"});
  EXPECT_EQ(none.exit_code, 2) << DescribeRun(none);
  EXPECT_TRUE(Contains(none.stderr_text, "an audit needs the published number"))
      << DescribeRun(none);
  ProcessResult no_rev = Audit({"-q", "loop", "--published", "5"});
  EXPECT_EQ(no_rev.exit_code, 2) << DescribeRun(no_rev);
  EXPECT_TRUE(Contains(no_rev.stderr_text, "--published needs --published-rev REV"))
      << DescribeRun(no_rev);
  ProcessResult bad_cal = Audit({"-q", "loop", "--published", "5", "--published-rev", good_,
                                 "--published-calibration", "slow"});
  EXPECT_EQ(bad_cal.exit_code, 2) << DescribeRun(bad_cal);
  EXPECT_TRUE(Contains(bad_cal.stderr_text, "--published-calibration 'slow' is not a positive"))
      << DescribeRun(bad_cal);
  EXPECT_TRUE(NoRecords());
}

TEST_F(AuditCliTest, PublishedCommitMustExistAndBuild) {
  ProcessResult missing = Audit({"-q", "loop", "--published", "5", "--published-rev", "nope"});
  EXPECT_NE(missing.exit_code, 0) << DescribeRun(missing);
  EXPECT_TRUE(Contains(missing.stderr_text, "the published commit nope")) << DescribeRun(missing);
  ProcessResult broken = Audit({"-q", "loop", "--published", "5", "--published-rev", broken_});
  EXPECT_NE(broken.exit_code, 0) << DescribeRun(broken);
  EXPECT_TRUE(Contains(broken.stderr_text, "the published commit " + broken_))
      << DescribeRun(broken);
  EXPECT_TRUE(NoRecords()) << "a factor was computed from a commit that does not build";
}

TEST_F(AuditCliTest, RegistryMustRunTheQuery) {
  ProcessResult r = Audit({"-q", "lonely", "--published", "5", "--published-rev", good_});
  EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "[registry] order does not contain query 'lonely'"))
      << DescribeRun(r);
  WriteConfig("");
  ProcessResult none = Audit({"-q", "loop", "--published", "5", "--published-rev", good_});
  EXPECT_EQ(none.exit_code, 2) << DescribeRun(none);
  EXPECT_TRUE(Contains(none.stderr_text, "has no [registry] order")) << DescribeRun(none);
  WriteConfig("[registry]\norder = []\n");
  ProcessResult empty = Audit({"-q", "loop", "--published", "5", "--published-rev", good_});
  EXPECT_EQ(empty.exit_code, 2) << DescribeRun(empty);
  EXPECT_TRUE(
      Contains(empty.stderr_text, "culprit.toml:25:9: registry.order: expected at least one query"))
      << DescribeRun(empty);
  EXPECT_TRUE(NoRecords());
}

TEST_F(AuditCliTest, PublishedRecordOfAnotherQuery) {
  fs::create_directories(dir_.path() / "records");
  const fs::path file = dir_.path() / "published.json";
  WriteTextFile(
      file,
      R"({"schema": "culprit.record/v1", "id": "r-other", "kind": "run", "time": "2026-12-01T10:00:00Z",
    "query": "other", "unit": "ms",
    "arms": [{"name": "v1", "revision": "v1", "commit": ")" +
          good_ + R"("}],
    "samples": [{"sequence": 0, "arm": 0, "value": 4.0}]})");
  ProcessResult r = Audit({"-q", "loop", "--published-record", file.string()});
  EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "is a published number of query 'other', not 'loop'"))
      << DescribeRun(r);
  ProcessResult unknown = Audit({"-q", "loop", "--published-record", "no-such-record"});
  EXPECT_EQ(unknown.exit_code, 2) << DescribeRun(unknown);
  EXPECT_TRUE(NoRecords());
}

TEST_F(AuditCliTest, TableRowsAreCheckedBeforeMeasuring) {
  const fs::path table = dir_.path() / "published.csv";
  WriteTextFile(table, "query,value,revision\nloop,5,v1\nlonely,4,v1\n");
  ProcessResult r = Audit({"--table", table.string()});
  EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "[registry] order does not contain query 'lonely'"))
      << DescribeRun(r);
  WriteTextFile(table, "query,value,revision\nloop,fast,v1\n");
  ProcessResult bad = Audit({"--table", table.string()});
  EXPECT_EQ(bad.exit_code, 2) << DescribeRun(bad);
  EXPECT_TRUE(Contains(bad.stderr_text, "published.csv:2: value: expected a positive number"))
      << DescribeRun(bad);
  EXPECT_TRUE(NoRecords());
}

// A sitting whose runs crash: the registry's way of running the query dies of SIGSEGV on
// every run, so the order sitting cannot rank anything. The audit is an error (exit 1), not
// a decomposition with a factor missing: it says which sitting failed and why; the code
// sitting and the drift it measured before are archived whole and named by the audit
// record, whose verdict is ERROR; no factor or total is invented for the order.
TEST_F(AuditCliTest, ASittingWhoseRunsCrashIsAnErrorThatKeepsTheFactorsBeforeIt) {
  WriteConfig(
      "[registry]\norder = [\"other\", \"loop\"]\n"
      "command = [\"sh\", \"-c\", \"kill -SEGV $$\", \"{artifact:prog}\", \"{query}\"]\n");
  ProcessResult r = Audit({"-q", "loop", "--published", "5", "--published-rev", good_,
                           "--min-pairs", "10", "--max-pairs", "20"});
  EXPECT_EQ(r.exit_code, 1) << DescribeRun(r);
  const std::string all = r.stdout_text + r.stderr_text;
  EXPECT_TRUE(Contains(all, "SIGSEGV")) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "published 5 ms → today not measured")) << DescribeRun(r);

  std::vector<nlohmann::json> audits, compares;
  for (const auto& e : fs::directory_iterator(dir_.path() / "records")) {
    ASSERT_EQ(e.path().extension(), ".json") << e.path();
    std::ifstream in(e.path());
    nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(j.is_object()) << e.path() << " is not a whole record";
    if (j["kind"] == "audit") audits.push_back(j);
    if (j["kind"] == "compare") compares.push_back(j);
  }
  ASSERT_EQ(audits.size(), 1u) << DescribeRun(r);
  const nlohmann::json& audit = audits[0];
  EXPECT_EQ(audit["verdict"], "ERROR") << audit.dump(1);
  EXPECT_TRUE(Contains(audit["verdict_detail"].get<std::string>(), "SIGSEGV")) << audit.dump(1);
  // The code sitting, the drift and the failed order sitting: each archived, each linked.
  EXPECT_EQ(compares.size(), 3u) << DescribeRun(r);
  EXPECT_EQ(audit["links"].size(), 3u) << audit.dump(1);
  std::map<std::string, nlohmann::json> factors;
  for (const nlohmann::json& f : audit["payload"]["factors"]) factors[f["name"]] = f;
  ASSERT_TRUE(factors.count("code")) << audit.dump(1);
  EXPECT_TRUE(factors["code"].contains("ratio")) << factors["code"].dump(1);
  ASSERT_TRUE(factors.count("order")) << audit.dump(1);
  EXPECT_FALSE(factors["order"].contains("ratio")) << factors["order"].dump(1);
  EXPECT_FALSE(audit["payload"].contains("decomposition")) << audit.dump(1);
}

// Ctrl-C during the order sitting (the code sitting and the drift are archived): exit 130,
// the order's record and the audit's are written marked interrupted, the audit names the
// factors it has, and every file in the archive is a whole record.
TEST_F(AuditCliTest, CtrlCDuringASittingKeepsWhatWasMeasuredAndSaysSo) {
  const fs::path out = dir_.path() / "stdout.txt", err = dir_.path() / "stderr.txt";
  const fs::path records = dir_.path() / "records";
  // 1000 pairs a sitting (seconds), so the order sitting is still running when the code one
  // is archived and the interrupt arrives.
  const pid_t pid = SpawnCulprit(
      {"audit", "-q", "loop", "--published", "5", "--published-rev", good_, "--min-pairs", "1000",
       "--max-pairs", "1000", "--config", (dir_.path() / "culprit.toml").string()},
      dir_.path(), out, err);
  ASSERT_GT(pid, 0);
  auto kinds = [&](const std::string& kind) {
    std::vector<nlohmann::json> found;
    if (!fs::exists(records)) return found;
    for (const auto& e : fs::directory_iterator(records)) {
      if (e.path().extension() != ".json") continue;
      std::ifstream in(e.path());
      nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j["kind"] == kind) found.push_back(j);
    }
    return found;
  };
  int status = 0;
  ASSERT_TRUE(WaitWhileRunning(
      pid, [&] { return !kinds("compare").empty(); }, std::chrono::minutes(3), &status))
      << "culprit ended before the interrupt";
  std::stringstream err_text;
  ASSERT_EQ(kill(pid, SIGINT), 0);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  err_text << std::ifstream(err).rdbuf();
  ASSERT_TRUE(WIFEXITED(status)) << err_text.str();
  EXPECT_EQ(WEXITSTATUS(status), 130) << err_text.str();

  std::vector<nlohmann::json> audits = kinds("audit");
  ASSERT_EQ(audits.size(), 1u) << err_text.str();
  EXPECT_TRUE(audits[0]["interrupted"].get<bool>()) << audits[0].dump(1);
  std::vector<nlohmann::json> compares = kinds("compare");
  // The code sitting and the drift derived from it, whole; the order sitting, interrupted.
  ASSERT_EQ(compares.size(), 3u) << err_text.str();
  int interrupted = 0;
  for (const nlohmann::json& c : compares) interrupted += c["interrupted"].get<bool>();
  EXPECT_EQ(interrupted, 1);
  const nlohmann::json& factors = audits[0]["payload"]["factors"];
  ASSERT_TRUE(factors.is_array()) << audits[0].dump(1);
  bool code_measured = false;
  for (const nlohmann::json& f : factors)
    code_measured |= f["name"] == "code" && f.contains("ratio");
  EXPECT_TRUE(code_measured) << factors.dump(1);
  for (const auto& e : fs::directory_iterator(records)) {
    EXPECT_EQ(e.path().extension(), ".json") << e.path();
  }
}

}  // namespace
}  // namespace culprit
