// engine/function_profile.h on literal cachegrind out files: functions keyed by file and
// name, counts summed per line and over a process tree's files, the diff ranked by the
// absolute delta of instructions, and a profile's file found in the repository.

#include "engine/function_profile.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace culprit {
namespace {

// Cut from a real `valgrind --tool=cachegrind --cache-sim=no` out file (valgrind 3.19).
constexpr std::string_view kParent = R"(desc: I1 cache:         65536 B, 64 B, 16-way associative
desc: D1 cache:         49152 B, 64 B, 12-way associative
desc: LL cache:         503316480 B, 64 B, 30-way associative
cmd: ./prog
events: Ir
fl=./csu/../csu/libc-start.c
fn=__libc_start_main@@GLIBC_2.34
360 12
fl=/tmp/build/scratch/src/main.c
fn=Other
4 2500006
fn=Work
3 5000007
fn=main
5 10
6 4
fl=???
fn=???
0 135
summary: 7500174
)";

constexpr std::string_view kChange = R"(desc: I1 cache:         65536 B, 64 B, 16-way associative
cmd: ./prog
events: Ir
fl=./csu/../csu/libc-start.c
fn=__libc_start_main@@GLIBC_2.34
360 12
fl=/home/ci/checkout/main.c
fn=Other
4 2500006
fn=Work
3 10000007
fn=main
5 10
6 4
fl=???
fn=???
0 135
summary: 12500174
)";

constexpr std::string_view kCacheSim = R"(cmd: ./prog
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=/src/main.c
fn=Touch
10 100 1 1 50 8 2 10 4 1
11 300 0 0 40 2 1
summary: 400 1 1 90 10 3 10 4 1
)";

TEST(FunctionProfile, ReadsEveryFunctionByFileAndName) {
  Result<FunctionProfile> p = ParseFunctionProfile(kParent);
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_FALSE(p->cache_sim);
  ASSERT_EQ(p->functions.size(), 5u);
  const FunctionCost& work = p->functions.at({"/tmp/build/scratch/src/main.c", "Work"});
  EXPECT_EQ(work.instructions, 5000007u);
  EXPECT_EQ(work.FirstLine(), 3);
  const FunctionCost& main = p->functions.at({"/tmp/build/scratch/src/main.c", "main"});
  EXPECT_EQ(main.instructions, 14u);
  EXPECT_EQ(main.FirstLine(), 5);
  EXPECT_EQ(main.HottestLine(), 5);
  EXPECT_EQ(p->functions.at({"???", "???"}).FirstLine(), 0);  // No line information.
  EXPECT_EQ(p->TotalInstructions(), 7500174u);
}

TEST(FunctionProfile, ReadsSimulatedMissesAndTreatsMissingCountsAsZero) {
  Result<FunctionProfile> p = ParseFunctionProfile(kCacheSim);
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_TRUE(p->cache_sim);
  const FunctionCost& touch = p->functions.at({"/src/main.c", "Touch"});
  EXPECT_EQ(touch.instructions, 400u);
  EXPECT_EQ(touch.d1_misses, 8u + 4u + 2u);  // D1mr + D1mw; line 11 stops after DLmr.
  EXPECT_EQ(touch.ll_misses, 2u + 1u + 1u);
  EXPECT_EQ(touch.HottestLine(), 11);
  EXPECT_EQ(touch.FirstLine(), 10);
}

TEST(FunctionProfile, MalformedFilesAreErrorsNamingTheLine) {
  Result<FunctionProfile> no_events = ParseFunctionProfile("fl=a.c\nfn=f\n1 2\n");
  ASSERT_FALSE(no_events);
  EXPECT_NE(no_events.error().message().find("line 3"), std::string::npos)
      << no_events.error().message();
  Result<FunctionProfile> no_fn = ParseFunctionProfile("events: Ir\nfl=a.c\n1 2\n");
  ASSERT_FALSE(no_fn);
  EXPECT_NE(no_fn.error().message().find("before any 'fn='"), std::string::npos);
  Result<FunctionProfile> too_many = ParseFunctionProfile("events: Ir\nfl=a.c\nfn=f\n1 2 3\n");
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.error().message().find("2 counts for 1 events"), std::string::npos);
  Result<FunctionProfile> bad = ParseFunctionProfile("events: Ir\nfl=a.c\nfn=f\n1 x\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("line 4"), std::string::npos);
  EXPECT_FALSE(ParseFunctionProfile(""));
  EXPECT_FALSE(ParseFunctionProfile("events: Dr\n"));  // No Ir.
}

TEST(FunctionProfile, AProcessTreeSumsItsFiles) {
  FunctionProfile tree = *ParseFunctionProfile(kParent);
  MergeFunctionProfile(tree, *ParseFunctionProfile(kParent));
  EXPECT_EQ(tree.functions.at({"/tmp/build/scratch/src/main.c", "Work"}).instructions,
            2 * 5000007u);
  EXPECT_EQ(tree.TotalInstructions(), 2 * 7500174u);
  EXPECT_FALSE(tree.cache_sim);
  FunctionProfile sim;
  MergeFunctionProfile(sim, *ParseFunctionProfile(kCacheSim));
  EXPECT_TRUE(sim.cache_sim);
  MergeFunctionProfile(sim, *ParseFunctionProfile(kParent));
  EXPECT_FALSE(sim.cache_sim);  // Misses of only some processes are not the tree's.
}

TEST(FunctionProfile, TheDiffRanksByTheAbsoluteDeltaOfInstructions) {
  // Both builds ran in different directories: keyed by the file each names, so the two
  // main.c are different files here; the caller maps them to the repository first.
  FunctionProfile parent = *ParseFunctionProfile(kParent);
  FunctionProfile change = *ParseFunctionProfile(kChange);
  std::vector<FunctionDelta> diff = DiffFunctionProfiles(parent, change);
  ASSERT_FALSE(diff.empty());
  EXPECT_EQ(diff[0].function, "Work");
  EXPECT_EQ(diff[0].file, "/home/ci/checkout/main.c");
  EXPECT_EQ(diff[0].parent_instructions, 0u);
  EXPECT_EQ(diff[0].change_instructions, 10000007u);
  EXPECT_FALSE(diff[0].RelativeDelta());
  EXPECT_EQ(diff.back().InstructionsDelta(), 0);
}

TEST(FunctionProfile, TheDiffOfTheSameFilesGivesDeltasAndRatios) {
  std::string parent_text(kParent), change_text(kChange);
  change_text.replace(change_text.find("/home/ci/checkout"), 17, "/tmp/build/scratch/src");
  std::vector<FunctionDelta> diff =
      DiffFunctionProfiles(*ParseFunctionProfile(parent_text), *ParseFunctionProfile(change_text));
  ASSERT_EQ(diff.size(), 5u);
  EXPECT_EQ(diff[0].function, "Work");
  EXPECT_EQ(diff[0].InstructionsDelta(), 5000000);
  ASSERT_TRUE(diff[0].RelativeDelta());
  EXPECT_NEAR(*diff[0].RelativeDelta(), 1.0, 1e-5);
  EXPECT_EQ(diff[0].first_line, 3);
  EXPECT_EQ(diff[0].hottest_line, 3);
  for (size_t i = 1; i < diff.size(); ++i) EXPECT_EQ(diff[i].InstructionsDelta(), 0);
  // Ties keep the order of file, then name.
  EXPECT_EQ(diff[1].file, "./csu/../csu/libc-start.c");
  EXPECT_EQ(diff[2].function, "Other");
}

TEST(FunctionProfile, AFunctionRemovedByTheChangeKeepsItsParentsLines) {
  FunctionProfile parent = *ParseFunctionProfile("events: Ir\nfl=a.c\nfn=gone\n7 100\n9 300\n");
  FunctionProfile change = *ParseFunctionProfile("events: Ir\nfl=a.c\nfn=kept\n1 1\n");
  std::vector<FunctionDelta> diff = DiffFunctionProfiles(parent, change);
  ASSERT_EQ(diff.size(), 2u);
  EXPECT_EQ(diff[0].function, "gone");
  EXPECT_EQ(diff[0].InstructionsDelta(), -400);
  EXPECT_EQ(diff[0].first_line, 7);
  EXPECT_EQ(diff[0].hottest_line, 9);
  ASSERT_TRUE(diff[0].RelativeDelta());
  EXPECT_DOUBLE_EQ(*diff[0].RelativeDelta(), -1.0);
}

TEST(FunctionProfile, AProfilesFileIsTheRepositoryFileThatEndsIt) {
  const std::set<std::string> files = {"main.c", "src/scan/scan.cc", "scan.cc", "csu/x.c"};
  EXPECT_EQ(RepositoryPath("/tmp/build/scratch/src/main.c", files), "main.c");
  EXPECT_EQ(RepositoryPath("/home/u/.cache/culprit/e/scratch/src/src/scan/scan.cc", files),
            "src/scan/scan.cc");  // The longest one that ends it.
  EXPECT_EQ(RepositoryPath("/build/src/../src/scan/scan.cc", files), "src/scan/scan.cc");
  EXPECT_EQ(RepositoryPath("./csu/../csu/libc-start.c", files), "");
  EXPECT_EQ(RepositoryPath("/usr/include/c++/12/bits/stl_vector.h", files), "");
  EXPECT_EQ(RepositoryPath("/tmp/xmain.c", files), "");  // Only after a '/'.
  EXPECT_EQ(RepositoryPath("???", files), "");
  EXPECT_EQ(RepositoryPath("", files), "");
}

}  // namespace
}  // namespace culprit
