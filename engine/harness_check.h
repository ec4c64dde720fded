#pragma once

// `culprit harness check`: drives an engine's harness through every verb of
// the protocol and every error case, and says what it does wrong, so that an
// engine author can wire up a new engine in minutes (docs/harness.md).

#include <chrono>
#include <string>
#include <vector>

#include "engine/process.h"

namespace culprit {

struct HarnessCheckOptions {
  ProcessSpec spec;                          ///< How to start the harness.
  std::chrono::milliseconds timeout{60000};  ///< Per request (the first also waits for loading).
  std::chrono::milliseconds quit_grace{10000};
  std::string query;                    ///< A query the engine knows.
  std::vector<std::string> structures;  ///< Structures it can hold (from the plans); may be empty.
};

/// One request and how the engine answered it.
struct HarnessCheckStep {
  std::string sent;      ///< The line sent ("quit", "hold x", ...), or "start".
  std::string expected;  ///< What the protocol asks for.
  std::string got;       ///< What came back (the reply, or how the process failed).
  bool ok = false;
  bool restarted = false;  ///< The engine had to be started again after this step.
};

struct HarnessCheckReport {
  std::vector<HarnessCheckStep> steps;
  int failures = 0;
  std::vector<std::string> notes;  ///< E.g. "hold does not report bytes=N (optional)".
};

/// Runs every check against a fresh harness, restarting it when a step kills
/// it, so one fault does not hide the others. Never throws.
HarnessCheckReport CheckHarness(const HarnessCheckOptions& options);

/// "ok    run scan 1  ->  ms 1.2\nFAIL  release x (not held)  ->  ..." and a last line.
std::string FormatHarnessCheck(const HarnessCheckReport& report);

}  // namespace culprit
