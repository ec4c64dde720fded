#include "probes/host_tuning.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include "base/atomic_file.h"
#include "base/numbers.h"
#include "base/strings.h"
#include "engine/cachegrind.h"
#include "engine/instruction_counter.h"
#include "engine/metric_source.h"
#include "records/placement_details.h"

namespace culprit {
namespace {

// A missing or unreadable file is nullopt; a present one is its text, first line only,
// without the blanks around it (sysfs ends every value with '\n').
std::optional<std::string> ReadValue(const std::filesystem::path& file) {
  auto content = ReadFile(file);
  if (!content) return std::nullopt;
  return std::string(TrimBlanks(FirstLine(*content)));
}

// "0" or "1"; anything else is not a guess but unavailable.
std::optional<bool> ParseFlag(const std::optional<std::string>& text) {
  if (text == "0") return false;
  if (text == "1") return true;
  return std::nullopt;
}

// An integer in [low, high], a leading '-' allowed (perf_event_paranoid may be -1).
std::optional<int> ParseSmallInt(const std::optional<std::string>& text, int low, int high) {
  if (!text) return std::nullopt;
  std::string_view digits = *text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) digits.remove_prefix(1);
  std::optional<uint64_t> count = ParseCount(digits);
  if (!count || *count > 1000) return std::nullopt;
  const int value = negative ? -static_cast<int>(*count) : static_cast<int>(*count);
  if (value < low || value > high) return std::nullopt;
  return value;
}

// A CPU list file: "" and the kernel's "(null)" are none; a malformed list is unavailable.
std::optional<std::string> ParseCpuListFile(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  if (text->empty() || *text == "(null)") return std::string();
  if (!ParseCpuList(*text)) return std::nullopt;
  return *text;
}

// isolcpus= of the kernel command line; words after "--" are init's, not the kernel's.
std::optional<std::string> IsolcpusOf(const std::optional<std::string>& cmdline) {
  if (!cmdline) return std::nullopt;
  std::string found;
  for (std::string_view word : SplitWords(*cmdline)) {
    if (word == "--") break;
    if (word.substr(0, 9) == "isolcpus=") found = std::string(word.substr(9));
  }
  return found;
}

std::optional<std::string> ParseSmtControl(const std::optional<std::string>& text) {
  for (const char* known : {"on", "off", "forceoff", "notsupported", "notimplemented"}) {
    if (text == known) return text;
  }
  return std::nullopt;
}

std::string Describe(const std::optional<std::string>& list) {
  if (!list) return "unavailable";
  return list->empty() ? "none" : *list;
}

void Item(std::string* out, std::string_view label, std::string_view value,
          std::string_view advice) {
  *out += fmt::format("  {:<15}{}\n  {:<15}advice: {}\n", label, value, "", advice);
}

std::string OnOff(bool on) { return on ? "on" : "off"; }

void TurboItem(const HostTuning& t, std::string* out) {
  if (t.turbo_disabled) {
    Item(out, "turbo",
         fmt::format("{} (intel_pstate/no_turbo = {})", OnOff(!*t.turbo_disabled),
                     *t.turbo_disabled ? 1 : 0),
         *t.turbo_disabled ? "keep it off: the clock no longer rises and falls with temperature"
                           : "the clock rises with temperature and the other cores' load; "
                             "turn it off with `echo 1 | sudo tee "
                             "/sys/devices/system/cpu/intel_pstate/no_turbo`");
  } else if (t.boost) {
    Item(out, "turbo", fmt::format("{} (cpufreq/boost = {})", OnOff(*t.boost), *t.boost ? 1 : 0),
         *t.boost ? "the clock rises with temperature and the other cores' load; turn it off "
                    "with `echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost`"
                  : "keep it off: the clock no longer rises and falls with temperature");
  } else {
    Item(out, "turbo", "unavailable (no intel_pstate/no_turbo, no cpufreq/boost)",
         "nothing to set from here: on a virtual machine the hypervisor decides the clock");
  }
}

void AslrItem(const HostTuning& t, std::string* out) {
  if (!t.randomize_va_space) {
    Item(out, "ASLR", "unavailable (no /proc/sys/kernel/randomize_va_space)",
         "set `[measure] aslr = false` in culprit.toml to start measured runs without it");
    return;
  }
  const int v = *t.randomize_va_space;
  Item(out, "ASLR",
       fmt::format("{} (randomize_va_space = {})",
                   v == 0   ? "off"
                   : v == 1 ? "on (stack, mmap)"
                            : "on (stack, mmap, heap)",
                   v),
       v == 0 ? "off for every process on this host; culprit's runs need nothing more"
              : "each run gets new stack, heap and library addresses, and with them new cache "
                "and TLB aliasing; set `[measure] aslr = false` in culprit.toml to start "
                "measured runs without it (the host stays as it is)");
}

void IsolationItem(const HostTuning& t, std::string* out) {
  const std::string value =
      fmt::format("isolated {}, nohz_full {}, isolcpus= {}", Describe(t.isolated_cpus),
                  Describe(t.nohz_full), Describe(t.isolcpus));
  const bool isolated = t.isolated_cpus && !t.isolated_cpus->empty();
  Item(out, "isolated CPUs", value,
       isolated ? fmt::format(
                      "pin measured runs there with `[measure] cpus = [{}]`",
                      fmt::join(ParseCpuList(*t.isolated_cpus).value_or(std::vector<int>{}), ", "))
                : "measured runs share every CPU with the rest of the host; boot with "
                  "`isolcpus=N nohz_full=N` and pin them with `[measure] cpus = [N]`");
}

void SmtItem(const HostTuning& t, std::string* out) {
  std::string value = t.smt_active ? OnOff(*t.smt_active) : std::string("unavailable");
  if (t.smt_control) value += fmt::format(" (smt/control = {})", *t.smt_control);
  std::string advice;
  if (t.smt_active && *t.smt_active) {
    advice =
        "a run's sibling thread shares its core with other work; `echo off | sudo tee "
        "/sys/devices/system/cpu/smt/control`, or pin runs to CPUs whose siblings are idle";
  } else if (t.smt_active) {
    advice = "nothing to do: no sibling thread shares a measured run's core";
  } else {
    advice = "nothing to set from here: the kernel does not say whether cores are shared";
  }
  Item(out, "SMT", value, advice);
}

void CountersItem(const HostTuning& t, std::string* out) {
  const std::string paranoid = t.perf_event_paranoid
                                   ? fmt::format("perf_event_paranoid = {}", *t.perf_event_paranoid)
                                   : std::string("perf_event_paranoid unavailable");
  if (!t.counters_usable) {
    Item(out, "counters", fmt::format("unavailable: not tried ({})", paranoid),
         "run `culprit host` on the host itself to find out");
  } else if (*t.counters_usable) {
    Item(out, "counters", fmt::format("usable: user-space instructions ({})", paranoid),
         "instruction counts can come from the hardware");
  } else {
    const bool refused =
        t.counters_error.rfind("EACCES", 0) == 0 || t.counters_error.rfind("EPERM", 0) == 0;
    Item(out, "counters", fmt::format("not usable: {} ({})", t.counters_error, paranoid),
         refused ? "allow counting your own processes with `echo 2 | sudo tee "
                   "/proc/sys/kernel/perf_event_paranoid`"
                 : "this host (often a virtual machine) exposes no instruction counter; "
                   "instruction counts must come from valgrind");
  }
}

void LoadItem(const HostIdentity& identity, const HostState& s, std::string* out) {
  if (!s.load1) {
    Item(out, "load", "unavailable (no /proc/loadavg)",
         "check with `top` that nothing else runs while measuring");
    return;
  }
  const int cores = identity.logical_cores;
  const std::string value = cores > 0 ? fmt::format("{:.2f} (1 min) on {} cores", *s.load1, cores)
                                      : fmt::format("{:.2f} (1 min)", *s.load1);
  const bool busy = cores > 0 && *s.load1 >= 0.5 * cores;
  Item(out, "load", value,
       busy ? "other work is running: wait for it or stop it before measuring"
            : "quiet enough; keep other work off the host while measuring");
}

}  // namespace

std::optional<std::vector<int>> ParseCpuList(std::string_view list) {
  list = TrimBlanks(list);
  std::vector<int> cpus;
  if (list.empty()) return cpus;
  while (true) {
    const auto comma = list.find(',');
    const auto range = list.substr(0, comma);
    const auto dash = range.find('-');
    const auto first = ParseCount(range.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : ParseCount(range.substr(dash + 1));
    // 4096 is the kernel's largest NR_CPUS on common configurations; far above is junk.
    if (!first || !last || *last < *first || *last >= 65536) return std::nullopt;
    for (uint64_t cpu = *first; cpu <= *last; ++cpu) cpus.push_back(static_cast<int>(cpu));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string FormatCpuList(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

HostTuning ReadHostTuning(const std::filesystem::path& root, bool try_counters) {
  const std::filesystem::path cpu = root / "sys/devices/system/cpu";
  HostTuning t;
  t.turbo_disabled = ParseFlag(ReadValue(cpu / "intel_pstate/no_turbo"));
  t.boost = ParseFlag(ReadValue(cpu / "cpufreq/boost"));
  t.randomize_va_space =
      ParseSmallInt(ReadValue(root / "proc/sys/kernel/randomize_va_space"), 0, 2);
  t.isolated_cpus = ParseCpuListFile(ReadValue(cpu / "isolated"));
  t.nohz_full = ParseCpuListFile(ReadValue(cpu / "nohz_full"));
  t.isolcpus = IsolcpusOf(ReadValue(root / "proc/cmdline"));
  t.smt_active = ParseFlag(ReadValue(cpu / "smt/active"));
  t.smt_control = ParseSmtControl(ReadValue(cpu / "smt/control"));
  t.perf_event_paranoid =
      ParseSmallInt(ReadValue(root / "proc/sys/kernel/perf_event_paranoid"), -1, 4);
  if (try_counters) TryInstructionCounter(&t);
  return t;
}

void TryInstructionCounter(HostTuning* tuning) {
  RealInstructionCounterFactory counters;
  Status probe = counters.Probe();
  tuning->counters_usable = probe.ok();
  tuning->counters_error = probe ? std::string() : probe.error().message();
}

MetricSources ProbeMetricSources() {
  MetricSources sources;
  sources.instructions = HostInstructionSource();
  Result<std::filesystem::path> valgrind = FindValgrind(MetricRule::Kind::kInstructions);
  if (!valgrind) {
    sources.missing = "no valgrind on PATH";
    return sources;
  }
  sources.valgrind = valgrind->string();
  Result<std::string> version = ValgrindVersion(*valgrind);
  if (version) sources.valgrind_version = *version;
  return sources;
}

std::string FormatMetricSources(const MetricSources& sources) {
  const bool counted = sources.instructions.source == MetricSource::kPerfEvent;
  const std::string counters =
      counted ? std::string("instructions: perf_event (hardware counter, user space)")
      : sources.instructions.forced
          ? fmt::format("hardware counters: not tried ({})", sources.instructions.why)
          : fmt::format("hardware counters: not usable here ({})", sources.instructions.why);
  const std::string cachegrind_metrics =
      counted ? "ll_misses, d1_misses" : "instructions, ll_misses, d1_misses";
  std::string out;
  if (sources.valgrind.empty()) {
    Item(&out, "metric sources",
         counted ? fmt::format("{}; {}: unavailable ({})", counters, cachegrind_metrics,
                               sources.missing)
                 : fmt::format("{}: unavailable ({}); {}", cachegrind_metrics, sources.missing,
                               counters),
         "install valgrind to measure them: apt install valgrind (scripts/install-deps does)");
    return out;
  }
  const std::string version =
      sources.valgrind_version.empty() ? std::string("version unknown") : sources.valgrind_version;
  const std::string cachegrind =
      fmt::format("{}: cachegrind ({}, {})", cachegrind_metrics, version, sources.valgrind);
  Item(&out, "metric sources",
       counted ? fmt::format("{}; {}", counters, cachegrind)
               : fmt::format("{}; {}", cachegrind, counters),
       "a run under valgrind is many times slower than the same run alone (docs/usage.md has "
       "a measured figure); an instruction count repeats, so a sitting on it stops after a "
       "few pairs");
  return out;
}

std::string FormatHostTuning(const HostIdentity& identity, const HostState& snapshot) {
  std::string out = "tuning (read only: culprit changes none of it)\n";
  if (!snapshot.tuning) {
    out += "  unavailable\n";
    return out;
  }
  const HostTuning& t = *snapshot.tuning;
  if (snapshot.governor.empty()) {
    Item(&out, "governor", "unavailable (no cpu0/cpufreq/scaling_governor)",
         "nothing to set from here: on a virtual machine the hypervisor decides the clock");
  } else {
    Item(&out, "governor", snapshot.governor,
         snapshot.governor == "performance"
             ? "keep it: the clock does not follow the load"
             : "the clock follows the load; set `sudo cpupower frequency-set -g performance`");
  }
  TurboItem(t, &out);
  AslrItem(t, &out);
  IsolationItem(t, &out);
  SmtItem(t, &out);
  CountersItem(t, &out);
  out += FormatMetricSources(ProbeMetricSources());
  LoadItem(identity, snapshot, &out);
  return out;
}

namespace {

template <typename T>
void Differ(const std::optional<T>& then, const std::optional<T>& now, std::string_view what,
            const std::function<std::string(const T&)>& show, std::vector<std::string>* out) {
  if (then && now && *then != *now) {
    out->push_back(fmt::format("{} was {} then, {} now", what, show(*then), show(*now)));
  }
}

}  // namespace

std::vector<std::string> TuningDifferences(const Record& then, const Record& now) {
  return TuningDifferences(then.start, PlacementOfRecord(then), now.start, PlacementOfRecord(now));
}

std::vector<std::string> TuningDifferences(const HostState& then, const RunPlacement& pa,
                                           const HostState& now, const RunPlacement& pb) {
  std::vector<std::string> out;
  const std::function<std::string(const bool&)> on_off = [](const bool& b) { return OnOff(b); };
  const std::function<std::string(const bool&)> flag = [](const bool& b) {
    return std::string(b ? "1" : "0");
  };
  const std::function<std::string(const int&)> number = [](const int& v) {
    return std::to_string(v);
  };
  const std::function<std::string(const std::string&)> text = [](const std::string& s) {
    return s.empty() ? std::string("none") : s;
  };
  if (!then.governor.empty() && !now.governor.empty()) {
    Differ<std::string>(then.governor, now.governor, "the governor", text, &out);
  }
  const std::optional<HostTuning>& a = then.tuning;
  const std::optional<HostTuning>& b = now.tuning;
  if (a && b) {
    Differ<bool>(a->turbo_disabled, b->turbo_disabled, "intel_pstate/no_turbo", flag, &out);
    Differ<bool>(a->boost, b->boost, "cpufreq/boost", flag, &out);
    Differ<int>(a->randomize_va_space, b->randomize_va_space, "randomize_va_space", number, &out);
    Differ<std::string>(a->isolated_cpus, b->isolated_cpus, "the isolated CPU list", text, &out);
    Differ<std::string>(a->nohz_full, b->nohz_full, "nohz_full", text, &out);
    Differ<bool>(a->smt_active, b->smt_active, "SMT", on_off, &out);
  } else if (a || b) {
    out.push_back(
        fmt::format("the host's tuning is unknown for the {} record (written before "
                    "culprit kept it); it may differ",
                    a ? "newer" : "older"));
  }
  if (pa.cpus != pb.cpus) {
    out.push_back(
        fmt::format("measured runs were pinned to {} then, {} now",
                    pa.cpus.empty() ? std::string("no CPU") : "CPUs " + FormatCpuList(pa.cpus),
                    pb.cpus.empty() ? std::string("no CPU") : "CPUs " + FormatCpuList(pb.cpus)));
  }
  if (pa.aslr != pb.aslr) {
    out.push_back(fmt::format("measured runs started with ASLR {} then, {} now", OnOff(pa.aslr),
                              OnOff(pb.aslr)));
  }
  return out;
}

void RecordPlacement(const RunPlacement& placement, Record* record) {
  PlacementDetails details;
  details.cpus = placement.cpus.empty() ? std::string(kAnyCpu) : FormatCpuList(placement.cpus);
  details.aslr = placement.aslr;
  details.WriteTo(&record->details);
}

RunPlacement PlacementOfRecord(const Record& record) {
  const PlacementDetails details = PlacementDetails::FromRecord(record);
  RunPlacement placement;
  const std::string cpus = details.cpus.value_or("");
  if (!cpus.empty() && cpus != kAnyCpu) {
    placement.cpus = ParseCpuList(cpus).value_or(std::vector<int>{});
  }
  placement.aslr = details.aslr.value_or(true);
  return placement;
}

Status CheckCpusUsable(const std::vector<int>& cpus, const std::filesystem::path& root) {
  const std::optional<std::string> online_text = ReadValue(root / "sys/devices/system/cpu/online");
  const std::optional<std::vector<int>> online =
      online_text ? ParseCpuList(*online_text) : std::nullopt;
  std::optional<std::vector<int>> allowed;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (root == "/" && ::sched_getaffinity(0, sizeof(set), &set) == 0) {
    allowed.emplace();
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) allowed->push_back(cpu);
    }
  }
  for (int cpu : cpus) {
    if (cpu < 0) return Error(fmt::format("CPU {} is not a CPU number (0 or more)", cpu));
    if (online && !std::binary_search(online->begin(), online->end(), cpu)) {
      return Error(fmt::format("CPU {} does not exist on this host (online CPUs: {})", cpu,
                               FormatCpuList(*online)));
    }
    if (!online && cpu >= CPU_SETSIZE) {
      return Error(
          fmt::format("CPU {} does not exist on this host (at most {} CPUs)", cpu, CPU_SETSIZE));
    }
    if (allowed && !std::binary_search(allowed->begin(), allowed->end(), cpu)) {
      return Error(fmt::format(
          "CPU {} is not one culprit may run on (allowed: {}; a cgroup cpuset or taskset limits "
          "them)",
          cpu, FormatCpuList(*allowed)));
    }
  }
  return {};
}

}  // namespace culprit
