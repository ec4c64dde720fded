#pragma once

// A HostTuning as JSON, for record.cc (it sits inside each HostState of a
// record, and so in `culprit host --json`). Internal to records/: the only
// header of the folder that names nlohmann.

#include <nlohmann/json.hpp>
#include <string_view>

#include "base/result.h"
#include "records/host_tuning.h"

namespace culprit {

/// Every field, null where the tuning has nothing (so "unavailable" reads back as such).
nlohmann::ordered_json HostTuningToJson(const HostTuning& tuning);

/// Reads what HostTuningToJson wrote; absent and null fields stay nullopt, unknown ones are
/// ignored. `path` ("start.tuning") names a field of the wrong type in the error:
/// "field 'start.tuning.smt_active' should be true or false".
Result<HostTuning> HostTuningFromJson(const nlohmann::ordered_json& json, std::string_view path);

}  // namespace culprit
