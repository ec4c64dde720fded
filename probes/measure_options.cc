#include "probes/measure_options.h"

#include <fmt/format.h>

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
                                          "calibrate_between_looks"}));
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

}  // namespace culprit
