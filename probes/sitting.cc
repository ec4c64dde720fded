#include "probes/sitting.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "base/interrupt.h"
#include "probes/sequential.h"

namespace culprit {
namespace {

const char* ArmLetter(int arm) { return arm == 0 ? "A" : "B"; }

class SittingRun {
 public:
  SittingRun(SampleSource& source, SittingResult& result) : source_(source), result_(result) {}

  /// Runs one sample and appends it; returns its index in result.samples.
  size_t Take(int arm, int pair, bool warmup) {
    SampleOutcome outcome = source_.Run(arm);
    Sample sample;
    sample.sequence = static_cast<int>(result_.samples.size());
    sample.arm = arm;
    sample.pair = pair;
    sample.warmup = warmup;
    sample.ok = outcome.ok;
    sample.value = outcome.ok ? outcome.value : 0;
    sample.failure = outcome.failure;
    // Log ratios need positive values; a zero or negative metric is not a time.
    if (sample.ok && !(std::isfinite(outcome.value) && outcome.value > 0)) {
      sample.ok = false;
      sample.failure = fmt::format("metric {} is not a positive finite number", outcome.value);
    }
    sample.wall_ms = outcome.wall_ms;
    sample.user_ms = outcome.user_ms;
    sample.system_ms = outcome.system_ms;
    sample.max_rss_kb = outcome.max_rss_kb;
    if (!sample.ok) {
      ++result_.failed_samples;
      if (first_failure_.empty()) {
        first_failure_ = fmt::format("arm {}: {}", ArmLetter(arm), sample.failure);
      }
    }
    result_.samples.push_back(std::move(sample));
    return result_.samples.size() - 1;
  }

  const std::string& first_failure() const { return first_failure_; }

 private:
  SampleSource& source_;
  SittingResult& result_;
  std::string first_failure_;
};

uint64_t PickSeed(uint64_t requested) {
  if (requested != 0) return requested;
  std::random_device entropy;
  return (static_cast<uint64_t>(entropy()) << 32) ^ entropy() ^ 0x9e3779b97f4a7c15ULL;
}

void Snapshot(const HostProbe* host, SittingProgress* progress, const char* phase,
              HostState& into) {
  if (host == nullptr) return;
  if (progress) progress->OnPhase(phase);
  into = host->Snapshot(/*calibrate=*/true);
}

void CheckCalibrationDrift(SittingResult& r) {
  if (!r.start.calibration_ms || !r.end.calibration_ms) return;
  r.calibration = CheckCalibration(*r.start.calibration_ms, *r.end.calibration_ms);
  if (r.calibration->drifted || !r.calibration->valid) r.notes.push_back(r.calibration->message);
}

void NoteHostChanges(const HostProbe* host, SittingResult& r) {
  if (host == nullptr) return;
  for (std::string& warning : HostChangeWarnings(host->Identity(), r.start, r.end)) {
    r.notes.push_back(std::move(warning));
  }
}

VerdictResult InconclusiveBecause(std::string why) {
  VerdictResult v;
  v.verdict = Verdict::kInconclusive;
  v.excludes_zero = false;
  v.detectable_ratio = 0;
  v.explanation = std::move(why);
  return v;
}

}  // namespace

int FailedSamples(const std::vector<Sample>& samples, int arm) {
  int failed = 0;
  for (const Sample& s : samples) failed += s.arm == arm && !s.ok;
  return failed;
}

SittingResult RunPairedSitting(SampleSource& source, const HostProbe* host,
                               const SittingOptions& options, SittingProgress* progress) {
  SittingResult r;
  r.seed = PickSeed(options.seed);
  std::mt19937_64 rng(r.seed);
  const int max_failed = options.max_failed_samples > 0 ? options.max_failed_samples
                                                        : std::max(5, options.max_pairs / 4);
  r.looks = LookSchedule(options.min_pairs, options.max_pairs);
  // Pocock-type spending: a large effect can stop at the first look (10
  // pairs), which is most of culprit's work; O'Brien–Fleming would keep the
  // first two looks from ever stopping. The price is a wider final interval.
  const std::vector<double> alphas = SpendAlpha(1 - options.confidence, r.looks, Spending::kPocock);
  SittingRun run(source, r);

  Snapshot(host, progress, "calibrating (start)", r.start);

  // Warm-up: each arm runs alternately; a warm-up that fails on every try
  // means the arm's command is broken, and no amount of pairs will fix that.
  if (options.warmup > 0 && progress) progress->OnPhase("warming up");
  int warmup_ok[2] = {0, 0};
  for (int i = 0; i < options.warmup && !InterruptRequested(); ++i) {
    for (int arm : {0, 1}) {
      if (InterruptRequested()) break;
      if (r.samples[run.Take(arm, -1, true)].ok) ++warmup_ok[arm];
    }
  }
  if (!InterruptRequested() && options.warmup > 0 && (warmup_ok[0] == 0 || warmup_ok[1] == 0)) {
    r.failure = Error(fmt::format("every warm-up run failed; {}", run.first_failure()));
  }

  std::vector<double>& kept = r.log_ratios;
  size_t look = 0;
  int pair_number = 0;
  bool decided = false;
  while (!r.failure && !decided && look < r.looks.size()) {
    if (InterruptRequested()) {
      r.interrupted = true;
      break;
    }
    // One block: an AB pair and a BA pair in random order. A failure drops
    // the whole block, so the kept pairs stay balanced between the orders.
    const bool a_first = (rng() & 1) != 0;
    std::vector<size_t> block_samples;
    std::vector<double> block_d;
    bool block_ok = true;
    for (int p = 0; p < 2 && block_ok; ++p) {
      const int first = ((p == 0) == a_first) ? 0 : 1;
      double value[2] = {0, 0};
      for (int arm : {first, 1 - first}) {
        if (InterruptRequested()) {
          r.interrupted = true;
          block_ok = false;
          break;
        }
        size_t index = run.Take(arm, pair_number, false);
        block_samples.push_back(index);
        if (!r.samples[index].ok) {
          block_ok = false;
          break;
        }
        value[arm] = r.samples[index].value;
      }
      if (block_ok) block_d.push_back(std::log(value[1]) - std::log(value[0]));
      ++pair_number;
    }
    if (!block_ok) {
      for (size_t index : block_samples) r.samples[index].dropped = true;
      r.pairs_dropped += static_cast<int>(block_d.size()) + 1;
      if (r.interrupted) break;
      if (r.failed_samples >= max_failed) {
        r.failure = Error(fmt::format("{} samples failed, the limit for this sitting; first: {}",
                                      r.failed_samples, run.first_failure()));
      }
      continue;
    }
    kept.insert(kept.end(), block_d.begin(), block_d.end());
    r.pairs_kept += 2;

    std::optional<double> ratio;
    if (r.shift) ratio = std::exp(r.shift->estimate);
    if (kept.size() >= static_cast<size_t>(r.looks[look])) {
      Result<ShiftEstimate> shift = SignedRankEstimate(kept, 1 - alphas[look]);
      if (shift) {
        r.shift = *shift;
        r.nominal_confidence = 1 - alphas[look];
        ratio = std::exp(shift->estimate);
        decided = IsDecisive(*shift, options.band);
      }
      ++look;
      if (!decided && look < r.looks.size() && options.calibrate_between_looks && host) {
        if (progress) progress->OnPhase("calibrating (between looks)");
        HostState checkpoint = host->Snapshot(true);
        if (checkpoint.calibration_ms) {
          r.checkpoint_calibrations_ms.push_back(*checkpoint.calibration_ms);
        }
      }
    }
    if (progress) {
      progress->OnProgress(r.pairs_kept, look < r.looks.size() ? r.looks[look] : r.pairs_kept,
                           ratio);
    }
  }

  Snapshot(host, progress, "calibrating (end)", r.end);
  CheckCalibrationDrift(r);
  NoteHostChanges(host, r);
  for (size_t i = 1; i < r.checkpoint_calibrations_ms.size(); ++i) {
    CalibrationCheck jump =
        CheckCalibration(r.checkpoint_calibrations_ms[i - 1], r.checkpoint_calibrations_ms[i]);
    if (jump.drifted) r.notes.push_back("between looks: " + jump.message);
  }
  if (r.failure) return r;

  if (r.interrupted) {
    // Stopping at an arbitrary point is not one of the planned looks, so no
    // verdict can claim the stated error rates: report the estimate, decide nothing.
    if (kept.size() >= 2) {
      size_t next = std::min(look, r.looks.size() - 1);
      Result<ShiftEstimate> shift = SignedRankEstimate(kept, 1 - alphas[next]);
      if (shift) {
        r.shift = *shift;
        r.nominal_confidence = 1 - alphas[next];
      }
    }
    r.verdict = InconclusiveBecause(
        fmt::format("interrupted after {} pairs, before the sitting could decide", r.pairs_kept));
    r.notes.push_back(r.verdict->explanation);
    return r;
  }
  if (!r.shift) {
    r.verdict = InconclusiveBecause(
        fmt::format("only {} pairs were kept, too few for an interval", r.pairs_kept));
    return r;
  }
  r.verdict = Decide(*r.shift, options.band);
  return r;
}

SittingResult RunSingleArmSitting(SampleSource& source, const HostProbe* host, int warmup,
                                  int samples, SittingProgress* progress) {
  SittingResult r;
  SittingRun run(source, r);
  const int max_failed = std::max(5, samples / 4);
  Snapshot(host, progress, "calibrating (start)", r.start);
  if (warmup > 0 && progress) progress->OnPhase("warming up");
  int warmup_ok = 0;
  for (int i = 0; i < warmup && !InterruptRequested(); ++i) {
    if (r.samples[run.Take(0, -1, true)].ok) ++warmup_ok;
  }
  if (!InterruptRequested() && warmup > 0 && warmup_ok == 0) {
    r.failure = Error(fmt::format("every warm-up run failed; {}", run.first_failure()));
  }
  int done = 0;
  while (!r.failure && done < samples) {
    if (InterruptRequested()) {
      r.interrupted = true;
      r.notes.push_back(fmt::format("interrupted after {} of {} samples", done, samples));
      break;
    }
    if (r.samples[run.Take(0, -1, false)].ok) {
      ++done;
      if (progress) progress->OnProgress(done, samples, std::nullopt);
    } else if (r.failed_samples >= max_failed) {
      r.failure = Error(fmt::format("{} samples failed, the limit for this run; first: {}",
                                    r.failed_samples, run.first_failure()));
    }
  }
  Snapshot(host, progress, "calibrating (end)", r.end);
  CheckCalibrationDrift(r);
  NoteHostChanges(host, r);
  return r;
}

}  // namespace culprit
