#include "bisect/run_reuse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/strings.h"
#include "probes/verdict.h"

namespace culprit {
namespace {

using json = nlohmann::json;

// A kept run as the sitting saw it: its value and resource figures.
SampleOutcome OutcomeOf(const Sample& s) {
  SampleOutcome o;
  o.ok = true;
  o.value = s.value;
  o.wall_ms = s.wall_ms;
  o.user_ms = s.user_ms;
  o.system_ms = s.system_ms;
  o.max_rss_kb = s.max_rss_kb;
  o.minor_faults = s.minor_faults;
  o.major_faults = s.major_faults;
  o.voluntary_switches = s.voluntary_switches;
  o.involuntary_switches = s.involuntary_switches;
  return o;
}

// Whether a run counts as a success the way SampleFrom judges one: ok and a positive number.
bool Succeeded(const SampleOutcome& o) { return o.ok && std::isfinite(o.value) && o.value > 0; }

Result<RunReuse> Damaged(const std::string& what) {
  return Error("damaged bisect state: its re-usable runs (" + what + ")")
      .WithHint("`culprit bisect reset` discards it");
}

}  // namespace

int Reuse::RunsOf(int arm) const {
  int n = 0;
  for (const ReusedRuns& r : runs) {
    if (r.arm == arm) n += r.runs;
  }
  return n;
}

void Reuse::Append(const Reuse& other, int sequence_offset) {
  for (const ReusedRuns& r : other.runs) {
    auto same = std::find_if(runs.begin(), runs.end(), [&](const ReusedRuns& mine) {
      return mine.arm == r.arm && mine.commit == r.commit && mine.step == r.step;
    });
    if (same == runs.end()) {
      runs.push_back(r);
    } else {
      same->runs += r.runs;
    }
  }
  for (int s : other.samples) samples.push_back(s + sequence_offset);
}

std::string DescribeReuse(const Reuse& reuse) {
  std::vector<std::string> arms;
  for (int arm : {0, 1}) {
    std::vector<std::string> parts;
    std::string commit;
    for (const ReusedRuns& r : reuse.runs) {
      if (r.arm != arm) continue;
      commit = r.commit;
      parts.push_back(parts.empty() ? fmt::format("{} runs of step {}", r.runs, r.step)
                                    : fmt::format("{} of step {}", r.runs, r.step));
    }
    if (parts.empty()) continue;
    arms.push_back(
        fmt::format("{} {}: {}", arm == 0 ? "A" : "B", ShortCommit(commit), Join(parts, ", ")));
  }
  return Join(arms, "; ");
}

ReusingSource::ReusingSource(SampleSource& inner, std::array<ServedRuns, 2> served, int warmup,
                             int warmup_retries)
    : inner_(inner),
      served_runs_(std::move(served)),
      warmup_(warmup),
      warmup_retries_(warmup_retries) {}

SampleOutcome ReusingSource::Run(int arm) {
  const int call = calls_++;
  const int side = arm == 0 ? 0 : 1;
  // The sitting's warm-up: `warmup_` runs of each arm, then retries of an arm none of whose
  // warm-ups succeeded (PairedSitting::WarmUp); the sitting fails the arm after those.
  const bool warming =
      warmup_ > 0 && (warmups_taken_[side] < warmup_ ||
                      (warmups_ok_[side] == 0 && warmups_taken_[side] < warmup_ + warmup_retries_));
  if (warming) {
    ++warmups_taken_[side];
    SampleOutcome outcome = inner_.Run(arm);
    if (Succeeded(outcome)) ++warmups_ok_[side];
    return outcome;
  }
  const ServedRuns& kept = served_runs_[side];
  if (next_[side] < kept.runs.size()) {
    served_[call] = kept.steps[next_[side]];
    return kept.runs[next_[side]++];
  }
  return inner_.Run(arm);
}

bool RunReuse::Repeats(const Kept& kept) {
  if (kept.closed || kept.runs.size() < 2) return false;
  auto [low, high] = std::minmax_element(
      kept.runs.begin(), kept.runs.end(),
      [](const SampleOutcome& x, const SampleOutcome& y) { return x.value < y.value; });
  return low->value > 0 && high->value / low->value - 1 <= kNearDeterministicSpread;
}

std::unique_ptr<ReusingSource> RunReuse::Wrap(SampleSource& inner, const std::string& a,
                                              const std::string& b, int warmup, int warmup_retries,
                                              bool in_step) const {
  std::array<ServedRuns, 2> served;
  if (enabled_) {
    const std::string* commits[2] = {&a, &b};
    for (int arm : {0, 1}) {
      auto kept = kept_.find(*commits[arm]);
      if (kept == kept_.end() || !Repeats(kept->second)) continue;
      size_t from = 0;
      if (in_step) {
        auto used = step_used_.find(*commits[arm]);
        if (used != step_used_.end()) from = static_cast<size_t>(used->second);
      }
      for (size_t i = from; i < kept->second.runs.size(); ++i) {
        served[arm].runs.push_back(kept->second.runs[i]);
        served[arm].steps.push_back(kept->second.steps[i]);
      }
    }
  }
  return std::make_unique<ReusingSource>(inner, std::move(served), warmup, warmup_retries);
}

Reuse RunReuse::Settle(const ReusingSource& source, const std::string& a, const std::string& b,
                       const std::vector<Sample>& samples, bool keep_fresh, int step) {
  const std::string* commits[2] = {&a, &b};
  Reuse reuse;
  int served[2] = {0, 0};
  for (const auto& [sequence, from] : source.served()) {
    if (sequence >= static_cast<int>(samples.size())) continue;
    const int arm = samples[sequence].arm == 0 ? 0 : 1;
    ++served[arm];
    reuse.Append(Reuse{{ReusedRuns{arm, *commits[arm], from, 1}}, {sequence}}, 0);
  }
  if (!enabled_) return reuse;
  bool added[2] = {false, false};
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    if (s.warmup || source.served().contains(static_cast<int>(i))) continue;
    const int arm = s.arm == 0 ? 0 : 1;
    Kept& kept = kept_[*commits[arm]];
    if (!s.ok || s.censored) {
      // A failed or timed-out run is evidence about the commit that needs the sequential test:
      // the commit's runs are never re-used again.
      kept.closed = true;
      kept.runs.clear();
      kept.steps.clear();
      continue;
    }
    if (!keep_fresh || s.dropped || kept.closed ||
        kept.runs.size() >= static_cast<size_t>(kMaxReusableRuns)) {
      continue;
    }
    kept.runs.push_back(OutcomeOf(s));
    kept.steps.push_back(step);
    added[arm] = true;
  }
  for (int arm : {0, 1}) {
    Kept& kept = kept_[*commits[arm]];
    // Runs that spread are not a count that repeats: measured fresh from now on.
    if (!kept.closed && kept.runs.size() >= 2 && !Repeats(kept)) {
      kept.closed = true;
      kept.runs.clear();
      kept.steps.clear();
    }
    if (step != 0 || !keep_fresh) continue;
    // The step in flight never takes its own runs, nor a kept run twice.
    int& used = step_used_[*commits[arm]];
    used = added[arm] ? static_cast<int>(kept.runs.size()) : used + served[arm];
  }
  return reuse;
}

Reuse RunReuse::EndStep(int step) {
  for (auto& [commit, kept] : kept_) {
    for (int& s : kept.steps) {
      if (s == 0) s = step;
    }
  }
  step_used_.clear();
  Reuse done = std::move(step_);
  step_ = Reuse{};
  return done;
}

int RunReuse::KeptRuns(const std::string& commit) const {
  auto kept = kept_.find(commit);
  return kept == kept_.end() ? 0 : static_cast<int>(kept->second.runs.size());
}

std::string RunReuse::ToJson() const {
  if (kept_.empty() && step_.empty()) return "";
  json kept = json::array();
  for (const auto& [commit, k] : kept_) {
    json runs = json::array();
    for (size_t i = 0; i < k.runs.size(); ++i) {
      const SampleOutcome& o = k.runs[i];
      runs.push_back({{"value", o.value},
                      {"step", k.steps[i]},
                      {"wall_ms", o.wall_ms},
                      {"user_ms", o.user_ms},
                      {"system_ms", o.system_ms},
                      {"max_rss_kb", o.max_rss_kb}});
    }
    kept.push_back({{"commit", commit}, {"closed", k.closed}, {"runs", runs}});
  }
  json used = json::object();
  for (const auto& [commit, n] : step_used_) used[commit] = n;
  json step_runs = json::array();
  for (const ReusedRuns& r : step_.runs) {
    step_runs.push_back({{"arm", r.arm}, {"commit", r.commit}, {"step", r.step}, {"runs", r.runs}});
  }
  return json{{"kept", kept},
              {"step_used", used},
              {"step_reused", step_runs},
              {"step_reused_samples", step_.samples}}
      .dump();
}

Result<RunReuse> RunReuse::FromJson(const std::string& text) {
  RunReuse reuse;
  if (text.empty()) return reuse;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Damaged("not an object");
  try {
    for (const json& k : j.at("kept")) {
      Kept& kept = reuse.kept_[k.at("commit").get<std::string>()];
      kept.closed = k.at("closed").get<bool>();
      for (const json& r : k.at("runs")) {
        SampleOutcome o;
        o.ok = true;
        o.value = r.at("value").get<double>();
        o.wall_ms = r.value("wall_ms", 0.0);
        o.user_ms = r.value("user_ms", 0.0);
        o.system_ms = r.value("system_ms", 0.0);
        o.max_rss_kb = r.value("max_rss_kb", 0L);
        if (!Succeeded(o)) return Damaged("a run that is not a positive number");
        kept.runs.push_back(o);
        kept.steps.push_back(r.at("step").get<int>());
      }
    }
    for (const auto& [commit, n] : j.at("step_used").items()) {
      reuse.step_used_[commit] = n.get<int>();
    }
    for (const json& r : j.at("step_reused")) {
      reuse.step_.runs.push_back(ReusedRuns{r.at("arm").get<int>(),
                                            r.at("commit").get<std::string>(),
                                            r.at("step").get<int>(), r.at("runs").get<int>()});
    }
    reuse.step_.samples = j.at("step_reused_samples").get<std::vector<int>>();
  } catch (const json::exception& e) {
    return Damaged(e.what());
  }
  return reuse;
}

}  // namespace culprit
