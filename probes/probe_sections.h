#pragma once

// The parts of culprit.toml the probes layer reads: the engine's sections and
// the ones probes and the layers below it own. Measuring and isolating code
// takes this, never the whole file (investigate/config.h assembles that).

#include <map>
#include <string>

#include "engine/engine_config.h"
#include "overrides/override_set.h"
#include "probes/measure_options.h"
#include "probes/residency_config.h"
#include "records/records_config.h"

namespace culprit {

struct ProbeSections : EngineSections {
  std::map<std::string, NamedOverride> overrides;  ///< [overrides.NAME]
  HarnessConfig harness;
  std::map<std::string, ResidencyPlan> residency;  ///< [residency."NAME"]
  MeasureConfig measure;
  RecordsConfig records;
};

}  // namespace culprit
