#pragma once

// Ctrl-C is a request, not a kill: long-running work polls InterruptRequested()
// between samples and steps, stops cleanly and writes what it has (a record
// marked interrupted, a bisect state that resumes). A second Ctrl-C exits at once.

namespace culprit {

/// Installs the SIGINT/SIGTERM handler. Call once from main.
void InstallInterruptHandler();

/// True once the user asked to stop. Safe to call from any thread.
bool InterruptRequested();

/// Sets or clears the flag by hand (tests, and fakes that simulate Ctrl-C).
void SetInterruptRequested(bool requested);

}  // namespace culprit
