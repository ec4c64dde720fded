#include "cli/starter_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "investigate/config.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

constexpr char kFile[] = "/proj/culprit.toml";

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

TEST(StarterConfig, OffersCcacheToACFamilyBuildOnlyWhenItWasFound) {
  const BuildSystem cmake = DetectBuildSystem("/nonexistent-dir");  // CMake-shaped
  ASSERT_TRUE(cmake.c_family);
  std::string with = StarterConfig("es", cmake, {true, "/usr/bin/ccache"});
  auto on = ParseConfig(with, kFile);
  ASSERT_TRUE(on.ok()) << on.error().message() << "\n" << with;
  EXPECT_TRUE(on->engine.compiler_cache);
  EXPECT_NE(with.find("# ccache was found (/usr/bin/ccache):\n"), std::string::npos) << with;

  std::string without = StarterConfig("es", cmake, {false, "ccache is not on PATH"});
  auto off = ParseConfig(without, kFile);
  ASSERT_TRUE(off.ok()) << off.error().message();
  EXPECT_FALSE(off->engine.compiler_cache);
  EXPECT_NE(without.find("# compiler_cache = \"ccache\"    # not offered: ccache is not on PATH"),
            std::string::npos)
      << without;

  // A Cargo build compiles no C: no offer, whatever was found.
  TempDir dir;
  WriteTextFile(dir.path() / "Cargo.toml", "[package]\n");
  const BuildSystem cargo = DetectBuildSystem(dir.path());
  EXPECT_FALSE(cargo.c_family);
  std::string rust = StarterConfig("es", cargo, {true, "/usr/bin/ccache"});
  EXPECT_EQ(rust.find("compiler_cache"), std::string::npos) << rust;
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

TEST(DetectBuildSystem, RecognisesEachKindByItsFilesAndEachStarterLoads) {
  struct Case {
    const char* file;
    const char* name;
    std::vector<std::string> first_step;
    std::vector<std::string> artifacts;
  };
  const std::vector<Case> cases = {
      {"CMakeLists.txt",
       "CMake",
       {"cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"},
       {"build/es"}},
      {"meson.build",
       "Meson",
       {"sh", "-c", "test -d build || meson setup build --buildtype=release"},
       {"build/es"}},
      {"Cargo.toml", "Cargo", {"cargo", "build", "--release"}, {"target/release/es"}},
      {"go.mod", "Go", {"go", "build", "-o", "es", "."}, {"es"}},
      {"configure", "Autotools", {"sh", "-c", "test -f Makefile || ./configure"}, {"es"}},
      {"Makefile", "Make", {"make", "-j2"}, {"es"}},
      {"package.json", "npm", {"npm", "ci"}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    TempDir dir;
    WriteTextFile(dir.path() / c.file, "\n");
    BuildSystem build = DetectBuildSystem(dir.path());
    EXPECT_EQ(build.name, c.name);
    std::string text = StarterConfig("es", build);
    auto config = ParseConfig(text, kFile);
    ASSERT_TRUE(config.ok()) << config.error().message() << "\n" << text;
    ASSERT_FALSE(config->engine.build.empty());
    EXPECT_EQ(config->engine.build.front(), c.first_step);
    EXPECT_EQ(config->engine.artifacts, c.artifacts);
    EXPECT_NE(text.find(std::string("fit the ") + c.name + " project"), std::string::npos);
  }
  // npm builds no program: the query runs a script in the build's tree.
  TempDir npm;
  WriteTextFile(npm.path() / "package.json", "{}\n");
  auto config = ParseConfig(StarterConfig("es", DetectBuildSystem(npm.path())), kFile);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->queries.at("example").command,
            (std::vector<std::string>{"npm", "--prefix", "{tree}", "run", "bench"}));
}

TEST(DetectBuildSystem, NothingRecognisedSaysSoWithStepsToEdit) {
  TempDir dir;
  BuildSystem build = DetectBuildSystem(dir.path());
  EXPECT_EQ(build.name, "unknown");
  std::string text = StarterConfig("es", build);
  EXPECT_NE(text.find("No build system was recognised"), std::string::npos);
  EXPECT_TRUE(ParseConfig(text, kFile).ok());
}

}  // namespace
}  // namespace culprit
