#include "engine/orphans.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace culprit {
namespace {

std::atomic<bool> adopting{false};

std::mutex& ChildrenMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

std::set<pid_t>& Children() {
  static auto* children = new std::set<pid_t>();
  return *children;
}

/// This process's children, from /proc/self/task/*/children (each thread's
/// own; adopted orphans go to one of them).
std::vector<pid_t> ChildrenOfThisProcess() {
  std::vector<pid_t> pids;
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) return pids;
  while (dirent* task = ::readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    std::ifstream in(std::string("/proc/self/task/") + task->d_name + "/children");
    pid_t pid = 0;
    while (in >> pid) pids.push_back(pid);
  }
  ::closedir(tasks);
  return pids;
}

}  // namespace

bool AdoptOrphans() {
  bool ok = ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
  adopting.store(ok);
  return ok;
}

void NoteChild(pid_t pid) {
  std::lock_guard<std::mutex> lock(ChildrenMutex());
  Children().insert(pid);
}

void ForgetChild(pid_t pid) {
  std::lock_guard<std::mutex> lock(ChildrenMutex());
  Children().erase(pid);
}

int KillOrphans() {
  if (!adopting.load()) return 0;
  int killed = 0;
  // A killed daemon's own children are adopted in their turn: a few rounds.
  for (int round = 0; round < 5; ++round) {
    std::vector<pid_t> adopted;
    {
      std::lock_guard<std::mutex> lock(ChildrenMutex());
      for (pid_t pid : ChildrenOfThisProcess()) {
        if (Children().count(pid) == 0) adopted.push_back(pid);
      }
    }
    if (adopted.empty()) break;
    for (pid_t pid : adopted) {
      if (::getpgid(pid) == pid) ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
    for (pid_t pid : adopted) {
      // SIGKILL cannot be ignored; a process in uninterruptible sleep can
      // delay it, so the wait is bounded and the zombie, if any, reaped later.
      for (int i = 0; i < 200; ++i) {
        pid_t r = ::waitpid(pid, nullptr, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      ++killed;
    }
  }
  return killed;
}

}  // namespace culprit
