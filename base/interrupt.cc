#include "base/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <ctime>

namespace culprit {
namespace {

std::atomic<bool> g_requested{false};
std::atomic<int> g_signals{0};
std::atomic<long long> g_first_ns{0};

// The noted child groups, 0 for a free slot. The signal handler reads them,
// so they must be lock-free atomics (async-signal-safe), not a container.
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> g_groups[kMaxNotedGroups];

/// SIGKILLs every noted group. Async-signal-safe: atomic loads and kill().
void KillNotedGroups() {
  for (std::atomic<int>& slot : g_groups) {
    const int group = slot.load();
    if (group > 0) ::kill(-group, SIGKILL);
  }
}

long long MonotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return static_cast<long long>(now.tv_sec) * 1'000'000'000LL + now.tv_nsec;
}

void Say(const char* text, size_t size) {
  [[maybe_unused]] auto n = write(STDERR_FILENO, text, size);
}

extern "C" void HandleInterrupt(int signal_number) {
  const int count = ++g_signals;
  const long long now = MonotonicNs();
  if (count == 1) {
    g_first_ns.store(now);
    g_requested.store(true);
    static const char kMessage[] =
        "\nculprit: interrupted; stopping the running sample and saving what was measured "
        "(interrupt twice more to quit at once)\n";
    Say(kMessage, sizeof(kMessage) - 1);
    return;
  }
  // `timeout -s INT`, CI runners and terminals often deliver the same request
  // twice (once to culprit, once to its process group): a second signal within
  // the grace is that echo, and saving the record takes milliseconds.
  if (count == 2 && now - g_first_ns.load() < kInterruptGraceMs * 1'000'000LL) {
    static const char kMessage[] =
        "culprit: still saving what was measured (interrupt once more to quit at once)\n";
    Say(kMessage, sizeof(kMessage) - 1);
    return;
  }
  static const char kMessage[] =
      "culprit: quit at once; the sample that was running and any record not yet written are "
      "lost (records already written are complete)\n";
  Say(kMessage, sizeof(kMessage) - 1);
  // The running children are in process groups of their own (so that a
  // terminal's Ctrl-C reaches only culprit): nothing else would stop them, and
  // one that ignores SIGTERM, or is between culprit's SIGTERM and SIGKILL,
  // would run on after culprit is gone.
  KillNotedGroups();
  _exit(128 + signal_number);  // async-signal-safe
}

}  // namespace

void InstallInterruptHandler() {
  struct sigaction action {};
  action.sa_handler = HandleInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking wait should wake up
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);
}

bool InterruptRequested() { return g_requested.load(); }

void NoteChildGroup(int group) {
  if (group <= 0) return;
  for (std::atomic<int>& slot : g_groups) {
    int free = 0;
    if (slot.compare_exchange_strong(free, group)) return;
  }
}

void ForgetChildGroup(int group) {
  if (group <= 0) return;
  for (std::atomic<int>& slot : g_groups) {
    int noted = group;
    if (slot.compare_exchange_strong(noted, 0)) return;
  }
}

void SetInterruptRequested(bool requested) {
  g_requested.store(requested);
  if (!requested) g_signals.store(0);
}

}  // namespace culprit
