#include "overrides/override_config.h"

#include <fmt/format.h>

namespace culprit {

Status ReadOverridesSection(const ConfigTable& root, std::map<std::string, NamedOverride>* sets) {
  std::optional<ConfigValue> node = root.Get("overrides");
  if (!node) return {};
  auto table = node->Table("overrides");
  if (!table) return table.error();
  for (const ConfigEntry& entry : table->Entries()) {
    std::string path = ConfigKeyPath("overrides", entry.key);
    if (entry.key.find('=') != std::string::npos || entry.key.empty()) {
      // `--override NAME` tells a set name from K=V by the '='.
      return root.source().At(
          entry.key_position,
          fmt::format("{}: expected an override set name without '=', found '{}'", path,
                      entry.key));
    }
    auto set_table = entry.value.Table(path);
    if (!set_table) return set_table.error();
    CULPRIT_TRY(set_table->CheckKeys(path, {"env", "unset", "hypothesis"}));
    NamedOverride set;
    set.name = entry.key;
    if (std::optional<ConfigValue> env = set_table->Get("env")) {
      auto parsed = env->Environment(ConfigKeyPath(path, "env"));
      if (!parsed) return parsed.error();
      set.env = std::move(*parsed);
    }
    if (std::optional<ConfigValue> unset = set_table->Get("unset")) {
      auto names = unset->EnvironmentNames(ConfigKeyPath(path, "unset"));
      if (!names) return names.error();
      for (size_t i = 0; i < names->size(); ++i) {
        if (set.env.count((*names)[i])) {
          return unset->Element(i).At(
              fmt::format("{}[{}]: expected a variable this set does not also set in env, "
                          "found '{}'",
                          ConfigKeyPath(path, "unset"), i, (*names)[i]));
        }
      }
      set.unset = std::move(*names);
    }
    if (set.env.empty() && set.unset.empty()) {
      return entry.value.At(
          fmt::format("[{}] changes nothing: expected env = {{ NAME = \"value\" "
                      "}} or unset = [\"NAME\"]",
                      path));
    }
    CULPRIT_TRY(set_table->ReadString(path, "hypothesis", &set.hypothesis));
    (*sets)[set.name] = std::move(set);
  }
  return {};
}

}  // namespace culprit
