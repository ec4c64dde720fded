#include "base/interrupt.h"

#include <csignal>
#include <cstdlib>
#include <unistd.h>

#include <atomic>

namespace culprit {
namespace {

std::atomic<bool> g_requested{false};

extern "C" void HandleInterrupt(int signal_number) {
  if (g_requested.exchange(true)) {
    // Second signal: the user means it. _exit is async-signal-safe.
    _exit(128 + signal_number);
  }
  static const char kMessage[] =
      "\nculprit: interrupted; stopping the running sample and saving what was measured "
      "(Ctrl-C again to quit at once)\n";
  [[maybe_unused]] auto n = write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
}

}  // namespace

void InstallInterruptHandler() {
  struct sigaction action {};
  action.sa_handler = HandleInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking wait should wake up
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool InterruptRequested() { return g_requested.load(); }

void SetInterruptRequested(bool requested) { g_requested.store(requested); }

}  // namespace culprit
