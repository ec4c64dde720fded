#pragma once

// Helpers for tests that drive the real `culprit` executable.

#include <filesystem>
#include <string>
#include <vector>

#include "engine/process.h"

namespace culprit {

/// Runs CULPRIT_EXE with `args` from `cwd`. The timeout only guards against a
/// wedged test; no test asserts on time.
ProcessResult RunCulprit(const std::vector<std::string>& args, const std::filesystem::path& cwd);

/// Writes <dir>/culprit.toml for the small C engines the integration tests
/// create in <dir>/repo: built with `cc -O1 -o prog main.c`, one query `loop`
/// whose program prints its own `min_ms=`; records in <dir>/records and the
/// build cache in <dir>/cache. Returns the file's path.
std::filesystem::path WriteLoopEngineConfig(const std::filesystem::path& dir,
                                            const std::string& query_timeout, double band);

/// "exit N\nstdout:\n...\nstderr:\n..." for assertion messages.
std::string DescribeRun(const ProcessResult& result);

/// The whole file, or "" when it cannot be read.
std::string ReadAll(const std::filesystem::path& path);

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace culprit
