#include "tests/support/install_tree.h"

#include <gtest/gtest.h>

#include "engine/process.h"
#include "tests/support/build_paths.h"
#include "tests/support/culprit_cli.h"

namespace culprit {

std::filesystem::path InstallCulprit(const std::filesystem::path& prefix) {
  ProcessSpec spec;
  spec.argv = {"cmake", "--install", BinaryDir(), "--prefix", prefix.string()};
  spec.cwd = prefix.parent_path();
  spec.timeout = std::chrono::minutes(5);
  ProcessResult r = RunProcess(spec);
  EXPECT_TRUE(r.ok()) << DescribeRun(r);
  return prefix / "bin" / "culprit";
}

}  // namespace culprit
