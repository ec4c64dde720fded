#pragma once

// [registry] of culprit.toml: the published benchmark table's query order,
// and how the engine runs that order in one process, which `culprit audit`
// measures the order factor with (docs/audit.md).

#include <map>
#include <string>
#include <vector>

#include "base/config_reader.h"
#include "base/result.h"
#include "engine/engine_config.h"

namespace culprit {

/// [registry]
struct RegistryConfig {
  std::vector<std::string> order;  ///< Keys of [queries], no duplicates; non-empty when given.
  /// The engine's way of running the order in one process and reporting the
  /// measured query: an argv template with "{query}" (the measured query's
  /// name) besides the query placeholders (engine/query_command.h), e.g.
  /// ["{artifact:eventstore}", "registry", "--only", "{query}"]. Its output is
  /// read with the measured query's own metric. Empty: the harness way
  /// (`run Q 1` for each query before it, then the measured query).
  std::vector<std::string> command;
};

/// The placeholder of [registry] command that names the measured query: "{query}".
inline constexpr char kRegistryQueryPlaceholderName[] = "query";

/// Reads [registry]; every name in its order is one of `queries`, once; a
/// command has "{query}" in some word and uses only `engine`'s artifacts, and
/// needs an order.
Status ReadRegistrySection(const ConfigTable& root, const EngineConfig& engine,
                           const std::map<std::string, QueryConfig>& queries,
                           RegistryConfig* registry);

/// `command` with every "{query}" replaced by `query` (FillPlaceholder: "{{" stays an escape,
/// other placeholders are kept for ExpandCommand).
std::vector<std::string> RegistryCommandFor(const std::vector<std::string>& command,
                                            const std::string& query);

}  // namespace culprit
