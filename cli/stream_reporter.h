#pragma once

// How the long-running ladders (investigate, demo) talk to the user: progress
// lines on stderr, findings on stdout, each flushed at once, so that a pipe
// or a log file sees a minutes-long run as it happens.

#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "investigate/investigation.h"

namespace culprit {

class StreamReporter : public InvestigationReporter {
 public:
  void Line(const std::string& text) override {
    fmt::print(stderr, "{}\n", text);
    std::fflush(stderr);
  }
  void Result(const std::string& text) override {
    fmt::print("{}", text);
    std::fflush(stdout);
  }
};

}  // namespace culprit
