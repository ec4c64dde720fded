#include "probes/host_tuning.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "probes/host.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

const std::filesystem::path kCpu = "sys/devices/system/cpu";

// A tuned bare-metal host: turbo off, ASLR on, CPUs 2-3 isolated, SMT on.
void WriteTunedTree(const std::filesystem::path& root) {
  WriteTextFile(root / kCpu / "intel_pstate/no_turbo", "1\n");
  WriteTextFile(root / kCpu / "cpufreq/boost", "0\n");
  WriteTextFile(root / "proc/sys/kernel/randomize_va_space", "2\n");
  WriteTextFile(root / kCpu / "isolated", "2-3\n");
  WriteTextFile(root / kCpu / "nohz_full", "2-3\n");
  WriteTextFile(root / "proc/cmdline",
                "BOOT_IMAGE=/vmlinuz ro quiet isolcpus=managed_irq,domain,2-3 nohz_full=2-3\n");
  WriteTextFile(root / kCpu / "smt/active", "1\n");
  WriteTextFile(root / kCpu / "smt/control", "on\n");
  WriteTextFile(root / "proc/sys/kernel/perf_event_paranoid", "-1\n");
}

TEST(HostTuning, ReadsEveryFileOfATunedHost) {
  TempDir dir;
  WriteTunedTree(dir.path());
  const HostTuning t = ReadHostTuning(dir.path(), /*try_counters=*/false);
  EXPECT_EQ(t.turbo_disabled, true);
  EXPECT_EQ(t.boost, false);
  EXPECT_EQ(t.randomize_va_space, 2);
  EXPECT_EQ(t.isolated_cpus, "2-3");
  EXPECT_EQ(t.nohz_full, "2-3");
  EXPECT_EQ(t.isolcpus, "managed_irq,domain,2-3");
  EXPECT_EQ(t.smt_active, true);
  EXPECT_EQ(t.smt_control, "on");
  EXPECT_EQ(t.perf_event_paranoid, -1);
  // Not tried on a fake tree: it would describe the real host.
  EXPECT_EQ(t.counters_usable, std::nullopt);
}

TEST(HostTuning, AnEmptyTreeIsUnavailableEverywhere) {
  TempDir dir;
  EXPECT_EQ(ReadHostTuning(dir.path(), false), HostTuning{});
}

TEST(HostTuning, MalformedFilesAreUnavailableNeverAGuess) {
  TempDir dir;
  const auto& root = dir.path();
  WriteTextFile(root / kCpu / "intel_pstate/no_turbo", "yes\n");
  WriteTextFile(root / kCpu / "cpufreq/boost", "2\n");
  WriteTextFile(root / "proc/sys/kernel/randomize_va_space", "3\n");
  WriteTextFile(root / kCpu / "isolated", "two\n");
  WriteTextFile(root / kCpu / "nohz_full", "3-1\n");
  WriteTextFile(root / kCpu / "smt/active", "\n");
  WriteTextFile(root / kCpu / "smt/control", "maybe\n");
  WriteTextFile(root / "proc/sys/kernel/perf_event_paranoid", "-9\n");
  EXPECT_EQ(ReadHostTuning(root, false), HostTuning{});
}

TEST(HostTuning, EmptyListsMeanNone) {
  TempDir dir;
  const auto& root = dir.path();
  WriteTextFile(root / kCpu / "isolated", "\n");
  WriteTextFile(root / kCpu / "nohz_full", "(null)\n");
  // Words after "--" belong to init, not to the kernel.
  WriteTextFile(root / "proc/cmdline", "console=ttyS0 quiet -- isolcpus=1\n");
  const HostTuning t = ReadHostTuning(root, false);
  EXPECT_EQ(t.isolated_cpus, "");
  EXPECT_EQ(t.nohz_full, "");
  EXPECT_EQ(t.isolcpus, "");
}

TEST(HostTuning, TheRealHostSaysWhetherCountersWork) {
  HostTuning t;
  TryInstructionCounter(&t);
  ASSERT_TRUE(t.counters_usable.has_value());
  if (*t.counters_usable) {
    EXPECT_EQ(t.counters_error, "");
  } else {
    // The errno's name and its text, e.g. "ENOENT: No such file or directory".
    EXPECT_NE(t.counters_error.find(": "), std::string::npos) << t.counters_error;
  }
}

TEST(HostTuning, CpuLists) {
  EXPECT_EQ(ParseCpuList("0-3,5,7-8"), (std::vector<int>{0, 1, 2, 3, 5, 7, 8}));
  EXPECT_EQ(ParseCpuList(""), std::vector<int>{});
  EXPECT_EQ(ParseCpuList("3-1"), std::nullopt);
  EXPECT_EQ(ParseCpuList("a"), std::nullopt);
  EXPECT_EQ(ParseCpuList("1,"), std::nullopt);
  EXPECT_EQ(FormatCpuList({5, 0, 1, 2, 3, 7, 8}), "0-3,5,7-8");
  EXPECT_EQ(FormatCpuList({}), "");
}

TEST(HostTuning, ReportGivesEachItemAValueAndAdvice) {
  TempDir dir;
  WriteTunedTree(dir.path());
  HostState state;
  state.governor = "powersave";
  state.load1 = 0.1;
  state.tuning = ReadHostTuning(dir.path(), false);
  state.tuning->counters_usable = false;
  state.tuning->counters_error = "ENOENT: No such file or directory";
  HostIdentity identity;
  identity.logical_cores = 4;
  const std::string report = FormatHostTuning(identity, state);
  for (const char* expected :
       {"governor       powersave", "sudo cpupower frequency-set -g performance",
        "turbo          off (intel_pstate/no_turbo = 1)",
        "ASLR           on (stack, mmap, heap) (randomize_va_space = 2)",
        "`[measure] aslr = false`", "isolated 2-3, nohz_full 2-3, isolcpus= managed_irq,domain,2-3",
        "`[measure] cpus = [2, 3]`", "SMT            on (smt/control = on)",
        "counters       not usable: ENOENT: No such file or directory (perf_event_paranoid = -1)",
        "instruction counts must come from valgrind", "load           0.10 (1 min) on 4 cores"}) {
    EXPECT_NE(report.find(expected), std::string::npos) << expected << "\n" << report;
  }
  // Eight items (metric sources among them), each with one line of advice.
  size_t advice = 0;
  for (size_t at = report.find("advice: "); at != std::string::npos;
       at = report.find("advice: ", at + 1)) {
    ++advice;
  }
  EXPECT_EQ(advice, 8u) << report;
}

TEST(HostTuning, ReportSaysUnavailableWhereTheHostIsSilent) {
  HostState state;
  state.tuning = HostTuning{};
  const std::string report = FormatHostTuning(HostIdentity{}, state);
  for (const char* expected :
       {"governor       unavailable", "turbo          unavailable", "ASLR           unavailable",
        "isolated unavailable, nohz_full unavailable, isolcpus= unavailable",
        "SMT            unavailable", "counters       unavailable: not tried",
        "load           unavailable"}) {
    EXPECT_NE(report.find(expected), std::string::npos) << expected << "\n" << report;
  }
  EXPECT_NE(FormatHostTuning(HostIdentity{}, HostState{}).find("unavailable"), std::string::npos);
}

TEST(HostTuning, RefusedCountersAdviseTheParanoiaSetting) {
  HostState state;
  state.tuning = HostTuning{};
  state.tuning->perf_event_paranoid = 3;
  state.tuning->counters_usable = false;
  state.tuning->counters_error = "EACCES: Permission denied";
  EXPECT_NE(FormatHostTuning(HostIdentity{}, state)
                .find("echo 2 | sudo tee /proc/sys/kernel/perf_event_paranoid"),
            std::string::npos);
}

TEST(HostTuning, TheRealProbeReadsTuningIntoItsSnapshot) {
  TempDir dir;
  WriteTunedTree(dir.path());
  const HostState state = MakeRealHostProbe(dir.path())->Snapshot(/*calibrate=*/false);
  ASSERT_TRUE(state.tuning.has_value());
  EXPECT_EQ(state.tuning->isolated_cpus, "2-3");
}

TEST(HostTuning, ARetuneDuringASittingIsWarned) {
  HostState start, end;
  start.tuning = HostTuning{};
  start.tuning->randomize_va_space = 2;
  end.tuning = start.tuning;
  EXPECT_TRUE(HostChangeWarnings(HostIdentity{}, start, end).empty());
  end.tuning->randomize_va_space = 0;
  const std::vector<std::string> warnings = HostChangeWarnings(HostIdentity{}, start, end);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("the host's tuning changed during the sitting (randomize_va_space "
                             "was 2 then, 0 now)"),
            std::string::npos)
      << warnings[0];
}

Record RecordUnder(const HostTuning& tuning, const RunPlacement& placement) {
  Record r;
  r.start.tuning = tuning;
  RecordPlacement(placement, &r);
  return r;
}

TEST(TuningDifferences, SaysWhatChangedBetweenTwoRecords) {
  HostTuning then, now;
  then.randomize_va_space = 2;
  now.randomize_va_space = 0;
  then.smt_active = now.smt_active = true;
  then.isolated_cpus = "";
  now.isolated_cpus = "1";
  RunPlacement pinned;
  pinned.cpus = {1};
  pinned.aslr = false;
  const std::vector<std::string> notes =
      TuningDifferences(RecordUnder(then, RunPlacement{}), RecordUnder(now, pinned));
  EXPECT_EQ(notes, (std::vector<std::string>{"randomize_va_space was 2 then, 0 now",
                                             "the isolated CPU list was none then, 1 now",
                                             "measured runs were pinned to no CPU then, CPUs 1 now",
                                             "measured runs started with ASLR on then, off now"}));
  EXPECT_TRUE(TuningDifferences(RecordUnder(then, pinned), RecordUnder(then, pinned)).empty());
}

TEST(TuningDifferences, AnOldRecordIsUnknownNotDifferent) {
  Record old;  // written before tuning and placement were kept
  const std::vector<std::string> notes =
      TuningDifferences(old, RecordUnder(HostTuning{}, RunPlacement{}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("unknown for the older record"), std::string::npos) << notes[0];
  EXPECT_TRUE(TuningDifferences(old, old).empty());
}

TEST(RunPlacementDetails, RoundTripsThroughARecord) {
  RunPlacement placement;
  placement.cpus = {0, 1, 3};
  placement.aslr = false;
  Record r;
  RecordPlacement(placement, &r);
  EXPECT_EQ(r.Detail("cpus"), "0-1,3");
  EXPECT_EQ(r.Detail("aslr"), "off");
  EXPECT_EQ(PlacementOfRecord(r), placement);
  RecordPlacement(RunPlacement{}, &r);
  EXPECT_EQ(r.Detail("cpus"), "any");
  EXPECT_EQ(r.Detail("aslr"), "on");
  // A record from before: unpinned, ASLR as the host had it.
  EXPECT_EQ(PlacementOfRecord(Record{}), RunPlacement{});
}

TEST(CheckCpusUsable, ACpuTheHostDoesNotHaveIsRefused) {
  TempDir dir;
  WriteTextFile(dir.path() / kCpu / "online", "0-1\n");
  EXPECT_TRUE(CheckCpusUsable({0, 1}, dir.path()).ok());
  Status refused = CheckCpusUsable({0, 4096}, dir.path());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(), "CPU 4096 does not exist on this host (online CPUs: 0-1)");
}

}  // namespace
}  // namespace culprit
