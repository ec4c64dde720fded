#include "probes/shared_runs.h"

namespace culprit {

class SharedRuns::ParticipantSource : public SampleSource {
 public:
  ParticipantSource(SharedRuns& shared, int id, SampleSource& own)
      : shared_(shared), id_(id), own_(own) {}
  SampleOutcome Run(int arm) override { return shared_.Run(id_, own_, arm); }

 private:
  SharedRuns& shared_;
  int id_;
  SampleSource& own_;
};

SharedRuns::SharedRuns() {
  p_.push_back(std::make_unique<Participant>());
  p_[0]->state = State::kRunning;
}

SharedRuns::~SharedRuns() {
  for (size_t id = 1; id < p_.size(); ++id) {
    if (!p_[id]->thread.joinable()) continue;
    Cancel(static_cast<int>(id));
    WaitUntilDone(static_cast<int>(id));
    p_[id]->thread.join();
  }
}

int SharedRuns::Add(int build_a, int build_b) {
  std::lock_guard<std::mutex> lock(mu_);
  p_.push_back(std::make_unique<Participant>());
  p_.back()->builds[0] = build_a;
  p_.back()->builds[1] = build_b;
  return static_cast<int>(p_.size()) - 1;
}

void SharedRuns::Start(int id, std::function<void()> body) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    p_[id]->state = State::kReady;
  }
  p_[id]->thread = std::thread([this, id, body = std::move(body)] {
    {
      std::unique_lock<std::mutex> lock(mu_);
      AwaitTurn(lock, id);
    }
    body();
    std::unique_lock<std::mutex> lock(mu_);
    p_[id]->state = State::kDone;
    for (auto& other : p_) {
      if (other->state == State::kWaitingForDone && other->waiting_for == id) {
        other->state = State::kReady;
      }
    }
    Dispatch();
  });
}

void SharedRuns::SetBuilds(int id, int build_a, int build_b) {
  std::lock_guard<std::mutex> lock(mu_);
  p_[id]->builds[0] = build_a;
  p_[id]->builds[1] = build_b;
}

std::unique_ptr<SampleSource> SharedRuns::Source(int id, SampleSource& own) {
  return std::make_unique<ParticipantSource>(*this, id, own);
}

void SharedRuns::WaitUntilDone(int id) {
  std::unique_lock<std::mutex> lock(mu_);
  if (p_[id]->state == State::kDone || p_[id]->state == State::kIdle) return;
  p_[0]->state = State::kWaitingForDone;
  p_[0]->waiting_for = id;
  Dispatch();
  AwaitTurn(lock, 0);
}

bool SharedRuns::Done(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return p_[id]->state == State::kDone;
}

void SharedRuns::Cancel(int id) {
  std::lock_guard<std::mutex> lock(mu_);
  p_[id]->cancel = true;
}

bool SharedRuns::CancelRequested(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return p_[id]->cancel;
}

int SharedRuns::SharedRunsOf(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return p_[id]->shared;
}

SampleOutcome SharedRuns::Run(int id, SampleSource& own, int arm) {
  std::unique_lock<std::mutex> lock(mu_);
  Participant& p = *p_[id];
  p.state = State::kWaitingForRun;
  p.want = p.builds[arm];
  p.source = &own;
  p.arm = arm;
  Dispatch();
  AwaitTurn(lock, id);
  return p.outcome;
}

bool SharedRuns::Active(const Participant& p) const {
  return p.state != State::kIdle && p.state != State::kDone;
}

void SharedRuns::AwaitTurn(std::unique_lock<std::mutex>& lock, int id) {
  cv_.wait(lock, [&] { return p_[id]->state == State::kRunning; });
}

void SharedRuns::Dispatch() {
  while (true) {
    for (auto& p : p_) {
      if (p->state == State::kReady) {
        p->state = State::kRunning;
        cv_.notify_all();
        return;
      }
    }
    // A run of a build every active participant that has it is waiting for.
    Participant* chosen = nullptr;
    for (auto& p : p_) {
      if (p->state != State::kWaitingForRun) continue;
      bool all = true;
      for (auto& q : p_) {
        if (q.get() == p.get() || !Active(*q)) continue;
        const bool has = q->builds[0] == p->want || q->builds[1] == p->want;
        if (has && !(q->state == State::kWaitingForRun && q->want == p->want)) all = false;
      }
      if (all) {
        chosen = p.get();
        break;
      }
    }
    bool alone = false;
    if (!chosen) {
      for (auto& p : p_) {
        if (p->state == State::kWaitingForRun) {
          chosen = p.get();
          alone = true;
          break;
        }
      }
    }
    if (!chosen) return;
    // Nobody else runs meanwhile: every participant is waiting, so the run is taken here,
    // with the lock held, by whichever thread handed its turn on.
    const SampleOutcome outcome = chosen->source->Run(chosen->arm);
    std::vector<Participant*> served;
    for (auto& p : p_) {
      if (p->state == State::kWaitingForRun && p->want == chosen->want &&
          (!alone || p.get() == chosen)) {
        served.push_back(p.get());
      }
    }
    for (Participant* p : served) {
      p->outcome = outcome;
      p->state = State::kReady;
      if (served.size() > 1) ++p->shared;
    }
  }
}

}  // namespace culprit
