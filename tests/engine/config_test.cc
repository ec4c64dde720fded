#include "engine/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr char kFile[] = "/proj/culprit.toml";

// Three lines, so a section after it starts on line 4.
constexpr char kEngine[] =
    "[engine]\n"
    "build = [[\"make\"]]\n"
    "artifacts = [\"build/es\"]\n";

// The illustrative file from DESIGN.md, plus the sections it leaves out.
constexpr char kDesignConfig[] = R"toml([engine]
repo = "."                              # the engine's git repository
build = [["cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"],
         ["cmake", "--build", "build", "-j2"]]
artifacts = ["build/eventstore"]        # what is kept per commit in the build cache
build_timeout = "20m"

[queries."series.count"]
command = ["{artifact:eventstore}", "bench", "--query", "series.count", "--events", "1000000"]
metric = { regex = 'median_ms=([0-9.]+)' }   # or metric = "wall" (process wall time)
unit = "ms"
timeout = "60s"
code_path = ["src/scan/**", "src/columns/**"]   # or code_path = "auto" (measured by coverage)

[queries."path.traverse"]
command = ["{artifact:eventstore}", "bench", "--query", "path.traverse"]
metric = { json = "result.median_ms" }
code_path = "auto"
cwd = "{tree}/data"
env = { THREADS = "1" }
warmup = 3
timeout = "1m30s"

[queries."interval.join"]
command = ["{artifact:eventstore}", "bench", "--query", "interval.join"]
cwd = "work"

[overrides.parallel_gate]
env = { PARALLEL = "1" }
hypothesis = "the recalibrated scan-parallelism gate put 1M events on the slow path"

[overrides.no_cache]
unset = ["EVENTSTORE_CACHE"]

[harness]                               # the engine's in-process harness (optional)
command = ["{artifact:eventstore}", "serve", "--events", "1000000"]
timeout = "2m"

[residency."traversal index"]           # isolation plan for one suspect structure
query = "series.count"
conditions = [
  { name = "nothing held" },
  { name = "plain columns held",  hold = ["plain_columns"] },
  { name = "source columns held", hold = ["index_sources"] },
  { name = "index held",          hold = ["traversal_index"] },
  { name = "index released",      hold = ["traversal_index"], release = ["traversal_index"] },
]

[registry]                              # the published benchmark table's query order
order = ["path.traverse", "series.count", "interval.join"]

[measure]
band = 0.05
confidence = 0.95
min_pairs = 10
max_pairs = 160
warmup = 1

[bisect]
target_probability = 0.95
max_builds = 12
max_pairs = 400
pairs_per_step = 8

[records]
dir = "benchmarks/results-v1"

[cache]
dir = "/var/cache/culprit-test"
)toml";

Config Parse(std::string_view text) {
  auto config = ParseConfig(text, kFile);
  EXPECT_TRUE(config.ok()) << (config ? "" : config.error().message());
  return config ? *config : Config{};
}

// The message of the error ParseConfig must report, checked to be a usage error.
std::string ErrorOf(std::string_view text) {
  auto config = ParseConfig(text, kFile);
  EXPECT_FALSE(config.ok()) << "accepted:\n" << text;
  if (config) return "";
  EXPECT_EQ(config.error().kind(), ErrorKind::kUsage);
  return config.error().message();
}

std::string WithEngine(std::string_view rest) { return std::string(kEngine) + std::string(rest); }

// Sets or clears an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(ParseConfig, ReadsTheDesignExampleCompletely) {
  Config config = Parse(kDesignConfig);
  EXPECT_EQ(config.file, fs::path("/proj/culprit.toml"));
  EXPECT_EQ(config.base_dir, fs::path("/proj"));
  EXPECT_EQ(config.digest.size(), 16u);

  EXPECT_EQ(config.engine.repo, fs::path("/proj"));
  ASSERT_EQ(config.engine.build.size(), 2u);
  EXPECT_EQ(config.engine.build[1], (std::vector<std::string>{"cmake", "--build", "build", "-j2"}));
  EXPECT_EQ(config.engine.artifacts, std::vector<std::string>{"build/eventstore"});
  EXPECT_EQ(config.engine.build_timeout, milliseconds(20 * 60 * 1000));
  EXPECT_EQ(config.engine.mode, BuildMode::kIncremental);

  ASSERT_EQ(config.queries.size(), 3u);
  const QueryConfig& count = config.queries.at("series.count");
  EXPECT_EQ(count.name, "series.count");
  EXPECT_EQ(count.command[0], "{artifact:eventstore}");
  EXPECT_EQ(count.command.size(), 6u);
  EXPECT_EQ(count.metric.kind, MetricKind::kRegex);
  EXPECT_EQ(count.metric.pattern, "median_ms=([0-9.]+)");
  EXPECT_EQ(count.unit, "ms");
  EXPECT_EQ(count.timeout, milliseconds(60000));
  EXPECT_FALSE(count.code_path_auto);
  EXPECT_EQ(count.code_path, (std::vector<std::string>{"src/scan/**", "src/columns/**"}));
  EXPECT_EQ(count.cwd, "");
  EXPECT_FALSE(count.warmup.has_value());

  const QueryConfig& traverse = config.queries.at("path.traverse");
  EXPECT_EQ(traverse.metric.kind, MetricKind::kJson);
  EXPECT_EQ(traverse.metric.pattern, "result.median_ms");
  EXPECT_TRUE(traverse.code_path_auto);
  EXPECT_TRUE(traverse.code_path.empty());
  EXPECT_EQ(traverse.cwd, "{tree}/data");
  EXPECT_EQ(traverse.env, (std::map<std::string, std::string>{{"THREADS", "1"}}));
  EXPECT_EQ(traverse.warmup, 3);
  EXPECT_EQ(traverse.timeout, milliseconds(90000));

  const QueryConfig& join = config.queries.at("interval.join");
  EXPECT_EQ(join.metric.kind, MetricKind::kWall);
  EXPECT_EQ(join.cwd, "/proj/work");

  ASSERT_EQ(config.overrides.size(), 2u);
  const OverrideSetConfig& gate = config.overrides.at("parallel_gate");
  EXPECT_EQ(gate.name, "parallel_gate");
  EXPECT_EQ(gate.env, (std::map<std::string, std::string>{{"PARALLEL", "1"}}));
  EXPECT_EQ(gate.hypothesis,
            "the recalibrated scan-parallelism gate put 1M events on the slow path");
  EXPECT_EQ(config.overrides.at("no_cache").unset, std::vector<std::string>{"EVENTSTORE_CACHE"});

  EXPECT_EQ(config.harness.command,
            (std::vector<std::string>{"{artifact:eventstore}", "serve", "--events", "1000000"}));
  EXPECT_EQ(config.harness.timeout, milliseconds(120000));

  ASSERT_EQ(config.residency.size(), 1u);
  const ResidencyPlan& plan = config.residency.at("traversal index");
  EXPECT_EQ(plan.name, "traversal index");
  EXPECT_EQ(plan.query, "series.count");
  ASSERT_EQ(plan.conditions.size(), 5u);
  EXPECT_EQ(plan.conditions[0].name, "nothing held");
  EXPECT_TRUE(plan.conditions[0].hold.empty());
  EXPECT_EQ(plan.conditions[1].hold, std::vector<std::string>{"plain_columns"});
  EXPECT_EQ(plan.conditions[4].name, "index released");
  EXPECT_EQ(plan.conditions[4].release, std::vector<std::string>{"traversal_index"});

  EXPECT_EQ(config.registry.order,
            (std::vector<std::string>{"path.traverse", "series.count", "interval.join"}));
  EXPECT_DOUBLE_EQ(config.measure.band, 0.05);
  EXPECT_EQ(config.measure.max_pairs, 160);
  EXPECT_DOUBLE_EQ(config.bisect.target_probability, 0.95);
  EXPECT_EQ(config.bisect.max_builds, 12);
  EXPECT_EQ(config.bisect.max_pairs, 400);
  EXPECT_EQ(config.bisect.pairs_per_step, 8);
  EXPECT_EQ(config.records.dir, fs::path("/proj/benchmarks/results-v1"));
  EXPECT_EQ(config.cache.dir, fs::path("/var/cache/culprit-test"));
}

TEST(ParseConfig, DefaultsForAMinimalFile) {
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", "/home/tester");
  Config config = Parse("[engine]\nbuild = [\"make\", \"-j2\"]\n");
  EXPECT_EQ(config.engine.repo, fs::path("/proj"));
  // A flat array is one command.
  EXPECT_EQ(config.engine.build, (std::vector<std::vector<std::string>>{{"make", "-j2"}}));
  EXPECT_TRUE(config.engine.artifacts.empty());
  EXPECT_EQ(config.engine.build_timeout, milliseconds(1'200'000));
  EXPECT_TRUE(config.queries.empty());
  EXPECT_TRUE(config.harness.command.empty());
  EXPECT_DOUBLE_EQ(config.measure.band, 0.05);
  EXPECT_DOUBLE_EQ(config.measure.confidence, 0.95);
  EXPECT_EQ(config.measure.min_pairs, 10);
  EXPECT_EQ(config.measure.max_pairs, 160);
  EXPECT_EQ(config.measure.warmup, 1);
  EXPECT_FALSE(config.measure.calibrate_between_looks);
  EXPECT_DOUBLE_EQ(config.bisect.target_probability, 0.99);
  EXPECT_EQ(config.bisect.max_builds, 0);
  EXPECT_EQ(config.records.dir, fs::path("/proj/benchmarks/results-v1"));
  EXPECT_EQ(config.cache.dir, fs::path("/home/tester/.cache/culprit"));
}

TEST(ParseConfig, ResolvesPathsAgainstTheFilesDirectory) {
  ScopedEnv home("HOME", "/home/tester");
  Config config = Parse(
      "[engine]\nrepo = \"../engine/src/..\"\nbuild = [[\"make\"]]\nmode = \"clean\"\n"
      "[records]\ndir = \"/abs/records/\"\n[cache]\ndir = \"~/c\"\n");
  EXPECT_EQ(config.engine.repo, fs::path("/engine"));
  EXPECT_EQ(config.engine.mode, BuildMode::kClean);
  EXPECT_EQ(config.records.dir, fs::path("/abs/records"));
  EXPECT_EQ(config.cache.dir, fs::path("/home/tester/c"));
}

TEST(ParseConfig, CacheDirFollowsXdgCacheHome) {
  ScopedEnv xdg("XDG_CACHE_HOME", "/xdg/cache");
  EXPECT_EQ(Parse(kEngine).cache.dir, fs::path("/xdg/cache/culprit"));
  // The XDG spec says a relative value is ignored.
  ScopedEnv relative("XDG_CACHE_HOME", "relative/cache");
  ScopedEnv home("HOME", "/home/tester");
  EXPECT_EQ(Parse(kEngine).cache.dir, fs::path("/home/tester/.cache/culprit"));
}

TEST(ParseConfig, DigestIsFnv1aOfTheBytes) {
  EXPECT_EQ(ConfigDigest(""), "cbf29ce484222325");
  EXPECT_EQ(ConfigDigest("a"), "af63dc4c8601ec8c");
  Config a = Parse(kEngine);
  Config b = Parse(std::string(kEngine) + "# a comment changes the digest\n");
  EXPECT_EQ(a.digest, ConfigDigest(kEngine));
  EXPECT_NE(a.digest, b.digest);
}

// Every kind of bad file: the exact file:line:column and what was expected.
TEST(ParseConfigErrors, TomlSyntax) {
  EXPECT_EQ(ErrorOf("[engine]\nbuild = [[\"make\"]\n"),
            "/proj/culprit.toml:2:19: invalid TOML: Error while parsing array: encountered "
            "end-of-file");
  EXPECT_EQ(ErrorOf(WithEngine("[measure]\nband = 0.1\nband = 0.2\n")),
            "/proj/culprit.toml:6:8: invalid TOML: Error while parsing key-value pair: cannot "
            "redefine existing floating-point 'band'");
}

TEST(ParseConfigErrors, WrongType) {
  EXPECT_EQ(ErrorOf("[engine]\nrepo = 5\nbuild = [[\"make\"]]\n"),
            "/proj/culprit.toml:2:8: engine.repo: expected a non-empty string, found an integer");
  EXPECT_EQ(ErrorOf(WithEngine("[measure]\nmin_pairs = \"ten\"\n")),
            "/proj/culprit.toml:5:13: measure.min_pairs: expected an integer from 2 to 2000, found "
            "\"ten\"");
  EXPECT_EQ(ErrorOf(WithEngine("[measure]\ncalibrate_between_looks = 1\n")),
            "/proj/culprit.toml:5:27: measure.calibrate_between_looks: expected true or false, "
            "found an integer");
  EXPECT_EQ(ErrorOf("measure = 3\n" + WithEngine("")),
            "/proj/culprit.toml:1:11: measure: expected a table, found an integer");
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\ncommand = [\"x\", 2]\n")),
            "/proj/culprit.toml:5:17: queries.q.command[1]: expected a string (one argument), "
            "found an integer");
}

TEST(ParseConfigErrors, UnknownKeySuggestsTheNearest) {
  auto config = ParseConfig(WithEngine("[measure]\nbnad = 0.1\n"), kFile);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().message(),
            "/proj/culprit.toml:5:1: unknown key 'bnad' in [measure], did you mean 'band'?");
  EXPECT_EQ(config.error().hint(),
            "valid keys in [measure]: band, confidence, min_pairs, max_pairs, warmup, "
            "calibrate_between_looks");
  EXPECT_EQ(ErrorOf(WithEngine("[queries.\"series.count\"]\ncommand = [\"x\"]\ntimout = \"5s\"\n")),
            "/proj/culprit.toml:6:1: unknown key 'timout' in [queries.\"series.count\"], did you "
            "mean 'timeout'?");
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\ncommand = [\"x\"]\nmetric = { regx = '(a)' }\n")),
            "/proj/culprit.toml:6:12: unknown key 'regx' in [queries.q.metric], did you mean "
            "'regex'?");
}

TEST(ParseConfig, WallTimeIsReportedInTheQueryUnit) {
  Config config = Parse(WithEngine("[queries.q]\ncommand = [\"x\"]\nunit = \"s\"\n"));
  EXPECT_DOUBLE_EQ(config.queries.at("q").metric.wall_units_per_ms, 1e-3);
  // A unit that is not a time, for a wall-time metric, points at the unit.
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\ncommand = [\"x\"]\nunit = \"rows/s\"\n")),
            "/proj/culprit.toml:6:8: queries.q.unit: a wall-time metric is a time: unit must be "
            "one of ns, us, ms, s, not 'rows/s' (or take the number from the output with a regex "
            "or json metric)");
  // Any unit goes for a number the engine prints.
  Config rows = Parse(WithEngine(
      "[queries.q]\ncommand = [\"x\"]\nmetric = { regex = 'r=([0-9]+)' }\nunit = \"rows/s\"\n"));
  EXPECT_EQ(rows.queries.at("q").unit, "rows/s");
}

TEST(ParseConfigErrors, UnknownSection) {
  EXPECT_EQ(ErrorOf(WithEngine("[mesure]\nband = 0.1\n")),
            "/proj/culprit.toml:4:2: unknown section 'mesure', did you mean 'measure'?");
  EXPECT_EQ(ErrorOf("band = 0.1\n" + WithEngine("")),
            "/proj/culprit.toml:1:1: unknown top-level key 'band': expected a section such as "
            "[measure]");
}

TEST(ParseConfigErrors, MissingKeyPointsAtItsTable) {
  EXPECT_EQ(ErrorOf("# comment\n[engine]\nrepo = \".\"\n"),
            "/proj/culprit.toml:2:1: [engine] is missing 'build': expected the commands that "
            "build one commit, such as build = [[\"make\", \"-j2\"]]");
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\nunit = \"ms\"\n")),
            "/proj/culprit.toml:4:1: [queries.q] is missing 'command': expected the argv that "
            "runs the query, such as [\"{artifact:NAME}\", \"bench\"]");
  std::string no_engine = ErrorOf("[measure]\nband = 0.1\n");
  EXPECT_EQ(no_engine,
            "/proj/culprit.toml:1:1: missing section [engine]: expected the engine's repo and "
            "build");
}

TEST(ParseConfigErrors, BandAndConfidenceOutOfRange) {
  EXPECT_EQ(ErrorOf(WithEngine("[measure]\nband = 1.5\n")),
            "/proj/culprit.toml:5:8: measure.band: expected a number between 0 and 1 "
            "(exclusive), found 1.5");
  EXPECT_EQ(ErrorOf(WithEngine("[measure]\nband = 0\n")),
            "/proj/culprit.toml:5:8: measure.band: expected a number between 0 and 1 "
            "(exclusive), found 0");
  EXPECT_EQ(ErrorOf(WithEngine("[measure]\nconfidence = 95\n")),
            "/proj/culprit.toml:5:14: measure.confidence: expected a number between 0 and 1 "
            "(exclusive), found 95");
  EXPECT_EQ(ErrorOf(WithEngine("[bisect]\ntarget_probability = 1.0\n")),
            "/proj/culprit.toml:5:22: bisect.target_probability: expected a number between 0 "
            "and 1 (exclusive), found 1");
}

TEST(ParseConfigErrors, PairBudgets) {
  EXPECT_EQ(ErrorOf(WithEngine("[measure]\nmin_pairs = 200\n")),
            "/proj/culprit.toml:5:13: measure.min_pairs: expected at most max_pairs (160), "
            "found 200");
  EXPECT_EQ(ErrorOf(WithEngine("[measure]\nmax_pairs = 5\n")),
            "/proj/culprit.toml:5:13: measure.min_pairs: expected at most max_pairs (5), found 10");
  EXPECT_EQ(
      ErrorOf(WithEngine("[measure]\nmin_pairs = 1\n")),
      "/proj/culprit.toml:5:13: measure.min_pairs: expected an integer from 2 to 2000, found 1");
  // A sitting's statistics hold n(n+1)/2 numbers: the budget has a ceiling.
  EXPECT_EQ(ErrorOf(WithEngine("[measure]\nmax_pairs = 50000\n")),
            "/proj/culprit.toml:5:13: measure.max_pairs: expected an integer from 2 to 2000, found "
            "50000");
  EXPECT_EQ(ErrorOf(WithEngine("[bisect]\nmax_builds = -1\n")),
            "/proj/culprit.toml:5:14: bisect.max_builds: expected an integer >= 0, found -1");
}

TEST(ParseConfigErrors, EmptyCommands) {
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\ncommand = []\n")),
            "/proj/culprit.toml:5:11: queries.q.command: expected a command: a non-empty array "
            "of strings such as [\"make\", \"-j2\"], found an array");
  EXPECT_EQ(ErrorOf("[engine]\nbuild = []\n"),
            "/proj/culprit.toml:2:9: engine.build: expected an array of commands such as "
            "[[\"make\", \"-j2\"]], found an array");
  EXPECT_EQ(ErrorOf("[engine]\nbuild = [[\"make\"], []]\n"),
            "/proj/culprit.toml:2:20: engine.build[1]: expected a command: a non-empty array of "
            "strings such as [\"make\", \"-j2\"], found an array");
  EXPECT_EQ(ErrorOf(WithEngine("[harness]\ncommand = [\"\", \"serve\"]\n")),
            "/proj/culprit.toml:5:12: harness.command[0]: expected a program name, found \"\"");
}

TEST(ParseConfigErrors, RegexMustCompileAndCapture) {
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\ncommand = [\"x\"]\nmetric = { regex = 'a(b' }\n")),
            "/proj/culprit.toml:6:20: queries.q.metric.regex: expected a regular expression "
            "(ECMAScript), found 'a(b', which does not compile: Mismatched '(' and ')' in "
            "regular expression");
  EXPECT_EQ(
      ErrorOf(WithEngine("[queries.q]\ncommand = [\"x\"]\nmetric = { regex = 'ms=[0-9]+' }\n")),
      "/proj/culprit.toml:6:20: queries.q.metric.regex: expected a regular expression "
      "with a capture group around the number, such as 'median_ms=([0-9.]+)', found "
      "'ms=[0-9]+' (no group)");
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\ncommand = [\"x\"]\nmetric = \"cpu\"\n")),
            "/proj/culprit.toml:6:10: queries.q.metric: expected \"wall\", { regex = '...' } or "
            "{ json = \"dotted.path\" }, found \"cpu\"");
  EXPECT_EQ(ErrorOf(WithEngine(
                "[queries.q]\ncommand = [\"x\"]\nmetric = { regex = '(a)', json = \"a\" }\n")),
            "/proj/culprit.toml:6:10: queries.q.metric: expected exactly one of regex or json, "
            "found both");
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\ncommand = [\"x\"]\nmetric = { json = \"a..b\" }\n")),
            "/proj/culprit.toml:6:19: queries.q.metric.json: expected a dotted path such as "
            "\"result.median_ms\", found \"a..b\"");
}

TEST(ParseConfigErrors, BadDuration) {
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\ncommand = [\"x\"]\ntimeout = \"60\"\n")),
            "/proj/culprit.toml:6:11: queries.q.timeout: expected a duration such as \"500ms\", "
            "\"60s\", \"20m\" or \"1h\", found \"60\" (no unit; use ms, s, m or h)");
  EXPECT_EQ(ErrorOf("[engine]\nbuild = [[\"make\"]]\nbuild_timeout = 20\n"),
            "/proj/culprit.toml:3:17: engine.build_timeout: expected a duration string such as "
            "\"500ms\", \"60s\", \"20m\" or \"1h\", found an integer");
  EXPECT_EQ(ErrorOf(WithEngine("[harness]\ncommand = [\"x\"]\ntimeout = \"0s\"\n")),
            "/proj/culprit.toml:6:11: harness.timeout: expected a duration greater than zero, "
            "found \"0s\"");
}

TEST(ParseConfigErrors, UnknownArtifactReference) {
  auto config = ParseConfig(
      WithEngine("[queries.q]\ncommand = [\"{artifact:es}\", \"--bin={artifact:e}\"]\n"), kFile);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().message(),
            "/proj/culprit.toml:5:29: queries.q.command[1]: expected an artifact listed in "
            "engine.artifacts, found {artifact:e}, did you mean 'es'?");
  EXPECT_EQ(config.error().hint(),
            "an artifact is referenced by its file name (known: es); add its path to "
            "engine.artifacts");
  EXPECT_EQ(ErrorOf(WithEngine("[harness]\ncommand = [\"{artifact:server}\"]\n")),
            "/proj/culprit.toml:5:12: harness.command[0]: expected an artifact listed in "
            "engine.artifacts, found {artifact:server}");
  EXPECT_EQ(ErrorOf("[engine]\nbuild = [[\"make\"]]\nartifacts = [\"/usr/bin/es\"]\n"),
            "/proj/culprit.toml:3:14: engine.artifacts[0]: expected a file path relative to the "
            "engine's build tree, such as \"build/engine\", found \"/usr/bin/es\"");
  EXPECT_EQ(ErrorOf("[engine]\nbuild = [[\"make\"]]\nartifacts = [\"a/es\", \"b/es\"]\n"),
            "/proj/culprit.toml:3:22: engine.artifacts[1]: expected artifacts with distinct "
            "file names, found a second 'es'");
}

TEST(ParseConfigErrors, Residency) {
  constexpr char kQueryAndHarness[] =
      "[queries.scan]\ncommand = [\"{artifact:es}\"]\n"         // lines 4-5
      "[harness]\ncommand = [\"{artifact:es}\", \"serve\"]\n";  // lines 6-7
  EXPECT_EQ(
      ErrorOf(WithEngine(std::string(kQueryAndHarness) +
                         "[residency.index]\nquery = \"scna\"\nconditions = [{ name = \"a\" }]\n")),
      "/proj/culprit.toml:9:9: residency.index.query: expected a query defined in "
      "[queries], found \"scna\", did you mean 'scan'?");
  EXPECT_EQ(
      ErrorOf(WithEngine(std::string(kQueryAndHarness) +
                         "[residency.index]\nquery = \"scan\"\nconditions = [\n"
                         "  { name = \"held\", hold = [\"index\"] },\n"
                         "  { name = \"released\", hold = [\"index\"], release = [\"indx\"] },\n"
                         "]\n")),
      "/proj/culprit.toml:12:53: residency.index.conditions[1].release[0]: expected a "
      "structure this condition holds, found 'indx', which is not in its hold list, did "
      "you mean 'index'?");
  EXPECT_EQ(ErrorOf(WithEngine(std::string(kQueryAndHarness) +
                               "[residency.index]\nquery = \"scan\"\nconditions = [\n"
                               "  { name = \"a\" }, { name = \"a\" }]\n")),
            "/proj/culprit.toml:11:28: residency.index.conditions[1].name: expected a name not "
            "used by another condition of this plan, found \"a\" again");
  EXPECT_EQ(ErrorOf(WithEngine(
                std::string(kQueryAndHarness) +
                "[residency.index]\nquery = \"scan\"\nconditions = [{ hold = [\"x\"] }]\n")),
            "/proj/culprit.toml:10:15: residency.index.conditions[0]: expected a name, such as "
            "name = \"nothing held\"");
  EXPECT_EQ(
      ErrorOf(WithEngine("[queries.scan]\ncommand = [\"x\"]\n"
                         "[residency.index]\nquery = \"scan\"\nconditions = [{ name = \"a\" }]\n")),
      "/proj/culprit.toml:6:1: [residency.index] needs the engine's in-process harness: "
      "expected a [harness] section with its command");
}

TEST(ParseConfigErrors, RegistryOrder) {
  constexpr char kQueries[] = "[queries.a]\ncommand = [\"x\"]\n[queries.b]\ncommand = [\"x\"]\n";
  EXPECT_EQ(ErrorOf(WithEngine(std::string(kQueries) + "[registry]\norder = [\"a\", \"c\"]\n")),
            "/proj/culprit.toml:9:15: registry.order[1]: expected a query defined in [queries], "
            "found \"c\", did you mean 'a'?");
  EXPECT_EQ(
      ErrorOf(WithEngine(std::string(kQueries) + "[registry]\norder = [\"a\", \"b\", \"a\"]\n")),
      "/proj/culprit.toml:9:20: registry.order[2]: expected each query once, found \"a\" "
      "again");
}

TEST(ParseConfigErrors, EnvironmentNames) {
  auto config =
      ParseConfig(WithEngine("[overrides.gate]\nenv = { \"PARALLEL-GATE\" = \"1\" }\n"), kFile);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().message(),
            "/proj/culprit.toml:5:9: overrides.gate.env: expected an environment variable name "
            "(letters, digits and '_', not starting with a digit), found 'PARALLEL-GATE'");
  EXPECT_EQ(ErrorOf(WithEngine("[overrides.gate]\nenv = { PARALLEL = 1 }\n")),
            "/proj/culprit.toml:5:20: overrides.gate.env.PARALLEL: expected a string, found an "
            "integer");
  EXPECT_EQ(ErrorOf(WithEngine("[overrides.gate]\nunset = [\"OK\", \"2BAD\"]\n")),
            "/proj/culprit.toml:5:16: overrides.gate.unset[1]: expected an environment variable "
            "name (letters, digits and '_', not starting with a digit), found \"2BAD\"");
  EXPECT_EQ(ErrorOf(WithEngine("[overrides.gate]\nhypothesis = \"h\"\n")),
            "/proj/culprit.toml:4:1: [overrides.gate] changes nothing: expected env = { NAME = "
            "\"value\" } or unset = [\"NAME\"]");
  EXPECT_EQ(ErrorOf(WithEngine("[overrides.\"A=1\"]\nenv = { A = \"1\" }\n")),
            "/proj/culprit.toml:4:12: overrides.\"A=1\": expected an override set name without "
            "'=', found 'A=1'");
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\ncommand = [\"x\"]\nenv = { \"1X\" = \"y\" }\n")),
            "/proj/culprit.toml:6:9: queries.q.env: expected an environment variable name "
            "(letters, digits and '_', not starting with a digit), found '1X'");
}

TEST(ParseConfigErrors, BuildMode) {
  EXPECT_EQ(ErrorOf("[engine]\nbuild = [[\"make\"]]\nmode = \"fresh\"\n"),
            "/proj/culprit.toml:3:8: engine.mode: expected \"incremental\" or \"clean\", found "
            "\"fresh\"");
}

TEST(StarterConfig, IsAcceptedAndNamesTheEngine) {
  std::string text = StarterConfig("eventstore");
  auto config = ParseConfig(text, kFile);
  ASSERT_TRUE(config.ok()) << config.error().message() << "\n" << text;
  EXPECT_EQ(config->engine.artifacts, std::vector<std::string>{"build/eventstore"});
  ASSERT_EQ(config->queries.count("example"), 1u);
  EXPECT_EQ(config->queries.at("example").command[0], "{artifact:eventstore}");
  EXPECT_NE(text.find("# "), std::string::npos);  // commented

  // Characters that would break the TOML strings are dropped.
  auto odd = ParseConfig(StarterConfig("my \"engine\"/v2"), kFile);
  ASSERT_TRUE(odd.ok()) << odd.error().message();
  EXPECT_EQ(odd->engine.artifacts, std::vector<std::string>{"build/myenginev2"});
  auto empty = ParseConfig(StarterConfig(""), kFile);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->engine.artifacts, std::vector<std::string>{"build/engine"});
}

TEST(StarterConfig, CommentedSectionsAreValidWhenUncommented) {
  // Uncommenting every "# [section]" block (lines starting "# " after such a
  // header, until a blank line) must still give a valid file.
  std::string text = StarterConfig("es");
  std::string out;
  bool in_block = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("# [", 0) == 0) in_block = true;
    if (line.empty()) in_block = false;
    if (in_block && line.rfind("# ", 0) == 0) line = line.substr(2);
    out += line + "\n";
  }
  auto config = ParseConfig(out, kFile);
  ASSERT_TRUE(config.ok()) << config.error().message() << "\n" << out;
  EXPECT_EQ(config->overrides.size(), 1u);
  EXPECT_EQ(config->residency.size(), 1u);
  EXPECT_EQ(config->registry.order, std::vector<std::string>{"example"});
  EXPECT_FALSE(config->harness.command.empty());
}

TEST(LoadConfig, ReadsAFileAndReportsItsPath) {
  TempDir dir;
  fs::path file = dir.path() / "culprit.toml";
  WriteTextFile(file, std::string(kEngine) + "[records]\ndir = \"out\"\n");
  auto config = LoadConfig(file);
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_EQ(config->file, file);
  EXPECT_EQ(config->base_dir, dir.path());
  EXPECT_EQ(config->records.dir, dir.path() / "out");

  WriteTextFile(file, "[engine]\nbuild = 1\n");
  auto bad = LoadConfig(file);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), file.string() +
                                       ":2:9: engine.build: expected an array of commands such as "
                                       "[[\"make\", \"-j2\"]], found an integer");

  auto missing = LoadConfig(dir.path() / "nope.toml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind(), ErrorKind::kUsage);
  EXPECT_NE(missing.error().hint().find("culprit init"), std::string::npos);
}

TEST(FindConfig, ExplicitDirectoryAndCurrentDirectory) {
  TempDir dir;
  fs::path file = dir.path() / "culprit.toml";
  auto missing = FindConfig(file);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind(), ErrorKind::kUsage);
  EXPECT_NE(missing.error().hint().find("culprit init"), std::string::npos);

  WriteTextFile(file, kEngine);
  EXPECT_EQ(*FindConfig(file), file);
  EXPECT_EQ(*FindConfig(dir.path()), file);

  fs::path old = fs::current_path();
  fs::current_path(dir.path());
  auto found = FindConfig(std::nullopt);
  fs::remove(file);
  auto absent = FindConfig(std::nullopt);
  fs::current_path(old);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, fs::path("culprit.toml"));
  ASSERT_FALSE(absent.ok());
  EXPECT_NE(absent.error().message().find("no culprit.toml in the current directory"),
            std::string::npos);
  EXPECT_NE(absent.error().hint().find("culprit init"), std::string::npos);
}

TEST(Artifacts, NamesAndReferences) {
  EXPECT_EQ(ArtifactName("build/eventstore"), "eventstore");
  EXPECT_EQ(ArtifactName("./out/bin/es.sh"), "es.sh");
  EXPECT_EQ(ArtifactReferences("--bin={artifact:es}:{artifact:tool}"),
            (std::vector<std::string>{"es", "tool"}));
  EXPECT_TRUE(ArtifactReferences("{tree}/x").empty());
}

}  // namespace
}  // namespace culprit
