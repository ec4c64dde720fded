#pragma once

// Descendants that escape a run's process group.
//
// culprit kills a run's whole process group when the run ends, which stops
// everything the engine started, except a process that left the group
// (setpgid, setsid: a daemon). Such a process would outlive the sample and
// tax every later one. As the reaper of its orphaned descendants
// (PR_SET_CHILD_SUBREAPER), culprit is the parent of every such process once
// the engine that started it has exited: any child culprit did not start
// itself is one, and is killed.

#include <sys/types.h>

namespace culprit {

/// Makes this process the reaper of its orphaned descendants. Call once, from
/// main, before any child starts. Returns false when the kernel refuses
/// (then KillOrphans does nothing, and escaped daemons survive as before).
bool AdoptOrphans();

/// Every child that Spawn started is noted, and forgotten once reaped, so
/// that KillOrphans can tell culprit's own live children (a harness engine
/// mid-sitting) from adopted ones.
void NoteChild(pid_t pid);
void ForgetChild(pid_t pid);

/// Kills every child of this process that it did not start (with its process
/// group, when it leads one) and reaps it, until none is left (bounded).
/// Returns how many were killed. Does nothing unless AdoptOrphans succeeded.
int KillOrphans();

}  // namespace culprit
