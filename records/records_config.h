#pragma once

// [records] of culprit.toml: where results are archived.

#include <filesystem>
#include <string>
#include <vector>

#include "base/config_reader.h"
#include "base/result.h"

namespace culprit {

/// [records]
struct RecordsConfig {
  std::filesystem::path dir;  ///< Absolute; default <config dir>/benchmarks/results-v1.
  /// The command line of this culprit, passed down by the CLI (never read from the file):
  /// every record a RecordStore of this section writes without one of its own carries it.
  std::vector<std::string> invocation;
};

/// Reads [records]; a relative dir resolves against the file's directory.
Status ReadRecordsSection(const ConfigTable& root, RecordsConfig* records);

}  // namespace culprit
