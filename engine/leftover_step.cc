#include "engine/leftover_step.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "base/atomic_file.h"

namespace culprit {
namespace fs = std::filesystem;

namespace {

/// The fields of /proc/PID/stat from field 3 (the state) on; nullopt when
/// there is no such process. The command name (field 2) is in parentheses and
/// may hold spaces or ')': the fields after it start after the last ')'.
std::optional<std::istringstream> StatFieldsAfterCommand(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  return std::istringstream(stat.substr(close + 1));
}

}  // namespace

std::optional<unsigned long long> ProcessStartTime(pid_t pid) {
  std::optional<std::istringstream> fields = StatFieldsAfterCommand(pid);
  if (!fields) return std::nullopt;
  std::string field;
  // Field 3 (state) is the first after ')'; start time is field 22.
  for (int i = 3; i < 22; ++i) {
    if (!(*fields >> field)) return std::nullopt;
  }
  unsigned long long start = 0;
  if (!(*fields >> start)) return std::nullopt;
  return start;
}

Status RecordStepGroup(const fs::path& path, pid_t group) {
  std::optional<unsigned long long> start = ProcessStartTime(group);
  return WriteFileAtomically(path, fmt::format("{} {}\n", group, start.value_or(0)));
}

void ClearStepGroup(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

namespace {

bool GroupExists(pid_t group) { return ::kill(-group, 0) == 0 || errno == EPERM; }

/// Whether a process of `group` still runs code. A zombie member (gone,
/// waiting for its parent to reap it, which a container's init may never do)
/// does not count, so a wait for the group to go is not a wait for a reaper.
bool GroupRunning(pid_t group) {
  if (!GroupExists(group)) return false;
  std::error_code ec;
  fs::directory_iterator processes("/proc", ec);
  if (ec) return true;  // no /proc to tell zombies apart: the group exists
  for (const fs::directory_entry& entry : processes) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::optional<std::istringstream> fields = StatFieldsAfterCommand(std::stoi(name));
    if (!fields) continue;
    // Fields 3 to 5: state, parent, process group.
    char state = 0;
    long long parent = 0, pgrp = 0;
    if (!(*fields >> state >> parent >> pgrp) || pgrp != group) continue;
    if (state != 'Z' && state != 'X') return true;
  }
  return false;
}

/// How long a leftover step has, after SIGTERM, before SIGKILL.
constexpr std::chrono::seconds kTermGrace(2);

/// Polls until no group of `groups` runs, or `limit` passes.
void WaitForGroups(const std::set<pid_t>& groups, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    bool any = false;
    for (pid_t group : groups) any = any || GroupRunning(group);
    if (!any) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

/// Stops whole process groups: SIGTERM first, so that a build tool deletes
/// the file it was writing (make deletes the target of a command it was
/// running; ninja the outputs of its running commands), which would
/// otherwise stay cut short and newer than its source, for the next
/// incremental build to trust; then SIGKILL for what still runs after
/// kTermGrace. Waits until they are gone (bounded: signals are delivered
/// asynchronously, and the caller must not share the directory with them).
void StopGroups(const std::set<pid_t>& groups) {
  for (pid_t group : groups) ::kill(-group, SIGTERM);
  WaitForGroups(groups, kTermGrace);
  for (pid_t group : groups) {
    if (GroupRunning(group)) ::kill(-group, SIGKILL);
  }
  WaitForGroups(groups, std::chrono::seconds(2));
}

/// Whether `group` is still the group the record describes. A pid is not
/// reused while a process group of that id exists, so: if the leader is
/// alive it must have the recorded start time; if the leader is gone but the
/// group exists, the members are the step's own descendants.
bool IsRecordedGroup(pid_t group, unsigned long long recorded_start) {
  if (!GroupExists(group)) return false;
  std::optional<unsigned long long> start = ProcessStartTime(group);
  if (!start) return true;  // leader gone (or /proc unreadable), group alive
  return recorded_start == 0 || *start == recorded_start;
}

}  // namespace

std::optional<std::string> StopLeftoverStep(const fs::path& path) {
  std::ifstream in(path);
  long long group = 0;
  unsigned long long start = 0;
  bool parsed = static_cast<bool>(in >> group >> start);
  in.close();
  ClearStepGroup(path);
  if (!parsed || group <= 1) return std::nullopt;
  auto pgid = static_cast<pid_t>(group);
  if (!IsRecordedGroup(pgid, start)) return std::nullopt;
  StopGroups({pgid});
  return fmt::format(
      "a build step left running by an earlier culprit (process group {}) was stopped", pgid);
}

std::optional<std::string> StopMarkedSteps(const fs::path& scratch) {
  const std::string marker = std::string(kBuildStepMarker) + "=" + scratch.string();
  const pid_t own_group = ::getpgrp();
  std::set<pid_t> groups;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    // NUL-separated NAME=VALUE entries; unreadable (another user's, or gone): not ours.
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    std::string variable;
    bool marked = false;
    while (!marked && std::getline(in, variable, '\0')) marked = variable == marker;
    if (!marked) continue;
    const pid_t group = ::getpgid(static_cast<pid_t>(std::stol(name)));
    if (group > 1 && group != own_group) groups.insert(group);
  }
  if (groups.empty()) return std::nullopt;
  StopGroups(groups);
  std::string list;
  for (pid_t group : groups) list += (list.empty() ? "" : ", ") + std::to_string(group);
  return fmt::format(
      "a build step left running by an earlier culprit, unrecorded (process group {}), was "
      "stopped",
      list);
}

}  // namespace culprit
