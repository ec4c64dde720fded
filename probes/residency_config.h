#pragma once

// [harness] and [residency."NAME"] of culprit.toml: the engine's in-process
// harness and the isolation plans measured through it (see DESIGN.md,
// protocol). Read here, beside the isolation code that uses them.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "base/config_reader.h"
#include "base/result.h"
#include "engine/engine_config.h"

namespace culprit {

/// [harness]: the engine's in-process harness.
struct HarnessConfig {
  std::vector<std::string> command;  ///< Empty: the engine has no harness.
  /// The longest one protocol command (hold, release, run) may take.
  std::chrono::milliseconds timeout{5 * 60 * 1000};
};

struct ResidencyCondition {
  std::string name;
  std::vector<std::string> hold;     ///< Structure names sent as "hold NAME".
  std::vector<std::string> release;  ///< Each also in `hold`: only what was held can be released.
};

/// [residency."NAME"]: an isolation plan for one suspect structure.
struct ResidencyPlan {
  std::string name;
  std::string query;                           ///< A key of [queries].
  std::vector<ResidencyCondition> conditions;  ///< At least one; names unique.
  /// Rounds at the last look (`max_rounds`); 0: [measure] max_pairs. A plan whose released
  /// condition must be shown a tie may need more rounds than a probe needs pairs: the
  /// reversibility verdict asks for a NULL, whose interval must fit inside the band.
  int max_rounds = 0;
};

/// Reads [harness]; its command may use `engine`'s artifacts.
Status ReadHarnessSection(const ConfigTable& root, const EngineConfig& engine,
                          HarnessConfig* harness);

/// Reads every [residency."NAME"]: its query one of `queries`, and a harness
/// (`harness` with a command) to measure it through.
Status ReadResidencySection(const ConfigTable& root,
                            const std::map<std::string, QueryConfig>& queries,
                            const HarnessConfig& harness,
                            std::map<std::string, ResidencyPlan>* residency);

}  // namespace culprit
