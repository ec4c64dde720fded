// The Debian package (`cpack -G DEB`, cmake/CulpritInstall.cmake) as a user
// meets it: built into a scratch directory, its declared dependencies read,
// unpacked with dpkg-deb -x into a scratch root and its culprit run from a
// directory outside the source tree.

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "engine/process.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

ProcessResult RunIn(const std::vector<std::string>& argv, const fs::path& cwd) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.cwd = cwd;
  spec.timeout = std::chrono::minutes(5);
  return RunProcess(spec);
}

bool Have(const std::string& program) {
  return RunIn({"sh", "-c", "command -v " + program}, "/").ok();
}

TEST(DebPackage, UnpackedPackageRunsTheDemoAndDeclaresItsDependencies) {
  for (const char* tool : {"cpack", "dpkg-deb", "dpkg-shlibdeps"}) {
    if (!Have(tool)) GTEST_SKIP() << tool << " is not installed: no .deb is built here";
  }
  TempDir dir;
  ProcessResult cpack = RunIn({"cpack", "-G", "DEB", "--config", BinaryDir() + "/CPackConfig.cmake",
                               "-B", dir.path().string()},
                              dir.path());
  ASSERT_TRUE(cpack.ok()) << DescribeRun(cpack);
  fs::path deb;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.path())) {
    if (e.path().extension() == ".deb") deb = e.path();
  }
  ASSERT_FALSE(deb.empty()) << DescribeRun(cpack);
  EXPECT_TRUE(Contains(deb.filename().string(), std::string("culprit_") + CULPRIT_VERSION + "_"))
      << deb;

  ProcessResult depends = RunIn({"dpkg-deb", "-f", deb.string(), "Depends"}, dir.path());
  ASSERT_TRUE(depends.ok()) << DescribeRun(depends);
  // The package names, without versions: "git, cmake (>= 3.16), libgit2-1.5 (>= 1.5.0)".
  std::vector<std::string> names;
  std::istringstream fields(depends.stdout_text);
  for (std::string field; std::getline(fields, field, ',');) {
    std::istringstream words(field);
    std::string name;
    words >> name;
    names.push_back(name);
  }
  auto declared = [&](const std::string& prefix) {
    for (const std::string& name : names) {
      if (name.starts_with(prefix)) return true;
    }
    return false;
  };
  // The shared libraries culprit links, found by dpkg-shlibdeps, and what the demo runs.
  for (const char* package : {"libgit2-", "libfmt", "libstdc++", "git", "cmake", "g++", "make"}) {
    EXPECT_TRUE(declared(package)) << package << "\n" << DescribeRun(depends);
  }

  const fs::path root = dir.path() / "root";
  ProcessResult unpack = RunIn({"dpkg-deb", "-x", deb.string(), root.string()}, dir.path());
  ASSERT_TRUE(unpack.ok()) << DescribeRun(unpack);
  for (const char* file : {"usr/bin/culprit", "usr/share/man/man1/culprit.1",
                           "usr/share/bash-completion/completions/culprit",
                           "usr/share/zsh/vendor-completions/_culprit",
                           "usr/share/culprit/examples/eventstore/make-history"}) {
    EXPECT_TRUE(fs::exists(root / file)) << file;
  }

  const fs::path work = dir.path() / "elsewhere";
  fs::create_directories(work);
  const std::string culprit = (root / "usr/bin/culprit").string();
  ProcessResult version = RunIn({culprit, "--version"}, work);
  EXPECT_TRUE(version.ok()) << DescribeRun(version);
  EXPECT_EQ(version.stdout_text, std::string("culprit ") + CULPRIT_VERSION + "\n");
  ProcessResult demo = RunIn({culprit, "demo", "--stop-after", "history"}, work);
  ASSERT_TRUE(demo.ok()) << DescribeRun(demo);
  EXPECT_TRUE(
      Contains(demo.stderr_text,
               "the demo engine: " + (root / "usr/share/culprit/examples/eventstore").string()))
      << DescribeRun(demo);
  ProcessResult tags =
      RunIn({"git", "-C", (work / "culprit-demo/eventstore").string(), "tag"}, work);
  EXPECT_EQ(tags.stdout_text, "v1.0\nv1.3\n") << DescribeRun(tags);
}

}  // namespace
}  // namespace culprit
