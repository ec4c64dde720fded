// Builds through ccache on a real git repository: two build caches stand for two hosts
// (each its own cache directory, checkout and local ccache), sharing compiled objects
// through a real redis-server on a unix socket. The second host's build of a commit the
// first built is served by the remote; an unreachable remote leaves the build working,
// and says so.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "engine/build_cache.h"
#include "engine/compiler_cache.h"
#include "engine/process.h"
#include "tests/support/git_fixture.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

std::string InheritedPath() {
  const char* path = std::getenv("PATH");
  return path != nullptr ? path : "";
}

bool OnPath(const std::string& program) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "command -v " + program};
  return RunProcess(spec).ok();
}

// Four translation units, so hits and misses are counted per file.
std::map<std::string, std::string> Sources() {
  std::map<std::string, std::string> files;
  std::string main = "#include <stdio.h>\n";
  std::string calls;
  for (int i = 0; i < 3; ++i) {
    const std::string name = "part" + std::to_string(i);
    files[name + ".c"] = "int " + name + "(int x) { return x * " + std::to_string(i + 2) + "; }\n";
    main += "int " + name + "(int);\n";
    calls += " + " + name + "(1)";
  }
  files["main.c"] = main + "int main(void) { printf(\"%d\\n\", 0" + calls + "); return 0; }\n";
  return files;
}

BuildSettings HostSettings(const fs::path& host, const std::string& remote) {
  BuildSettings settings;
  settings.steps = {{"sh", "-c", "for f in *.c; do cc -O1 -c \"$f\" || exit 1; done"},
                    {"cc", "-o", "prog", "main.o", "part0.o", "part1.o", "part2.o"}};
  settings.artifacts = {"prog"};
  settings.cache_dir = host / "cache";
  Result<CompilerCacheSettings> ccache =
      LocateCompilerCache(InheritedPath(), host / "cache/ccache", remote);
  EXPECT_TRUE(ccache) << ccache.error().message();
  if (ccache) settings.compiler_cache = *ccache;
  return settings;
}

class RecordingStats : public BuildProgress {
 public:
  void OnStep(const CommitInfo&, int, int, const std::string&, std::chrono::milliseconds) override {
  }
  void OnDone(const CommitInfo&, bool, std::chrono::milliseconds) override {}
  void OnCompilerCache(const CommitInfo&, const CompilerCacheStats& s) override { stats = s; }
  std::optional<CompilerCacheStats> stats;
};

// redis-server on a unix socket in `dir`, no persistence; stopped with the test.
class RedisServer {
 public:
  explicit RedisServer(const fs::path& dir) : socket_(dir / "redis.sock") {
    pid_ = fork();
    if (pid_ == 0) {
      execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", socket_.c_str(),
             "--save", "", "--appendonly", "no", "--dir", dir.c_str(), (char*)nullptr);
      _exit(127);
    }
    // A wait for the socket, not a timed assertion: the limit only keeps a broken
    // redis-server from wedging the test.
    for (int i = 0; i < 1000 && !fs::exists(socket_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~RedisServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool ready() const { return fs::exists(socket_); }
  std::string url() const { return "redis+unix:" + socket_.string(); }

 private:
  fs::path socket_;
  pid_t pid_ = -1;
};

TEST(CompilerCacheBuilds, ASecondHostIsServedByTheSharedRemote) {
  if (!OnPath("ccache") || !OnPath("redis-server")) {
    GTEST_SKIP() << "ccache and redis-server are needed (scripts/install-deps installs both)";
  }
  TempDir dir;
  GitFixture git(dir.path() / "repo");
  const std::string commit = git.Commit(Sources(), {}, "four units");
  Result<GitRepo> repo = GitRepo::Open(git.path());
  ASSERT_TRUE(repo) << repo.error().message();
  RedisServer redis(dir.path());
  ASSERT_TRUE(redis.ready()) << "redis-server did not start";

  RecordingStats first_stats;
  BuildCache first(*repo, HostSettings(dir.path() / "host-a", redis.url()));
  Result<Build> built = first.Ensure(commit, false, &first_stats);
  ASSERT_TRUE(built) << built.error().message();
  ASSERT_TRUE(first_stats.stats);
  EXPECT_EQ(first_stats.stats->misses, 4);
  EXPECT_EQ(first_stats.stats->hits, 0);
  EXPECT_EQ(first_stats.stats->remote_errors, 0);
  ASSERT_TRUE(built->compiler_cache);
  EXPECT_EQ(*built->compiler_cache, *first_stats.stats);

  // Another host: its own cache directory, checkout and local ccache; only redis is shared.
  RecordingStats second_stats;
  BuildCache second(*repo, HostSettings(dir.path() / "host-b", redis.url()));
  Result<Build> rebuilt = second.Ensure(commit, false, &second_stats);
  ASSERT_TRUE(rebuilt) << rebuilt.error().message();
  ASSERT_TRUE(second_stats.stats);
  EXPECT_EQ(second_stats.stats->hits, 4);
  EXPECT_EQ(second_stats.stats->remote_hits, 4);
  EXPECT_EQ(second_stats.stats->misses, 0);
  EXPECT_TRUE(fs::exists(rebuilt->artifacts.at("prog")));
  // The entry remembers it, and a build served from the cache reports it again.
  Result<Build> reused = second.Ensure(commit);
  ASSERT_TRUE(reused);
  EXPECT_TRUE(reused->reused);
  ASSERT_TRUE(reused->compiler_cache);
  EXPECT_EQ(reused->compiler_cache->remote_hits, 4);
}

TEST(CompilerCacheBuilds, AnUnreachableRemoteStillBuildsAndSaysSo) {
  if (!OnPath("ccache")) GTEST_SKIP() << "ccache is needed (scripts/install-deps installs it)";
  TempDir dir;
  GitFixture git(dir.path() / "repo");
  const std::string commit = git.Commit(Sources(), {}, "four units");
  Result<GitRepo> repo = GitRepo::Open(git.path());
  ASSERT_TRUE(repo) << repo.error().message();
  RecordingStats stats;
  BuildCache cache(*repo, HostSettings(dir.path() / "host",
                                       "redis+unix:" + (dir.path() / "none.sock").string()));
  Result<Build> built = cache.Ensure(commit, false, &stats);
  ASSERT_TRUE(built) << built.error().message();
  ASSERT_TRUE(stats.stats);
  EXPECT_EQ(stats.stats->misses, 4);
  EXPECT_GE(stats.stats->remote_errors, 4);
  EXPECT_NE(DescribeCompilerCacheStats(*stats.stats).find("the remote storage failed"),
            std::string::npos);
  EXPECT_NE(ReadAll(built->dir / "build.log").find("the remote storage failed"), std::string::npos);
}

}  // namespace
}  // namespace culprit
