#include "probes/sitting.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <span>

#include "base/interrupt.h"
#include "base/random_seed.h"
#include "probes/sequential.h"

namespace culprit {

Sample SampleFrom(const SampleOutcome& outcome, int sequence, int arm, int pair, bool warmup) {
  Sample sample;
  sample.sequence = sequence;
  sample.arm = arm;
  sample.pair = pair;
  sample.warmup = warmup;
  sample.ok = outcome.ok;
  sample.value = outcome.ok ? outcome.value : 0;
  sample.failure = outcome.failure;
  if (sample.ok && !(std::isfinite(outcome.value) && outcome.value > 0)) {
    sample.ok = false;
    sample.failure = fmt::format("metric {} is not a positive finite number", outcome.value);
  }
  sample.wall_ms = outcome.wall_ms;
  sample.user_ms = outcome.user_ms;
  sample.system_ms = outcome.system_ms;
  sample.max_rss_kb = outcome.max_rss_kb;
  sample.minor_faults = outcome.minor_faults;
  sample.major_faults = outcome.major_faults;
  sample.voluntary_switches = outcome.voluntary_switches;
  sample.involuntary_switches = outcome.involuntary_switches;
  return sample;
}

namespace {

const char* ArmLetter(int arm) { return arm == 0 ? "A" : "B"; }

class SittingRun {
 public:
  SittingRun(SampleSource& source, SittingResult& result) : source_(source), result_(result) {}

  /// Runs one sample and appends it; returns its index in result.samples.
  size_t Take(int arm, int pair, bool warmup) {
    SampleOutcome outcome = source_.Run(arm);
    Sample sample =
        SampleFrom(outcome, static_cast<int>(result_.samples.size()), arm, pair, warmup);
    // A timed-out measured run stays in the statistics as a censored observation.
    if (!outcome.ok && outcome.timed_out && !warmup) {
      sample.censored = true;
      sample.value = outcome.censor_value;
    }
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

void Snapshot(const HostProbe* host, SittingProgress* progress, const char* phase,
              HostState& into) {
  if (host == nullptr) return;
  if (progress) progress->OnPhase(phase);
  into = host->Snapshot(/*calibrate=*/true);
}

// The start's snapshot, and a load already at the core count said now, not only in the
// summary: the user can still stop the sitting and wait for a quiet host.
void StartSnapshot(const HostProbe* host, SittingProgress* progress, HostState& into) {
  Snapshot(host, progress, "calibrating (start)", into);
  if (host == nullptr || progress == nullptr) return;
  if (std::optional<std::string> load = LoadAtStartWarning(host->Identity(), into)) {
    progress->OnWarning(*load);
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

namespace {

/// One kept pair, as measured: a timed-out side is censored and gets its
/// value only when the pairs are analysed (see CensoredLogRatios).
struct KeptPair {
  double value[2] = {0, 0};
  bool censored[2] = {false, false};
};

// ln(B) - ln(A) of every kept pair. A censored side is "slower than its
// bound": it is given the larger of its bound and the slowest completed run
// of the sitting, and its pair's d is pushed at least 3E + ln 2 from 0 (E the
// largest |d| of the completed pairs), away from the censored side. Then every
// Walsh average that holds a censored pair, (d_c + d_j) / 2 >= E + ln 2 / 2,
// lies beyond every Walsh average of completed pairs (at most E): the ranks
// know only that the slow run was slow, and the Hodges–Lehmann estimate and
// any interval end that is an average of completed pairs are the same
// whatever the bound (RunPairedSittingCensored). (An interval end that is
// itself a censored average says only that the ratio reaches that far.)
std::vector<double> CensoredLogRatios(const std::vector<KeptPair>& pairs) {
  double slowest = 0, extent = 0;
  for (const KeptPair& p : pairs) {
    for (int arm : {0, 1}) {
      if (!p.censored[arm]) slowest = std::max(slowest, p.value[arm]);
    }
    if (!p.censored[0] && !p.censored[1]) {
      extent = std::max(extent, std::fabs(std::log(p.value[1]) - std::log(p.value[0])));
    }
  }
  const double beyond = 3 * extent + std::numbers::ln2;
  std::vector<double> d;
  d.reserve(pairs.size());
  for (const KeptPair& p : pairs) {
    double v[2];
    for (int arm : {0, 1})
      v[arm] = p.censored[arm] ? std::max(p.value[arm], slowest) : p.value[arm];
    double x = std::log(v[1]) - std::log(v[0]);
    if (p.censored[1] && !p.censored[0]) x = std::max(x, beyond);
    if (p.censored[0] && !p.censored[1]) x = std::min(x, -beyond);
    d.push_back(x);
  }
  return d;
}

// ln(B) - ln(A) of the kept pairs whose two runs completed: what the mean ratio and the
// tails are read from, so that no stand-in value moves them (the timeouts are judged by the
// failure-rate test instead).
std::vector<double> CompletedLogRatios(const std::vector<KeptPair>& pairs) {
  std::vector<double> d;
  for (const KeptPair& p : pairs) {
    if (!p.censored[0] && !p.censored[1]) d.push_back(std::log(p.value[1]) - std::log(p.value[0]));
  }
  return d;
}

}  // namespace

std::vector<double> KeptLogRatios(const std::vector<Sample>& samples) {
  // A kept pair is two samples of one pair number, neither a warm-up nor dropped; its
  // pairs are in pair-number order, as the sitting kept them.
  std::map<int, KeptPair> by_pair;
  std::map<int, int> sides;
  for (const Sample& s : samples) {
    if (s.warmup || s.dropped || s.pair < 0 || s.arm < 0 || s.arm > 1) continue;
    if (!s.ok && !s.censored) continue;
    KeptPair& pair = by_pair[s.pair];
    pair.value[s.arm] = s.value;
    pair.censored[s.arm] = s.censored;
    sides[s.pair] |= 1 << s.arm;
  }
  std::vector<KeptPair> kept;
  for (const auto& [number, pair] : by_pair) {
    if (sides[number] == 3) kept.push_back(pair);
  }
  return CensoredLogRatios(kept);
}

namespace {

class PairedSitting {
 public:
  PairedSitting(SampleSource& source, const HostProbe* host, const SittingOptions& options,
                SittingProgress* progress, SittingResult& result)
      : host_(host), options_(options), progress_(progress), r_(result), run_(source, result) {
    r_.seed = RequestedOrFreshSeed(options.seed);
    rng_.seed(r_.seed);
    max_failed_ = options.max_failed_samples > 0 ? options.max_failed_samples
                                                 : std::max(5, options.max_pairs / 4);
    const int null_max =
        options.null_max_pairs > 0
            ? std::clamp(options.null_max_pairs, options.min_pairs, options.max_pairs)
            : options.max_pairs;
    if (options.looks.empty()) {
      r_.looks = LookSchedule(options.min_pairs, null_max);
      if (null_max < options.max_pairs) {
        for (int n : LookSchedule(null_max, options.max_pairs)) {
          if (n > null_max) r_.looks.push_back(n);
        }
      }
    } else {
      // The given schedule, within the budget, with the budget and NULL's last look in it.
      for (int n : options.looks) {
        if (n >= 1 && n < options.max_pairs) r_.looks.push_back(n);
      }
      r_.looks.push_back(null_max);
      r_.looks.push_back(options.max_pairs);
      std::sort(r_.looks.begin(), r_.looks.end());
      r_.looks.erase(std::unique(r_.looks.begin(), r_.looks.end()), r_.looks.end());
    }
    // Pocock-type spending: a large effect can stop at the first look (10
    // pairs), which is most of culprit's work; O'Brien–Fleming would keep the
    // first two looks from ever stopping. The price is a wider final interval.
    // Over many looks (10..640) even Pocock's first share is too small for 10
    // pairs to reach, so that look moves up by whole blocks until it can stop.
    r_.looks = StoppableLooks(std::move(r_.looks), 1 - options.confidence, Spending::kPocock,
                              kPairsPerBlock);
    alphas_ = SpendAlpha(1 - options.confidence, r_.looks, Spending::kPocock);
    null_looks_ = static_cast<size_t>(
        std::count_if(r_.looks.begin(), r_.looks.end(), [&](int n) { return n <= null_max; }));
    null_alphas_ =
        null_looks_ == r_.looks.size()
            ? alphas_
            : SpendAlpha(1 - options.confidence, std::span<const int>(r_.looks.data(), null_looks_),
                         Spending::kPocock);
    if (options.null_from_trimmed_look && options.trim_share > 0 && !options.sight_tail_once) {
      null_alphas_ = NullSpendingFromTrimmedLook(std::span<const int>(r_.looks.data(), null_looks_),
                                                 1 - options.confidence, options.trim_share,
                                                 options.null_from_pairs);
    }
    // EFFECT's α goes where the schedule's moves stop (SittingOptions::effect_spending); a
    // tie needs the pairs it needs, so NULL's stays Pocock's, and the two are then read apart
    // (null_alphas_ differs from alphas_), as a check's are.
    if (options.effect_spending != Spending::kPocock) {
      alphas_ = SpendAlpha(1 - options.confidence, r_.looks, options.effect_spending);
    }
    r_.effect_spending = options.effect_spending;
    failure_alphas_ = alphas_;
    if (options.joint_looks) {
      alphas_ = GroupSequentialAlphas(r_.looks, alphas_);
      null_alphas_ =
          GroupSequentialAlphas(std::span<const int>(r_.looks.data(), null_looks_), null_alphas_);
    }
  }

  // Ctrl-C, or the caller's own reason (SittingOptions::stop_requested).
  bool Stopping() const {
    return InterruptRequested() || (options_.stop_requested && options_.stop_requested());
  }

  void Run() {
    StartSnapshot(host_, progress_, r_.start);
    WarmUp();
    while (!r_.failure && !decided_ && !r_.stopped_futile && look_ < r_.looks.size()) {
      if (Stopping()) {
        r_.interrupted = true;
        break;
      }
      if (!TakeBlock()) {
        if (r_.interrupted) break;
        continue;
      }
      if (kept_.size() >= static_cast<size_t>(r_.looks[look_])) Look();
      if (!decided_ && options_.near_deterministic) CheckNearDeterministic();
      if (progress_) {
        std::optional<double> ratio;
        if (r_.shift) ratio = std::exp(r_.shift->estimate);
        progress_->OnProgress(r_.pairs_kept,
                              look_ < r_.looks.size() ? r_.looks[look_] : r_.pairs_kept, ratio);
      }
    }
    Snapshot(host_, progress_, "calibrating (end)", r_.end);
    NoteSittingEnd(host_, r_.start, r_.end, r_.calibration, r_.notes);
    for (size_t i = 1; i < r_.checkpoint_calibrations_ms.size(); ++i) {
      CalibrationCheck jump =
          CheckCalibration(r_.checkpoint_calibrations_ms[i - 1], r_.checkpoint_calibrations_ms[i]);
      if (jump.drifted) r_.notes.push_back("between looks: " + jump.message);
    }
    r_.log_ratios = CensoredLogRatios(kept_);
    if (!r_.failure) Conclude();
  }

 private:
  // Warm-up: each arm runs alternately. A failed warm-up is retried a few
  // times (one flaky start is noise); an arm none of whose warm-ups succeeds
  // is broken, and no amount of pairs will fix that. A warm-up that timed
  // out counts as failed: an arm whose every try hangs is almost surely always
  // hanging, and saying so after a few timeouts beats 40 more of them.
  void WarmUp() {
    if (options_.warmup <= 0) return;
    if (progress_) progress_->OnPhase("warming up");
    int ok[2] = {0, 0}, tries[2] = {0, 0};
    auto take = [&](int arm) {
      ++tries[arm];
      if (r_.samples[run_.Take(arm, -1, true)].ok) ++ok[arm];
    };
    for (int i = 0; i < options_.warmup; ++i) {
      for (int arm : {0, 1}) {
        if (Stopping()) return;
        take(arm);
      }
    }
    for (int retry = 0; retry < options_.warmup_retries; ++retry) {
      for (int arm : {0, 1}) {
        if (Stopping()) return;
        if (ok[arm] == 0) take(arm);
      }
    }
    for (int arm : {0, 1}) {
      if (ok[arm] == 0) {
        r_.failure = Error(fmt::format("every warm-up run of arm {} failed ({} tries); {}",
                                       ArmLetter(arm), tries[arm], run_.first_failure()));
        return;
      }
    }
  }

  // One sample of a pair; records it in the failure counts. Returns false
  // when the block must be dropped (a failure other than a timeout).
  bool TakeMeasured(int arm, int pair, KeptPair& into, std::vector<size_t>& block_samples) {
    size_t index = run_.Take(arm, pair, false);
    block_samples.push_back(index);
    Sample& sample = r_.samples[index];
    ++r_.failures.runs[arm];
    if (sample.ok) {
      into.value[arm] = sample.value;
      return true;
    }
    if (sample.censored) {
      ++r_.failures.timed_out[arm];
      into.value[arm] = sample.value;
      into.censored[arm] = true;
      return true;
    }
    ++r_.failures.failed[arm];
    ++lost_samples_;
    return false;
  }

  // One block: an AB pair and a BA pair in random order. A failure other
  // than a timeout drops the whole block, so the kept pairs stay balanced
  // between the orders (the failure itself is counted per arm and tested).
  // A pair whose two sides both timed out says nothing about the ratio and
  // is dropped the same way. Returns whether the block was kept.
  bool TakeBlock() {
    const bool a_first = (rng_() & 1) != 0;
    std::vector<size_t> block_samples;
    std::vector<KeptPair> block;
    bool block_ok = true;
    for (int p = 0; p < 2 && block_ok; ++p) {
      const int first = ((p == 0) == a_first) ? 0 : 1;
      KeptPair pair;
      for (int arm : {first, 1 - first}) {
        if (Stopping()) {
          r_.interrupted = true;
          block_ok = false;
          break;
        }
        if (!TakeMeasured(arm, pair_number_, pair, block_samples)) {
          block_ok = false;
          break;
        }
      }
      if (block_ok && pair.censored[0] && pair.censored[1]) {
        block_ok = false;
        lost_samples_ += 2;
      }
      if (block_ok) block.push_back(pair);
      ++pair_number_;
    }
    if (!block_ok) {
      for (size_t index : block_samples) r_.samples[index].dropped = true;
      r_.pairs_dropped += static_cast<int>(block.size()) + 1;
      // The limit counts the runs that gave nothing to rank. A timeout kept as a censored
      // side of a pair is evidence (the run was slower than the timeout), so two arms that
      // each time out a quarter of the time are measured, not declared broken.
      if (!r_.interrupted && lost_samples_ >= max_failed_) {
        r_.failure = Error(fmt::format(
            "{} samples failed or lost their pair (both sides timed out), the limit for this "
            "sitting; first: {}",
            lost_samples_, run_.first_failure()));
      }
      return false;
    }
    for (const KeptPair& pair : block) r_.pairs_censored += pair.censored[0] || pair.censored[1];
    kept_.insert(kept_.end(), block.begin(), block.end());
    r_.pairs_kept += 2;
    return true;
  }

  void TestFailures(double alpha) {
    FailureComparison& f = r_.failures;
    f.p_value = FisherExactTwoSided(f.Unmeasured(0), f.runs[0], f.Unmeasured(1), f.runs[1]);
    f.differ = f.p_value < alpha;
  }

  // The mean and the tails of the kept pairs around `center` at `confidence` (the look's).
  // With SittingOptions::sight_tail_once, whether the pairs could have missed a slow tail is
  // asked once for the whole sitting, at its α: if the first n pairs hold no run of the tail,
  // neither do the first n' < n, so the chance that any look states a tie (or rules a move
  // out) on pairs that never caught the tail is the chance at the first look that may.
  // Otherwise a tie reads a mean with the few pairs at each end set aside that TrimAtLook
  // allows at the look's sighting α (TailSightingAlpha): wild runs widen a plain mean's interval
  // far more than they move the centre.
  TailEvidence Tails(double center, double confidence) const {
    const std::vector<double> d = CompletedLogRatios(kept_);
    if (options_.sight_tail_once) {
      TailEvidence tails = GatherTailEvidence(d, center, confidence, options_.band);
      tails.sighting_alpha = 1 - options_.confidence;
      return tails;
    }
    TailEvidence tails = GatherTailEvidence(d, center, confidence, options_.band);
    TrimForTie(d, options_.trim_share, &tails);
    return tails;
  }

  // A planned look: the interval at this look's spent confidence, and the
  // failure-rate test at the same alpha. Either can end the sitting.
  void Look() {
    std::vector<double> d = CensoredLogRatios(kept_);
    Result<ShiftEstimate> shift = SignedRankEstimate(d, 1 - alphas_[look_]);
    Verdict verdict = Verdict::kInconclusive;
    if (shift) {
      r_.shift = *shift;
      r_.nominal_confidence = 1 - alphas_[look_];
      // The tails at the same confidence: a tie of the pseudo-median that they contradict
      // (an intermittent slowdown) is not a NULL, and a mean beyond the band with the tails
      // leaning its way is an EFFECT (ClassifyWithTails).
      r_.tails = Tails(shift->estimate, r_.nominal_confidence);
      null_claimable_ = NullMayStop();
      verdict = ClassifyWithTails(*shift, *r_.tails, options_.band);
      decided_ = verdict == Verdict::kEffect || (verdict == Verdict::kNull && null_claimable_);
      if (!decided_ && options_.null_states_tie && look_ < null_looks_ &&
          null_alphas_[look_] != alphas_[look_] && null_alphas_[look_] > 0) {
        // NULL's own spending (null_max_pairs): its interval is the one a tie is read from.
        Result<ShiftEstimate> null_shift = SignedRankEstimate(d, 1 - null_alphas_[look_]);
        if (null_shift) {
          TailEvidence null_tails = Tails(null_shift->estimate, 1 - null_alphas_[look_]);
          if (ClassifyWithTails(*null_shift, null_tails, options_.band) == Verdict::kNull) {
            r_.shift = *null_shift;
            r_.tails = null_tails;
            r_.nominal_confidence = 1 - null_alphas_[look_];
            null_claimable_ = true;
            decided_ = true;
            verdict = Verdict::kNull;
          }
        }
      }
    }
    TestFailures(failure_alphas_[look_]);
    // A NULL claims the arms are the same; it may stop the sitting early only
    // when the failures give no hint that they are not (p >= 0.5: a lone
    // failure passes). Otherwise sampling goes on, so the failure counts get
    // the whole budget's power before a tie can be stated.
    if (decided_ && r_.shift && verdict == Verdict::kNull && r_.failures.p_value < 0.5) {
      decided_ = false;
    }
    decided_ = decided_ || r_.failures.differ;
    if (!decided_ && shift) decided_ = RuleOut(d);
    ++look_;
    if (!decided_ && look_ < r_.looks.size() && options_.stop_when_futile && r_.shift) {
      r_.stopped_futile = !TieOrEffectInReach();
      if (r_.stopped_futile) return;
    }
    if (!decided_ && look_ < r_.looks.size() && options_.calibrate_between_looks && host_) {
      if (progress_) progress_->OnPhase("calibrating (between looks)");
      HostState checkpoint = host_->Snapshot(true);
      if (checkpoint.calibration_ms) {
        r_.checkpoint_calibrations_ms.push_back(*checkpoint.calibration_ms);
      }
    }
  }

  // The near-deterministic rule over every kept run so far (SittingOptions::
  // near_deterministic). It states nothing once a measured run failed or timed out: the
  // failures then need the usual looks' test.
  void CheckNearDeterministic() {
    if (r_.failures.Unmeasured(0) + r_.failures.Unmeasured(1) > 0) return;
    std::vector<double> values[2];
    for (const KeptPair& pair : kept_) {
      for (int arm : {0, 1}) {
        if (!pair.censored[arm]) values[arm].push_back(pair.value[arm]);
      }
    }
    r_.near_deterministic = LookNearDeterministic(values[0], values[1], options_.band);
    decided_ = r_.near_deterministic->state == NearDeterministicLook::State::kDecided;
  }

  // Whether the looks already planned end with NULL's last one (null_max_pairs): a NULL
  // is stated at a look of its own spending only.
  bool NullMayStop() const {
    return options_.null_states_tie && look_ < null_looks_ && null_alphas_[look_] == alphas_[look_];
  }

  bool RulesOutAtAll() const { return options_.rule_out_band > options_.band; }

  // Whether this look rules out every move of ×A or more (SittingOptions::rule_out_band):
  // NULL's interval at NULL's looks, EFFECT's past them, inside ±ln A with the tails, and
  // only when the failures give no hint that the arms differ (as a NULL). An interval beyond
  // the band rules nothing out: at NULL's looks it is not EFFECT's, and the looks go on. Sets
  // the result's interval to the one that ruled the move out.
  bool RuleOut(const std::vector<double>& d) {
    if (!RulesOutAtAll() || !r_.shift || !r_.tails) return false;
    if (kept_.size() < static_cast<size_t>(std::max(0, options_.rule_out_from_pairs))) return false;
    if (r_.failures.p_value < 0.5) return false;
    ShiftEstimate shift = *r_.shift;
    TailEvidence tails = *r_.tails;
    double confidence = r_.nominal_confidence;
    if (look_ < null_looks_ && null_alphas_[look_] != alphas_[look_]) {
      if (!(null_alphas_[look_] > 0)) return false;  // a look NULL's spending skips
      Result<ShiftEstimate> null_shift = SignedRankEstimate(d, 1 - null_alphas_[look_]);
      if (!null_shift) return false;
      shift = *null_shift;
      confidence = 1 - null_alphas_[look_];
      tails = Tails(shift.estimate, confidence);
    }
    if (Classify(shift.low, shift.high, BandEdge(options_.band)) == Verdict::kEffect) return false;
    if (!RulesOutMove(shift, tails, options_.rule_out_band)) return false;
    r_.shift = shift;
    r_.tails = tails;
    r_.nominal_confidence = confidence;
    r_.ruled_out = true;
    return true;
  }

  // Whether a later look may still decide (SittingOptions::stop_when_futile): an effect
  // within reach of the last look, or a tie within reach of NULL's last look. Sets reach_:
  // the effect's reach, with the pairs a tie would take.
  bool TieOrEffectInReach() {
    reach_ = ReachOfLastLook(*r_.shift, options_.band, r_.looks.back(), alphas_.back());
    // Where a tie may be stated, a rule-out only adds a way to stop: a sitting that reaches
    // neither verdict stops as before, and a part it did not rule out says what ruling it out
    // would take. Where none may, the rule-out is the answer (RuleOutInReach).
    bool tie = false;
    if (options_.null_states_tie && look_ < null_looks_) {
      LastLookReach null_reach = ReachOfLastLook(
          *r_.shift, options_.band, r_.looks[null_looks_ - 1], null_alphas_[null_looks_ - 1]);
      tie = null_reach.tie_reachable;
      reach_.pairs_for_tie = null_reach.pairs_for_tie;
    }
    return tie || reach_.effect_reachable || RuleOutInReach();
  }

  // A sitting that states no tie but rules moves out (a check whose tie was not sought) has
  // the rule-out for its answer: it goes on while a later look may still rule out ×A, read
  // as a tie within ±ln A at the last look (and at NULL's last, whose α the rule-out spends
  // up to it). The interval alone can be inside ±ln A long before the rule-out may be
  // stated, a NULL's tail sighting asking more pairs than an early look holds, so without
  // this the futility stop would end such a check at its second look.
  bool RuleOutInReach() const {
    if (options_.null_states_tie || !RulesOutAtAll()) return false;
    bool reach = ReachOfLastLook(*r_.shift, options_.rule_out_band, r_.looks.back(), alphas_.back())
                     .tie_reachable;
    if (look_ < null_looks_ && null_alphas_[null_looks_ - 1] > 0) {
      reach = reach || ReachOfLastLook(*r_.shift, options_.rule_out_band, r_.looks[null_looks_ - 1],
                                       null_alphas_[null_looks_ - 1])
                           .tie_reachable;
    }
    return reach;
  }

  void Conclude() {
    if (r_.pairs_censored > 0) {
      r_.notes.push_back(fmt::format(
          "{} kept pairs hold a timed-out run, counted as slower than the timeout (censored)",
          r_.pairs_censored));
    }
    if (r_.interrupted) {
      // Stopping at an arbitrary point is not one of the planned looks, so no
      // verdict can claim the stated error rates: report the estimate, decide nothing.
      if (r_.log_ratios.size() >= 2) {
        size_t next = std::min(look_, r_.looks.size() - 1);
        Result<ShiftEstimate> shift = SignedRankEstimate(r_.log_ratios, 1 - alphas_[next]);
        if (shift) {
          r_.shift = *shift;
          r_.nominal_confidence = 1 - alphas_[next];
          r_.tails = Tails(shift->estimate, r_.nominal_confidence);
        }
      }
      r_.verdict = InconclusiveBecause(fmt::format(
          "interrupted after {} pairs, before the sitting could decide", r_.pairs_kept));
      r_.notes.push_back(r_.verdict->explanation);
      return;
    }
    if (r_.near_deterministic &&
        r_.near_deterministic->state == NearDeterministicLook::State::kDecided) {
      const NearDeterministicLook& rule = *r_.near_deterministic;
      r_.shift = rule.range;
      r_.tails.reset();  // The rule reads ranges, not ranks: no mean or tails beside it.
      r_.nominal_confidence = 1;
      VerdictResult v;
      v.verdict = rule.verdict;
      v.excludes_zero = rule.range.low > 0 || rule.range.high < 0;
      v.explanation = "near-deterministic: " + rule.explanation;
      r_.verdict = v;
      r_.notes.push_back(
          fmt::format("decided by the near-deterministic rule after {} pairs (docs/statistics.md)",
                      r_.pairs_kept));
      return;
    }
    if (options_.near_deterministic) {
      r_.notes.push_back(
          r_.near_deterministic
              ? "the near-deterministic rule did not decide: " + r_.near_deterministic->explanation
              : std::string("the near-deterministic rule did not look: too few runs, or a "
                            "measured run failed or timed out first"));
    }
    if (!r_.shift) {
      r_.verdict = InconclusiveBecause(
          fmt::format("only {} pairs were kept, too few for an interval", r_.pairs_kept));
    } else {
      r_.verdict =
          r_.tails ? Decide(*r_.shift, options_.band, *r_.tails) : Decide(*r_.shift, options_.band);
      if (r_.verdict->verdict == Verdict::kNull && !null_claimable_) {
        // Inside the band, but at a look past null_max_pairs: NULL's α is spent.
        r_.verdict = InconclusiveBecause(
            options_.null_states_tie
                ? fmt::format(
                      "{}, but a tie may be stated only up to {} pairs, and was not shown by then",
                      r_.verdict->explanation, r_.looks[null_looks_ - 1])
                : fmt::format("{}, but this sitting states no tie (none was sought)",
                              r_.verdict->explanation));
      }
      if (r_.ruled_out) {
        r_.verdict->explanation += fmt::format(
            "; every move of x{0:.3f} or more either way is ruled out (the interval{1} lies inside "
            "[x{2:.3f}, x{0:.3f}])",
            1 + options_.rule_out_band, r_.tails && r_.tails->mean ? " and the mean's" : "",
            1 / (1 + options_.rule_out_band));
      }
    }
    if (r_.stopped_futile) {
      std::string why = fmt::format(
          "stopped after {} of at most {} pairs: at this noise neither a tie nor an effect "
          "beyond the band is within reach of a later look",
          r_.pairs_kept, r_.looks.back());
      if (reach_.pairs_for_tie > 0 && reach_.pairs_for_tie < 1e7) {
        why +=
            fmt::format(" (a tie would take about {:.0f} pairs)", std::ceil(reach_.pairs_for_tie));
      }
      r_.verdict->explanation += "; " + why;
      r_.notes.push_back(why);
    }
    const FailureComparison& f = r_.failures;
    if (f.differ) {
      std::string differ = "the arms differ in failures: " + f.Describe();
      if (r_.verdict->verdict == Verdict::kNull) {
        // The surviving pairs tie, but an arm that fails more often is not
        // the same as the other: a tie would hide exactly what matters.
        r_.verdict = InconclusiveBecause(differ +
                                         "; the timings of the runs that succeeded tie, "
                                         "so this is not a NULL");
        r_.verdict->excludes_zero = false;
      } else {
        r_.verdict->explanation += "; " + differ;
      }
      r_.notes.push_back(differ);
    } else if (f.Unmeasured(0) + f.Unmeasured(1) > 0) {
      r_.notes.push_back("failed or timed-out runs: " + f.Describe());
    }
  }

  const HostProbe* host_;
  const SittingOptions& options_;
  SittingProgress* progress_;
  SittingResult& r_;
  SittingRun run_;
  std::mt19937_64 rng_;
  int max_failed_ = 0;
  int lost_samples_ = 0;        // Measured runs that failed or lost their pair (see TakeBlock).
  std::vector<double> alphas_;  // EFFECT's spending, one per look
  std::vector<double> failure_alphas_;  // the failure test's: the increments (joint_looks)
  std::vector<double> null_alphas_;     // NULL's, one per look up to null_max_pairs
  size_t null_looks_ = 0;               // looks at which a NULL may be stated
  bool null_claimable_ = true;          // r_.shift is from a look that may state a NULL
  std::vector<KeptPair> kept_;
  size_t look_ = 0;
  LastLookReach reach_;  // At the last look taken, when stop_when_futile asked for it.
  int pair_number_ = 0;
  bool decided_ = false;
};

}  // namespace

std::string FailureComparison::Describe() const {
  // The arm that failed more is named first: that is the news.
  const int worse = WorseArm();
  const int other = 1 - worse;
  auto arm = [&](int i) {
    std::string text = fmt::format("{} of {} runs", Unmeasured(i), runs[i]);
    if (timed_out[i] > 0) text += fmt::format(" ({} timed out)", timed_out[i]);
    return text;
  };
  std::string text = fmt::format("{} failed {}, {} {}", ArmLetter(worse), arm(worse),
                                 ArmLetter(other), arm(other));
  if (p_value < 1) text += fmt::format(" (Fisher's exact test p = {:.2g})", p_value);
  return text;
}

void NoteSittingEnd(const HostProbe* host, const HostState& start, const HostState& end,
                    std::optional<CalibrationCheck>& calibration, std::vector<std::string>& notes) {
  if (start.calibration_ms && end.calibration_ms) {
    calibration = CheckCalibration(*start.calibration_ms, *end.calibration_ms);
    if (calibration->drifted || !calibration->valid) notes.push_back(calibration->message);
  }
  if (host == nullptr) return;
  for (std::string& warning : HostChangeWarnings(host->Identity(), start, end)) {
    notes.push_back(std::move(warning));
  }
}

std::vector<double> NullSpendingFromTrimmedLook(std::span<const int> null_looks, double alpha,
                                                double share, int from_pairs) {
  if (null_looks.empty()) return {};
  const double last = null_looks.back();
  // The last look at or before from_pairs (none when from_pairs precedes every look).
  size_t from = 0;
  for (size_t j = 1; j < null_looks.size(); ++j) {
    if (null_looks[j] <= from_pairs) from = j;
  }
  for (size_t j = 0; j < null_looks.size(); ++j) {
    if (j < from) continue;
    const double first_share = PocockSpent(alpha, null_looks[j] / last);
    if (!(first_share > 0 && first_share < 1)) continue;
    if (TrimAtLook(null_looks[j], first_share, share) < 1) continue;
    std::vector<double> alphas(null_looks.size(), 0.0);
    const std::vector<double> spent = SpendAlpha(alpha, null_looks.subspan(j), Spending::kPocock);
    std::copy(spent.begin(), spent.end(), alphas.begin() + static_cast<std::ptrdiff_t>(j));
    return alphas;
  }
  return SpendAlpha(alpha, null_looks, Spending::kPocock);
}

SittingResult RunPairedSitting(SampleSource& source, const HostProbe* host,
                               const SittingOptions& options, SittingProgress* progress) {
  SittingResult r;
  PairedSitting(source, host, options, progress, r).Run();
  return r;
}

SittingResult RunSingleArmSitting(SampleSource& source, const HostProbe* host, int warmup,
                                  int samples, SittingProgress* progress) {
  SittingResult r;
  SittingRun run(source, r);
  const int max_failed = std::max(5, samples / 4);
  StartSnapshot(host, progress, r.start);
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
  NoteSittingEnd(host, r.start, r.end, r.calibration, r.notes);
  return r;
}

}  // namespace culprit
