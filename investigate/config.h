#pragma once

// culprit.toml as a whole: found, parsed, each section read and validated by
// the layer that owns it (engine/engine_config.h, overrides/override_config.h,
// probes/residency_config.h, probes/measure_options.h, bisect/bisect_config.h,
// records/records_config.h, investigate/registry_config.h), so that a mistake
// is reported once, with its file:line:column, before any build or
// measurement starts.

#include <filesystem>
#include <optional>
#include <string_view>

#include "base/result.h"
#include "bisect/bisect_config.h"
#include "investigate/registry_config.h"

namespace culprit {

/// The whole file. Lower layers take the part they read (EngineSections,
/// ProbeSections, BisectSections), which a Config converts to.
struct Config : BisectSections {
  RegistryConfig registry;
};

/// Reads and validates `file`. Errors are Error::Usage, start with
/// "FILE:LINE:COLUMN: " (FILE as given) and say what was expected; an unknown
/// key or section suggests the nearest valid one.
Result<Config> LoadConfig(const std::filesystem::path& file);

/// As LoadConfig, from text; `file` names the source in messages and its
/// directory resolves relative paths (made absolute against the current directory).
Result<Config> ParseConfig(std::string_view text, const std::filesystem::path& file);

/// The explicit path if given (it must exist), else ./culprit.toml; the error
/// hints at `culprit init` and --config.
Result<std::filesystem::path> FindConfig(const std::optional<std::filesystem::path>& explicit_path);

}  // namespace culprit
