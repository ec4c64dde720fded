// The compiler cache's pure parts: ccache's statistics log read as hits and misses, the
// words for it, the remote URLs accepted, the variables a step runs with; the toolchain
// fingerprint on a PATH of fake compilers; and the [engine] keys that turn it on.

#include "engine/compiler_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "engine/engine_config.h"
#include "tests/support/config_text.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

TEST(CompilerCacheStatsLog, CountsHitsMissesRemoteAndUncacheableCalls) {
  // As ccache 4.7 writes it (CCACHE_STATSLOG): a "# FILE" line per call, then its counters.
  const char* log = R"(# a.c
cache_miss
direct_cache_miss
local_storage_miss
remote_storage_miss
local_storage_write
remote_storage_write
preprocessed_cache_miss
# b.c
direct_cache_hit
local_storage_hit
local_storage_read_hit
# c.c
direct_cache_hit
remote_storage_hit
remote_storage_read_hit
# d.c
preprocessed_cache_hit
remote_storage_error
# prog
called_for_link
)";
  CompilerCacheStats stats = ParseCompilerCacheStatsLog(log);
  EXPECT_EQ(stats.hits, 3);
  EXPECT_EQ(stats.misses, 1);
  EXPECT_EQ(stats.remote_hits, 1);
  EXPECT_EQ(stats.remote_errors, 1);
  EXPECT_EQ(stats.uncacheable, 1);
  EXPECT_EQ(ParseCompilerCacheStatsLog(""), CompilerCacheStats{});
}

TEST(CompilerCacheStatsLog, DescribesWhatHappenedAndAnUnreachableRemote) {
  CompilerCacheStats stats;
  stats.hits = 120;
  stats.remote_hits = 40;
  stats.misses = 3;
  EXPECT_EQ(DescribeCompilerCacheStats(stats), "ccache: 120 hits (40 from the remote), 3 misses");
  stats = {};
  stats.misses = 1;
  stats.remote_errors = 12;
  EXPECT_EQ(DescribeCompilerCacheStats(stats),
            "ccache: 0 hits, 1 miss; the remote storage failed 12 times (unreachable?): those "
            "compilations ran here");
}

TEST(CompilerCacheRemote, AcceptsCcacheStorageSchemesOnly) {
  for (const char* url : {"redis://localhost:6379", "redis+unix:/run/redis.sock",
                          "http://cache.example/ccache", "https://cache.example", "file:/srv/cc"}) {
    EXPECT_TRUE(IsCompilerCacheRemote(url)) << url;
  }
  for (const char* url : {"", "redis://", "localhost:6379", "ftp://x", "s3://bucket"}) {
    EXPECT_FALSE(IsCompilerCacheRemote(url)) << url;
  }
}

TEST(CompilerCacheEnvironment, PutsTheMasqueradeFirstAndKeysOnTheCheckout) {
  CompilerCacheSettings settings;
  settings.enabled = true;
  settings.masquerade_dir = "/usr/lib/ccache";
  settings.dir = "/cache/ccache";
  auto env = CompilerCacheEnvironment(settings, "/cache/e/scratch/src", "/cache/e/b/x/stats.log",
                                      "/usr/bin:/bin");
  EXPECT_EQ(env["PATH"], "/usr/lib/ccache:/usr/bin:/bin");
  EXPECT_EQ(env["CCACHE_DIR"], "/cache/ccache");
  EXPECT_EQ(env["CCACHE_STATSLOG"], "/cache/e/b/x/stats.log");
  EXPECT_EQ(env["CCACHE_BASEDIR"], "/cache/e/scratch/src");
  EXPECT_EQ(env["CCACHE_NOHASHDIR"], "true");
  EXPECT_EQ(env.count("CCACHE_REMOTE_STORAGE"), 0u);
  settings.remote = "redis://localhost:6379";
  env = CompilerCacheEnvironment(settings, "/src", "/log", "");
  EXPECT_EQ(env["CCACHE_REMOTE_STORAGE"], "redis://localhost:6379");
  EXPECT_EQ(env["PATH"], "/usr/lib/ccache");
}

TEST(CompilerCacheLocate, SaysHowToInstallAMissingCcache) {
  TempDir dir;
  Result<CompilerCacheSettings> located = LocateCompilerCache(dir.path().string(), "/c", "");
  ASSERT_FALSE(located);
  EXPECT_NE(located.error().message().find("ccache is not on PATH"), std::string::npos);
  EXPECT_NE(located.error().hint().find("apt-get install ccache"), std::string::npos);
}

// A fake compiler: prints `version` for --version.
void FakeCompiler(const fs::path& dir, const std::string& name, const std::string& version) {
  WriteTextFile(dir / name, "#!/bin/sh\necho '" + version + "'\necho 'Copyright'\n");
  fs::permissions(dir / name, fs::perms::owner_all);
}

TEST(ToolchainFingerprint, NamesEachCompilerFoundAndChangesWithItsVersion) {
  TempDir dir;
  const fs::path bin = dir.path() / "bin";
  FakeCompiler(bin, "cc", "cc (Debian 12.2.0-14) 12.2.0");
  FakeCompiler(bin, "clang", "Debian clang version 14.0.6");
  const std::string path = bin.string() + ":" + (dir.path() / "missing").string();
  const std::string before = ToolchainFingerprint(path);
  EXPECT_EQ(before, "cc " + (bin / "cc").string() + ": cc (Debian 12.2.0-14) 12.2.0\nclang " +
                        (bin / "clang").string() + ": Debian clang version 14.0.6\n");
  FakeCompiler(bin, "cc", "cc (Debian 13.1.0-1) 13.1.0");
  EXPECT_NE(ToolchainFingerprint(path), before);
  EXPECT_EQ(ToolchainFingerprint((dir.path() / "missing").string()), "");
}

std::string EngineErrorOf(std::string_view text) {
  return ConfigErrorOf(text, [](const ConfigTable& root) {
    EngineConfig engine;
    return ReadEngineSection(root, &engine);
  });
}

TEST(CompilerCacheConfig, ReadsCcacheAndARemoteAndRefusesTheRest) {
  EngineConfig engine;
  Status read = ReadConfigText(
      "[engine]\nbuild = [[\"make\"]]\ncompiler_cache = \"ccache\"\n"
      "compiler_cache_remote = \"redis://localhost:6379\"\n",
      [&](const ConfigTable& root) { return ReadEngineSection(root, &engine); });
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_TRUE(engine.compiler_cache);
  EXPECT_EQ(engine.compiler_cache_remote, "redis://localhost:6379");

  EXPECT_NE(EngineErrorOf("[engine]\nbuild = [[\"make\"]]\ncompiler_cache = \"sccache\"\n")
                .find(":3:18: engine.compiler_cache: expected \"ccache\" or \"none\""),
            std::string::npos)
      << EngineErrorOf("[engine]\nbuild = [[\"make\"]]\ncompiler_cache = \"sccache\"\n");
  const std::string no_cache = EngineErrorOf(
      "[engine]\nbuild = [[\"make\"]]\ncompiler_cache_remote = \"redis://localhost\"\n");
  EXPECT_NE(no_cache.find("needs compiler_cache = \"ccache\""), std::string::npos) << no_cache;
  const std::string bad_url = EngineErrorOf(
      "[engine]\nbuild = [[\"make\"]]\ncompiler_cache = \"ccache\"\n"
      "compiler_cache_remote = \"localhost:6379\"\n");
  EXPECT_NE(bad_url.find("a ccache remote storage URL"), std::string::npos) << bad_url;
}

}  // namespace
}  // namespace culprit
