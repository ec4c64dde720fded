#include "tests/support/culprit_cli.h"

#include <fstream>
#include <sstream>

namespace culprit {

ProcessResult RunCulprit(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  ProcessSpec spec;
  spec.argv = {CULPRIT_EXE};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = cwd;
  spec.timeout = std::chrono::minutes(2);
  return RunProcess(spec);
}

std::string DescribeRun(const ProcessResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.stdout_text + "\nstderr:\n" +
         r.stderr_text;
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace culprit
