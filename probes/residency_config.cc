#include "probes/residency_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "base/strings.h"
#include "probes/measure_options.h"

namespace culprit {
namespace {

// Structure names travel as "hold NAME" lines: no whitespace.
Status ReadStructureList(const ConfigTable& condition, std::string_view path, std::string_view key,
                         std::vector<std::string>* out) {
  std::optional<ConfigValue> list = condition.Get(key);
  if (!list) return {};
  std::string list_path = ConfigKeyPath(path, key);
  auto names = list->StringArray(list_path, "structure name");
  if (!names) return names.error();
  for (size_t j = 0; j < names->size(); ++j) {
    const std::string& name = (*names)[j];
    if (std::any_of(name.begin(), name.end(), [](char c) { return std::isspace(c); })) {
      return list->Element(j).Expected(
          fmt::format("{}[{}]", list_path, j),
          "a structure name without spaces (it is sent as \"hold NAME\")");
    }
  }
  *out = std::move(*names);
  return {};
}

Status ReadCondition(const ConfigValue& element, std::string_view element_path,
                     const ResidencyPlan& plan, ResidencyCondition* condition) {
  auto condition_table = element.Table(element_path);
  if (!condition_table) return condition_table.error();
  const ConfigTable& table = *condition_table;
  CULPRIT_TRY(table.CheckKeys(element_path, {"name", "hold", "release"}));
  if (!table.Contains("name")) {
    return element.At(
        fmt::format("{}: expected a name, such as name = \"nothing held\"", element_path));
  }
  CULPRIT_TRY(table.ReadString(element_path, "name", &condition->name, false));
  for (const ResidencyCondition& other : plan.conditions) {
    if (other.name == condition->name) {
      return table.Get("name")->At(
          fmt::format("{}.name: expected a name not used by another condition of this "
                      "plan, found \"{}\" again",
                      element_path, condition->name));
    }
  }
  CULPRIT_TRY(ReadStructureList(table, element_path, "hold", &condition->hold));
  CULPRIT_TRY(ReadStructureList(table, element_path, "release", &condition->release));
  for (size_t j = 0; j < condition->release.size(); ++j) {
    const std::string& name = condition->release[j];
    if (std::find(condition->hold.begin(), condition->hold.end(), name) == condition->hold.end()) {
      return table.Get("release")
          ->Element(j)
          .At(fmt::format("{}.release[{}]: expected a structure this condition holds, "
                          "found '{}', which is not in its hold list{}",
                          element_path, j, name, DidYouMean(name, condition->hold)))
          .WithHint(
              "a released condition holds the structure first, then releases it: "
              "hold = [\"x\"], release = [\"x\"]");
    }
  }
  return {};
}

Status ReadPlan(const ConfigTable& plan_node, std::string_view path,
                const std::map<std::string, QueryConfig>& queries, const HarnessConfig& harness,
                ResidencyPlan* plan) {
  CULPRIT_TRY(plan_node.CheckKeys(path, {"query", "conditions", "max_rounds"}));
  CULPRIT_TRY(
      plan_node.ReadInt(path, "max_rounds", &plan->max_rounds, 2, MeasureConfig::kMaxPairs));
  std::optional<ConfigValue> query = plan_node.Get("query");
  if (!query) {
    return plan_node.At(
        fmt::format("[{}] is missing 'query': expected the query to measure", path));
  }
  CULPRIT_TRY(plan_node.ReadString(path, "query", &plan->query, /*allow_empty=*/false));
  if (!queries.count(plan->query)) {
    std::vector<std::string> query_names;
    for (const auto& [name, unused] : queries) query_names.push_back(name);
    return query->At(fmt::format("{}: expected a query defined in [queries], found \"{}\"{}",
                                 ConfigKeyPath(path, "query"), plan->query,
                                 DidYouMean(plan->query, query_names)));
  }
  std::optional<ConfigValue> conditions = plan_node.Get("conditions");
  if (!conditions) {
    return plan_node.At(
        fmt::format("[{}] is missing 'conditions': expected an array such as "
                    "[{{ name = \"nothing held\" }}, {{ name = \"held\", hold = [\"x\"] }}]",
                    path));
  }
  std::string conditions_path = ConfigKeyPath(path, "conditions");
  if (!conditions->IsArray() || conditions->ArraySize() == 0) {
    return conditions->Expected(conditions_path,
                                "a non-empty array of { name = ..., hold = [...] }");
  }
  for (size_t i = 0; i < conditions->ArraySize(); ++i) {
    ResidencyCondition condition;
    CULPRIT_TRY(ReadCondition(conditions->Element(i), fmt::format("{}[{}]", conditions_path, i),
                              *plan, &condition));
    plan->conditions.push_back(std::move(condition));
  }
  if (harness.command.empty()) {
    return plan_node
        .At(fmt::format("[{}] needs the engine's in-process harness: expected a [harness] "
                        "section with its command",
                        path))
        .WithHint(
            "residency isolation measures every condition in one process, through the "
            "harness protocol (hold, release, run, quit)");
  }
  return {};
}

}  // namespace

Status ReadHarnessSection(const ConfigTable& root, const EngineConfig& engine,
                          HarnessConfig* harness) {
  std::optional<ConfigValue> node = root.Get("harness");
  if (!node) return {};
  auto table = node->Table("harness");
  if (!table) return table.error();
  CULPRIT_TRY(table->CheckKeys("harness", {"command", "timeout"}));
  std::optional<ConfigValue> command = table->Get("command");
  if (!command) {
    return node->At(
        "[harness] is missing 'command': expected the argv that starts the "
        "engine's in-process harness");
  }
  auto argv = command->Command("harness.command");
  if (!argv) return argv.error();
  CULPRIT_TRY(CheckCommandTemplate(*command, "harness.command", engine));
  harness->command = std::move(*argv);
  CULPRIT_TRY(table->ReadDuration("harness", "timeout", &harness->timeout));
  return {};
}

Status ReadResidencySection(const ConfigTable& root,
                            const std::map<std::string, QueryConfig>& queries,
                            const HarnessConfig& harness,
                            std::map<std::string, ResidencyPlan>* residency) {
  std::optional<ConfigValue> node = root.Get("residency");
  if (!node) return {};
  auto table = node->Table("residency");
  if (!table) return table.error();
  for (const ConfigEntry& entry : table->Entries()) {
    std::string path = ConfigKeyPath("residency", entry.key);
    auto plan_table = entry.value.Table(path);
    if (!plan_table) return plan_table.error();
    ResidencyPlan plan;
    plan.name = entry.key;
    CULPRIT_TRY(ReadPlan(*plan_table, path, queries, harness, &plan));
    (*residency)[plan.name] = std::move(plan);
  }
  return {};
}

}  // namespace culprit
