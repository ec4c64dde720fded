#pragma once

// Paths into the build tree the test binary belongs to, fixed when it was configured.

#include <string>
#include <string_view>

namespace culprit {

// Why functions and not -D definitions: these paths differ between the release build and
// the sanitizer lane's (./build, ./build-asan). They are compiled into build_paths.cc
// alone, so every other test file compiles to the same object in both builds and ccache
// gives the second build the first's objects (scripts/test-sanitizers, CMakeLists.txt).

/// The culprit executable under test.
const std::string& CulpritExe();

/// The build directory (the one `cmake --install` and CPack read).
const std::string& BinaryDir();

/// The path of the fixture program `name` (tests/fixtures/<name>.cc), built beside the tests.
std::string FixturePath(std::string_view name);

/// The disk-full tests' fake full disk, a library to LD_PRELOAD (tests/fault/enospc_preload.cc).
const std::string& EnospcPreload();

}  // namespace culprit
