#include "investigate/registry_config.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/strings.h"
#include "engine/query_command.h"

namespace culprit {
namespace {

Status ReadOrder(const ConfigValue& order, const std::map<std::string, QueryConfig>& queries,
                 RegistryConfig* registry) {
  auto names = order.StringArray("registry.order", "query name");
  if (!names) return names.error();
  if (names->empty()) {
    return order.At("registry.order: expected at least one query, found an empty list")
        .WithHint("list the published table's queries in the order they run, or remove [registry]");
  }
  std::vector<std::string> query_names;
  for (const auto& [name, unused] : queries) query_names.push_back(name);
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    ConfigValue element = order.Element(i);
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

Status ReadCommand(const ConfigValue& command, const EngineConfig& engine,
                   RegistryConfig* registry) {
  auto argv = command.Command("registry.command");
  if (!argv) return argv.error();
  CULPRIT_TRY(
      CheckCommandTemplate(command, "registry.command", engine, {kRegistryQueryPlaceholderName}));
  const bool names_query = std::any_of(argv->begin(), argv->end(), [](const std::string& word) {
    // Filling it in changes a word only where it is a placeholder, not an escaped "{{query}}".
    return FillPlaceholder(word, kRegistryQueryPlaceholderName, "") != word;
  });
  if (!names_query) {
    return command
        .At("registry.command: expected \"{query}\" in some word: the command runs the order up "
            "to the measured query, which it must be told")
        .WithHint("e.g. command = [\"{artifact:engine}\", \"registry\", \"--only\", \"{query}\"]");
  }
  registry->command = std::move(*argv);
  return {};
}

}  // namespace

Status ReadRegistrySection(const ConfigTable& root, const EngineConfig& engine,
                           const std::map<std::string, QueryConfig>& queries,
                           RegistryConfig* registry) {
  std::optional<ConfigValue> node = root.Get("registry");
  if (!node) return {};
  auto table = node->Table("registry");
  if (!table) return table.error();
  CULPRIT_TRY(table->CheckKeys("registry", {"order", "command"}));
  std::optional<ConfigValue> order = table->Get("order");
  if (order) CULPRIT_TRY(ReadOrder(*order, queries, registry));
  if (std::optional<ConfigValue> command = table->Get("command")) {
    if (!order) {
      return command->At(
          "registry.command: expected registry.order beside it: the command runs the order, "
          "which culprit needs to name the queries before the measured one");
    }
    CULPRIT_TRY(ReadCommand(*command, engine, registry));
  }
  return {};
}

std::vector<std::string> RegistryCommandFor(const std::vector<std::string>& command,
                                            const std::string& query) {
  std::vector<std::string> argv;
  for (const std::string& word : command) {
    argv.push_back(FillPlaceholder(word, kRegistryQueryPlaceholderName, query));
  }
  return argv;
}

}  // namespace culprit
