#pragma once

// Starting a child process (for RunProcess and LineProcess): where its program
// is, and the spawn itself, in its own process group, with its standard
// streams on descriptors the caller prepared. Internal to engine/; the only
// code that uses Boost.Process (in spawn.cc, never in a header). Also the
// timings both supervisors of children share.

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>

#include "base/result.h"
#include "engine/process.h"

namespace culprit {

/// How long a process group gets between SIGTERM and SIGKILL: long enough for
/// an engine to flush and exit, short enough that a hung bisect step stays cheap.
inline constexpr std::chrono::milliseconds kTerminateGrace{500};
/// How often a wait wakes up to look at the Ctrl-C flag. It does not limit the
/// precision of wall time: the child's exit wakes the wait at once.
inline constexpr std::chrono::milliseconds kInterruptPoll{50};
/// After the child exits, how long its pipes may stay open (held by a
/// descendant that left its process group) before capture gives up on them.
inline constexpr std::chrono::milliseconds kDrainAfterExit{2000};
/// How much one read() from a child's pipe takes at most.
inline constexpr size_t kReadChunk = 64 * 1024;

/// Where argv[0] is: as given when it has a '/', else the first executable of
/// that name in PATH (the PATH the child will see, if the spec overrides it).
/// Errors: not found, or not executable (the message says which).
Result<std::string> ResolveProgram(const ProcessSpec& spec);

/// The program `spec` would start (ResolveProgram), after checking that there
/// is a command and that spec.cwd, if given, is a directory. Errors: "no
/// command given", "the working directory '...' does not exist", or
/// ResolveProgram's.
Result<std::string> ProgramToStart(const ProcessSpec& spec);

/// Starts `program` with spec's arguments, environment overlay and cwd; on
/// success returns its pid, which is also its process group id. The child ends
/// on the given fds as stdin, stdout, stderr (the caller closes its copies of
/// the child's ends afterwards). `*started` is set just before the child is
/// created (after everything the parent prepares for it), so that wall time
/// measures the child, not us. The child starts with an empty signal mask and
/// default actions for the signals culprit catches. Errors: the child could
/// not be created, or its setup or exec failed (it is then reaped).
Result<pid_t> Spawn(const ProcessSpec& spec, const std::string& program, int stdin_fd,
                    int stdout_fd, int stderr_fd, std::chrono::steady_clock::time_point* started);

/// Spawn's sibling for a counted run (spec.before_exec set; engine/instruction_counter.h):
/// the child is made with fork, not vfork (which would suspend culprit until the exec), is
/// set up as Spawn's is (its own group, the given fds, cwd, placement), and then waits on
/// a pipe, before exec, until spec.before_exec(pid) has returned in culprit. Slower than
/// Spawn (fork copies culprit's page tables), so used for nothing else. Returns once the
/// child has exec'd. Errors: the child could not be made, its setup or exec failed, or
/// before_exec's error; in each case the child is killed and reaped, and the program never
/// ran (before_exec's failure comes before the exec).
Result<pid_t> SpawnHeld(const ProcessSpec& spec, const std::string& program, int stdin_fd,
                        int stdout_fd, int stderr_fd,
                        std::chrono::steady_clock::time_point* started);

}  // namespace culprit
