#pragma once

// A build step that outlived the culprit that started it.
//
// The scratch lock (file_lock.h) is released by the kernel when culprit dies,
// but a build step is a process group of its own (spawn.cc), so `kill -9` of
// culprit alone leaves the step running: a compiler still writing into the
// scratch checkout while the next culprit checks out another commit there.
// That corrupts the next build, and a corrupted build is remembered as "does
// not build". So each build step's process group is written beside the lock
// while it runs, and whoever takes the lock next stops a group still running.

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "base/result.h"

namespace culprit {

/// Writes "GROUP START" to `path`: the step's process group (its leader's
/// pid) and the leader's start time (from /proc), so that a later reader can
/// tell the group from an unrelated process that got the same pid. Errors:
/// the file cannot be written.
Status RecordStepGroup(const std::filesystem::path& path, pid_t group);

/// Removes the record: the step has ended and its group is gone.
void ClearStepGroup(const std::filesystem::path& path);

/// If `path` names a group that is still running (the culprit that started it
/// died), stops the whole group and waits briefly for it to go: SIGTERM, so
/// that make or ninja can delete the output it was writing, then SIGKILL two
/// seconds later for what still runs.
/// Returns a sentence for the user saying what was stopped, or nullopt when
/// there was nothing to stop. Removes the record either way. Call it only
/// while holding the lock that guards the directory: then no live culprit
/// owns the group.
std::optional<std::string> StopLeftoverStep(const std::filesystem::path& path);

/// The environment variable every build step runs with: its value is the scratch directory
/// the step builds in. It marks the step's whole process tree (a compiler's linker
/// included), even one started in the instant before RecordStepGroup wrote the group down.
inline constexpr const char* kBuildStepMarker = "CULPRIT_BUILD_SCRATCH";

/// Stops (as StopLeftoverStep does, whole process groups) every process of this user whose
/// environment holds kBuildStepMarker=`scratch`, other than culprit's own group, and waits
/// briefly for them to go: the steps of a killed culprit that StopLeftoverStep could not know
/// of. Returns a sentence for the user, or nullopt when there was none. Call it only while
/// holding the lock that guards `scratch`: then no live culprit is building there.
std::optional<std::string> StopMarkedSteps(const std::filesystem::path& scratch);

/// The start time of process `pid` in clock ticks since boot (field 22 of
/// /proc/PID/stat); nullopt if there is no such process or /proc is not
/// readable.
std::optional<unsigned long long> ProcessStartTime(pid_t pid);

}  // namespace culprit
