#include "tests/support/culprit_cli.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <thread>

#include "tests/support/build_paths.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace culprit {

pid_t SpawnCulprit(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                   const std::filesystem::path& out, const std::filesystem::path& err) {
  std::vector<std::string> all = {CulpritExe()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (const std::string& a : all) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, CulpritExe().c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return spawned == 0 ? pid : 0;
}

bool WaitWhileRunning(pid_t pid, const std::function<bool()>& ready, std::chrono::seconds limit,
                      int* status) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!ready()) {
    if (waitpid(pid, status, WNOHANG) == pid) return false;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

ProcessResult RunCulprit(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                         const std::map<std::string, std::string>& set_env) {
  ProcessSpec spec;
  spec.argv = {CulpritExe()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = cwd;
  spec.set_env = set_env;
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

std::string LoopEngineSource(const std::string& tag, long work, LoopEngineVariant variant) {
  std::string before_loop;
  if (variant == LoopEngineVariant::kHang) before_loop = "  for (;;) pause();\n";
  if (variant == LoopEngineVariant::kCrash) before_loop = "  raise(SIGSEGV);\n";
  const char* end_of_call = variant == LoopEngineVariant::kSyntaxError ? "" : ";";
  return fmt::format(R"(// {tag}
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned sink;
static double NowMs(void) {{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}}
static void Work(long n) {{
  unsigned x = sink + 1;
  for (long i = 0; i < n; ++i) x = x * 1664525u + 1013904223u;
  sink = x;
}}
static int Less(const void* a, const void* b) {{
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}}
int main(void) {{
  double t[5];
{before_loop}  for (int r = 0; r < 5; ++r) {{
    double start = NowMs();
    Work({work}L){end}
    t[r] = NowMs() - start;
  }}
  qsort(t, 5, sizeof t[0], Less);
  printf("min_ms=%.4f\n", t[0]);
  return 0;
}}
)",
                     fmt::arg("tag", tag), fmt::arg("before_loop", before_loop),
                     fmt::arg("work", work), fmt::arg("end", end_of_call));
}

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace culprit
