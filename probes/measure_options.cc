#include "probes/measure_options.h"

#include <fmt/format.h>

#include <algorithm>

#include "probes/host_tuning.h"

namespace culprit {

std::optional<MeasureRule> BrokenMeasureRule(const MeasureConfig& measure) {
  if (!(measure.band > 0 && measure.band < 1)) return MeasureRule::kBand;
  if (!(measure.confidence > 0 && measure.confidence < 1)) return MeasureRule::kConfidence;
  if (measure.min_pairs < 2) return MeasureRule::kMinPairs;
  if (measure.max_pairs > MeasureConfig::kMaxPairs) return MeasureRule::kMaxPairs;
  if (measure.min_pairs > measure.max_pairs) return MeasureRule::kPairOrder;
  if (measure.warmup < 0) return MeasureRule::kWarmup;
  return std::nullopt;
}

Status ReadMeasureSection(const ConfigTable& root, MeasureConfig* measure) {
  std::optional<ConfigValue> node = root.Get("measure");
  if (!node) return {};
  auto table_or = node->Table("measure");
  if (!table_or) return table_or.error();
  const ConfigTable& table = *table_or;
  CULPRIT_TRY(table.CheckKeys("measure", {"band", "confidence", "min_pairs", "max_pairs", "warmup",
                                          "calibrate_between_looks", "cpus", "aslr"}));
  // Each read checks its key against the bound BrokenMeasureRule enforces, so
  // that the message points at that one value; what BrokenMeasureRule can still
  // find is the order of the two pair budgets, which spans two keys.
  CULPRIT_TRY(table.ReadDouble("measure", "band", &measure->band, 0, 1));
  CULPRIT_TRY(table.ReadDouble("measure", "confidence", &measure->confidence, 0, 1));
  CULPRIT_TRY(
      table.ReadInt("measure", "min_pairs", &measure->min_pairs, 2, MeasureConfig::kMaxPairs));
  CULPRIT_TRY(
      table.ReadInt("measure", "max_pairs", &measure->max_pairs, 2, MeasureConfig::kMaxPairs));
  CULPRIT_TRY(table.ReadInt("measure", "warmup", &measure->warmup, 0));
  CULPRIT_TRY(
      table.ReadBool("measure", "calibrate_between_looks", &measure->calibrate_between_looks));
  std::optional<MeasureRule> broken = BrokenMeasureRule(*measure);
  if (!broken) return {};
  // Point at whichever of the two the file sets (min_pairs if both).
  std::optional<ConfigValue> at = table.Get("min_pairs");
  if (!at) at = table.Get("max_pairs");
  if (*broken != MeasureRule::kPairOrder || !at) {
    return table.At("[measure]: expected min_pairs <= max_pairs and values in range");
  }
  return at->At(fmt::format("measure.min_pairs: expected at most max_pairs ({}), found {}",
                            measure->max_pairs, measure->min_pairs));
}

Status ReadMeasuredRuns(const ConfigTable& root, RunPlacement* runs,
                        const std::filesystem::path& host_root) {
  std::optional<ConfigValue> node = root.Get("measure");
  if (!node) return {};
  auto table_or = node->Table("measure");
  if (!table_or) return table_or.error();
  const ConfigTable& table = *table_or;
  CULPRIT_TRY(table.ReadBool("measure", "aslr", &runs->aslr));
  std::optional<ConfigValue> cpus = table.Get("cpus");
  if (!cpus) return {};
  constexpr std::string_view kWhat = "an array of CPU numbers, e.g. [0, 1]";
  if (!cpus->IsArray()) return cpus->Expected("measure.cpus", kWhat);
  if (cpus->ArraySize() == 0) {
    return cpus->At("measure.cpus: expected at least one CPU; to not pin, leave the key out");
  }
  std::vector<int> list;
  for (size_t i = 0; i < cpus->ArraySize(); ++i) {
    const ConfigValue element = cpus->Element(i);
    const std::string path = fmt::format("measure.cpus[{}]", i);
    std::optional<int64_t> cpu = element.AsInteger();
    if (!cpu) return element.Expected(path, "a CPU number (an integer, 0 or more)");
    if (*cpu < 0 || *cpu > 1'000'000) {
      return element.At(fmt::format("{}: expected a CPU number (0 or more), found {}", path, *cpu));
    }
    // Each CPU is checked where it is written, so the message points at the one to fix.
    if (Status usable = CheckCpusUsable({static_cast<int>(*cpu)}, host_root); !usable) {
      return element.At(fmt::format("{}: {}", path, usable.error().message()));
    }
    list.push_back(static_cast<int>(*cpu));
  }
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  runs->cpus = std::move(list);
  return {};
}

}  // namespace culprit
