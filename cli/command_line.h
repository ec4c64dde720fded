#pragma once

namespace culprit {

/// Parses the command line, runs the command, prints its result on stdout and
/// any error once on stderr ("culprit: error: ..."), and returns the exit code:
/// 0 success, 1 error, 2 usage or configuration error, 3 an effect was found
/// where the command asks "is there one" (probe, compare), 130 interrupted.
int RunCommandLine(int argc, char** argv);

}  // namespace culprit
