#include "session/harness.h"

#include <cstdio>
#include <exception>
#include <istream>
#include <ostream>
#include <sstream>
#include <vector>

namespace eventstore {
namespace {

constexpr long kMaxRepetitions = 1000;

std::vector<std::string> Words(const std::string& line) {
  std::istringstream stream(line);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

std::string Usage(const std::string& command) {
  if (command == "hold") return "error usage: hold NAME";
  if (command == "release") return "error usage: release NAME";
  return "error usage: run QUERY N (N a whole number from 1 to " + std::to_string(kMaxRepetitions) +
         ")";
}

}  // namespace

std::string HandleCommand(Session& session, const std::string& line, bool* quit) {
  const std::vector<std::string> words = Words(line);
  *quit = false;
  if (words.empty()) return "";
  const std::string& command = words[0];
  std::string error;
  if (command == "quit" && words.size() == 1) {
    *quit = true;
    return "";
  }
  if (command == "hold" || command == "release") {
    if (words.size() != 2) return Usage(command);
    const bool ok =
        command == "hold" ? session.Hold(words[1], &error) : session.Release(words[1], &error);
    return ok ? "ok" : "error " + error;
  }
  if (command == "run") {
    if (words.size() != 3) return Usage(command);
    long reps = 0;
    size_t used = 0;
    try {
      reps = std::stol(words[2], &used);
    } catch (...) {
      used = 0;
    }
    if (used != words[2].size() || reps < 1 || reps > kMaxRepetitions) return Usage(command);
    std::string answer = "ms";
    for (long r = 0; r < reps; ++r) {
      QueryRun run;
      if (!session.Run(words[1], &run, &error)) return "error " + error;
      char value[32];
      std::snprintf(value, sizeof(value), " %.4f", run.ms);
      answer += value;
    }
    return answer;
  }
  return "error unknown command '" + command + "' (commands: hold NAME, release NAME, " +
         "run QUERY N, quit)";
}

int Serve(Session& session, std::istream& in, std::ostream& out, std::ostream& log) {
  log << "eventstore: serving " << session.columns().size()
      << " events; commands: hold NAME, release NAME, run QUERY N, quit\n";
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    bool quit = false;
    std::string answer;
    try {
      answer = HandleCommand(session, line, &quit);
    } catch (const std::exception& e) {
      // Out of memory for a structure, no thread for a scan: this command
      // fails, the process keeps serving.
      answer = std::string("error ") + e.what();
    }
    if (quit) return 0;
    if (answer.empty()) continue;
    out << answer << '\n';
    out.flush();  // the client waits for each answer before the next command
  }
  return 0;
}

}  // namespace eventstore
