#pragma once

// An installed culprit for the tests that exercise the install tree
// (tests/cli/install_cli_test.cc, completion_cli_test.cc).

#include <filesystem>

namespace culprit {

/// `cmake --install` of this build tree into `prefix` (a scratch directory);
/// fails the test when it fails. The installed culprit: prefix/bin/culprit.
std::filesystem::path InstallCulprit(const std::filesystem::path& prefix);

}  // namespace culprit
