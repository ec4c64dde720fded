#pragma once

// Several paired sittings measured in one sitting of the host, sharing the runs of the builds
// they have in common. A bisect verifies a candidate C against its parent P while its checks
// compare P with the good end G and the bad end B with C: four builds, three comparisons. Run
// apart they take two runs a pair each; together, one run of P serves the verification's pair
// and the check's, and one of C the verification's and the other check's.
//
// Each sitting keeps its own design (order, looks, stopping rules) and runs on a thread of its
// own, but the threads take turns: only one runs at any moment, and a run is taken only when
// every sitting still going is waiting for one. A run of a build several sittings have waits
// until each of them asks for it, and serves all of them; a build only one sitting has is run
// for it alone. So no two runs ever overlap, nothing else runs beside a run, and the order of
// everything is the same on every run of the program (a simulated bisect stays reproducible).
// A sitting that ends leaves: the others' runs of its builds go on without it.

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "probes/sitting.h"

namespace culprit {

class SharedRuns {
 public:
  /// The calling thread is participant 0 (the bisect's own thread), running, with no builds.
  SharedRuns();
  /// Cancels every participant still going, lets them end (participant 0 waits) and joins
  /// their threads. Call from participant 0's thread.
  ~SharedRuns();
  SharedRuns(const SharedRuns&) = delete;
  SharedRuns& operator=(const SharedRuns&) = delete;

  /// A new participant whose sitting's arm 0 is build `build_a` and arm 1 `build_b` (any
  /// numbers naming builds, e.g. commit indices), not started. Returns its id.
  int Add(int build_a, int build_b);
  /// Runs `body` on a thread of its own as participant `id` (from Add): it starts when the
  /// participant running now waits, and takes its turns as above; the participant has left
  /// when `body` returns. `body` must take its runs through Source(id, ...) and not throw.
  void Start(int id, std::function<void()> body);
  /// Participant 0 takes builds `build_a`, `build_b` for the batches it measures from now on
  /// (the verification), or none (`-1, -1`): a run of a build it has waits for it too.
  void SetBuilds(int id, int build_a, int build_b);

  /// A source for participant `id`'s sitting over `own`, whose arm 0 runs build_a and arm 1
  /// build_b: each Run takes its turn, and is a run shared with every other participant
  /// waiting for the same build. `own` must outlive the source.
  std::unique_ptr<SampleSource> Source(int id, SampleSource& own);

  /// Participant 0 waits until participant `id` has left, the others taking their turns.
  void WaitUntilDone(int id);
  bool Done(int id) const;
  /// Asks participant `id` to stop: CancelRequested(id) is true from now on (its sitting's
  /// SittingOptions::stop_requested reads it, and stops after the run it may be waiting for).
  void Cancel(int id);
  bool CancelRequested(int id) const;
  /// How many of participant `id`'s runs served another participant too.
  int SharedRunsOf(int id) const;

 private:
  enum class State { kIdle, kReady, kRunning, kWaitingForRun, kWaitingForDone, kDone };
  struct Participant {
    int builds[2] = {-1, -1};
    State state = State::kIdle;
    int want = -1;  // The build it waits for a run of.
    SampleSource* source = nullptr;
    int arm = 0;
    int waiting_for = -1;  // The participant whose end it waits for.
    SampleOutcome outcome;
    bool cancel = false;
    int shared = 0;
    std::thread thread;
  };
  class ParticipantSource;

  SampleOutcome Run(int id, SampleSource& own, int arm);
  /// Hands the turn on, with mu_ held and nobody running: to the lowest-numbered participant
  /// ready to go on, else takes a run every sharer waits for (or, in a pattern of waits no
  /// bisect makes, the lowest-numbered waiting participant's alone rather than hang).
  void Dispatch();
  bool Active(const Participant& p) const;
  void AwaitTurn(std::unique_lock<std::mutex>& lock, int id);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Participant>> p_;
};

}  // namespace culprit
