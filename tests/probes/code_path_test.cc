#include "probes/code_path.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace culprit {
namespace {

TEST(ExecutedFiles, FilesWithAnExecutedLineInsideTheCheckout) {
  // Two documents as `gcov --json-format --stdout` prints them: one per .gcda.
  const std::string json =
      R"({"files": [{"file": "main.c", "lines": [{"line_number": 3, "count": 1}]},)"
      R"( {"file": "/usr/include/stdio.h", "lines": [{"line_number": 9, "count": 4}]}],)"
      R"( "current_working_directory": "/scratch/src", "data_file": "prog-main.gcda"})"
      "\n"
      R"({"files": [{"file": "/scratch/src/lib/unused.c", "lines": [{"line_number": 1, "count": 0}]},)"
      R"( {"file": "lib/used.c", "lines": [{"line_number": 1, "count": 0}, {"line_number": 2, "count": 7}]}],)"
      R"( "current_working_directory": "/scratch/src", "data_file": "prog-used.gcda"})"
      "\nnot json\n";
  EXPECT_EQ(ExecutedFiles(json, "/scratch/src"),
            (std::vector<std::string>{"lib/used.c", "main.c"}));
}

}  // namespace
}  // namespace culprit
