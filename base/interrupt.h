#pragma once

// Ctrl-C is a request, not a kill: long-running work polls InterruptRequested()
// between samples and steps, stops cleanly and writes what it has (a record
// marked interrupted, a bisect state that resumes). SIGTERM (how CI cancels)
// and SIGHUP (a closed terminal) are the same request. A second signal within
// kInterruptGraceMs of the first is taken as an echo of it (GNU timeout and
// many CI runners signal both the process and its group) and saving goes on;
// a third signal, or a second one after the grace, exits at once and says
// what is lost.

namespace culprit {

/// How long after the first interrupt a second one is still taken as its echo.
inline constexpr long long kInterruptGraceMs = 10'000;

/// Installs the SIGINT/SIGTERM/SIGHUP handler. Call once from main.
void InstallInterruptHandler();

/// True once the user asked to stop. Safe to call from any thread.
bool InterruptRequested();

/// Sets or clears the flag by hand (tests, and fakes that simulate Ctrl-C).
void SetInterruptRequested(bool requested);

}  // namespace culprit
