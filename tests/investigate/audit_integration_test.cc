// `culprit audit` end to end on a small C engine in a temporary git
// repository. The engine keeps a session of resident tables; query `index`
// builds an index (a table twice the size of the data) and keeps it, and
// query `scan` walks every resident table, so in one process `scan` after
// `index` walks three times the memory: a real order effect, no sleep, no
// timing keyed to a commit. Its second commit changes only the README, so the
// code factor is a tie. The registry order is run through [registry] command
// (`prog registry --only Q`) and, in a second test, through the harness
// (`prog serve`). Timing is never asserted; the effect is about 3x.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/process.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr char kEngine[] = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The session: tables resident in the process. scan walks all of them (as an
   engine that checksums its session's state would); index adds one. */
#define DATA_LONGS (1L << 20)
static long* tables[4];
static long sizes[4];
static int ntables = 0;
static volatile long sink;

static double NowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static void AddTable(long n) {
  long* t = malloc(n * sizeof(long));
  for (long i = 0; i < n; ++i) t[i] = i * 7 + 1;
  tables[ntables] = t;
  sizes[ntables++] = n;
}
static void Open(void) { AddTable(DATA_LONGS); }
static double Scan(void) {
  double start = NowMs();
  long sum = 0;
  for (int r = 0; r < 4; ++r)
    for (int t = 0; t < ntables; ++t)
      for (long i = 0; i < sizes[t]; ++i) sum += tables[t][i] ^ r;
  sink = sum;
  return NowMs() - start;
}
static double Index(void) {
  double start = NowMs();
  if (ntables == 1) AddTable(2 * DATA_LONGS);
  return NowMs() - start;
}
static double Run(const char* q) {
  if (strcmp(q, "scan") == 0) return Scan();
  if (strcmp(q, "index") == 0) return Index();
  return -1;
}
static double Best(const char* q, int reps) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    double ms = Run(q);
    if (ms < best) best = ms;
  }
  return best;
}
int main(int argc, char** argv) {
  Open();
  if (argc == 3 && strcmp(argv[1], "bench") == 0) {
    double ms = Best(argv[2], 5);
    if (ms < 0) return 2;
    printf("median_ms=%.4f\n", ms);
    return 0;
  }
  if (argc == 4 && strcmp(argv[1], "registry") == 0 && strcmp(argv[2], "--only") == 0) {
    const char* order[] = {"index", "scan"};
    for (int i = 0; i < 2; ++i) {
      int measured = strcmp(order[i], argv[3]) == 0;
      double ms = Best(order[i], measured ? 5 : 1);
      if (measured) {
        printf("%s median_ms=%.4f\n", order[i], ms);
        return 0;
      }
    }
    return 2;
  }
  if (argc == 2 && strcmp(argv[1], "serve") == 0) {
    char line[256], q[128];
    int n;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
      if (strncmp(line, "quit", 4) == 0) return 0;
      if (sscanf(line, "run %127s %d", q, &n) == 2 && n > 0 && Run(q) >= 0) {
        printf("ms");
        for (int i = 0; i < n; ++i) printf(" %.4f", Run(q));
        printf("\n");
      } else {
        printf("error unsupported: %s", line);
      }
    }
    return 0;
  }
  return 2;
}
)";

class AuditIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = std::make_unique<GitFixture>(dir_.path() / "repo");
    base_ = repo_->Commit({{"main.c", kEngine}, {"README", "an engine\n"}}, {}, "base");
    repo_->Tag("v1.0", base_);
    today_ = repo_->Commit({{"README", "an engine, documented\n"}}, {}, "docs only");
  }

  void WriteConfig(bool registry_command) {
    std::string text = R"([engine]
repo = ')" + (dir_.path() / "repo").string() +
                       R"('
build = [["cc", "-O1", "-o", "prog", "main.c"]]
artifacts = ["prog"]

[queries.scan]
command = ["{artifact:prog}", "bench", "scan"]
metric = { regex = 'median_ms=([0-9.]+)' }
timeout = "30s"

[queries.index]
command = ["{artifact:prog}", "bench", "index"]
metric = { regex = 'median_ms=([0-9.]+)' }
timeout = "30s"

[harness]
command = ["{artifact:prog}", "serve"]
timeout = "30s"

[registry]
order = ["index", "scan"]
)";
    if (registry_command)
      text += "command = [\"{artifact:prog}\", \"registry\", \"--only\", \"{query}\"]\n";
    text += R"(
[measure]
band = 0.15
confidence = 0.9999
min_pairs = 10
max_pairs = 40
warmup = 1

[records]
dir = 'records'

[cache]
dir = 'cache'
)";
    WriteTextFile(dir_.path() / "culprit.toml", text);
  }

  ProcessResult Culprit(std::vector<std::string> args) {
    args.push_back("--config");
    args.push_back((dir_.path() / "culprit.toml").string());
    return RunCulprit(args, dir_.path());
  }

  // The audit record and its factor records, by factor name.
  Json AuditRecord() {
    for (const auto& entry : fs::directory_iterator(dir_.path() / "records")) {
      std::ifstream in(entry.path());
      Json j = Json::parse(in);
      if (j["kind"] == "audit") return j;
    }
    return Json();
  }

  // The code factor compares two builds of the same program: never an
  // EFFECT. A tie (NULL) is what a quiet host gives; a loaded 2-core host may
  // leave it INCONCLUSIVE (seen once: 1.002 [0.970, 1.247]), so a tie is not
  // required, only no claimed effect and an estimate near 1. The sittings ask 99.99%
  // ([measure] above): a no-change sitting is a wrong EFFECT at most at its α, and a loaded
  // host spends a share of it (docs/statistics.md); the order's ×3 is an EFFECT there too.
  static void ExpectCodeIsNoEffect(const Json& code, const Json& audit) {
    EXPECT_NE(code["verdict"], "EFFECT") << audit.dump(2);
    EXPECT_TRUE(code["verdict"] == "NULL" || code["verdict"] == "INCONCLUSIVE") << audit.dump(2);
    EXPECT_LT(code["ratio"].get<double>(), 1.25) << audit.dump(2);
    EXPECT_GT(code["ratio"].get<double>(), 0.8) << audit.dump(2);
  }

  void ExpectOrderEffectCodeNull(const ProcessResult& run) {
    EXPECT_EQ(run.exit_code, 3) << DescribeRun(run);  // today / published moved
    EXPECT_TRUE(Contains(run.stdout_text, "CROSS-SITTING")) << DescribeRun(run);
    EXPECT_TRUE(Contains(run.stdout_text, "before scan in the registry: index"))
        << DescribeRun(run);
    EXPECT_TRUE(Contains(run.stdout_text, "culprit isolate --rev HEAD")) << DescribeRun(run);
    Json audit = AuditRecord();
    ASSERT_TRUE(audit.is_object()) << DescribeRun(run);
    Json payload = audit["payload"];  // details_json, as the record file names it
    ASSERT_EQ(payload["factors"].size(), 3u) << audit.dump(2);
    EXPECT_EQ(payload["factors"][0]["name"], "host drift");
    EXPECT_EQ(payload["factors"][0]["cross_sitting"], true);
    EXPECT_EQ(payload["factors"][1]["name"], "code");
    ExpectCodeIsNoEffect(payload["factors"][1], audit);
    EXPECT_EQ(payload["factors"][2]["name"], "order");
    EXPECT_EQ(payload["factors"][2]["verdict"], "EFFECT") << audit.dump(2);
    // The effect is about 3x. The sitting stops at the first look whose interval clears the
    // band, so on a loaded host that interval is wide: under the sanitizer lane at load 2.3,
    // 3.04 [1.36, 5.60] at 10 pairs (2026-12-06), which once failed a "low > 1.5" here. The
    // estimate is what says "about 3x"; the EFFECT already puts the interval beyond the band.
    EXPECT_GT(payload["factors"][2]["low"].get<double>(), 1.15) << audit.dump(2);
    EXPECT_GT(payload["factors"][2]["ratio"].get<double>(), 2.0) << audit.dump(2);
    EXPECT_TRUE(payload.contains("remainder")) << audit.dump(2);
    EXPECT_EQ(audit["links"].size(), 3u);
    // Each factor's record is in the archive.
    for (const Json& factor : payload["factors"]) {
      bool found = false;
      for (const auto& entry : fs::directory_iterator(dir_.path() / "records")) {
        found = found ||
                Contains(entry.path().filename().string(), factor["record"].get<std::string>());
      }
      EXPECT_TRUE(found) << factor.dump();
    }
  }

  TempDir dir_;
  std::unique_ptr<GitFixture> repo_;
  std::string base_, today_;
};

TEST_F(AuditIntegrationTest, OrderIsTheEffectThroughTheRegistryCommand) {
  WriteConfig(true);
  // The published value is a fraction of today's, so today / published moves
  // whatever the host: only the factors are asserted, not the drift.
  ProcessResult run =
      Culprit({"audit", "-q", "scan", "--published", "0.001", "--published-rev", "v1.0"});
  ExpectOrderEffectCodeNull(run);
  EXPECT_TRUE(Contains(run.stdout_text, "with [registry] command")) << DescribeRun(run);
  // The audit record renders with the reports: the waterfall with each factor.
  ProcessResult report = Culprit({"records", "report", AuditRecord()["id"].get<std::string>()});
  EXPECT_EQ(report.exit_code, 0) << DescribeRun(report);
  EXPECT_TRUE(Contains(report.stdout_text, "## Waterfall")) << DescribeRun(report);
  EXPECT_TRUE(Contains(report.stdout_text, "| × host drift (cross-sitting) |"))
      << DescribeRun(report);
  EXPECT_TRUE(Contains(report.stdout_text, "| × order |")) << DescribeRun(report);
}

// A metric valgrind counts of a whole process cannot be measured through the harness, where
// every run shares one process: refused before anything is measured, never harness times
// labelled instructions.
TEST_F(AuditIntegrationTest, AnInstructionCountIsRefusedThroughTheHarness) {
  WriteConfig(false);
  std::string text = ReadAll(dir_.path() / "culprit.toml");
  const std::string regex = "metric = { regex = 'median_ms=([0-9.]+)' }";
  text.replace(text.find(regex), regex.size(), "metric = \"instructions\"");
  WriteTextFile(dir_.path() / "culprit.toml", text);
  ProcessResult run =
      Culprit({"audit", "-q", "scan", "--published", "0.001", "--published-rev", "v1.0"});
  EXPECT_EQ(run.exit_code, 2) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "the order factor would run through the [harness]"))
      << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stderr_text, "give [registry] a command")) << DescribeRun(run);
  EXPECT_FALSE(fs::exists(dir_.path() / "records")) << DescribeRun(run);
}

TEST_F(AuditIntegrationTest, OrderIsTheEffectThroughTheHarness) {
  WriteConfig(false);
  // Published as a culprit run record of v1.0: commit, calibration, samples.
  ProcessResult published = Culprit({"run", "scan", "--rev", "v1.0", "--json"});
  ASSERT_EQ(published.exit_code, 0) << DescribeRun(published);
  Json record = Json::parse(published.stdout_text);
  // The same record as if another machine had published it: allowed, and said.
  Json elsewhere = record;
  elsewhere["host"]["hostname"] = "another-bench-host";
  // ... under other tuning: its runs started without ASLR, on a host with SMT the other way.
  elsewhere["details"]["aslr"] = "off";
  ASSERT_TRUE(elsewhere["start"]["tuning"].is_object()) << published.stdout_text;
  const bool smt_now = elsewhere["start"]["tuning"]["smt_active"] == true;
  elsewhere["start"]["tuning"]["smt_active"] = !smt_now;
  const fs::path file = dir_.path() / "published-elsewhere.json";
  WriteTextFile(file, elsewhere.dump(2));
  ProcessResult run = Culprit({"audit", "-q", "scan", "--published-record", file.string()});
  EXPECT_TRUE(Contains(run.stdout_text, "comes from another host (another-bench-host"))
      << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stdout_text,
                       "the published record ran under other tuning: measured runs started "
                       "with ASLR off then, on now"))
      << DescribeRun(run);
  // SMT is compared only where this host says whether it is on.
  if (elsewhere["start"]["tuning"]["smt_active"].is_boolean() &&
      record["start"]["tuning"]["smt_active"].is_boolean()) {
    EXPECT_TRUE(Contains(
        run.stdout_text,
        fmt::format("SMT was {} then, {} now", smt_now ? "off" : "on", smt_now ? "on" : "off")))
        << DescribeRun(run);
  }
  // The published run is the same host and commit, so drift is what this
  // host did between two sittings; the exit code depends on it, the factors do not.
  EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 3) << DescribeRun(run);
  EXPECT_TRUE(Contains(run.stdout_text, "through the harness")) << DescribeRun(run);
  Json audit = AuditRecord();
  ASSERT_TRUE(audit.is_object()) << DescribeRun(run);
  Json payload = audit["payload"];  // details_json, as the record file names it
  ASSERT_EQ(payload["factors"].size(), 3u) << audit.dump(2);
  ExpectCodeIsNoEffect(payload["factors"][1], audit);
  EXPECT_EQ(payload["factors"][2]["verdict"], "EFFECT") << audit.dump(2);
  EXPECT_EQ(audit["details"]["published_record"], record["id"]);
  EXPECT_TRUE(audit["details"].contains("published_calibration_ms")) << audit.dump(2);
  EXPECT_TRUE(Contains(run.stdout_text, "calibration now")) << DescribeRun(run);
}

}  // namespace
}  // namespace culprit
