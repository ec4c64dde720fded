#pragma once

// Ctrl-C is a request, not a kill: long-running work polls InterruptRequested()
// between samples and steps, stops cleanly and writes what it has (a record
// marked interrupted, a bisect state that resumes). SIGTERM (how CI cancels)
// and SIGHUP (a closed terminal) are the same request. A second signal within
// kInterruptGraceMs of the first is taken as an echo of it (GNU timeout and
// many CI runners signal both the process and its group) and saving goes on;
// a third signal, or a second one after the grace, exits at once and says
// what is lost. Before exiting it kills (SIGKILL) the process groups of the
// children culprit is running, which live in groups of their own and so would
// otherwise outlive it (an engine that ignores SIGTERM would run forever).

namespace culprit {

/// How long after the first interrupt a second one is still taken as its echo.
inline constexpr long long kInterruptGraceMs = 10'000;

/// Installs the SIGINT/SIGTERM/SIGHUP handler. Call once from main.
void InstallInterruptHandler();

/// True once the user asked to stop. Safe to call from any thread.
bool InterruptRequested();

/// Sets or clears the flag by hand (tests, and fakes that simulate Ctrl-C).
void SetInterruptRequested(bool requested);

/// How many child process groups a quit at once can kill; a group noted
/// beyond this many is not killed then (culprit runs one or two at a time).
inline constexpr int kMaxNotedGroups = 64;

/// Notes the process group `group` (> 0) of a running child, for the quit at
/// once to kill. The process layer calls it as soon as the child exists, and
/// ForgetChildGroup before it reaps the child's leader (while the leader is
/// unreaped its pid, hence the group id, cannot be reused, so the handler
/// never signals a stranger). Lock-free; safe from any thread.
void NoteChildGroup(int group);

/// Forgets a group noted by NoteChildGroup; a group not noted is ignored.
void ForgetChildGroup(int group);

}  // namespace culprit
