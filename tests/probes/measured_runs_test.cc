// [measure] cpus and aslr: where measured runs start (ReadMeasuredRuns).

#include <gtest/gtest.h>

#include <string>

#include "probes/measure_options.h"
#include "tests/support/config_text.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

// A host with CPUs 0-3 online, for reading lists without depending on the real one.
class MeasuredRunsConfig : public ::testing::Test {
 protected:
  MeasuredRunsConfig() { WriteTextFile(host_.path() / "sys/devices/system/cpu/online", "0-3\n"); }
  Status Read(std::string_view measure, RunPlacement* runs) {
    return ReadConfigText(WithTestEngine(measure), [&](const ConfigTable& root) {
      return ReadMeasuredRuns(root, runs, host_.path());
    });
  }
  std::string ErrorOf(std::string_view measure) {
    return ConfigErrorOf(WithTestEngine(measure), [&](const ConfigTable& root) {
      RunPlacement runs;
      return ReadMeasuredRuns(root, &runs, host_.path());
    });
  }
  TempDir host_;
};

TEST_F(MeasuredRunsConfig, DefaultsToAnywhereWithAslr) {
  RunPlacement runs;
  ASSERT_TRUE(Read("", &runs).ok());
  EXPECT_EQ(runs, RunPlacement{});
  ASSERT_TRUE(Read("[measure]\nband = 0.1\n", &runs).ok());
  EXPECT_EQ(runs, RunPlacement{});
}

TEST_F(MeasuredRunsConfig, ReadsCpusAndAslr) {
  RunPlacement runs;
  ASSERT_TRUE(Read("[measure]\ncpus = [3, 1, 1]\naslr = false\n", &runs).ok());
  EXPECT_EQ(runs.cpus, (std::vector<int>{1, 3}));
  EXPECT_FALSE(runs.aslr);
}

TEST_F(MeasuredRunsConfig, RefusesACpuTheHostDoesNotHaveWhereItIsWritten) {
  EXPECT_EQ(ErrorOf("[measure]\ncpus = [0, 4096]\n"),
            "/proj/culprit.toml:5:12: measure.cpus[1]: CPU 4096 does not exist on this host "
            "(online CPUs: 0-3)");
}

TEST_F(MeasuredRunsConfig, RefusesWhatIsNotAListOfCpus) {
  EXPECT_EQ(ErrorOf("[measure]\ncpus = 0\n"),
            "/proj/culprit.toml:5:8: measure.cpus: expected an array of CPU numbers, e.g. [0, 1], "
            "found an integer");
  EXPECT_EQ(ErrorOf("[measure]\ncpus = []\n"),
            "/proj/culprit.toml:5:8: measure.cpus: expected at least one CPU; to not pin, leave "
            "the key out");
  EXPECT_EQ(ErrorOf("[measure]\ncpus = [\"0\"]\n"),
            "/proj/culprit.toml:5:9: measure.cpus[0]: expected a CPU number (an integer, 0 or "
            "more), found \"0\"");
  EXPECT_EQ(ErrorOf("[measure]\ncpus = [-1]\n"),
            "/proj/culprit.toml:5:9: measure.cpus[0]: expected a CPU number (0 or more), found -1");
  EXPECT_EQ(ErrorOf("[measure]\naslr = \"off\"\n"),
            "/proj/culprit.toml:5:8: measure.aslr: expected true or false, found \"off\"");
}

TEST(MeasuredRunsOnThisHost, RefusesCpu4096) {
  // No host culprit runs on has CPU 4096 online (the kernel's usual maximum is 4096 CPUs).
  std::string message =
      ConfigErrorOf(WithTestEngine("[measure]\ncpus = [4096]\n"), [](const ConfigTable& root) {
        RunPlacement runs;
        return ReadMeasuredRuns(root, &runs);
      });
  EXPECT_EQ(message.rfind("/proj/culprit.toml:5:9: measure.cpus[0]: CPU 4096 does not exist on "
                          "this host",
                          0),
            0u)
      << message;
}

TEST(MeasureSectionKeys, AcceptsCpusAndAslr) {
  MeasureConfig measure;
  EXPECT_TRUE(
      ReadConfigText(WithTestEngine("[measure]\ncpus = [0]\naslr = true\n"),
                     [&](const ConfigTable& root) { return ReadMeasureSection(root, &measure); })
          .ok());
}

}  // namespace
}  // namespace culprit
