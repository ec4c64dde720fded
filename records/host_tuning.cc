#include "records/host_tuning.h"

#include <fmt/format.h>

namespace culprit {

std::string FormatTuningSummary(const std::optional<HostTuning>& tuning) {
  if (!tuning) return "not recorded (written before culprit kept it)";
  const HostTuning& t = *tuning;
  const auto on_off = [](const std::optional<bool>& on) {
    return on ? std::string(*on ? "on" : "off") : std::string("unavailable");
  };
  // Turbo is on when intel_pstate's no_turbo is 0 or cpufreq's boost is 1.
  std::optional<bool> turbo;
  if (t.turbo_disabled) {
    turbo = !*t.turbo_disabled;
  } else if (t.boost) {
    turbo = *t.boost;
  }
  std::string isolated = "unavailable";
  if (t.isolated_cpus) isolated = t.isolated_cpus->empty() ? "none" : *t.isolated_cpus;
  std::string counters = "not tried";
  if (t.counters_usable) counters = *t.counters_usable ? "usable" : "not usable";
  return fmt::format(
      "ASLR {}, turbo {}, SMT {}, isolated CPUs {}, counters {}",
      t.randomize_va_space ? std::to_string(*t.randomize_va_space) : std::string("unavailable"),
      on_off(turbo), on_off(t.smt_active), isolated, counters);
}

}  // namespace culprit
