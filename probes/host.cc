#include "probes/host.h"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <cmath>
#include <ctime>
#include <map>
#include <string_view>
#include <thread>

#include "base/atomic_file.h"
#include "base/numbers.h"
#include "base/strings.h"
#include "base/timestamp.h"
#include "probes/calibration.h"
#include "probes/host_tuning.h"

namespace culprit {
namespace {

// "key<sep>value" lines (/proc/cpuinfo uses ':' after tabs, /proc/meminfo ':',
// /proc/vmstat a space). Keeps the first occurrence of each key: cpuinfo
// repeats every key per processor, and cpu0's is the one paired with cpu0's
// cpufreq files.
std::map<std::string, std::string, std::less<>> ParseKeyValues(std::string_view text, char sep) {
  std::map<std::string, std::string, std::less<>> values;
  for (std::string_view line : SplitLines(text)) {
    const auto at = line.find(sep);
    if (at == std::string_view::npos) continue;
    const auto key = TrimBlanks(line.substr(0, at));
    if (key.empty()) continue;
    values.emplace(std::string(key), std::string(TrimBlanks(line.substr(at + 1))));
  }
  return values;
}

// "123456 kB" -> 123456.
std::optional<uint64_t> ParseKb(std::string_view value) {
  const auto words = SplitWords(value);
  if (words.empty()) return std::nullopt;
  return ParseCount(words[0]);
}

// A kernel CPU list ("0-3,5,7-8") -> how many CPUs it names; nullopt if malformed.
std::optional<int> CountCpuList(std::string_view list) {
  list = TrimBlanks(list);
  if (list.empty()) return std::nullopt;
  int count = 0;
  while (!list.empty()) {
    const auto comma = list.find(',');
    const auto range = list.substr(0, comma);
    const auto dash = range.find('-');
    const auto first = ParseCount(range.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : ParseCount(range.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    count += static_cast<int>(*last - *first + 1);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return count;
}

std::string Unavailable(const std::string& s) { return s.empty() ? "unavailable" : s; }

std::string FormatMemory(uint64_t kb) {
  if (kb >= 1024 * 1024) return fmt::format("{:.1f} GiB", kb / (1024.0 * 1024.0));
  return fmt::format("{} MiB", kb / 1024);
}

bool MemoryShort(const HostState& snapshot, const HostIdentity& identity, double fraction) {
  if (!snapshot.memory_available_kb || !identity.memory_total_kb) return false;
  return *snapshot.memory_available_kb < fraction * *identity.memory_total_kb;
}

std::string LoadWarning(double load, int cores, std::string_view when) {
  return fmt::format(
      "load {:.2f} on {} cores{}: other work is running; measurements will be noisy — wait for "
      "it to finish or stop it",
      load, cores, when);
}

class RealHostProbe : public HostProbe {
 public:
  explicit RealHostProbe(std::filesystem::path root)
      : root_(std::move(root)),
        real_root_(std::filesystem::path(root_).lexically_normal() == "/") {}

  HostIdentity Identity() const override {
    HostIdentity info;
    info.hostname = FirstLineOf("proc/sys/kernel/hostname");
    std::string machine = FirstLineOf("etc/machine-id");
    if (machine.empty()) machine = FirstLineOf("var/lib/dbus/machine-id");
    info.machine_id = MachineIdDigest(machine);
    const std::string ostype = FirstLineOf("proc/sys/kernel/ostype");
    const std::string release = FirstLineOf("proc/sys/kernel/osrelease");
    info.kernel = ostype.empty() ? release : release.empty() ? "" : ostype + " " + release;

    struct utsname uts {};
    if (real_root_ && uname(&uts) == 0) {
      if (info.hostname.empty()) info.hostname = uts.nodename;
      if (info.kernel.empty()) info.kernel = std::string(uts.sysname) + " " + uts.release;
    }

    const std::string cpuinfo = Read("proc/cpuinfo");
    const auto cpu = ParseKeyValues(cpuinfo, ':');
    // x86 says "model name"; other architectures use one of the others.
    for (const char* key : {"model name", "cpu model", "Hardware", "cpu"}) {
      if (auto it = cpu.find(key); it != cpu.end() && !it->second.empty()) {
        info.cpu_model = it->second;
        break;
      }
    }

    // The online list, not "processor" entries or hardware_concurrency: offline
    // CPUs run nothing, so they do not absorb load.
    if (auto online = CountCpuList(Read("sys/devices/system/cpu/online"))) {
      info.logical_cores = *online;
    } else {
      int processors = 0;
      for (std::string_view line : SplitLines(cpuinfo)) {
        if (TrimBlanks(line.substr(0, line.find(':'))) == "processor") ++processors;
      }
      info.logical_cores = processors;
      if (processors == 0 && real_root_) {
        info.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
      }
    }

    const auto meminfo = ParseKeyValues(Read("proc/meminfo"), ':');
    if (auto it = meminfo.find("MemTotal"); it != meminfo.end()) {
      info.memory_total_kb = ParseKb(it->second);
    }
    return info;
  }

  HostState Snapshot(bool calibrate) const override {
    HostState snapshot;
    snapshot.time = NowIsoUtc();

    const std::string loadavg = Read("proc/loadavg");
    const auto load = SplitWords(loadavg);
    if (load.size() >= 3) {
      snapshot.load1 = ParseFiniteNumber(load[0]);
      snapshot.load5 = ParseFiniteNumber(load[1]);
      snapshot.load15 = ParseFiniteNumber(load[2]);
    }

    const std::string cpufreq = "sys/devices/system/cpu/cpu0/cpufreq/";
    if (auto khz = ParseFiniteNumber(FirstLineOf(cpufreq + "scaling_cur_freq")); khz && *khz > 0) {
      snapshot.cpu_mhz = *khz / 1000;
      snapshot.cpu_mhz_source = "scaling_cur_freq";
    } else {
      const auto cpu = ParseKeyValues(Read("proc/cpuinfo"), ':');
      if (auto it = cpu.find("cpu MHz"); it != cpu.end()) {
        if (auto mhz = ParseFiniteNumber(it->second); mhz && *mhz > 0) {
          snapshot.cpu_mhz = *mhz;
          snapshot.cpu_mhz_source = "/proc/cpuinfo";
        }
      }
    }
    snapshot.governor = FirstLineOf(cpufreq + "scaling_governor");

    const auto meminfo = ParseKeyValues(Read("proc/meminfo"), ':');
    const auto kb = [&](std::string_view key) -> std::optional<uint64_t> {
      auto it = meminfo.find(key);
      return it == meminfo.end() ? std::nullopt : ParseKb(it->second);
    };
    snapshot.memory_available_kb = kb("MemAvailable");
    const auto swap_total = kb("SwapTotal");
    const auto swap_free = kb("SwapFree");
    if (swap_total && swap_free && *swap_free <= *swap_total) {
      snapshot.swap_used_kb = *swap_total - *swap_free;
    }

    const auto vmstat = ParseKeyValues(Read("proc/vmstat"), ' ');
    if (auto it = vmstat.find("pswpin"); it != vmstat.end()) {
      snapshot.swap_in_pages = ParseCount(it->second);
    }
    if (auto it = vmstat.find("pswpout"); it != vmstat.end()) {
      snapshot.swap_out_pages = ParseCount(it->second);
    }

    // Only the real host is asked for a counter: a fake tree says nothing about it.
    snapshot.tuning = ReadHostTuning(root_, /*try_counters=*/real_root_);

    // Last, so the loop's own CPU use does not show up in the load just read.
    if (calibrate) snapshot.calibration_ms = RunCalibrationLoop();
    return snapshot;
  }

 private:
  // A missing or unreadable file is "": the caller reports it as unavailable.
  std::string Read(std::string_view relative) const {
    auto content = ReadFile(root_ / relative);
    return content ? std::move(content).value() : std::string();
  }

  std::string FirstLineOf(std::string_view relative) const {
    const std::string content = Read(relative);
    return std::string(TrimBlanks(std::string_view(content).substr(0, content.find('\n'))));
  }

  std::filesystem::path root_;
  bool real_root_;
};

}  // namespace

std::string MachineIdDigest(std::string_view machine_id) {
  machine_id = TrimBlanks(machine_id);
  if (machine_id.empty()) return "";
  return fmt::format("m-{:016x}", Fnv1a64(machine_id, Fnv1a64("culprit machine id\n")));
}

std::unique_ptr<HostProbe> MakeRealHostProbe(std::filesystem::path root) {
  return std::make_unique<RealHostProbe>(std::move(root));
}

std::vector<std::string> HostWarnings(const HostIdentity& identity, const HostState& snapshot) {
  std::vector<std::string> warnings;
  // At the core count every core already has a runnable task: a measured run waits for one.
  if (snapshot.load1 && identity.logical_cores > 0 && *snapshot.load1 >= identity.logical_cores) {
    warnings.push_back(LoadWarning(*snapshot.load1, identity.logical_cores, ""));
  }
  if (!snapshot.governor.empty() && snapshot.governor != "performance") {
    warnings.push_back(fmt::format(
        "CPU frequency governor is '{}', not 'performance': the clock follows the load, which "
        "adds noise and makes sittings hard to compare — set it with `sudo cpupower "
        "frequency-set -g performance`",
        snapshot.governor));
  }
  // Below a tenth of memory (or 512 MiB) the kernel starts reclaiming the page
  // cache the engine's data may live in.
  const bool memory_low =
      MemoryShort(snapshot, identity, 0.10) ||
      (snapshot.memory_available_kb && *snapshot.memory_available_kb < 512 * 1024);
  if (memory_low) {
    warnings.push_back(fmt::format(
        "only {} of memory available{}: the engine's files may be evicted from the page cache "
        "or swapped between samples — close memory-hungry programs before measuring",
        FormatMemory(*snapshot.memory_available_kb),
        identity.memory_total_kb
            ? fmt::format(" ({} total)", FormatMemory(*identity.memory_total_kb))
            : ""));
  }
  // Swap in use is harmless while memory is plentiful (pages parked long ago);
  // with memory short, the engine's own pages may be the ones swapped.
  if (snapshot.swap_used_kb && *snapshot.swap_used_kb > 0 &&
      (memory_low || MemoryShort(snapshot, identity, 0.25))) {
    warnings.push_back(fmt::format(
        "{} of swap in use while memory is short: samples that touch swapped pages will be slow "
        "for reasons unrelated to the engine — free memory before measuring",
        FormatMemory(*snapshot.swap_used_kb)));
  }
  return warnings;
}

std::optional<std::string> LoadAtStartWarning(const HostIdentity& identity,
                                              const HostState& start) {
  const int cores = identity.logical_cores;
  if (cores <= 0 || !start.load1 || *start.load1 < cores) return std::nullopt;
  return LoadWarning(*start.load1, cores, " at the start of the sitting");
}

std::vector<std::string> HostChangeWarnings(const HostIdentity& identity, const HostState& start,
                                            const HostState& end) {
  std::vector<std::string> warnings;
  if (start.swap_in_pages && end.swap_in_pages && start.swap_out_pages && end.swap_out_pages) {
    // Counters only grow; a decrease means a reboot or a different host, not swapping.
    const uint64_t in =
        *end.swap_in_pages >= *start.swap_in_pages ? *end.swap_in_pages - *start.swap_in_pages : 0;
    const uint64_t out = *end.swap_out_pages >= *start.swap_out_pages
                             ? *end.swap_out_pages - *start.swap_out_pages
                             : 0;
    if (in > 0 || out > 0) {
      warnings.push_back(fmt::format(
          "the host swapped during the sitting ({} pages in, {} out): samples that hit swap are "
          "slow for reasons unrelated to the engine — free memory and measure again",
          in, out));
    }
  }
  if (start.governor != end.governor && !start.governor.empty() && !end.governor.empty()) {
    warnings.push_back(fmt::format(
        "the CPU frequency governor changed from '{}' to '{}' during the sitting: something "
        "retuned the host while measuring — fix it with `sudo cpupower frequency-set -g "
        "performance` and measure again",
        start.governor, end.governor));
  }
  // Only scaling_cur_freq follows the real clock; /proc/cpuinfo on many
  // virtual machines repeats the nominal frequency.
  if (start.cpu_mhz && end.cpu_mhz && start.cpu_mhz_source == "scaling_cur_freq" &&
      end.cpu_mhz_source == "scaling_cur_freq" && *start.cpu_mhz > 0) {
    const double change = *end.cpu_mhz / *start.cpu_mhz - 1;
    if (std::fabs(change) > 0.10) {
      warnings.push_back(fmt::format(
          "cpu0's clock went from {:.0f} MHz to {:.0f} MHz ({:+.0f}%) during the sitting: "
          "frequency scaling or throttling changes sample times — use the 'performance' governor "
          "and check cooling",
          *start.cpu_mhz, *end.cpu_mhz, change * 100));
    }
  }
  // Turbo, ASLR, isolation or SMT retuned mid-sitting (the governor is said above).
  HostState start_tuning, end_tuning;
  start_tuning.tuning = start.tuning;
  end_tuning.tuning = end.tuning;
  if (start.tuning && end.tuning) {
    for (const std::string& change :
         TuningDifferences(start_tuning, RunPlacement{}, end_tuning, RunPlacement{})) {
      warnings.push_back(fmt::format(
          "the host's tuning changed during the sitting ({}): something retuned the host while "
          "measuring — measure again under one tuning",
          change));
    }
  }
  // A load already at the core count when the sitting started is said as loudly as one that
  // rose during it: the sitting's pairs still compare like with like, but each is noisier,
  // and a probe of a thread-count knob measures the contention rather than the engine.
  const int cores = identity.logical_cores;
  if (std::optional<std::string> at_start = LoadAtStartWarning(identity, start)) {
    warnings.push_back(std::move(*at_start));
  } else if (cores > 0 && end.load1 && *end.load1 >= cores) {
    warnings.push_back(LoadWarning(*end.load1, cores, " at the end of the sitting"));
  }
  return warnings;
}

std::string FormatHostReport(const HostIdentity& identity, const HostState& snapshot,
                             const std::vector<std::string>& warnings) {
  const auto optional_number = [](const std::optional<double>& value) {
    return value ? fmt::format("{:.2f}", *value) : std::string("unavailable");
  };
  std::string out = "host\n";
  const auto line = [&out](std::string_view label, std::string_view value) {
    out += fmt::format("  {:<15}{}\n", label, value);
  };
  line("hostname", Unavailable(identity.hostname));
  line("cpu model", Unavailable(identity.cpu_model));
  line("logical cores",
       identity.logical_cores > 0 ? std::to_string(identity.logical_cores) : "unavailable");
  line("kernel", Unavailable(identity.kernel));
  line("memory", identity.memory_total_kb ? FormatMemory(*identity.memory_total_kb) + " total"
                                          : std::string("unavailable"));

  out += fmt::format("state at {}\n", Unavailable(snapshot.time));
  line("calibration", snapshot.calibration_ms
                          ? fmt::format("{:.2f} ms per loop (calibration v{})",
                                        *snapshot.calibration_ms, kCalibrationVersion)
                          : std::string("not measured"));
  if (snapshot.load1 || snapshot.load5 || snapshot.load15) {
    line("load average",
         fmt::format("{} {} {} (1, 5, 15 min)", optional_number(snapshot.load1),
                     optional_number(snapshot.load5), optional_number(snapshot.load15)));
  } else {
    line("load average", "unavailable");
  }
  if (snapshot.cpu_mhz) {
    line("cpu frequency",
         fmt::format("{:.0f} MHz (from {}{})", *snapshot.cpu_mhz, snapshot.cpu_mhz_source,
                     snapshot.cpu_mhz_source == "scaling_cur_freq"
                         ? ""
                         : ": the nominal clock on many hosts, not necessarily the current one"));
  } else {
    line("cpu frequency", "unavailable");
  }
  line("governor", Unavailable(snapshot.governor));
  line("memory free", snapshot.memory_available_kb
                          ? FormatMemory(*snapshot.memory_available_kb) + " available"
                          : std::string("unavailable"));
  line("swap used",
       snapshot.swap_used_kb ? FormatMemory(*snapshot.swap_used_kb) : std::string("unavailable"));

  if (warnings.empty()) {
    out += "warnings: none\n";
  } else {
    out += "warnings\n";
    for (const std::string& warning : warnings) out += fmt::format("  - {}\n", warning);
  }
  return out;
}

}  // namespace culprit
