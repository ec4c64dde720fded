#pragma once

// Running one child process: argv only (no shell unless the user writes one),
// an environment overlay, a working directory, a timeout that kills the whole
// process group, bounded capture of stdout and stderr, and the child's wall
// time and what the kernel counted of it (CPU time, peak RSS, page faults, context
// switches). Boost.Process is used only in spawn.cc; a
// long-lived child spoken to line by line is a LineProcess (line_process.h).

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace culprit {

/// Where and how a measured run starts ([measure] cpus and aslr). Builds and
/// every other child keep the defaults: anywhere, ASLR as the host has it.
struct RunPlacement {
  std::vector<int> cpus;  ///< sched_setaffinity in the child before exec; empty: not pinned.
  bool aslr = true;       ///< false: personality(ADDR_NO_RANDOMIZE) in the child before exec.

  bool operator==(const RunPlacement&) const = default;
};

/// What to run.
struct ProcessSpec {
  std::vector<std::string> argv;               ///< argv[0] is looked up in PATH if it has no '/'.
  std::filesystem::path cwd;                   ///< Empty: the current directory.
  std::map<std::string, std::string> set_env;  ///< Set (or replace) in the inherited environment.
  std::vector<std::string> unset_env;          ///< Removed from the inherited environment.
  std::chrono::milliseconds timeout{0};        ///< 0: no timeout.
  size_t output_limit = 1 << 20;  ///< Bytes kept per stream; the rest is counted, not kept.
  std::optional<std::string>
      stdin_data;  ///< Written to stdin then closed; else stdin is /dev/null.
  /// Called once the child runs, with its process group id (its pid), before
  /// culprit waits on it: a place to write down a group that must not outlive
  /// culprit (a build step, see leftover_step.h).
  std::function<void(int group)> on_start;
  /// Called with each piece of output as it arrives (stdout and stderr
  /// alike, in pieces of any size), and with an empty piece about once a
  /// second while the child is quiet: for a live heartbeat. Capture is
  /// unaffected.
  std::function<void(std::string_view piece)> on_output;
  /// CPUs and address randomization of the child (spawn.cc applies them).
  RunPlacement placement;
  /// Counted runs only (engine/instruction_counter.h): when set, the child is started by
  /// SpawnHeld (fork, not vfork: slower) and waits before exec until this has returned,
  /// called with its pid (a place to open a counter on it). An error kills the child before
  /// it execs: the run could not start (kFailedToStart), with that error's message.
  std::function<Status(int pid)> before_exec;
};

/// How a run ended.
enum class ProcessOutcome {
  kExited,         ///< Exited on its own; see exit_code.
  kSignaled,       ///< Killed by a signal it did not ask for (a crash); see signal.
  kTimedOut,       ///< Exceeded the timeout; its process group was killed.
  kFailedToStart,  ///< Could not be started (no such program, not executable, bad cwd).
  kInterrupted,    ///< The user pressed Ctrl-C; the process group was killed.
};

/// What happened. A run is only a measurement when ok().
struct ProcessResult {
  ProcessOutcome outcome = ProcessOutcome::kFailedToStart;
  int exit_code = -1;       ///< Valid for kExited.
  int signal = 0;           ///< Valid for kSignaled.
  std::string stdout_text;  ///< At most output_limit bytes: the first ones.
  std::string stderr_text;  ///< At most output_limit bytes: the last ones (errors come at the end).
  size_t stdout_bytes = 0;  ///< Total bytes the child wrote, kept or not.
  size_t stderr_bytes = 0;
  double wall_ms = 0;  ///< Steady clock, from spawn to exit.
  double user_ms = 0;  ///< CPU time of the child and its waited-for descendants (rusage).
  double system_ms = 0;
  /// Peak resident set of the child (rusage), 0 if unknown. Linux folds the
  /// resident set of the address space a process leaves at execve into this,
  /// and a child started with vfork leaves culprit's; so a child whose peak
  /// stays below culprit's own (about 12 MB) reports 0, never culprit's size.
  long max_rss_kb = 0;
  /// Page faults of the child and its waited-for descendants (rusage): minor ones were served
  /// from memory (a fresh page, the page cache), major ones waited for the disk.
  long minor_faults = 0, major_faults = 0;
  /// Context switches of the same processes (rusage): voluntary when a process waited (I/O,
  /// a lock, sleep), involuntary when the scheduler took the CPU from it.
  long voluntary_switches = 0, involuntary_switches = 0;
  /// The child ran and was reaped: the figures above are the kernel's. False when it never
  /// started (or Ctrl-C came first), when every figure is 0 for want of one.
  bool reaped = false;
  std::string start_error;  ///< Why it failed to start, for kFailedToStart.

  /// Exited with status 0.
  bool ok() const { return outcome == ProcessOutcome::kExited && exit_code == 0; }

  /// One line for the user: "exited with status 3", "killed by signal 11 (SIGSEGV)",
  /// "timed out after 60 s and was killed", "could not start: ...".
  std::string Describe(const ProcessSpec& spec) const;
};

/// Runs the process to completion (or timeout, or Ctrl-C) and reports what
/// happened. Never throws; never returns with any process of the child's
/// group still running.
ProcessResult RunProcess(const ProcessSpec& spec);

/// The value each of `names` has in the environment `spec` runs with (its
/// set_env and unset_env on top of culprit's own); a name absent from the
/// result is unset there.
std::map<std::string, std::string> EffectiveEnvironment(const ProcessSpec& spec,
                                                        const std::vector<std::string>& names);

/// Renders argv for messages, quoting words that need it.
std::string FormatCommand(const std::vector<std::string>& argv);

}  // namespace culprit
