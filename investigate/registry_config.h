#pragma once

// [registry] of culprit.toml: the published benchmark table's query order,
// which `culprit audit` checks records against.

#include <map>
#include <string>
#include <vector>

#include "base/config_reader.h"
#include "base/result.h"
#include "engine/engine_config.h"

namespace culprit {

/// [registry]
struct RegistryConfig {
  std::vector<std::string> order;  ///< Keys of [queries], no duplicates.
};

/// Reads [registry]; every name in its order is one of `queries`, once.
Status ReadRegistrySection(const ConfigTable& root,
                           const std::map<std::string, QueryConfig>& queries,
                           RegistryConfig* registry);

}  // namespace culprit
