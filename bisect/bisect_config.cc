#include "bisect/bisect_config.h"

namespace culprit {

Status ReadBisectSection(const ConfigTable& root, BisectConfig* bisect) {
  std::optional<ConfigValue> node = root.Get("bisect");
  if (!node) return {};
  auto table = node->Table("bisect");
  if (!table) return table.error();
  CULPRIT_TRY(table->CheckKeys(
      "bisect",
      {"target_probability", "max_builds", "max_pairs", "pairs_per_step", "max_changes",
       "confirm_max_pairs", "check_max_pairs", "max_total_pairs", "prove_first", "step_odds",
       "plan_verification", "confirm_look_growth", "joint_looks", "spend_on_root_time"}));
  CULPRIT_TRY(table->ReadDouble("bisect", "target_probability", &bisect->target_probability, 0, 1));
  CULPRIT_TRY(table->ReadDouble("bisect", "step_odds", &bisect->step_odds, 1, 1e9));
  CULPRIT_TRY(table->ReadBool("bisect", "plan_verification", &bisect->plan_verification));
  CULPRIT_TRY(table->ReadBool("bisect", "joint_looks", &bisect->joint_looks));
  CULPRIT_TRY(table->ReadBool("bisect", "spend_on_root_time", &bisect->spend_on_root_time));
  CULPRIT_TRY(
      table->ReadDouble("bisect", "confirm_look_growth", &bisect->confirm_look_growth, 1, 4));
  CULPRIT_TRY(table->ReadInt("bisect", "max_builds", &bisect->max_builds, 0));
  CULPRIT_TRY(table->ReadInt("bisect", "max_pairs", &bisect->max_pairs, 0));
  CULPRIT_TRY(table->ReadInt("bisect", "pairs_per_step", &bisect->pairs_per_step, 0));
  CULPRIT_TRY(table->ReadInt("bisect", "max_changes", &bisect->max_changes, 1));
  CULPRIT_TRY(table->ReadInt("bisect", "confirm_max_pairs", &bisect->confirm_max_pairs, 0,
                             MeasureConfig::kMaxPairs));
  CULPRIT_TRY(table->ReadInt("bisect", "check_max_pairs", &bisect->check_max_pairs, 0,
                             MeasureConfig::kMaxPairs));
  CULPRIT_TRY(table->ReadInt("bisect", "max_total_pairs", &bisect->max_total_pairs, 0));
  CULPRIT_TRY(table->ReadBool("bisect", "prove_first", &bisect->prove_first));
  return {};
}

}  // namespace culprit
