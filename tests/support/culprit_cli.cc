#include "tests/support/culprit_cli.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "tests/support/temp_dir.h"

namespace culprit {

ProcessResult RunCulprit(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  ProcessSpec spec;
  spec.argv = {CULPRIT_EXE};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = cwd;
  spec.timeout = std::chrono::minutes(2);
  return RunProcess(spec);
}

std::filesystem::path WriteLoopEngineConfig(const std::filesystem::path& dir,
                                            const std::string& query_timeout, double band) {
  std::filesystem::path config = dir / "culprit.toml";
  WriteTextFile(config, fmt::format(R"([engine]
repo = '{repo}'
build = [["cc", "-O1", "-o", "prog", "main.c"]]
artifacts = ["prog"]

[queries."loop"]
command = ["{{artifact:prog}}"]
metric = {{ regex = 'min_ms=([0-9.]+)' }}
timeout = "{timeout}"

[measure]
band = {band}
min_pairs = 10
max_pairs = 40

[records]
dir = '{records}'

[cache]
dir = '{cache}'
)",
                                    fmt::arg("repo", (dir / "repo").string()),
                                    fmt::arg("timeout", query_timeout), fmt::arg("band", band),
                                    fmt::arg("records", (dir / "records").string()),
                                    fmt::arg("cache", (dir / "cache").string())));
  return config;
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
