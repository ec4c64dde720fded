// Where `culprit demo` finds the demo engine (investigate/demo_data.h): beside
// an installed culprit first, the source tree only for a culprit run inside its
// build tree, --examples alone when given, and an error that names every place.

#include "investigate/demo_data.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

// A complete demo engine under `examples`.
void WriteDemoData(const fs::path& examples) {
  for (const char* file : kDemoDataFiles) {
    if (std::string(file) == "eventstore/history/patches") {
      fs::create_directories(examples / file);
    } else {
      WriteTextFile(examples / file, "x\n");
    }
  }
}

struct Trees {
  TempDir dir;
  fs::path prefix = dir.path() / "prefix";
  fs::path build = dir.path() / "build";
  fs::path source = dir.path() / "source";
  fs::path installed_exe = prefix / "bin" / "culprit";
  fs::path build_exe = build / "cli" / "culprit";
  DemoDataPlaces Places(const fs::path& exe) const { return {{}, exe, build, source}; }
};

TEST(DemoData, InstalledCulpritLooksBesideItselfOnly) {
  Trees t;
  std::vector<fs::path> candidates = DemoExamplesCandidates(t.Places(t.installed_exe));
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0], t.prefix / "share" / "culprit" / "examples");
}

TEST(DemoData, BuildTreeCulpritFallsBackToItsSourceTree) {
  Trees t;
  fs::create_directories(t.build_exe.parent_path());
  std::vector<fs::path> candidates = DemoExamplesCandidates(t.Places(t.build_exe));
  ASSERT_EQ(candidates.size(), 2u);
  EXPECT_EQ(candidates[0], t.build / "share" / "culprit" / "examples");
  EXPECT_EQ(candidates[1], t.source / "examples");
}

TEST(DemoData, ExamplesOptionIsTheOnlyPlace) {
  Trees t;
  DemoDataPlaces places = t.Places(t.build_exe);
  places.explicit_dir = t.dir.path() / "mine";
  EXPECT_EQ(DemoExamplesCandidates(places), std::vector<fs::path>{t.dir.path() / "mine"});
}

TEST(DemoData, FindsTheInstalledCopy) {
  Trees t;
  WriteDemoData(t.prefix / "share" / "culprit" / "examples");
  Result<fs::path> found = FindDemoExamples(t.Places(t.installed_exe));
  ASSERT_TRUE(found) << found.error().message();
  EXPECT_EQ(*found, t.prefix / "share" / "culprit" / "examples");
}

TEST(DemoData, InstalledCulpritNeverReadsTheSourceTree) {
  Trees t;
  WriteDemoData(t.source / "examples");
  Result<fs::path> found = FindDemoExamples(t.Places(t.installed_exe));
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().kind(), ErrorKind::kUsage);
  const std::string expected = "cannot find the demo engine; looked in:\n  " +
                               (t.prefix / "share" / "culprit" / "examples").string() +
                               " (no eventstore/make-history)";
  EXPECT_EQ(found.error().message(), expected);
  EXPECT_NE(found.error().hint().find("cmake --install"), std::string::npos);
}

TEST(DemoData, BuildTreeCulpritUsesTheSourceTree) {
  Trees t;
  fs::create_directories(t.build_exe.parent_path());
  WriteDemoData(t.source / "examples");
  Result<fs::path> found = FindDemoExamples(t.Places(t.build_exe));
  ASSERT_TRUE(found) << found.error().message();
  EXPECT_EQ(*found, t.source / "examples");
}

TEST(DemoData, ErrorNamesEveryPlaceAndWhatItLacked) {
  Trees t;
  fs::create_directories(t.build_exe.parent_path());
  WriteDemoData(t.source / "examples");
  fs::remove(t.source / "examples" / "eventstore" / "published-v1.0.json");
  Result<fs::path> found = FindDemoExamples(t.Places(t.build_exe));
  ASSERT_FALSE(found);
  const std::string message = found.error().message();
  EXPECT_NE(message.find((t.build / "share" / "culprit" / "examples").string() +
                         " (no eventstore/make-history)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find((t.source / "examples").string() + " (no eventstore/published-v1.0.json)"),
            std::string::npos)
      << message;
}

TEST(DemoData, WrongExamplesDirectorySaysWhatItTakes) {
  Trees t;
  DemoDataPlaces places = t.Places(t.installed_exe);
  places.explicit_dir = t.dir.path();
  Result<fs::path> found = FindDemoExamples(places);
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().message().find(t.dir.path().string() + " (no eventstore/make-history)"),
            std::string::npos);
  EXPECT_NE(found.error().hint().find("eventstore/"), std::string::npos);
}

}  // namespace
}  // namespace culprit
