#pragma once

// [overrides.NAME] sections of culprit.toml: named override sets, validated
// once when the file is read (see overrides/override_set.h for their use).

#include <map>
#include <string>

#include "base/config_reader.h"
#include "base/result.h"
#include "overrides/override_set.h"

namespace culprit {

/// Reads every [overrides.NAME]: a name without '=', env names valid, a
/// variable not both set and unset, and at least one change.
Status ReadOverridesSection(const ConfigTable& root, std::map<std::string, NamedOverride>* sets);

}  // namespace culprit
