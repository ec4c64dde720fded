#include "investigate/registry_config.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/strings.h"

namespace culprit {

Status ReadRegistrySection(const ConfigTable& root,
                           const std::map<std::string, QueryConfig>& queries,
                           RegistryConfig* registry) {
  std::optional<ConfigValue> node = root.Get("registry");
  if (!node) return {};
  auto table = node->Table("registry");
  if (!table) return table.error();
  CULPRIT_TRY(table->CheckKeys("registry", {"order"}));
  std::optional<ConfigValue> order = table->Get("order");
  if (!order) return {};
  auto names = order->StringArray("registry.order", "query name");
  if (!names) return names.error();
  std::vector<std::string> query_names;
  for (const auto& [name, unused] : queries) query_names.push_back(name);
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    ConfigValue element = order->Element(i);
    if (!queries.count(name)) {
      return element
          .At(fmt::format("registry.order[{}]: expected a query defined in [queries], "
                          "found \"{}\"{}",
                          i, name, DidYouMean(name, query_names)))
          .WithHint(fmt::format("define [queries.{}] or remove it from registry.order; the "
                                "order only lists queries culprit can run",
                                QuoteConfigKey(name)));
    }
    if (std::find(names->begin(), names->begin() + i, name) != names->begin() + i) {
      return element.At(
          fmt::format("registry.order[{}]: expected each query once, found \"{}\" again", i, name));
    }
  }
  registry->order = std::move(*names);
  return {};
}

}  // namespace culprit
