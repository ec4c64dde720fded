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

/// "exit N\nstdout:\n...\nstderr:\n..." for assertion messages.
std::string DescribeRun(const ProcessResult& result);

/// The whole file, or "" when it cannot be read.
std::string ReadAll(const std::filesystem::path& path);

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace culprit
