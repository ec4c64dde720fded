#include "tests/support/fault_checks.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>

#include <fstream>
#include <sstream>

#include "records/record.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace culprit {
namespace fs = std::filesystem;

pid_t SpawnInBackground(const std::vector<std::string>& args, const fs::path& out,
                        const fs::path& err, const std::map<std::string, std::string>& set_env) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);

  std::vector<std::string> env_entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string text(*entry);
    if (set_env.count(text.substr(0, text.find('='))) == 0) env_entries.push_back(text);
  }
  for (const auto& [name, value] : set_env) env_entries.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& e : env_entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  return rc == 0 ? pid : -1;
}

ArchiveCheck CheckArchive(const fs::path& records_dir) {
  ArchiveCheck check;
  std::error_code ec;
  if (!fs::exists(records_dir, ec)) return check;
  for (const fs::directory_entry& entry : fs::directory_iterator(records_dir)) {
    std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || entry.path().extension() != ".json") {
      check.stray.push_back(name);
      continue;
    }
    ++check.json_files;
    Result<Record> record = RecordFromJson(ReadAll(entry.path()), name);
    if (!record) check.damaged.push_back(name + ": " + record.error().message());
  }
  return check;
}

std::vector<std::string> TempLeftovers(const fs::path& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return found;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.' && name.find(".tmp-") != std::string::npos) {
      found.push_back(it->path().string());
    }
  }
  return found;
}

bool ProcessAlive(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("State:", 0) == 0) return line.find('Z') == std::string::npos;
  }
  return true;
}

long ChildrenPeakRssKb() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  return usage.ru_maxrss;
}

}  // namespace culprit
