#include "engine/engine_config.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/support/config_text.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

Status ReadEngine(const ConfigTable& root) {
  EngineConfig engine;
  return ReadEngineSection(root, &engine);
}

// [engine] then [queries], as the whole file reads them.
Status ReadQueries(const ConfigTable& root, std::map<std::string, QueryConfig>* queries) {
  EngineConfig engine;
  CULPRIT_TRY(ReadEngineSection(root, &engine));
  return ReadQueriesSection(root, engine, queries);
}

std::string EngineErrorOf(std::string_view text) { return ConfigErrorOf(text, ReadEngine); }

std::string QueriesErrorOf(std::string_view rest) {
  return ConfigErrorOf(WithTestEngine(rest), [](const ConfigTable& root) {
    std::map<std::string, QueryConfig> queries;
    return ReadQueries(root, &queries);
  });
}

std::map<std::string, QueryConfig> Queries(std::string_view rest) {
  std::map<std::string, QueryConfig> queries;
  Status status = ReadConfigText(
      WithTestEngine(rest), [&](const ConfigTable& root) { return ReadQueries(root, &queries); });
  EXPECT_TRUE(status.ok()) << (status ? "" : status.error().message());
  return queries;
}

Result<fs::path> CacheDir(std::string_view text) {
  CacheConfig cache;
  Status status =
      ReadConfigText(text, [&](const ConfigTable& root) { return ReadCacheSection(root, &cache); });
  if (!status) return status.error();
  return cache.dir;
}

TEST(EngineSection, ARepoThatCannotServeTheCommandIsRefusedWhereItIsWritten) {
  TempDir dir;
  const fs::path root = dir.path();
  fs::create_directories(root / "plain");
  fs::create_directories(root / "clone" / ".git");
  fs::create_directories(root / "clone" / "engine" / "src");
  fs::create_directories(root / "bare.git" / "objects");
  fs::create_directories(root / "bare.git" / "refs");
  { std::ofstream(root / "bare.git" / "HEAD") << "ref: refs/heads/main\n"; }
  { std::ofstream(root / "file") << "x"; }
  auto engine = [&](const fs::path& repo) {
    return "[engine]\nrepo = \"" + repo.string() + "\"\nbuild = [[\"make\"]]\n";
  };
  auto ReadAndCheck = [](const ConfigTable& root) -> Status {
    EngineConfig engine;
    CULPRIT_TRY(ReadEngineSection(root, &engine));
    return CheckEngineRepository(engine, RepositoryUse::kBuild);
  };
  auto EngineErrorOf = [&](std::string_view text) { return ConfigErrorOf(text, ReadAndCheck); };
  EXPECT_EQ(
      EngineErrorOf(engine(root / "missing")),
      "/proj/culprit.toml:2:8: engine.repo: " + (root / "missing").string() + " does not exist");
  EXPECT_EQ(
      EngineErrorOf(engine(root / "file")),
      "/proj/culprit.toml:2:8: engine.repo: " + (root / "file").string() + " is not a directory");
  EXPECT_EQ(EngineErrorOf(engine(root / "plain")),
            "/proj/culprit.toml:2:8: engine.repo: " + (root / "plain").string() +
                " is not a git repository (nor inside one)");
  // Where GitRepo::Open finds a repository, so does the check: a clone, a directory inside
  // one, a bare repository.
  for (const fs::path& ok :
       {root / "clone", root / "clone" / "engine" / "src", root / "bare.git"}) {
    Status read = ReadConfigText(engine(ok), ReadAndCheck);
    EXPECT_TRUE(read.ok()) << ok << ": " << (read ? "" : read.error().message());
  }
  // The file's own mistakes come first; without a `repo` key nothing is checked here.
  EXPECT_NE(EngineErrorOf("[engine]\nrepo = \"" + (root / "plain").string() + "\"\n")
                .find("[engine] is missing 'build'"),
            std::string::npos);
  EXPECT_TRUE(ReadConfigText("[engine]\nbuild = [[\"make\"]]\n", ReadAndCheck).ok());
  // Measuring the working tree needs the directory, not git.
  Status tree = ReadConfigText(engine(root / "plain"), [](const ConfigTable& root) -> Status {
    EngineConfig engine;
    CULPRIT_TRY(ReadEngineSection(root, &engine));
    return CheckEngineRepository(engine, RepositoryUse::kWorkingTree);
  });
  EXPECT_TRUE(tree.ok()) << (tree ? "" : tree.error().message());
  EXPECT_NE(ConfigErrorOf(engine(root / "missing"),
                          [](const ConfigTable& root) -> Status {
                            EngineConfig engine;
                            CULPRIT_TRY(ReadEngineSection(root, &engine));
                            return CheckEngineRepository(engine, RepositoryUse::kWorkingTree);
                          })
                .find("does not exist"),
            std::string::npos);
}

TEST(EngineSection, MissingBuildPointsAtItsTable) {
  EXPECT_EQ(EngineErrorOf("# comment\n[engine]\nrepo = \".\"\n"),
            "/proj/culprit.toml:2:1: [engine] is missing 'build': expected the commands that "
            "build one commit, such as build = [[\"make\", \"-j2\"]]");
}

TEST(EngineSection, EmptyCommands) {
  EXPECT_EQ(EngineErrorOf("[engine]\nbuild = []\n"),
            "/proj/culprit.toml:2:9: engine.build: expected an array of commands such as "
            "[[\"make\", \"-j2\"]], found an array");
  EXPECT_EQ(EngineErrorOf("[engine]\nbuild = [[\"make\"], []]\n"),
            "/proj/culprit.toml:2:20: engine.build[1]: expected a command: a non-empty array of "
            "strings such as [\"make\", \"-j2\"], found an array");
}

TEST(EngineSection, BadDurationAndMode) {
  EXPECT_EQ(EngineErrorOf("[engine]\nbuild = [[\"make\"]]\nbuild_timeout = 20\n"),
            "/proj/culprit.toml:3:17: engine.build_timeout: expected a duration string such as "
            "\"500ms\", \"60s\", \"20m\" or \"1h\", found an integer");
  EXPECT_EQ(EngineErrorOf("[engine]\nbuild = [[\"make\"]]\nmode = \"fresh\"\n"),
            "/proj/culprit.toml:3:8: engine.mode: expected \"incremental\" or \"clean\", found "
            "\"fresh\"");
}

TEST(EngineSection, Artifacts) {
  EXPECT_EQ(EngineErrorOf("[engine]\nbuild = [[\"make\"]]\nartifacts = [\"/usr/bin/es\"]\n"),
            "/proj/culprit.toml:3:14: engine.artifacts[0]: expected a file path relative to the "
            "engine's build tree, such as \"build/engine\", found \"/usr/bin/es\"");
  EXPECT_EQ(EngineErrorOf("[engine]\nbuild = [[\"make\"]]\nartifacts = [\"a/es\", \"b/es\"]\n"),
            "/proj/culprit.toml:3:22: engine.artifacts[1]: expected artifacts with distinct "
            "file names, found a second 'es'");
}

TEST(QueriesSection, MissingCommandPointsAtItsTable) {
  EXPECT_EQ(QueriesErrorOf("[queries.q]\nunit = \"ms\"\n"),
            "/proj/culprit.toml:4:1: [queries.q] is missing 'command': expected the argv that "
            "runs the query, such as [\"{artifact:NAME}\", \"bench\"]");
  EXPECT_EQ(QueriesErrorOf("[queries.q]\ncommand = []\n"),
            "/proj/culprit.toml:5:11: queries.q.command: expected a command: a non-empty array "
            "of strings such as [\"make\", \"-j2\"], found an array");
}

TEST(QueriesSection, WallTimeIsReportedInTheQueryUnit) {
  auto queries = Queries("[queries.q]\ncommand = [\"x\"]\nunit = \"s\"\n");
  EXPECT_DOUBLE_EQ(queries.at("q").metric.wall_units_per_ms, 1e-3);
  // A unit that is not a time, for a wall-time metric, points at the unit.
  EXPECT_EQ(QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\nunit = \"rows/s\"\n"),
            "/proj/culprit.toml:6:8: queries.q.unit: a wall-time metric is a time: unit must be "
            "one of ns, us, ms, s, not 'rows/s' (or take the number from the output with a regex "
            "or json metric)");
  // Any unit goes for a number the engine prints.
  auto rows = Queries(
      "[queries.q]\ncommand = [\"x\"]\nmetric = { regex = 'r=([0-9]+)' }\nunit = \"rows/s\"\n");
  EXPECT_EQ(rows.at("q").unit, "rows/s");
  EXPECT_EQ(rows.at("q").metric.kind, MetricRule::Kind::kRegex);
  EXPECT_EQ(rows.at("q").metric.pattern, "r=([0-9]+)");
}

TEST(QueriesSection, RegexMustCompileAndCapture) {
  EXPECT_EQ(QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\nmetric = { regex = 'a(b' }\n"),
            "/proj/culprit.toml:6:20: queries.q.metric.regex: expected a regular expression "
            "(ECMAScript), found 'a(b', which does not compile: Mismatched '(' and ')' in "
            "regular expression");
  EXPECT_EQ(QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\nmetric = { regex = 'ms=[0-9]+' }\n"),
            "/proj/culprit.toml:6:20: queries.q.metric.regex: expected a regular expression "
            "with a capture group around the number, such as 'median_ms=([0-9.]+)', found "
            "'ms=[0-9]+' (no group)");
  EXPECT_EQ(
      QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\nmetric = { regex = '(a)', json = \"a\" }\n"),
      "/proj/culprit.toml:6:10: queries.q.metric: expected exactly one of regex or json, "
      "found both");
  EXPECT_EQ(QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\nmetric = { json = \"a..b\" }\n"),
            "/proj/culprit.toml:6:19: queries.q.metric.json: expected a dotted path such as "
            "\"result.median_ms\", found \"a..b\"");
  EXPECT_EQ(QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\nmetric = { json = \".a\" }\n"),
            "/proj/culprit.toml:6:19: queries.q.metric.json: expected a dotted path such as "
            "\"result.median_ms\", found \".a\"");
}

TEST(QueriesSection, AResourceFigureIsAMetricInItsOwnUnit) {
  const std::pair<const char*, const char*> named[] = {{"wall", "ms"},
                                                       {"cpu", "ms"},
                                                       {"max_rss", "KiB"},
                                                       {"minor_faults", "faults"},
                                                       {"major_faults", "faults"},
                                                       {"ctx_switches", "switches"},
                                                       {"instructions", "instructions"},
                                                       {"ll_misses", "misses"},
                                                       {"d1_misses", "misses"}};
  for (const auto& [name, unit] : named) {
    auto queries = Queries(fmt::format("[queries.q]\ncommand = [\"x\"]\nmetric = \"{}\"\n", name));
    EXPECT_EQ(NamedMetricName(queries.at("q").metric.kind), name);
    EXPECT_EQ(queries.at("q").unit, unit) << name;
  }
  // Its unit may be written, if it is the metric's own.
  auto rss = Queries("[queries.q]\ncommand = [\"x\"]\nmetric = \"max_rss\"\nunit = \"KiB\"\n");
  EXPECT_EQ(rss.at("q").metric.kind, MetricRule::Kind::kMaxRss);
}

TEST(QueriesSection, AMisspeltMetricNameIsRefusedWhereItIsWritten) {
  EXPECT_EQ(
      QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\nmetric = \"cpus\"\n"),
      "/proj/culprit.toml:6:10: queries.q.metric: expected \"wall\", \"cpu\", \"max_rss\", "
      "\"minor_faults\", \"major_faults\", \"ctx_switches\", \"instructions\", \"ll_misses\", "
      "\"d1_misses\", { regex = '...' } or { json = \"dotted.path\" }, found \"cpus\", "
      "did you mean 'cpu'?");
  EXPECT_EQ(
      QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\nmetric = \"max-rss\"\n"),
      "/proj/culprit.toml:6:10: queries.q.metric: expected \"wall\", \"cpu\", \"max_rss\", "
      "\"minor_faults\", \"major_faults\", \"ctx_switches\", \"instructions\", \"ll_misses\", "
      "\"d1_misses\", { regex = '...' } or { json = \"dotted.path\" }, found \"max-rss\", "
      "did you mean 'max_rss'?");
  // A resource figure's unit is its own: another is refused at the unit.
  EXPECT_EQ(QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\nmetric = \"cpu\"\nunit = \"s\"\n"),
            "/proj/culprit.toml:7:8: queries.q.unit: metric \"cpu\" is in ms: expected unit = "
            "\"ms\" or no unit, found \"s\"");
}

TEST(QueriesSection, BadDuration) {
  EXPECT_EQ(QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\ntimeout = \"60\"\n"),
            "/proj/culprit.toml:6:11: queries.q.timeout: expected a duration such as \"500ms\", "
            "\"60s\", \"20m\" or \"1h\", found \"60\" (no unit; use ms, s, m or h)");
}

TEST(QueriesSection, UnknownArtifactReference) {
  Status status = ReadConfigText(
      WithTestEngine("[queries.q]\ncommand = [\"{artifact:es}\", \"--bin={artifact:e}\"]\n"),
      [](const ConfigTable& root) {
        std::map<std::string, QueryConfig> queries;
        return ReadQueries(root, &queries);
      });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "/proj/culprit.toml:5:29: queries.q.command[1]: expected an artifact listed in "
            "engine.artifacts, found {artifact:e}, did you mean 'es'?");
  EXPECT_EQ(status.error().hint(),
            "an artifact is referenced by its file name (known: es); add its path to "
            "engine.artifacts");
}

TEST(QueriesSection, UnknownPlaceholderIsRefusedAtLoadTime) {
  // Not only the query being run: every query's command is checked when the
  // file is read, where it can be pointed at.
  auto error_of = [](const std::string& queries) {
    Status status = ReadConfigText(WithTestEngine(queries), [](const ConfigTable& root) {
      std::map<std::string, QueryConfig> queries;
      return ReadQueries(root, &queries);
    });
    return status.ok() ? std::string("ok") : status.error().message();
  };
  EXPECT_EQ(error_of("[queries.q]\ncommand = [\"x\", \"--at={comit}\"]\n"),
            "/proj/culprit.toml:5:17: queries.q.command[1]: expected a placeholder {rev}, "
            "{commit}, {tree} or {artifact:NAME}, found {comit}, did you mean 'commit'?");
  EXPECT_EQ(error_of("[queries.q]\ncommand = [\"x\", \"{bogus}\"]\n"),
            "/proj/culprit.toml:5:17: queries.q.command[1]: expected a placeholder {rev}, "
            "{commit}, {tree} or {artifact:NAME}, found {bogus}");
  EXPECT_EQ(error_of("[queries.q]\ncommand = [\"x\", \"{rev\"]\n"),
            "/proj/culprit.toml:5:17: queries.q.command[1]: expected a placeholder closed by "
            "'}' (write '{{' for a literal brace), found \"{rev\"");
  EXPECT_EQ(
      error_of("[queries.q]\ncommand = [\"x\", \"{{literal}}\", \"{rev}-{commit}-{tree}\"]\n"),
      "ok");
}

TEST(QueriesSection, EnvironmentNames) {
  EXPECT_EQ(QueriesErrorOf("[queries.q]\ncommand = [\"x\"]\nenv = { \"1X\" = \"y\" }\n"),
            "/proj/culprit.toml:6:9: queries.q.env: expected an environment variable name "
            "(letters, digits and '_', not starting with a digit), found '1X'");
}

TEST(CacheSection, DefaultFollowsXdgCacheHomeThenHome) {
  ScopedEnv xdg("XDG_CACHE_HOME", "/xdg/cache");
  EXPECT_EQ(*CacheDir(""), fs::path("/xdg/cache/culprit"));
  EXPECT_EQ(DefaultCacheDir(), fs::path("/xdg/cache/culprit"));
  // The XDG spec says a relative value is ignored.
  ScopedEnv relative("XDG_CACHE_HOME", "relative/cache");
  ScopedEnv home("HOME", "/home/tester");
  EXPECT_EQ(*CacheDir(""), fs::path("/home/tester/.cache/culprit"));
  EXPECT_EQ(*CacheDir("[cache]\ndir = \"~/c\"\n"), fs::path("/home/tester/c"));
  EXPECT_EQ(*CacheDir("[cache]\ndir = \"c/\"\n"), fs::path("/proj/c"));
}

TEST(CacheSection, WithoutHomeTheDefaultIsAnError) {
  // No silent fallback under /tmp: it would be shared by every user.
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", nullptr);
  EXPECT_FALSE(DefaultCacheDir().has_value());
  Result<fs::path> dir = CacheDir("");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().message(),
            "/proj/culprit.toml: cache.dir: cannot expand '~' because $HOME is not set");
  Result<fs::path> tilde = CacheDir("[cache]\ndir = \"~/c\"\n");
  ASSERT_FALSE(tilde.ok());
  EXPECT_EQ(tilde.error().message(),
            "/proj/culprit.toml:2:7: cache.dir: cannot expand '~' because $HOME is not set");
  EXPECT_EQ(*CacheDir("[cache]\ndir = \"/abs/c\"\n"), fs::path("/abs/c"));
}

// [queries] then [engines], as the whole file reads them.
Status ReadEngines(const ConfigTable& root, std::map<std::string, OtherEngineConfig>* engines) {
  std::map<std::string, QueryConfig> queries;
  CULPRIT_TRY(ReadQueries(root, &queries));
  return ReadEnginesSection(root, queries, engines);
}

constexpr char kTwoQueries[] = "[queries.q1]\ncommand = [\"x\"]\n[queries.q2]\ncommand = [\"x\"]\n";

std::string EnginesErrorOf(std::string_view rest) {
  return ConfigErrorOf(WithTestEngine(std::string(kTwoQueries) + std::string(rest)),
                       [](const ConfigTable& root) {
                         std::map<std::string, OtherEngineConfig> engines;
                         return ReadEngines(root, &engines);
                       });
}

TEST(EnginesSection, ACommandPerQueryOrOneWithTheQueryPlaceholder) {
  std::map<std::string, OtherEngineConfig> engines;
  Status status = ReadConfigText(
      WithTestEngine(std::string(kTwoQueries) +
                     "[engines.sqlite]\n"
                     "command = [\"sqlite3\", \"db\", \".read {query}.sql\", \"{{x}}\"]\n"
                     "cwd = \"bench\"\n"
                     "env = { LC_ALL = \"C\" }\n"
                     "metric = { regex = 'Run Time: real ([0-9.]+)' }\n"
                     "[engines.sqlite.queries]\n"
                     "q2 = [\"sqlite3\", \"db\", \".read other.sql\"]\n"
                     "[engines.old]\n"
                     "queries = { q1 = [\"/opt/old/bin/engine\", \"q1\"] }\n"),
      [&](const ConfigTable& root) { return ReadEngines(root, &engines); });
  ASSERT_TRUE(status.ok()) << status.error().message();
  const OtherEngineConfig& sqlite = engines.at("sqlite");
  EXPECT_EQ(sqlite.cwd, "/proj/bench");
  EXPECT_EQ(sqlite.env.at("LC_ALL"), "C");
  ASSERT_TRUE(sqlite.metric);
  EXPECT_EQ(sqlite.metric->kind, MetricRule::Kind::kRegex);
  // {query} filled in; "{{" stays an escape for the runner's expansion.
  EXPECT_EQ(sqlite.CommandFor("q1"),
            (std::vector<std::string>{"sqlite3", "db", ".read q1.sql", "{{x}}"}));
  EXPECT_EQ(sqlite.CommandFor("q2"),
            (std::vector<std::string>{"sqlite3", "db", ".read other.sql"}));
  // A brace in a query's name is escaped as it goes in.
  EXPECT_EQ(sqlite.CommandFor("a{b")->at(2), ".read a{{b.sql");
  // An escaped "{{query}}" is not the placeholder: it stays the user's literal text.
  EXPECT_EQ(sqlite.CommandFor("a{b")->at(3), "{{x}}");
  const OtherEngineConfig& old = engines.at("old");
  EXPECT_FALSE(old.metric);
  EXPECT_EQ(old.CommandFor("q1"), (std::vector<std::string>{"/opt/old/bin/engine", "q1"}));
  EXPECT_EQ(old.CommandFor("q2"), std::nullopt);  // no command for it: the cell says so
}

TEST(EnginesSection, MistakesAreRefusedWhereTheyAreWritten) {
  // The [engine] section is 3 lines and the two queries 4: [engines] starts on line 8.
  EXPECT_EQ(EnginesErrorOf("[engines.e]\ncommand = [\"x\", \"{tree}/q\"]\n"),
            "/proj/culprit.toml:9:17: engines.e.command[1]: another engine's command may hold "
            "{query} and no other placeholder, found {tree}");
  EXPECT_EQ(EnginesErrorOf("[engines.e]\ncommand = [\"{artifact:engine}\"]\n"),
            "/proj/culprit.toml:9:12: engines.e.command[0]: another engine's command may hold "
            "{query} and no other placeholder, found {artifact:engine}");
  EXPECT_EQ(EnginesErrorOf("[engines.e]\nqueries = { q3 = [\"x\"] }\n"),
            "/proj/culprit.toml:9:18: engines.e.queries: expected a query of [queries], found "
            "'q3', did you mean 'q1'?");
  EXPECT_EQ(EnginesErrorOf("[engines.e]\ncwd = \"x\"\n"),
            "/proj/culprit.toml:8:1: [engines.e] has no command: expected command = [...] (with "
            "{query} for the query's name) or [engines.e.queries] with a command per query");
  EXPECT_EQ(EnginesErrorOf("[engines.e]\ncomand = [\"x\"]\n"),
            "/proj/culprit.toml:9:1: unknown key 'comand' in [engines.e], did you mean 'command'?");
  // The list of metrics grows; where and what is found is what matters here.
  const std::string metric = EnginesErrorOf("[engines.e]\ncommand = [\"x\"]\nmetric = \"wal\"\n");
  EXPECT_EQ(metric.rfind("/proj/culprit.toml:10:10: engines.e.metric: expected \"wall\"", 0), 0u)
      << metric;
  EXPECT_NE(metric.find("found \"wal\", did you mean 'wall'?"), std::string::npos) << metric;
}

}  // namespace
}  // namespace culprit
