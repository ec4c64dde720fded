#pragma once

// Helpers for the fault suite (tests/fault): culprit started in the
// background so that a test can kill it, and the checks that what it left on
// disk is whole (every record parses, no temporary file stays behind).

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace culprit {

/// Starts `argv` (argv[0] a path) with stdin from /dev/null, stdout and
/// stderr to the files `out` and `err`, in a process group of its own, the
/// environment inherited plus `set_env`. Returns the pid, or -1.
pid_t SpawnInBackground(const std::vector<std::string>& argv, const std::filesystem::path& out,
                        const std::filesystem::path& err,
                        const std::map<std::string, std::string>& set_env = {});

/// What a records directory holds.
struct ArchiveCheck {
  int json_files = 0;                ///< <id>.json files (the records).
  std::vector<std::string> damaged;  ///< "<file>: <why>" for a .json that does not parse.
  std::vector<std::string> stray;    ///< Any other file: temporaries, half-written files.
};
/// Reads every file of `records_dir` (a missing directory is empty).
ArchiveCheck CheckArchive(const std::filesystem::path& records_dir);

/// Files anywhere under `dir` left by an interrupted atomic write (".NAME.tmp-…").
std::vector<std::string> TempLeftovers(const std::filesystem::path& dir);

/// True while `pid` names a process that is not a zombie.
bool ProcessAlive(pid_t pid);

/// Peak resident set of the children this process has waited for, in kB
/// (getrusage(RUSAGE_CHILDREN)): a high-water mark over all of them.
long ChildrenPeakRssKb();

}  // namespace culprit
