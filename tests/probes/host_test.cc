#include "probes/host.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>

#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

// Two processors, as a KVM guest on an AMD host shows them (trimmed flags).
constexpr const char* kCpuinfo = R"(processor	: 0
vendor_id	: AuthenticAMD
cpu family	: 25
model		: 1
model name	: AMD EPYC 7B13
stepping	: 1
cpu MHz		: 2445.404
cache size	: 512 KB
physical id	: 0
siblings	: 2
core id		: 0
cpu cores	: 2
flags		: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr hypervisor
bogomips	: 4890.80

processor	: 1
vendor_id	: AuthenticAMD
cpu family	: 25
model		: 1
model name	: AMD EPYC 7B13
stepping	: 1
cpu MHz		: 2612.001
cache size	: 512 KB
physical id	: 0
siblings	: 2
core id		: 1
cpu cores	: 2
flags		: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr hypervisor
bogomips	: 4890.80

)";

constexpr const char* kMeminfo = R"(MemTotal:       24683656 kB
MemFree:        24388240 kB
MemAvailable:   24362284 kB
Buffers:            2564 kB
Cached:           120180 kB
SwapCached:            0 kB
SwapTotal:       2097148 kB
SwapFree:        2031612 kB
Dirty:               984 kB
)";

constexpr const char* kVmstat = R"(nr_free_pages 6097060
nr_zone_inactive_anon 4177
pgpgin 361640
pgpgout 0
pswpin 17
pswpout 42
pgalloc_dma 0
)";

// A fake filesystem root with everything MakeRealHostProbe reads except cpufreq.
void WriteBaseTree(const std::filesystem::path& root) {
  WriteTextFile(root / "proc/loadavg", "3.20 1.50 0.75 4/210 12345\n");
  WriteTextFile(root / "proc/cpuinfo", kCpuinfo);
  WriteTextFile(root / "proc/meminfo", kMeminfo);
  WriteTextFile(root / "proc/vmstat", kVmstat);
  WriteTextFile(root / "proc/sys/kernel/hostname", "bench-07\n");
  WriteTextFile(root / "proc/sys/kernel/ostype", "Linux\n");
  WriteTextFile(root / "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
  WriteTextFile(root / "sys/devices/system/cpu/online", "0-1\n");
}

void WriteCpufreq(const std::filesystem::path& root, const std::string& khz,
                  const std::string& governor) {
  const auto dir = root / "sys/devices/system/cpu/cpu0/cpufreq";
  WriteTextFile(dir / "scaling_cur_freq", khz + "\n");
  WriteTextFile(dir / "scaling_governor", governor + "\n");
}

TEST(HostProbe, ParsesIdentityExactly) {
  TempDir dir;
  WriteBaseTree(dir.path());
  const HostIdentity info = MakeRealHostProbe(dir.path())->Identity();
  EXPECT_EQ(info.hostname, "bench-07");
  EXPECT_EQ(info.cpu_model, "AMD EPYC 7B13");
  EXPECT_EQ(info.kernel, "Linux 6.1.0-18-amd64");
  EXPECT_EQ(info.logical_cores, 2);
  EXPECT_EQ(info.memory_total_kb, 24683656u);
}

TEST(HostProbe, MachineIdentityIsADigestOfMachineId) {
  TempDir dir;
  WriteBaseTree(dir.path());
  EXPECT_EQ(MakeRealHostProbe(dir.path())->Identity().machine_id, "");
  WriteTextFile(dir.path() / "var/lib/dbus/machine-id", "0123456789abcdef0123456789abcdef\n");
  EXPECT_EQ(MakeRealHostProbe(dir.path())->Identity().machine_id,
            MachineIdDigest("0123456789abcdef0123456789abcdef"));
  WriteTextFile(dir.path() / "etc/machine-id", "fedcba9876543210fedcba9876543210\n");
  const std::string id = MakeRealHostProbe(dir.path())->Identity().machine_id;
  EXPECT_EQ(id, MachineIdDigest("fedcba9876543210fedcba9876543210"));
  // "m-" and 16 hex digits; never the id itself.
  ASSERT_EQ(id.size(), 18u);
  EXPECT_EQ(id.substr(0, 2), "m-");
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 2), std::string::npos);
  EXPECT_NE(MachineIdDigest("0123456789abcdef0123456789abcdef"), id);
  EXPECT_EQ(MachineIdDigest("  \n"), "");
}

TEST(HostProbe, ParsesSnapshotWithCpufreq) {
  TempDir dir;
  WriteBaseTree(dir.path());
  WriteCpufreq(dir.path(), "3400000", "powersave");
  const HostState snap = MakeRealHostProbe(dir.path())->Snapshot(/*calibrate=*/false);
  EXPECT_EQ(snap.load1, 3.20);
  EXPECT_EQ(snap.load5, 1.50);
  EXPECT_EQ(snap.load15, 0.75);
  EXPECT_EQ(snap.cpu_mhz, 3400.0);
  EXPECT_EQ(snap.cpu_mhz_source, "scaling_cur_freq");
  EXPECT_EQ(snap.governor, "powersave");
  EXPECT_EQ(snap.memory_available_kb, 24362284u);
  EXPECT_EQ(snap.swap_used_kb, 2097148u - 2031612u);
  EXPECT_EQ(snap.swap_in_pages, 17u);
  EXPECT_EQ(snap.swap_out_pages, 42u);
  EXPECT_FALSE(snap.calibration_ms.has_value());
  EXPECT_TRUE(std::regex_match(snap.time, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << snap.time;
}

TEST(HostProbe, WithoutCpufreqFallsBackToCpu0InCpuinfo) {
  TempDir dir;
  WriteBaseTree(dir.path());
  const HostState snap = MakeRealHostProbe(dir.path())->Snapshot(false);
  EXPECT_EQ(snap.cpu_mhz, 2445.404);  // processor 0's line, not processor 1's.
  EXPECT_EQ(snap.cpu_mhz_source, "/proc/cpuinfo");
  EXPECT_EQ(snap.governor, "");

  const HostIdentity info = MakeRealHostProbe(dir.path())->Identity();
  const std::string report = FormatHostReport(info, snap, HostWarnings(info, snap));
  EXPECT_NE(report.find("governor       unavailable"), std::string::npos) << report;
  EXPECT_NE(report.find("2445 MHz (from /proc/cpuinfo"), std::string::npos) << report;
}

TEST(HostProbe, EmptyRootIsUnavailableEverywhereAndDoesNotCrash) {
  TempDir dir;
  const auto probe = MakeRealHostProbe(dir.path());
  const HostIdentity info = probe->Identity();
  const HostState snap = probe->Snapshot(false);
  // A fake root never falls back to the real host's uname or core count.
  EXPECT_EQ(info.hostname, "");
  EXPECT_EQ(info.kernel, "");
  EXPECT_EQ(info.cpu_model, "");
  EXPECT_EQ(info.logical_cores, 0);
  EXPECT_FALSE(info.memory_total_kb);
  EXPECT_FALSE(snap.load1 || snap.load5 || snap.load15);
  EXPECT_FALSE(snap.cpu_mhz);
  EXPECT_EQ(snap.cpu_mhz_source, "");
  EXPECT_FALSE(snap.memory_available_kb || snap.swap_used_kb || snap.swap_in_pages);
  EXPECT_TRUE(HostWarnings(info, snap).empty());

  const std::string report = FormatHostReport(info, snap, {});
  for (const char* label :
       {"hostname", "cpu model", "logical cores", "kernel", "memory ", "load average",
        "cpu frequency", "governor", "memory free", "swap used"}) {
    const auto at = report.find(label);
    ASSERT_NE(at, std::string::npos) << label << "\n" << report;
    const std::string line = report.substr(at, report.find('\n', at) - at);
    EXPECT_NE(line.find("unavailable"), std::string::npos) << line;
  }
  EXPECT_NE(report.find("calibration    not measured"), std::string::npos) << report;
  EXPECT_NE(report.find("warnings: none"), std::string::npos) << report;
}

TEST(HostProbe, MalformedFilesAreUnavailableNotGuessed) {
  TempDir dir;
  WriteTextFile(dir.path() / "proc/loadavg", "garbage\n");
  WriteTextFile(dir.path() / "proc/meminfo", "MemTotal: lots\n");
  WriteTextFile(dir.path() / "sys/devices/system/cpu/online", "1-0\n");
  WriteCpufreq(dir.path(), "n/a", "performance");
  const auto probe = MakeRealHostProbe(dir.path());
  const HostState snap = probe->Snapshot(false);
  EXPECT_FALSE(snap.load1);
  EXPECT_FALSE(snap.cpu_mhz);
  EXPECT_EQ(snap.governor, "performance");
  const HostIdentity info = probe->Identity();
  EXPECT_FALSE(info.memory_total_kb);
  EXPECT_EQ(info.logical_cores, 0);
}

TEST(HostProbe, CoresFromOnlineListElseProcessorEntries) {
  TempDir dir;
  WriteBaseTree(dir.path());
  WriteTextFile(dir.path() / "sys/devices/system/cpu/online", "0-3,5,7-8\n");
  EXPECT_EQ(MakeRealHostProbe(dir.path())->Identity().logical_cores, 7);

  std::filesystem::remove(dir.path() / "sys/devices/system/cpu/online");
  EXPECT_EQ(MakeRealHostProbe(dir.path())->Identity().logical_cores, 2);
}

TEST(HostProbe, CalibratesWhenAsked) {
  TempDir dir;
  WriteBaseTree(dir.path());
  const HostState snap = MakeRealHostProbe(dir.path())->Snapshot(/*calibrate=*/true);
  ASSERT_TRUE(snap.calibration_ms);
  EXPECT_TRUE(std::isfinite(*snap.calibration_ms));
  EXPECT_GT(*snap.calibration_ms, 0);
}

TEST(HostProbe, RealHostHasTheBasics) {
  const auto probe = MakeRealHostProbe();
  const HostIdentity info = probe->Identity();
  const HostState snap = probe->Snapshot(false);
  EXPECT_GT(info.logical_cores, 0);
  EXPECT_FALSE(info.kernel.empty());
  EXPECT_TRUE(snap.load1.has_value());  // Linux always has /proc/loadavg.
}

HostIdentity TwoCores() {
  HostIdentity info;
  info.logical_cores = 2;
  info.memory_total_kb = 16u * 1024 * 1024;
  return info;
}

bool AnyContains(const std::vector<std::string>& warnings, const std::string& text) {
  for (const auto& w : warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(HostWarnings, LoadAtOrAboveTheCoreCount) {
  HostState snap;
  snap.load1 = 3.2;
  const auto warnings = HostWarnings(TwoCores(), snap);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("load 3.20 on 2 cores"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("wait for it to finish or stop it"), std::string::npos);

  snap.load1 = 2.0;  // At the core count: every core has a runnable task already.
  EXPECT_EQ(HostWarnings(TwoCores(), snap).size(), 1u);
  snap.load1 = 1.9;
  EXPECT_TRUE(HostWarnings(TwoCores(), snap).empty());
  snap.load1 = 9.0;  // Core count unknown: nothing to compare with.
  EXPECT_TRUE(HostWarnings(HostIdentity{}, snap).empty());
}

TEST(HostWarnings, GovernorOtherThanPerformance) {
  HostState snap;
  snap.governor = "powersave";
  const auto warnings = HostWarnings(TwoCores(), snap);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("'powersave'"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("cpupower frequency-set -g performance"), std::string::npos);

  snap.governor = "performance";
  EXPECT_TRUE(HostWarnings(TwoCores(), snap).empty());
  snap.governor = "";  // No cpufreq: informational, shown as unavailable in the report.
  EXPECT_TRUE(HostWarnings(TwoCores(), snap).empty());
}

TEST(HostWarnings, LowMemoryAndSwap) {
  HostState snap;
  snap.memory_available_kb = 1024u * 1024;  // 1 GiB of 16 GiB: 6%.
  snap.swap_used_kb = 0;
  auto warnings = HostWarnings(TwoCores(), snap);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("only 1.0 GiB of memory available (16.0 GiB total)"),
            std::string::npos)
      << warnings[0];

  snap.swap_used_kb = 300u * 1024;
  warnings = HostWarnings(TwoCores(), snap);
  EXPECT_EQ(warnings.size(), 2u);
  EXPECT_TRUE(AnyContains(warnings, "300 MiB of swap in use")) << warnings.back();

  snap.memory_available_kb = 12u * 1024 * 1024;  // Plenty: old swapped pages do not matter.
  EXPECT_TRUE(HostWarnings(TwoCores(), snap).empty());
  snap.memory_available_kb = 3u * 1024 * 1024;  // 19%: not low, but short enough for swap.
  warnings = HostWarnings(TwoCores(), snap);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(AnyContains(warnings, "swap in use"));
}

TEST(HostChangeWarnings, SwapGovernorFrequencyAndLoad) {
  HostState start;
  start.swap_in_pages = 10;
  start.swap_out_pages = 20;
  start.governor = "performance";
  start.cpu_mhz = 3000;
  start.cpu_mhz_source = "scaling_cur_freq";
  start.load1 = 0.5;
  HostState end = start;
  EXPECT_TRUE(HostChangeWarnings(TwoCores(), start, end).empty());

  end.swap_in_pages = 15;
  end.governor = "powersave";
  end.cpu_mhz = 2400;
  end.load1 = 2.5;
  const auto warnings = HostChangeWarnings(TwoCores(), start, end);
  ASSERT_EQ(warnings.size(), 4u);
  EXPECT_TRUE(AnyContains(warnings, "swapped during the sitting (5 pages in, 0 out)"));
  EXPECT_TRUE(AnyContains(warnings, "from 'performance' to 'powersave'"));
  EXPECT_TRUE(AnyContains(warnings, "3000 MHz to 2400 MHz (-20%)"));
  EXPECT_TRUE(AnyContains(warnings, "load 2.50 on 2 cores at the end of the sitting"));
}

TEST(HostChangeWarnings, ALoadAtTheCoresWhenTheSittingStartsIsSaid) {
  // compare at load 3.0 on 2 cores once printed nothing: only a rise was warned about.
  HostState start;
  start.load1 = 3.0;
  HostState end = start;
  std::vector<std::string> warnings = HostChangeWarnings(TwoCores(), start, end);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(AnyContains(warnings, "load 3.00 on 2 cores at the start of the sitting"));
  start.load1 = 2.0;  // at the core count: every core already busy
  end.load1 = 1.0;
  warnings = HostChangeWarnings(TwoCores(), start, end);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(AnyContains(warnings, "at the start of the sitting"));
  start.load1 = 1.9;
  EXPECT_TRUE(HostChangeWarnings(TwoCores(), start, end).empty());
}

TEST(HostChangeWarnings, NominalFrequencyChangesAreIgnored) {
  HostState start;
  start.cpu_mhz = 3000;
  start.cpu_mhz_source = "/proc/cpuinfo";
  HostState end = start;
  end.cpu_mhz = 2000;
  EXPECT_TRUE(HostChangeWarnings(TwoCores(), start, end).empty());
  end.cpu_mhz_source = "scaling_cur_freq";
  EXPECT_TRUE(HostChangeWarnings(TwoCores(), start, end).empty());
}

TEST(FormatHostReport, ShowsValuesAndWarnings) {
  TempDir dir;
  WriteBaseTree(dir.path());
  WriteCpufreq(dir.path(), "3400000", "powersave");
  const auto probe = MakeRealHostProbe(dir.path());
  const HostIdentity info = probe->Identity();
  HostState snap = probe->Snapshot(false);
  snap.calibration_ms = 29.3;
  const auto warnings = HostWarnings(info, snap);
  EXPECT_EQ(warnings.size(), 2u);  // Load 3.2 on 2 cores, powersave governor.
  const std::string report = FormatHostReport(info, snap, warnings);
  for (const char* expected :
       {"hostname       bench-07\n", "cpu model      AMD EPYC 7B13\n", "logical cores  2\n",
        "kernel         Linux 6.1.0-18-amd64\n", "memory         23.5 GiB total\n",
        "calibration    29.30 ms per loop", "load average   3.20 1.50 0.75 (1, 5, 15 min)\n",
        "cpu frequency  3400 MHz (from scaling_cur_freq)\n", "governor       powersave\n",
        "memory free    23.2 GiB available\n", "swap used      64 MiB\n", "warnings\n  - load 3.20",
        "\n  - CPU frequency governor is 'powersave'"}) {
    EXPECT_NE(report.find(expected), std::string::npos) << expected << "\n" << report;
  }
}

}  // namespace
}  // namespace culprit
