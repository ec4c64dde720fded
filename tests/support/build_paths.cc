#include "tests/support/build_paths.h"

// The one test file compiled with the build directory's paths (tests/CMakeLists.txt).

namespace culprit {

const std::string& CulpritExe() {
  static const std::string path = CULPRIT_EXE;
  return path;
}

const std::string& BinaryDir() {
  static const std::string path = CULPRIT_BINARY_DIR;
  return path;
}

std::string FixturePath(std::string_view name) {
  return std::string(CULPRIT_FIXTURE_DIR) + "/" + std::string(name);
}

const std::string& EnospcPreload() {
  static const std::string path = CULPRIT_ENOSPC_PRELOAD;
  return path;
}

}  // namespace culprit
