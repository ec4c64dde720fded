#include "probes/isolation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "base/interrupt.h"
#include "base/random_seed.h"
#include "base/strings.h"
#include "probes/round_design.h"
#include "probes/sequential.h"

namespace culprit {
namespace {

class IsolationRun {
 public:
  IsolationRun(HarnessSession& harness, const IsolationPlan& plan, const IsolationOptions& options,
               IsolationResult& result)
      : harness_(harness), plan_(plan), options_(options), r_(result) {}

  /// One visit of condition `c` in round `round` (-1: warm-up): set up, settle, measure,
  /// undo. Returns its median value, or nullopt when it failed or was interrupted (r_ says
  /// which).
  std::optional<double> Visit(int c, int round) {
    std::set<std::string> held;
    if (!SetUp(c, held)) return std::nullopt;
    if (options_.settle_runs > 0 && round >= 0 && !Settle(c, round)) return std::nullopt;
    const std::string command = fmt::format("run {} {}", plan_.query, options_.runs_per_visit);
    std::optional<std::vector<double>> values = Measure(c, round, command);
    if (!values || !Undo(c, held)) return std::nullopt;
    const double median = Median(*values);
    if (!(median > 0)) {
      Fail(c, command,
           Error(fmt::format("'{}': the median of the answer is {} ms, not a positive time",
                             command, median)));
      return std::nullopt;
    }
    return median;
  }

  /// Round `round`: a visit of each condition in `order`. Returns the visits'
  /// medians by condition, or nullopt at the first visit that failed or was
  /// interrupted.
  std::optional<std::vector<double>> Round(int round, const std::vector<int>& order) {
    std::vector<double> values(plan_.conditions.size(), std::nan(""));
    for (int c : order) {
      std::optional<double> v = Visit(c, round);
      if (!v) return std::nullopt;
      values[c] = *v;
    }
    return values;
  }

 private:
  /// The condition's holds, then its releases; `held` is what stays resident.
  bool SetUp(int c, std::set<std::string>& held) {
    const ResidencyCondition& condition = plan_.conditions[c];
    for (const std::string& name : condition.hold) {
      if (!Step(c, "hold " + name, [&] {
            Result<HoldReply> reply = harness_.Hold(name);
            if (reply && reply->bytes) r_.conditions[c].bytes[name] = *reply->bytes;
            if (reply) held.insert(name);
            return reply ? Status() : Status(reply.error());
          })) {
        return false;
      }
    }
    for (const std::string& name : condition.release) {
      if (!Step(c, "release " + name, [&] {
            Status done = harness_.Release(name);
            if (done) held.erase(name);
            return done;
          })) {
        return false;
      }
    }
    return true;
  }

  /// The settling runs after the set-up (`run QUERY settle_runs`): recorded as warm-ups of
  /// the round, not analysed, so what the set-up itself disturbs (caches, page faults) is
  /// not measured as the condition.
  bool Settle(int c, int round) {
    const std::string settle = fmt::format("run {} {}", plan_.query, options_.settle_runs);
    std::vector<double> settled;
    if (!Step(c, settle, [&] {
          Result<std::vector<double>> got = harness_.Run(plan_.query, options_.settle_runs);
          if (!got) return Status(got.error());
          settled = std::move(*got);
          return Status();
        })) {
      return false;
    }
    for (double v : settled) {
      Sample s;
      s.sequence = static_cast<int>(r_.samples.size());
      s.arm = c;
      s.pair = round;
      s.warmup = true;  // a settling run: recorded, not analysed
      s.value = v;
      r_.samples.push_back(std::move(s));
    }
    return true;
  }

  /// The visit's measured runs (`command`), each recorded as a sample; a failed request is
  /// recorded as one failed sample. Returns the values, or nullopt.
  std::optional<std::vector<double>> Measure(int c, int round, const std::string& command) {
    const int n = options_.runs_per_visit;
    std::vector<double> values;
    double round_trip_ms = 0;
    bool ran = Step(c, command, [&] {
      const auto start = std::chrono::steady_clock::now();
      Result<std::vector<double>> got = harness_.Run(plan_.query, n);
      round_trip_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      if (!got) return Status(got.error());
      values = std::move(*got);
      return Status();
    });
    if (!ran) {
      Sample failed;
      failed.sequence = static_cast<int>(r_.samples.size());
      failed.arm = c;
      failed.pair = round;
      failed.warmup = round < 0;
      failed.ok = false;
      failed.failure = r_.failure ? r_.failure->message() : "interrupted";
      r_.samples.push_back(std::move(failed));
      return std::nullopt;
    }
    for (double v : values) {
      Sample s;
      s.sequence = static_cast<int>(r_.samples.size());
      s.arm = c;
      s.pair = round;
      s.warmup = round < 0;
      s.value = v;
      // The client's round trip, shared out over the values it carried.
      s.wall_ms = round_trip_ms / n;
      if (!(v > 0)) {
        s.ok = false;
        s.failure = fmt::format("{} ms is not a positive time", v);
      }
      r_.samples.push_back(std::move(s));
    }
    return values;
  }

  /// Undo: release what the visit holds still.
  bool Undo(int c, const std::set<std::string>& held) {
    for (const std::string& name : plan_.conditions[c].hold) {
      if (held.count(name) == 0) continue;
      if (!Step(c, "release " + name, [&] { return harness_.Release(name); })) return false;
    }
    return true;
  }

  template <typename F>
  bool Step(int c, const std::string& command, F&& f) {
    if (InterruptRequested()) {
      r_.interrupted = true;
      return false;
    }
    Status done = f();
    if (done) return true;
    if (done.error().kind() == ErrorKind::kInterrupted || InterruptRequested()) {
      r_.interrupted = true;
      return false;
    }
    Fail(c, command, done.error());
    return false;
  }

  void Fail(int c, const std::string& command, const Error& error) {
    r_.failed_condition = plan_.conditions[c].name;
    r_.failed_command = command;
    r_.failure = error.WithContext(fmt::format("condition '{}'", plan_.conditions[c].name));
  }

  HarnessSession& harness_;
  const IsolationPlan& plan_;
  const IsolationOptions& options_;
  IsolationResult& r_;
};

void TakeSnapshot(const HostProbe* host, SittingProgress* progress, const char* phase,
                  HostState& into) {
  if (host == nullptr) return;
  if (progress) progress->OnPhase(phase);
  into = host->Snapshot(/*calibrate=*/true);
}

// ---- the sitting's rounds and looks ----

/// The result before the first visit: the seed, one outcome per condition,
/// the suspect, each comparison's alpha and the looks.
IsolationResult PlannedResult(const IsolationPlan& plan, const IsolationOptions& options) {
  IsolationResult r;
  const int k = static_cast<int>(plan.conditions.size());
  r.seed = RequestedOrFreshSeed(options.seed);
  for (const ResidencyCondition& c : plan.conditions) {
    ConditionOutcome outcome;
    outcome.condition = c;
    r.conditions.push_back(std::move(outcome));
  }
  r.suspect = SuspectCondition(plan.conditions);
  r.condition_alpha = PerConditionAlpha(options.confidence, std::max(0, k - 1));
  r.looks = IsolationLooks(options, k, r.condition_alpha);
  return r;
}

void CalibrateBetweenLooks(const HostProbe& host, SittingProgress* progress, IsolationResult& r) {
  if (progress) progress->OnPhase("calibrating (between looks)");
  HostState checkpoint = host.Snapshot(true);
  if (checkpoint.calibration_ms) {
    r.checkpoint_calibrations_ms.push_back(*checkpoint.calibration_ms);
  }
}

/// The rounds done, the next look's round count, and the suspect's ratio now.
void ReportProgress(SittingProgress& progress, const IsolationResult& r, size_t look) {
  std::optional<double> ratio;
  if (r.suspect > 0) ratio = RatioNow(r, r.suspect);
  progress.OnProgress(r.rounds_done, look < r.looks.size() ? r.looks[look] : r.rounds_done, ratio);
}

/// The rounds of the balanced design, with a look each time the complete
/// rounds reach the next look. Stops when every condition is decided (a plan
/// of the baseline alone runs to the last look), after the last look, or when
/// a visit fails or is interrupted. Returns the index of the next look.
size_t RunRounds(IsolationRun& run, const std::vector<double>& alphas, const HostProbe* host,
                 const IsolationOptions& options, SittingProgress* progress, IsolationResult& r) {
  const int k = static_cast<int>(r.conditions.size());
  const std::vector<std::vector<int>> design = BalancedRoundOrders(k, r.looks.back(), r.seed);
  size_t look = 0;
  std::vector<bool> decided(k, false);
  decided[0] = true;
  int undecided = std::max(0, k - 1);
  while (!r.failure && !r.interrupted && look < r.looks.size() && (undecided > 0 || k == 1)) {
    if (InterruptRequested()) {
      r.interrupted = true;
      break;
    }
    const int round = r.rounds_done;
    r.orders.push_back(design[round]);
    std::optional<std::vector<double>> values = run.Round(round, design[round]);
    if (!values) break;
    r.visit_values.push_back(std::move(*values));
    ++r.rounds_done;

    if (r.rounds_done >= r.looks[look]) {
      undecided -= DecideAtLook(r, alphas[look], options.band, decided);
      ++look;
      // Every condition as it stands, decided or not: one line per look.
      if (progress) progress->OnPhase(DescribeLook(r));
      if (undecided > 0 && look < r.looks.size() && options.calibrate_between_looks && host) {
        CalibrateBetweenLooks(*host, progress, r);
      }
      if (k == 1 && look >= r.looks.size()) break;
    }
    if (progress) ReportProgress(*progress, r, look);
  }
  return look;
}

}  // namespace

IsolationResult RunIsolationSitting(HarnessSession& harness, const IsolationPlan& plan,
                                    const HostProbe* host, const IsolationOptions& options,
                                    SittingProgress* progress) {
  IsolationResult r = PlannedResult(plan, options);
  const int k = static_cast<int>(plan.conditions.size());
  // Pocock-type spending, as `probe`: a large effect can stop at an early look.
  const std::vector<double> alphas = SpendAlpha(r.condition_alpha, r.looks, Spending::kPocock);
  IsolationRun run(harness, plan, options, r);

  // Warm-up first: the first request also waits for the engine to load, and
  // calibrating while it loads would time the loader, not the host.
  if (options.warmup > 0 && progress) progress->OnPhase("warming up");
  for (int w = 0; w < options.warmup && !r.failure && !r.interrupted; ++w) {
    for (int c = 0; c < k && !r.failure && !r.interrupted; ++c) run.Visit(c, -1);
  }
  if (!r.failure && !r.interrupted) TakeSnapshot(host, progress, "calibrating (start)", r.start);

  const size_t look = RunRounds(run, alphas, host, options, progress, r);

  if (r.failure) {
    DropVerdicts(r);
  } else {
    TakeSnapshot(host, progress, "calibrating (end)", r.end);
    if (r.interrupted) {
      EstimateWithoutVerdict(r, alphas[std::min(look, r.looks.size() - 1)]);
    } else {
      DecideTheUndecided(r, options.band);
    }
    Status quit = harness.Quit();
    if (!quit) r.notes.push_back("the engine did not quit cleanly: " + quit.error().message());
  }
  // A sitting that broke or was stopped before a snapshot has nothing to compare the host
  // across.
  NoteSittingEnd(r.start.time.empty() || r.end.time.empty() ? nullptr : host, r.start, r.end,
                 r.calibration, r.notes);
  r.reversibility = JudgeReversibility(r.conditions, r.suspect);
  r.conclusion = IsolationConclusion(r, plan.query, options.band);
  return r;
}

}  // namespace culprit
