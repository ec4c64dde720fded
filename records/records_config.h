#pragma once

// [records] of culprit.toml: where results are archived.

#include <filesystem>

#include "base/config_reader.h"
#include "base/result.h"

namespace culprit {

/// [records]
struct RecordsConfig {
  std::filesystem::path dir;  ///< Absolute; default <config dir>/benchmarks/results-v1.
};

/// Reads [records]; a relative dir resolves against the file's directory.
Status ReadRecordsSection(const ConfigTable& root, RecordsConfig* records);

}  // namespace culprit
