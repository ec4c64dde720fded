#include "investigate/config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/config_text.h"
#include "tests/support/temp_dir.h"

// The whole file: every owner's section read in one pass. Each section's own
// rules are tested beside its owner (tests/engine/engine_config_test.cc, ...).

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
  EXPECT_EQ(count.metric.kind, MetricRule::Kind::kRegex);
  EXPECT_EQ(count.metric.pattern, "median_ms=([0-9.]+)");
  EXPECT_EQ(count.unit, "ms");
  EXPECT_EQ(count.timeout, milliseconds(60000));
  EXPECT_FALSE(count.code_path_auto);
  EXPECT_EQ(count.code_path, (std::vector<std::string>{"src/scan/**", "src/columns/**"}));
  EXPECT_EQ(count.cwd, "");
  EXPECT_FALSE(count.warmup.has_value());

  const QueryConfig& traverse = config.queries.at("path.traverse");
  EXPECT_EQ(traverse.metric.kind, MetricRule::Kind::kJson);
  EXPECT_EQ(traverse.metric.pattern, "result.median_ms");
  EXPECT_TRUE(traverse.code_path_auto);
  EXPECT_TRUE(traverse.code_path.empty());
  EXPECT_EQ(traverse.cwd, "{tree}/data");
  EXPECT_EQ(traverse.env, (std::map<std::string, std::string>{{"THREADS", "1"}}));
  EXPECT_EQ(traverse.warmup, 3);
  EXPECT_EQ(traverse.timeout, milliseconds(90000));

  const QueryConfig& join = config.queries.at("interval.join");
  EXPECT_EQ(join.metric.kind, MetricRule::Kind::kWall);
  EXPECT_EQ(join.cwd, "/proj/work");

  ASSERT_EQ(config.overrides.size(), 2u);
  const NamedOverride& gate = config.overrides.at("parallel_gate");
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
  EXPECT_DOUBLE_EQ(config.bisect.target_probability,
                   0.90);  // issue 27: the verification guards the answer
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

TEST(ParseConfig, DigestIsFnv1aOfTheBytes) {
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
            "calibrate_between_looks, cpus, aslr");
  EXPECT_EQ(ErrorOf(WithEngine("[queries.\"series.count\"]\ncommand = [\"x\"]\ntimout = \"5s\"\n")),
            "/proj/culprit.toml:6:1: unknown key 'timout' in [queries.\"series.count\"], did you "
            "mean 'timeout'?");
  EXPECT_EQ(ErrorOf(WithEngine("[queries.q]\ncommand = [\"x\"]\nmetric = { regx = '(a)' }\n")),
            "/proj/culprit.toml:6:12: unknown key 'regx' in [queries.q.metric], did you mean "
            "'regex'?");
}

TEST(ParseConfigErrors, UnknownSection) {
  EXPECT_EQ(ErrorOf(WithEngine("[mesure]\nband = 0.1\n")),
            "/proj/culprit.toml:4:2: unknown section 'mesure', did you mean 'measure'?");
  EXPECT_EQ(ErrorOf("band = 0.1\n" + WithEngine("")),
            "/proj/culprit.toml:1:1: unknown top-level key 'band': expected a section such as "
            "[measure]");
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

TEST(ParseConfig, WithoutAnEngineSectionTheWorkingTreeIsMeasured) {
  // Like hyperfine: [engine] is needed only to build. A file of queries alone
  // loads; its directory is the working tree; artifacts cannot be referred to.
  Result<Config> config =
      ParseConfig("[queries.q]\ncommand = [\"./bench\", \"{tree}\"]\n", "/proj/culprit.toml");
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_FALSE(config->engine.present);
  EXPECT_EQ(config->engine.repo, fs::path("/proj"));
  EXPECT_TRUE(config->engine.build.empty());
  EXPECT_EQ(config->queries.at("q").command, (std::vector<std::string>{"./bench", "{tree}"}));
  EXPECT_NE(ErrorOf("[queries.q]\ncommand = [\"{artifact:bench}\"]\n")
                .find("expected an artifact listed in engine.artifacts"),
            std::string::npos);
}

TEST(ParseConfigErrors, SectionsAreReadInOneOrder) {
  // Of two mistakes, the one in the section read first is reported, wherever
  // it is in the file: [queries] before [measure], [engine] before [queries].
  EXPECT_EQ(ErrorOf(WithEngine("[measure]\nband = 2\n[queries.q]\nunit = \"ms\"\n")),
            "/proj/culprit.toml:6:1: [queries.q] is missing 'command': expected the argv that "
            "runs the query, such as [\"{artifact:NAME}\", \"bench\"]");
  EXPECT_EQ(ErrorOf("[queries.q]\nunit = \"ms\"\n[engine]\nbuild = 1\n"),
            "/proj/culprit.toml:4:9: engine.build: expected an array of commands such as "
            "[[\"make\", \"-j2\"]], found an integer");
}

}  // namespace
}  // namespace culprit
