// Integration tests of `culprit investigate` through the real executable, on
// a real temporary git repository of a small C engine that speaks the harness
// protocol. Its history: v1 (good), a notes commit, "Persist the rollup
// between queries" (rollup.c only: off the query's code path), a comment
// commit (v2, bad). Once the rollup is persisted, every scan also keeps the
// resident rollup current (it walks twice the data: real work, about 3x), so
// the one-shot query gets much slower although the scan's code is the same.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/cachegrind.h"
#include "engine/process.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Scans the working set; while the rollup is resident, keeps it current too.
constexpr char kScanC[] = R"(#include <stdint.h>
#include <stddef.h>
#include "engine.h"
int64_t Scan(void) {
  int64_t sum = 0;
  for (size_t i = 0; i < data_n; ++i) sum += data[i] ^ (int64_t)i;
  if (rollup) {
    for (size_t i = 0; i < rollup_n; ++i) rollup[i] += data[i < data_n ? i : i - data_n] & 7;
    sum += rollup[sum & 1023];
  }
  return sum;
}
)";

constexpr char kEngineH[] = R"(#include <stdint.h>
#include <stddef.h>
extern int64_t* data; extern size_t data_n;
extern int64_t* rollup; extern size_t rollup_n;
extern int64_t* ballast;
int64_t Scan(void);
size_t Hold(int64_t** s);
void Release(int64_t** s);
int RollupPersisted(void);
)";

std::string RollupC(bool persisted) {
  return std::string(R"(#include <stdlib.h>
#include "engine.h"
int64_t* rollup; size_t rollup_n; int64_t* ballast;
size_t Hold(int64_t** s) {
  if (!*s) {
    *s = malloc(2 * data_n * sizeof(int64_t));
    for (size_t i = 0; i < 2 * data_n; ++i) (*s)[i] = (int64_t)i;
  }
  if (s == &rollup) rollup_n = 2 * data_n;
  return 2 * data_n * sizeof(int64_t);
}
void Release(int64_t** s) { free(*s); *s = NULL; }
/* Whether the one-shot query keeps the rollup it refreshed. */
int RollupPersisted(void) { return )") +
         (persisted ? "1" : "0") + "; }\n";
}

// `prog bench [--log F]`: refresh the rollup (kept only when persisted), then
// the fastest of 7 scans as min_ms=. `prog serve`: the harness protocol.
constexpr char kMainC[] = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine.h"
int64_t* data; size_t data_n = 1 << 20;
static volatile int64_t sink;
static double NowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double TimedScan(void) {
  double start = NowMs();
  sink = Scan();
  return NowMs() - start;
}
static int64_t** Structure(const char* name) {
  if (strcmp(name, "rollup") == 0) return &rollup;
  if (strcmp(name, "ballast") == 0) return &ballast;
  return NULL;
}
int main(int argc, char** argv) {
  data = malloc(data_n * sizeof(int64_t));
  for (size_t i = 0; i < data_n; ++i) data[i] = (int64_t)(i * 2654435761u);
  if (argc >= 2 && strcmp(argv[1], "bench") == 0) {
    if (argc >= 4 && strcmp(argv[2], "--log") == 0) {
      FILE* log = fopen(argv[3], "a");
      if (log) { fputs("bench\n", log); fclose(log); }
    }
    Hold(&rollup);
    if (!RollupPersisted()) Release(&rollup);
    double best = 1e300;
    for (int r = 0; r < 7; ++r) { double t = TimedScan(); if (t < best) best = t; }
    printf("min_ms=%.4f\n", best);
    return 0;
  }
  if (argc < 2 || strcmp(argv[1], "serve") != 0) { fprintf(stderr, "usage: prog bench|serve\n"); return 2; }
  char line[256], verb[32], arg[128];
  long n;
  while (fgets(line, sizeof line, stdin)) {
    int words = sscanf(line, "%31s %127s %ld", verb, arg, &n);
    if (words == 1 && strcmp(verb, "quit") == 0) return 0;
    if (words == 2 && (strcmp(verb, "hold") == 0 || strcmp(verb, "release") == 0)) {
      int64_t** s = Structure(arg);
      if (!s) { printf("error unknown structure '%s'\n", arg); fflush(stdout); continue; }
      if (strcmp(verb, "hold") == 0) {
        printf("ok bytes=%zu\n", Hold(s));
      } else if (!*s) {
        printf("error %s is not held\n", arg);
      } else {
        Release(s);
        printf("ok\n");
      }
      fflush(stdout);
      continue;
    }
    if (words == 3 && strcmp(verb, "run") == 0) {
      if (strcmp(arg, "scan") != 0) { printf("error unknown query '%s'\n", arg); fflush(stdout); continue; }
      if (n < 1 || n > 10000) { printf("error usage: run QUERY N\n"); fflush(stdout); continue; }
      printf("ms");
      for (long r = 0; r < n; ++r) printf(" %.4f", TimedScan());
      printf("\n");
      fflush(stdout);
      continue;
    }
    printf("error unknown command\n");
    fflush(stdout);
  }
  return 0;
}
)";

class InvestigateCliTest : public ::testing::Test {
 protected:
  // The engine's files at the good end: the rollup refreshed, not kept.
  static std::map<std::string, std::string> FirstFiles() {
    return {{"engine.h", kEngineH},
            {"scan.c", kScanC},
            {"main.c", kMainC},
            {"rollup.c", RollupC(false)},
            {"NOTES.md", "notes\n"}};
  }

  void SetUp() override {
    GitFixture git(dir_.path() / "repo");
    good_ = git.Commit(FirstFiles(), {}, "A scan engine with a rollup");
    git.Tag("v1", good_);
    git.Commit({{"NOTES.md", "notes, more of them\n"}}, {}, "More notes");
    culprit_ = git.Commit({{"rollup.c", RollupC(true)}}, {}, "Persist the rollup between queries");
    std::string bad = git.Commit({{"NOTES.md", "notes, even more\n"}}, {}, "Even more notes");
    git.Tag("v2", bad);
  }

  // culprit.toml; without `with_plan`, no [harness] and no [residency].
  void WriteConfig(bool with_plan) {
    std::string text = R"([engine]
repo = )" + Quoted((dir_.path() / "repo").string()) +
                       R"(
build = [["cc", "-O1", "-g", "-o", "prog", "main.c", "scan.c", "rollup.c"]]
artifacts = ["prog"]

[queries.scan]
command = ["{artifact:prog}", "bench", "--log", )" +
                       Quoted(BenchLog().string()) + R"(]
metric = { regex = 'min_ms=([0-9.]+)' }
timeout = "60s"
code_path = ["scan.c", "main.c", "engine.h"]

[overrides.threads]
env = { SCAN_THREADS = "1" }
hypothesis = "the scan's thread count moved it"

[measure]
band = 0.05
confidence = 0.9999
min_pairs = 10
max_pairs = 80

[records]
dir = "records"

[cache]
dir = "cache"
)";
    if (with_plan) {
      text += R"(
[harness]
command = ["{artifact:prog}", "serve"]
timeout = "60s"

[residency."rollup"]
query = "scan"
conditions = [
  { name = "nothing held" },
  { name = "ballast held", hold = ["ballast"] },
  { name = "rollup held", hold = ["rollup"] },
  { name = "rollup released", hold = ["rollup"], release = ["rollup"] },
]
max_rounds = 120
)";
    }
    WriteTextFile(dir_.path() / "culprit.toml", text);
  }

  fs::path BenchLog() const { return dir_.path() / "bench.log"; }

  ProcessResult Culprit(std::vector<std::string> args,
                        std::map<std::string, std::string> env = {}) {
    ProcessSpec spec;
    spec.set_env = std::move(env);
    spec.argv = {CulpritExe()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.cwd = dir_.path();
    spec.timeout = std::chrono::minutes(12);  // a guard against a wedged test only
    spec.output_limit = 1 << 22;
    return RunProcess(spec);
  }

  // Starts culprit with `args` in the test directory, stdout and stderr into files; its pid.
  pid_t Spawn(const std::vector<std::string>& args) {
    return SpawnCulprit(args, dir_.path(), Stdout(), Stderr());
  }
  fs::path Stdout() const { return dir_.path() / "stdout.txt"; }
  fs::path Stderr() const { return dir_.path() / "stderr.txt"; }

  int BenchRuns() const {
    std::istringstream in(ReadAll(BenchLog()));
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line == "bench";
    return n;
  }

  std::vector<Json> Records(const std::string& kind = "") const {
    std::vector<Json> out;
    if (!fs::exists(dir_.path() / "records")) return out;
    for (const auto& e : fs::directory_iterator(dir_.path() / "records")) {
      if (e.path().extension() != ".json") continue;
      Json j = Json::parse(ReadAll(e.path()));
      if (kind.empty() || j["kind"] == kind) out.push_back(j);
    }
    return out;
  }

  TempDir dir_;
  std::string good_, culprit_;
};

Json ConditionNamed(const Json& payload, const std::string& name) {
  for (const Json& c : payload["conditions"]) {
    if (c["name"] == name) return c;
  }
  return Json();
}

// The whole ladder, stopped after the bisect and resumed: the resumed run
// measures no one-shot query again (the bench log and the bisect's records
// do not grow), isolates the rollup on the culprit build and names it, and
// one investigation record links every record of the run.
TEST_F(InvestigateCliTest, BisectsOffThePathThenIsolatesTheRollupAndResumes) {
  WriteConfig(true);
  ProcessResult first = Culprit({"investigate", "--good", "v1", "--bad", "v2", "-q", "scan",
                                 "--seed", "7", "--stop-after", "bisect"});
  ASSERT_EQ(first.exit_code, 0) << DescribeRun(first);
  EXPECT_TRUE(Contains(first.stdout_text, "=> confirmed: scan moved")) << first.stdout_text;
  EXPECT_TRUE(NamesVerifiedChange(first.stdout_text, culprit_)) << first.stdout_text;
  EXPECT_TRUE(Contains(first.stdout_text, "stopped after the bisect step")) << first.stdout_text;
  // After its bisect the ladder explained the culprit against its parent (issue 28 §3): the
  // change touches rollup.c alone, and the function that moved most is the scan, on the
  // query's path, untouched (it walks the rollup kept alive).
  const bool valgrind = static_cast<bool>(FindValgrind(MetricRule::Kind::kInstructions));
  if (valgrind) {
    EXPECT_TRUE(Contains(first.stdout_text, "explain scan: " + culprit_.substr(0, 10)))
        << first.stdout_text;
    EXPECT_TRUE(
        Contains(first.stdout_text, "=> explain of " + culprit_.substr(0, 10) + ": instructions +"))
        << first.stdout_text;
    EXPECT_TRUE(Contains(first.stdout_text, "moved most: Scan in scan.c:")) << first.stdout_text;
    EXPECT_TRUE(Contains(first.stdout_text, "the \"impossible\" culprit's fingerprint"))
        << first.stdout_text;
    EXPECT_EQ(Records("explain").size(), 1u);
  } else {
    GTEST_LOG_(INFO) << "no valgrind here: the explain is said not run, not shown";
    EXPECT_TRUE(Contains(first.stdout_text, "not run: valgrind not found")) << first.stdout_text;
  }
  // The override hypothesis was probed and archived; the engine ignores the
  // variable, so it is never supported (NULL, or INCONCLUSIVE on a busy host).
  std::vector<Json> probes = Records("probe");
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_NE(probes[0]["verdict"], "EFFECT") << probes[0].dump(1);
  EXPECT_TRUE(Records("investigation").empty());
  EXPECT_TRUE(Records("isolate").empty());
  const int bench_runs = BenchRuns();
  const size_t steps = Records("bisect-step").size();
  ASSERT_GT(bench_runs, 0);
  ASSERT_GT(steps, 0u);

  // Re-running the command instead of resuming says what to do.
  ProcessResult again = Culprit({"investigate", "--good", "v1", "--bad", "v2", "-q", "scan"});
  EXPECT_EQ(again.exit_code, 2) << DescribeRun(again);
  EXPECT_TRUE(Contains(again.stderr_text, "--resume")) << again.stderr_text;

  ProcessResult resumed = Culprit({"investigate", "--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << DescribeRun(resumed);
  EXPECT_EQ(BenchRuns(), bench_runs) << "the resumed run measured the query again";
  EXPECT_EQ(Records("bisect-step").size(), steps);
  EXPECT_EQ(Records("probe").size(), 1u);
  EXPECT_EQ(Records("bisect").size(), 1u);
  const std::string& out = resumed.stdout_text;
  EXPECT_TRUE(Contains(out, "touches nothing on scan's code path")) << out;

  // Isolation on the culprit and on its parent, one engine process each.
  std::vector<Json> isolations = Records("isolate");
  ASSERT_EQ(isolations.size(), 2u);
  const Json* on_culprit = nullptr;
  for (const Json& r : isolations) {
    if (r["arms"][0]["commit"] == culprit_) on_culprit = &r;
  }
  ASSERT_NE(on_culprit, nullptr);
  // The plan's 120 rounds on the culprit; [measure]'s 80 on the parent, the contrast.
  for (const Json& r : isolations) {
    EXPECT_EQ(r["details"]["max_rounds"], &r == on_culprit ? "120" : "80") << r.dump(1);
  }
  Json payload = (*on_culprit)["payload"];
  EXPECT_EQ(ConditionNamed(payload, "rollup held")["verdict"], "EFFECT") << payload.dump(1);
  EXPECT_GE((*on_culprit)["estimate"]["low"].get<double>(), 2.0) << on_culprit->dump(1);
  // The control of the same size is not what costs: whatever holding and
  // freeing 16 MiB does to the caches is small beside the rollup's walk (a
  // few percent on some hosts, which the sitting reports as it is).
  const double rollup_ratio = ConditionNamed(payload, "rollup held")["ratio"].get<double>();
  const double ballast_ratio = ConditionNamed(payload, "ballast held")["ratio"].get<double>();
  EXPECT_GE(rollup_ratio, 2 * ballast_ratio) << payload.dump(1);
  EXPECT_TRUE(Contains(out, "holding `rollup`")) << out;

  std::vector<Json> investigations = Records("investigation");
  ASSERT_EQ(investigations.size(), 1u);
  const Json& inv = investigations[0];
  EXPECT_EQ(inv["details"]["outcome"], "isolated");
  EXPECT_EQ(inv["details"]["culprit_commit"], culprit_);
  if (valgrind) {  // The explain record is linked and named.
    const std::vector<Json> explains = Records("explain");
    ASSERT_EQ(explains.size(), 1u);
    EXPECT_EQ(inv["details"]["explain." + culprit_.substr(0, 10)], explains[0]["id"])
        << inv.dump(1);
    EXPECT_TRUE(Contains(out, "explain scan: " + culprit_.substr(0, 10))) << out;  // shown again
  }
  EXPECT_TRUE(Contains(inv["verdict_detail"].get<std::string>(), "holding `rollup`"))
      << inv.dump(1);
  // Every record of the run is linked: confirm, probe, the bisect's own, isolations.
  size_t linked = inv["links"].size();
  EXPECT_EQ(linked, Records().size() - 1) << inv.dump(1);

  ProcessResult report = Culprit({"records", "report", inv["id"].get<std::string>()});
  ASSERT_EQ(report.exit_code, 0) << DescribeRun(report);
  EXPECT_TRUE(Contains(report.stdout_text, "Records of this investigation")) << report.stdout_text;
  if (valgrind) {
    EXPECT_TRUE(Contains(report.stdout_text, "Where the instructions moved")) << report.stdout_text;
  }

  ProcessResult done = Culprit({"investigate", "--resume"});
  EXPECT_EQ(done.exit_code, 2) << DescribeRun(done);
}

// Without a [residency] plan for the query the ladder says so and stops
// after the relevance step: nothing isolated, nothing invented.
// (With --no-explain: the culprit is not explained, and the ladder says so.)
TEST_F(InvestigateCliTest, WithoutAPlanItSaysSoAndStopsAfterRelevance) {
  WriteConfig(false);
  ProcessResult r = Culprit(
      {"investigate", "--good", "v1", "--bad", "v2", "-q", "scan", "--seed", "11", "--no-explain"});
  ASSERT_EQ(r.exit_code, 0) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "explain of " + culprit_.substr(0, 10) +
                                          ": not run: --no-explain; `culprit explain " +
                                          culprit_.substr(0, 10)))
      << r.stdout_text;
  EXPECT_TRUE(Records("explain").empty());
  EXPECT_TRUE(Contains(r.stdout_text, "No [residency] plan measures scan")) << r.stdout_text;
  EXPECT_TRUE(Records("isolate").empty());
  std::vector<Json> investigations = Records("investigation");
  ASSERT_EQ(investigations.size(), 1u);
  EXPECT_EQ(investigations[0]["details"]["outcome"], "no plan");
  EXPECT_EQ(investigations[0]["details"]["relevance"], "off path");
  EXPECT_EQ(
      investigations[0]["details"]["explain." + culprit_.substr(0, 10)].get<std::string>().rfind(
          "not run: --no-explain", 0),
      0u)
      << investigations[0].dump(1);
  // The move is measured once: the bisect adopts step 1's sitting as its confirmation.
  const std::vector<Json> compares = Records("compare");
  ASSERT_EQ(compares.size(), 1u);
  const std::string step1 = compares[0]["id"];
  EXPECT_TRUE(Contains(r.stderr_text, "the move was confirmed by record " + step1))
      << r.stderr_text;
  // The command the ladder prints for its bisect is the one that would adopt it too.
  EXPECT_TRUE(
      Contains(r.stdout_text + r.stderr_text,
               "culprit bisect run --good v1 --bad v2 --query scan --confirmed-by " + step1))
      << r.stdout_text << r.stderr_text;
  for (const Json& step : Records("bisect-step")) {
    EXPECT_NE(step["details"]["step_kind"], "confirm") << step.dump(1);
  }
  const std::vector<Json> bisects = Records("bisect");
  ASSERT_EQ(bisects.size(), 1u);
  EXPECT_TRUE(Contains(bisects[0]["links"].dump(), step1)) << bisects[0]["links"].dump();
}

// A history with two changes the way the range moved: the scan doubled (on the query's
// path), then the rollup persisted (off it). The bisect names the first its culprit; the
// ladder says its code explains it, and goes on with the later change, off the path.
class InvestigateTwoChangesCliTest : public InvestigateCliTest {
 protected:
  void SetUp() override {
    GitFixture git(dir_.path() / "repo");
    good_ = git.Commit(FirstFiles(), {}, "A scan engine with a rollup");
    git.Tag("v1", good_);
    std::string twice = kScanC;
    const std::string loop = "  for (size_t i = 0; i < data_n; ++i) sum += data[i] ^ (int64_t)i;\n";
    twice.replace(twice.find(loop), loop.size(),
                  loop + loop.substr(0, loop.size() - 2) + " + 1;\n");
    scan_ = git.Commit({{"scan.c", twice}}, {}, "Scan twice");
    git.Commit({{"NOTES.md", "notes, more of them\n"}}, {}, "More notes");
    culprit_ = git.Commit({{"rollup.c", RollupC(true)}}, {}, "Persist the rollup between queries");
    std::string bad = git.Commit({{"NOTES.md", "notes, even more\n"}}, {}, "Even more notes");
    git.Tag("v2", bad);
  }
  std::string scan_;
};

//
// After the bisect both verified changes are explained against their parents, under a
// valgrind that runs the first explain's two runs and fails every run after them: the
// culprit's explain names the scan it doubled; the later change's failure is said in one
// line and kept in the record, and the ladder's verdict and outcome are as without it.
TEST_F(InvestigateTwoChangesCliTest, AnOnPathCulpritThenTheLaterChangeOffThePath) {
  WriteConfig(false);
  std::map<std::string, std::string> env;
  Result<fs::path> valgrind = FindValgrind(MetricRule::Kind::kInstructions);
  if (valgrind) {
    const fs::path bin = dir_.path() / "fake-bin";
    fs::create_directories(bin);
    WriteTextFile(bin / "valgrind",
                  "#!/bin/sh\n"
                  "case \" $* \" in *\" --tool=cachegrind \"*) ;; *) exec " +
                      valgrind->string() +
                      " \"$@\" ;; esac\n"
                      "count=" +
                      (dir_.path() / "cachegrind-runs").string() +
                      "\n"
                      "n=$(($(cat \"$count\" 2>/dev/null || echo 0) + 1)); echo $n > \"$count\"\n"
                      "if [ $n -gt 2 ]; then echo 'valgrind: failing as the test asks' >&2; exit "
                      "1; fi\n"
                      "exec " +
                      valgrind->string() + " \"$@\"\n");
    fs::permissions(bin / "valgrind", fs::perms::owner_all, fs::perm_options::add);
    env["PATH"] = bin.string() + ":" + (std::getenv("PATH") ? std::getenv("PATH") : "");
  } else {
    GTEST_LOG_(INFO) << "no valgrind here: the explains are said not run, not shown";
  }
  ProcessResult r =
      Culprit({"investigate", "--good", "v1", "--bad", "v2", "-q", "scan", "--seed", "11"}, env);
  ASSERT_EQ(r.exit_code, 0) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stdout_text, "=> culprit " + scan_.substr(0, 10) + " \"Scan twice\""))
      << r.stdout_text;
  EXPECT_TRUE(Contains(r.stdout_text, "=> change " + culprit_.substr(0, 10) +
                                          " \"Persist the rollup between queries\", the bisect's "
                                          "other verified change the way the range moved"))
      << r.stdout_text;
  // Without a plan the ladder stops there, and says so of the later change.
  EXPECT_TRUE(Contains(r.stdout_text, "No [residency] plan measures scan")) << r.stdout_text;
  std::vector<Json> investigations = Records("investigation");
  ASSERT_EQ(investigations.size(), 1u);
  const Json& details = investigations[0]["details"];
  EXPECT_EQ(details["outcome"], "no plan");
  EXPECT_EQ(details["culprit_commit"], scan_);  // the bisect's culprit, as it named it
  EXPECT_EQ(details["culprit_relevance"], "on path");
  EXPECT_EQ(details["later_change"], culprit_);
  EXPECT_EQ(details["relevance"], "off path");
  EXPECT_TRUE(Contains(investigations[0]["verdict_detail"].get<std::string>(),
                       "It verified a later change the way the range moved"))
      << investigations[0].dump(1);
  EXPECT_EQ(investigations[0]["verdict"], "EFFECT");  // the confirmation's, untouched
  const std::string& verdict_detail = investigations[0]["verdict_detail"];
  const std::string scan = scan_.substr(0, 10), later = culprit_.substr(0, 10);
  if (!valgrind) {
    for (const std::string& c : {scan, later}) {
      EXPECT_TRUE(Contains(r.stdout_text, "explain of " + c + ": not run: valgrind not found"))
          << r.stdout_text;
    }
    EXPECT_TRUE(Records("explain").empty());
    return;
  }
  // The culprit's explain: its top, with the function it doubled, in the file it touched.
  EXPECT_TRUE(
      Contains(r.stdout_text, "explain scan: " + scan + " \"Scan twice\" against its parent"))
      << r.stdout_text;
  EXPECT_TRUE(Contains(r.stdout_text, "=> explain of " + scan + ": instructions +"))
      << r.stdout_text;
  EXPECT_TRUE(Contains(r.stdout_text, "moved most: Scan in scan.c:")) << r.stdout_text;
  EXPECT_TRUE(Contains(r.stdout_text, "touched by the change")) << r.stdout_text;
  const std::vector<Json> explains = Records("explain");
  ASSERT_EQ(explains.size(), 1u);
  EXPECT_EQ(explains[0]["details"]["change"], scan_);
  EXPECT_EQ(details["explain." + scan], explains[0]["id"]);
  EXPECT_TRUE(Contains(investigations[0]["links"].dump(), explains[0]["id"]));
  // The later change's explain failed under valgrind: said in one line, kept, nothing lost.
  // (Its parent runs first: that run is the one that failed.)
  EXPECT_TRUE(Contains(r.stdout_text, "explain of " + later + " failed: query 'scan' at "))
      << r.stdout_text;
  EXPECT_TRUE(Contains(r.stdout_text, "failing as the test asks")) << r.stdout_text;
  EXPECT_TRUE(Contains(details["explain." + later].get<std::string>(), "failed: query 'scan'"))
      << details.dump(1);
  EXPECT_TRUE(Contains(verdict_detail, "Explain of " + later + " failed: ")) << verdict_detail;
}

// Ctrl-C during the confirmation: the sitting's record is written marked
// interrupted, an interrupted investigation record links it, exit 130; the
// resumed run measures the unfinished step again and goes on.
TEST_F(InvestigateCliTest, CtrlCLeavesAnInterruptedRecordAndResumes) {
  WriteConfig(true);
  const pid_t pid = Spawn({"investigate", "--good", "v1", "--bad", "v2", "-q", "scan",
                           "--min-pairs", "80", "--max-pairs", "80"});
  ASSERT_GT(pid, 0);
  const fs::path err = Stderr();

  // A wait, not a timed assertion: the deadline only keeps a broken culprit from wedging the test.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  int status = 0;
  bool exited = false;
  while (BenchRuns() < 6 && std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(exited) << "culprit ended before the interrupt:\n" << ReadAll(err);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  while (!exited && std::chrono::steady_clock::now() < deadline + std::chrono::seconds(60)) {
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
  EXPECT_TRUE(Contains(stderr_text, "--resume")) << stderr_text;
  std::vector<Json> compares = Records("compare");
  ASSERT_EQ(compares.size(), 1u);
  EXPECT_TRUE(compares[0]["interrupted"].get<bool>());
  std::vector<Json> investigations = Records("investigation");
  ASSERT_EQ(investigations.size(), 1u);
  EXPECT_TRUE(investigations[0]["interrupted"].get<bool>());
  EXPECT_EQ(investigations[0]["details"]["interrupted_at"], "confirm");
  ASSERT_EQ(investigations[0]["links"].size(), 1u);
  EXPECT_EQ(investigations[0]["links"][0], compares[0]["id"]);

  ProcessResult resumed = Culprit({"investigate", "--resume", "--stop-after", "confirm"});
  ASSERT_EQ(resumed.exit_code, 0) << DescribeRun(resumed);
  EXPECT_TRUE(Contains(resumed.stdout_text, "=> confirmed: scan moved")) << resumed.stdout_text;
  EXPECT_EQ(Records("compare").size(), 2u);
}

// kill -9 in the middle of the bisect (after its confirmation sitting is archived): nothing
// can be saved then, yet `--resume` measures neither the confirmation nor the probe again,
// continues the bisect from its own saved state, names the same culprit, and leaves no
// damaged record and no temporary file behind.
TEST_F(InvestigateCliTest, AKillDuringTheBisectResumesWithoutMeasuringTheStepsBefore) {
  WriteConfig(false);
  const pid_t pid =
      Spawn({"investigate", "--good", "v1", "--bad", "v2", "-q", "scan", "--seed", "11"});
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_TRUE(WaitWhileRunning(
      pid, [&] { return !Records("bisect-step").empty(); }, std::chrono::minutes(3), &status))
      << "culprit ended before the kill:\n"
      << ReadAll(Stderr());
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  const size_t confirmations = Records("compare").size(), probes = Records("probe").size();
  ASSERT_EQ(confirmations, 1u) << ReadAll(Stderr());
  ASSERT_EQ(probes, 1u) << ReadAll(Stderr());
  const int bench_runs = BenchRuns();

  ProcessResult resumed = Culprit({"investigate", "--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << DescribeRun(resumed);
  EXPECT_TRUE(Contains(resumed.stderr_text, "step 1 done")) << resumed.stderr_text;
  EXPECT_EQ(Records("compare").size(), confirmations);  // not measured again
  EXPECT_EQ(Records("probe").size(), probes);
  EXPECT_GT(BenchRuns(), bench_runs);  // the bisect went on
  std::vector<Json> investigations = Records("investigation");
  ASSERT_EQ(investigations.size(), 1u);
  EXPECT_EQ(investigations[0]["details"]["outcome"], "no plan");
  EXPECT_TRUE(Contains(resumed.stdout_text, "=> culprit " + culprit_.substr(0, 10)))
      << resumed.stdout_text;
  // Every file in the archive is a whole record; nothing half-written is left.
  for (const auto& e : fs::directory_iterator(dir_.path() / "records")) {
    EXPECT_EQ(e.path().extension(), ".json") << e.path();
    EXPECT_NO_THROW(Json::parse(ReadAll(e.path()))) << e.path();
  }
}

TEST_F(InvestigateCliTest, UnknownQueryIsAUsageErrorBeforeAnythingIsMeasured) {
  WriteConfig(true);
  ProcessResult r = Culprit({"investigate", "--good", "v1", "--bad", "v2", "-q", "scna"});
  EXPECT_EQ(r.exit_code, 2) << DescribeRun(r);
  EXPECT_TRUE(Contains(r.stderr_text, "scna")) << r.stderr_text;
  EXPECT_TRUE(Contains(r.stderr_text, "scan")) << r.stderr_text;
  EXPECT_EQ(BenchRuns(), 0);
  EXPECT_TRUE(Records().empty());

  ProcessResult plan =
      Culprit({"investigate", "--good", "v1", "--bad", "v2", "-q", "scan", "--plan", "rolup"});
  EXPECT_EQ(plan.exit_code, 2) << DescribeRun(plan);
  EXPECT_TRUE(Contains(plan.stderr_text, "no residency plan 'rolup'")) << plan.stderr_text;

  ProcessResult nothing = Culprit({"investigate", "--resume"});
  EXPECT_EQ(nothing.exit_code, 2) << DescribeRun(nothing);
  EXPECT_TRUE(Contains(nothing.stderr_text, "no unfinished investigation")) << nothing.stderr_text;
}

}  // namespace
}  // namespace culprit
