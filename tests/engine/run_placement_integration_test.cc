// RunPlacement applied by a real child: pinned CPUs and address randomization
// off, as [measure] cpus and aslr ask for measured runs.

#include <gtest/gtest.h>

#include <string>

#include "base/atomic_file.h"
#include "base/strings.h"
#include "engine/process.h"
#include "tests/support/build_paths.h"

namespace culprit {
namespace {

const std::string kPrintAddresses = FixturePath("print_addresses");

std::string AddressesOf(const RunPlacement& placement) {
  ProcessSpec spec;
  spec.argv = {kPrintAddresses};
  spec.placement = placement;
  ProcessResult result = RunProcess(spec);
  EXPECT_TRUE(result.ok()) << result.Describe(spec) << result.stderr_text;
  return result.stdout_text;
}

TEST(RunPlacement, AslrOffGivesTheSameAddressesTwice) {
  RunPlacement off;
  off.aslr = false;
  const std::string first = AddressesOf(off);
  ASSERT_NE(first.find("stack 0x"), std::string::npos) << first;
  EXPECT_EQ(AddressesOf(off), first);
}

TEST(RunPlacement, AslrOnGivesOtherAddressesEachRun) {
  auto setting = ReadFile("/proc/sys/kernel/randomize_va_space");
  if (!setting || TrimBlanks(*setting) == "0") {
    GTEST_SKIP() << "randomize_va_space is 0 (or unreadable) on this host: every run gets the "
                    "same addresses whatever culprit asks";
  }
  const std::string first = AddressesOf(RunPlacement{});
  // Stack randomization has far more than 2 bits: two runs in a row practically never match,
  // and three identical runs would mean randomization is off.
  const std::string second = AddressesOf(RunPlacement{});
  const std::string third = AddressesOf(RunPlacement{});
  EXPECT_TRUE(first != second || second != third) << first;
}

TEST(RunPlacement, APinnedChildRunsOnlyOnItsCpu) {
  ProcessSpec spec;
  spec.argv = {"grep", "Cpus_allowed_list", "/proc/self/status"};
  spec.placement.cpus = {0};
  ProcessResult result = RunProcess(spec);
  ASSERT_TRUE(result.ok()) << result.Describe(spec) << result.stderr_text;
  EXPECT_EQ(result.stdout_text, "Cpus_allowed_list:\t0\n");
}

TEST(RunPlacement, AnUnpinnedChildKeepsCulpritsCpus) {
  ProcessSpec spec;
  spec.argv = {"grep", "Cpus_allowed_list", "/proc/self/status"};
  ProcessResult child = RunProcess(spec);
  ASSERT_TRUE(child.ok());
  auto own = ReadFile("/proc/self/status");
  ASSERT_TRUE(own);
  const size_t at = own->find("Cpus_allowed_list:");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(child.stdout_text, own->substr(at, own->find('\n', at) - at + 1));
}

TEST(RunPlacement, APinToAnImpossibleCpuFailsToStartAndSaysWhy) {
  ProcessSpec spec;
  spec.argv = {"true"};
  spec.placement.cpus = {1 << 20};
  ProcessResult result = RunProcess(spec);
  EXPECT_EQ(result.outcome, ProcessOutcome::kFailedToStart);
  EXPECT_NE(result.start_error.find("CPU 1048576"), std::string::npos) << result.start_error;
}

}  // namespace
}  // namespace culprit
