#pragma once

// culprit's in-process harness protocol, one command per line on `in`, one
// answer line per command on `out`:
//
//   hold NAME      ->  ok | error MESSAGE
//   release NAME   ->  ok | error MESSAGE
//   run QUERY N    ->  ms V1 V2 ... VN | error MESSAGE
//   quit           ->  (no answer; Serve returns 0)
//
// Blank lines are ignored. Everything else the engine has to say goes to `log`.

#include <iosfwd>
#include <string>

#include "session/session.h"

namespace eventstore {

/// Answers one command line (without its newline). Sets `quit` on "quit".
std::string HandleCommand(Session& session, const std::string& line, bool* quit);

/// Serves commands until "quit" or end of input; returns the exit status (0).
int Serve(Session& session, std::istream& in, std::ostream& out, std::ostream& log);

}  // namespace eventstore
