#include "bisect/search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>

#include "base/strings.h"
#include "bisect/bisect_budget.h"
#include "probes/sequential.h"
#include "probes/sitting.h"
#include "probes/statistics.h"
#include "probes/verdict.h"

namespace culprit {
namespace {

// The pairs at which the near-deterministic rule first looks: kNearDeterministicRepeats runs
// of each arm, in whole blocks (3 runs: 4 pairs).
constexpr int kNearDeterministicPairs =
    (static_cast<int>(kNearDeterministicRepeats) + kPairsPerBlock - 1) / kPairsPerBlock *
    kPairsPerBlock;

// The verification's looks: from verify_pairs_min, doubling, with a first look that can
// stop (StoppableLooks; the runner measures whole blocks of two pairs).
std::vector<int> VerificationLooks(const SearchOptions& o) {
  return StoppableLooks(LookSchedule(o.verify_pairs_min, o.verify_pairs_max), 1 - o.confidence,
                        o.spending, kPairsPerBlock);
}

// The next look of `looks` after `have` pairs (always > have).
int NextLook(const std::vector<int>& looks, int have) {
  for (int look : looks) {
    if (look > have) return look;
  }
  return have + 1;
}

// The fixed schedule: VerificationLooks, Pocock (or O'Brien–Fleming) over all of it.
VerificationPlan FixedPlan(const SearchOptions& o) {
  VerificationPlan plan;
  plan.looks = VerificationLooks(o);
  plan.alphas = SpendAlpha(1 - o.confidence, plan.looks, o.spending);
  if (o.joint_looks) plan.alphas = GroupSequentialAlphas(plan.looks, plan.alphas);
  return plan;
}

std::string RatioText(double estimate, double low, double high, int n) {
  return fmt::format("ratio {} over {} pairs",
                     FormatRatioInterval(std::exp(estimate), std::exp(low), std::exp(high)), n);
}

}  // namespace

BisectSearch::BisectSearch(int n_commits, SearchOptions options)
    : n_(n_commits), options_(options) {
  assert(n_commits >= 1);
}

void BisectSearch::MarkUnbuildable(int commit) {
  if (commit <= 0 || commit >= n_ || IsUnbuildable(commit)) return;
  unbuildable_.insert(std::upper_bound(unbuildable_.begin(), unbuildable_.end(), commit), commit);
}

void BisectSearch::MarkCached(int commit) {
  if (std::binary_search(cached_.begin(), cached_.end(), commit)) return;
  cached_.insert(std::upper_bound(cached_.begin(), cached_.end(), commit), commit);
}

void BisectSearch::AddObservation(int commit, std::span<const double> d) {
  assert(commit >= 1 && commit <= n_);
  if (d.empty()) return;
  observations_.push_back({commit, 0, false, std::vector<double>(d.begin(), d.end())});
  runs_.emplace_back();
}

void BisectSearch::AddVerification(int commit, int baseline, std::span<const double> d,
                                   std::optional<ArmRuns> runs) {
  assert(baseline >= 0 && baseline < commit && commit <= n_);
  if (d.empty()) return;
  observations_.push_back({commit, baseline, true, std::vector<double>(d.begin(), d.end())});
  runs_.push_back(std::move(runs));
}

bool BisectSearch::IsUnbuildable(int commit) const {
  return std::binary_search(unbuildable_.begin(), unbuildable_.end(), commit);
}

bool BisectSearch::IsBuilt(int commit) const {
  if (commit == 0 || commit == n_) return true;
  return std::any_of(observations_.begin(), observations_.end(), [&](const Observation& o) {
    return o.commit == commit || o.baseline == commit;
  });
}

int BisectSearch::builds_used() const {
  std::vector<int> seen = unbuildable_;
  for (const Observation& o : observations_) {
    for (int c : {o.commit, o.baseline}) {
      if (c > 0 && c < n_) seen.push_back(c);
    }
  }
  std::sort(seen.begin(), seen.end());
  return static_cast<int>(std::unique(seen.begin(), seen.end()) - seen.begin());
}

int BisectSearch::pairs_used() const {
  int total = 0;
  for (const Observation& o : observations_) total += static_cast<int>(o.d.size());
  return total;
}

int SearchBatchPairs(double effect, double noise, int max_batch, double step_odds) {
  constexpr int kMinBatch = kPairsPerBlock;  // the runner's smallest sitting
  if (max_batch <= kMinBatch || !(effect > 0) || !(noise > 0)) return max_batch;
  // n pairs at separation δ and scale s carry an expected log-likelihood ratio of about
  // n δ² / (2 s²) between "bad" and "good"; a step is decisive at ln(step_odds) (ln 19 ≈ 2.9).
  // Twice the pairs that take in expectation, so a batch is decisive most of the time even
  // when δ/s was estimated high from the few pairs of a quiet host.
  const double wanted =
      4 * std::log(std::max(step_odds, 1.0)) * (noise * noise) / (effect * effect);
  if (!(wanted < max_batch)) return max_batch;
  return std::max(kMinBatch, static_cast<int>(std::ceil(wanted)));
}

int BisectSearch::max_builds() const {
  if (options_.max_builds > 0) return options_.max_builds;
  const int log2n = static_cast<int>(std::ceil(std::log2(static_cast<double>(n_))));
  return std::min(n_ - 1, log2n + kBuildsBeyondHalving);
}

int BisectSearch::max_pairs() const {
  if (options_.max_pairs > 0) return options_.max_pairs;
  return 2 * options_.verify_pairs_max +
         2 * options_.max_pairs_per_step * std::max(1, max_builds());
}

ModelFit BisectSearch::Fit() const {
  return FitSearchModel(n_, observations_, Refuted(),
                        SearchNoiseFloor(options_.near_deterministic));
}

std::vector<int> BisectSearch::Refuted() const {
  // The verified blocks, in the order of their first pairs: each keeps its own memo, so a
  // block's verdict is read once per batch of its own, not on every decision.
  std::vector<std::pair<int, int>> blocks;
  for (const Observation& o : observations_) {
    if (!o.verification) continue;
    const std::pair<int, int> block{o.commit, o.baseline};
    if (std::find(blocks.begin(), blocks.end(), block) == blocks.end()) blocks.push_back(block);
  }
  if (refutation_memos_.size() < blocks.size()) refutation_memos_.resize(blocks.size());
  std::vector<int> refuted;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const auto [culprit, parent] = blocks[k];
    const VerdictMemo& v = LookVerdict(refutation_memos_[k], culprit, parent, true);
    if (v.verdict != Verification::kTie && v.verdict != Verification::kFaster) continue;
    for (int j = parent + 1; j <= culprit; ++j) refuted.push_back(j);
  }
  std::sort(refuted.begin(), refuted.end());
  refuted.erase(std::unique(refuted.begin(), refuted.end()), refuted.end());
  return refuted;
}

bool BisectSearch::Wary() const {
  if (!(options_.wary_step_odds > 0 || options_.wary_target_probability > 0)) return false;
  // A measurement after a verification's pairs: the verification took its candidate below
  // the target (the search measures only then), so the search is back at work. (Turning wary
  // also when a step is taken again at a commit, later evidence having overturned it, cost
  // 54 search pairs at 18%/24% for one bisect in a hundred more named in ranges of two
  // changes: docs/bisect-evidence.md.)
  bool verified = false;
  for (const Observation& o : observations_) {
    if (o.verification) verified = true;
    if (verified && !o.verification) return true;
  }
  return !Refuted().empty();
}

double BisectSearch::StepOdds() const {
  return Wary() ? std::max(options_.step_odds, options_.wary_step_odds) : options_.step_odds;
}

double BisectSearch::TargetProbability() const {
  return Wary() ? std::max(options_.target_probability, options_.wary_target_probability)
                : options_.target_probability;
}

VerificationPlan PlanVerification(double effect, double noise, const SearchOptions& o) {
  const double tau = std::log1p(o.band);
  if (!o.plan_verification || !(effect > tau) || !(noise > 0)) return FixedPlan(o);
  const double alpha = 1 - o.confidence;
  // One pair's d under the search's Student-t model: standard deviation s·√(ν / (ν − 2)).
  const double sd = noise * std::sqrt(kStudentDof / (kStudentDof - 2.0));
  auto blocks = [](int pairs) { return (pairs + kPairsPerBlock - 1) / kPairsPerBlock; };
  // The pairs the first look wants with `share` of α, and the fewest its interval exists at.
  auto first_look = [&](double share, int* floor) {
    const double z = NormalQuantile(1 - share * alpha / 2) + NormalQuantile(kPlannedLookPower);
    *floor = static_cast<int>(MinPairsForSignedRank(1 - share * alpha));
    return (std::acos(-1.0) / 3) * std::pow(z * sd / (effect - tau), 2);
  };
  double share = kPlannedLookShare;
  int floor = 0;
  double wanted = first_look(share, &floor);
  if (wanted <= floor) {
    // The effect stands so far above the noise that the look at the fewest pairs its interval
    // exists at is all but sure to decide: more of α there buys a look a block sooner.
    int wide_floor = 0;
    const double wide = first_look(kPlannedFloorLookShare, &wide_floor);
    if (wide <= wide_floor && blocks(wide_floor) < blocks(floor)) {
      share = kPlannedFloorLookShare;
      floor = wide_floor;
      wanted = wide;
    }
  }
  const double first_alpha = share * alpha;
  const int max = o.verify_pairs_max;
  int first = max;
  if (wanted < max) first = std::max(floor, static_cast<int>(std::ceil(wanted)));
  first = (first + kPairsPerBlock - 1) / kPairsPerBlock * kPairsPerBlock;  // whole blocks
  if (first >= max) {
    VerificationPlan plan;
    plan.planned = true;
    plan.effect = effect;
    plan.noise = noise;
    plan.looks = {max};
    plan.alphas = {alpha};
    return plan;
  }
  VerificationPlan plan;
  plan.planned = true;
  plan.effect = effect;
  plan.noise = noise;
  plan.looks = {first};
  plan.alphas = {first_alpha};
  const double growth = o.verify_look_growth;
  if (growth > 1 && growth < 2) {
    // The confirmation's finer looks from the first on (its first element is `first`).
    const std::vector<int> looks = ConfirmationLooks(first, max, growth);
    const std::vector<int> later(looks.begin() + 1, looks.end());
    const std::vector<double> later_alphas =
        SpendAlpha(alpha - first_alpha, later, o.later_looks_spending);
    plan.looks.insert(plan.looks.end(), later.begin(), later.end());
    plan.alphas.insert(plan.alphas.end(), later_alphas.begin(), later_alphas.end());
  } else if (2 * first <= max) {
    const std::vector<int> later = LookSchedule(2 * first, max);
    const std::vector<double> later_alphas = SpendAlpha(alpha - first_alpha, later, o.spending);
    plan.looks.insert(plan.looks.end(), later.begin(), later.end());
    plan.alphas.insert(plan.alphas.end(), later_alphas.begin(), later_alphas.end());
  } else {
    plan.looks.push_back(max);
    plan.alphas.push_back(alpha - first_alpha);
  }
  // The first look keeps its share; the later ones, read with it, keep the rest of α whole.
  if (o.joint_looks) plan.alphas = GroupSequentialAlphas(plan.looks, plan.alphas);
  return plan;
}

VerificationPlan BisectSearch::PlanFor(int culprit, int parent) const {
  if (!options_.plan_verification) return FixedPlan(options_);
  auto first = std::find_if(observations_.begin(), observations_.end(), [&](const Observation& o) {
    return o.verification && o.commit == culprit && o.baseline == parent;
  });
  const ModelFit fit = FitSearchModel(
      n_, std::span<const Observation>(observations_.data(), first - observations_.begin()), {},
      SearchNoiseFloor(options_.near_deterministic));
  return PlanVerification(fit.effect, fit.noise, options_);
}

// The project's verdict rule at one look of a sequential test, with the alpha that the
// options' spending gives that look (the last look whose count has been
// reached, if a driver fed pairs off the schedule), so the stated confidence holds over
// all looks whatever look the test stops at.
const BisectSearch::VerdictMemo& BisectSearch::LookVerdict(VerdictMemo& memo, int culprit,
                                                           int parent, bool verification) const {
  std::vector<double> d;
  for (const Observation& o : observations_) {
    if (o.verification == verification && o.commit == culprit && o.baseline == parent)
      d.insert(d.end(), o.d.begin(), o.d.end());
  }
  const int have = static_cast<int>(d.size());
  // Before its first pair a verification's plan follows the search's every observation.
  const int seen = verification && have == 0 ? static_cast<int>(observations_.size()) : -1;
  if (memo.culprit == culprit && memo.parent == parent && memo.pairs == have &&
      memo.observations == seen)
    return memo;
  memo = VerdictMemo{};
  memo.culprit = culprit;
  memo.parent = parent;
  memo.pairs = have;
  memo.observations = seen;
  // The endpoints on the fixed schedule; a verification on its plan.
  memo.plan = verification ? PlanFor(culprit, parent) : FixedPlan(options_);
  ReadLook(memo, std::move(d));
  if (verification) ReadRule(memo, culprit, parent);
  return memo;
}

void BisectSearch::ReadLook(VerdictMemo& memo, std::vector<double> d) const {
  const int have = static_cast<int>(d.size());
  const std::vector<int>& looks = memo.plan.looks;
  const std::vector<double>& alphas = memo.plan.alphas;
  int look = -1;
  for (size_t k = 0; k < looks.size(); ++k) {
    if (looks[k] <= have) look = static_cast<int>(k);
  }
  if (look < 0) return;
  // The look's own pairs, in the order they were taken: pairs past it (a batch that a budget
  // cut short before the next look) wait for the next look, so no look's α is tested twice.
  d.resize(static_cast<size_t>(looks[look]));
  memo.used = looks[look];
  auto shift = SignedRankEstimate(d, 1 - alphas[look]);
  if (!shift) return;
  memo.has_shift = true;
  memo.estimate = shift->estimate;
  memo.low = shift->low;
  memo.high = shift->high;
  memo.confidence = 1 - alphas[look];
  // With the tails: a pseudo-median tie that a slow tail contradicts is no tie (an
  // intermittent slowdown would otherwise pass as "good"), and a mean beyond the band with the
  // tails leaning its way is a move (ClassifyWithTails).
  TailEvidence tails = GatherTailEvidence(d, shift->estimate, memo.confidence, options_.band);
  TrimForTie(d, kTrimShare, &tails);
  const bool by_rank =
      Classify(shift->low, shift->high, BandEdge(options_.band)) == Verdict::kEffect;
  switch (ClassifyWithTails(*shift, tails, options_.band)) {
    case Verdict::kEffect:
      if (!by_rank) {
        // Moved in the mean only: the interval that shows the move is the one to report.
        memo.estimate = tails.mean->estimate;
        memo.low = tails.mean->low;
        memo.high = tails.mean->high;
      }
      memo.verdict = memo.low > 0 ? Verification::kSlower : Verification::kFaster;
      break;
    case Verdict::kNull:
      memo.verdict = Verification::kTie;
      break;
    case Verdict::kInconclusive:
    case Verdict::kError:
      break;
  }
}

// The near-deterministic rule over every run of the block's batches (docs/statistics.md,
// "Near-deterministic metrics"), as a sitting reads it between its looks: not a confidence
// interval, no α spent; the sequential looks stay as planned for when it does not decide.
void BisectSearch::ReadRule(VerdictMemo& memo, int culprit, int parent) const {
  if (!options_.near_deterministic) return;
  std::vector<double> a, b;
  for (size_t k = 0; k < observations_.size(); ++k) {
    const Observation& o = observations_[k];
    if (!o.verification || o.commit != culprit || o.baseline != parent) continue;
    // A batch without its runs (one failed or timed out): the rule states nothing.
    if (!runs_[k]) return;
    a.insert(a.end(), runs_[k]->baseline.begin(), runs_[k]->baseline.end());
    b.insert(b.end(), runs_[k]->commit.begin(), runs_[k]->commit.end());
  }
  if (a.empty() && b.empty()) return;
  memo.rule = LookNearDeterministic(a, b, options_.band);
  // A sequential look that decided first keeps its verdict, as in a sitting.
  if (memo.verdict != Verification::kUndecided) return;
  if (memo.rule->state != NearDeterministicLook::State::kDecided) return;
  const ShiftEstimate& range = memo.rule->range;
  memo.by_rule = true;
  memo.has_shift = true;
  memo.estimate = range.estimate;
  memo.low = range.low;
  memo.high = range.high;
  memo.confidence = 1;  // the observed range of the runs' ratios, not a coverage
  memo.used = memo.pairs;
  memo.verdict = memo.rule->verdict == Verdict::kNull ? Verification::kTie
                 : range.low > 0                      ? Verification::kSlower
                                                      : Verification::kFaster;
}

std::optional<NearDeterministicLook> BisectSearch::VerificationRule(int culprit, int parent,
                                                                    bool* decided) const {
  VerdictMemo memo;  // a fresh one: read from the state, not from a cached look
  LookVerdict(memo, culprit, parent, /*verification=*/true);
  if (decided) *decided = memo.by_rule;
  return memo.rule;
}

BisectSearch::Decision BisectSearch::Finish(SearchOutcome out, SearchOutcome::Kind kind,
                                            std::string reason) {
  out.kind = kind;
  out.reason = std::move(reason);
  return {Action{}, std::move(out)};
}

BisectSearch::Decision BisectSearch::Decide() const {
  const int budget = max_pairs() - pairs_used();
  SearchOutcome out;
  if (options_.confirm_endpoints) {
    if (std::optional<Decision> confirming = ConfirmEndpoints(out, budget)) return *confirming;
  }
  const ModelFit fit = Fit();
  const double target = TargetProbability();
  const std::vector<double> cdf = Locate(fit, target, out);
  if (!(out.probability > 0)) {
    return Finish(out, SearchOutcome::Kind::kInconclusive,
                  "every commit the search could name was refuted by its verification against "
                  "its parent");
  }
  const size_t credible_size = out.credible_set.size();
  const std::string credible =
      fmt::format("{} {} {:.0f}% of the model's posterior", CountOf(credible_size, "commit"),
                  credible_size == 1 ? "holds" : "hold", 100 * target);
  if (out.probability >= target || HoldsVerification(out)) return Verify(out, budget, credible);
  const double odds = StepOdds();
  return Split(out, cdf, SearchBatchPairs(fit.effect, fit.noise, options_.pairs_per_batch, odds),
               odds, budget, credible);
}

bool BisectSearch::HoldsVerification(const SearchOutcome& best) const {
  const double hold = options_.verify_hold_probability;
  if (!(hold > 0) || best.probability < hold || observations_.empty()) return false;
  const Observation& last = observations_.back();
  if (!last.verification || last.commit != best.last || last.baseline != best.first - 1) {
    return false;
  }
  // A look that decided stands as it is: a move below the target is not named, a tie refutes.
  return LookVerdict(verify_memo_, best.last, best.first - 1, /*verification=*/true).verdict ==
         Verification::kUndecided;
}

// 1. The endpoints must differ by an EFFECT before anything is bisected.
std::optional<BisectSearch::Decision> BisectSearch::ConfirmEndpoints(SearchOutcome& out,
                                                                     int budget) const {
  const VerdictMemo& v = LookVerdict(endpoint_memo_, n_, 0, /*verification=*/false);
  const int have = v.pairs;
  if (v.has_shift) {
    out.log_ratio = v.estimate;
    out.log_ratio_low = v.low;
    out.log_ratio_high = v.high;
    out.interval_confidence = v.confidence;
  }
  if (v.verdict == Verification::kTie || v.verdict == Verification::kFaster ||
      (v.verdict == Verification::kUndecided && have >= options_.verify_pairs_max)) {
    const char* what = v.verdict == Verification::kFaster
                           ? "the bad commit is faster than the good one"
                       : v.verdict == Verification::kTie
                           ? "good and bad are equal within the band"
                           : "good and bad are not shown to differ by more than the band";
    return Finish(out, SearchOutcome::Kind::kNotReproducible,
                  fmt::format("the move is not reproducible here: {} ({}); there is nothing "
                              "to bisect",
                              what, RatioText(v.estimate, v.low, v.high, v.used)));
  }
  if (v.verdict == Verification::kSlower) return std::nullopt;
  if (budget <= 0) {
    return Finish(out, SearchOutcome::Kind::kInconclusive,
                  "the pair budget ran out while confirming the endpoints");
  }
  const int want = NextLook(v.plan.looks, have) - have;
  return Decision{{Action::Kind::kMeasure, n_, 0, std::min(want, budget)}, out};
}

// 2. The posterior, grouped into blocks of hypotheses that no buildable commit separates:
// hypotheses j and j + 1 differ only in whether commit j is bad, so an unbuildable j
// merges them. Every block ends at a buildable commit (or N). Fills the most probable
// block and the credible set into `out`; returns the posterior's cumulative sums.
std::vector<double> BisectSearch::Locate(const ModelFit& fit, double target,
                                         SearchOutcome& out) const {
  const std::vector<double>& post = fit.posterior;
  std::vector<double> cdf(n_ + 1, 0.0);
  for (int j = 1; j <= n_; ++j) cdf[j] = cdf[j - 1] + post[j];
  int best_first = 1, best_last = 1;
  double best_mass = -1;
  for (int first = 1; first <= n_;) {
    int last = first;
    while (last < n_ && IsUnbuildable(last)) ++last;
    const double mass = cdf[last] - cdf[first - 1];
    if (mass > best_mass) {
      best_mass = mass;
      best_first = first;
      best_last = last;
    }
    first = last + 1;
  }
  out.first = best_first;
  out.last = best_last;
  out.probability = best_mass;
  std::vector<int> order(n_);
  for (int j = 1; j <= n_; ++j) order[j - 1] = j;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return post[a] > post[b]; });
  double acc = 0;
  for (int j : order) {
    out.credible_set.push_back(j);
    acc += post[j];
    if (acc >= target) break;
  }
  std::sort(out.credible_set.begin(), out.credible_set.end());
  return cdf;
}

// 3. Verify the block that holds the target: its last commit against the nearest buildable
// parent, fresh pairs, by the verdict rule.
BisectSearch::Decision BisectSearch::Verify(SearchOutcome out, int budget,
                                            const std::string& credible) const {
  const int best_first = out.first, best_last = out.last;
  const double best_mass = out.probability;
  const int culprit = best_last, parent = best_first - 1;
  const VerdictMemo& v = LookVerdict(verify_memo_, culprit, parent, /*verification=*/true);
  const int have = v.pairs;
  const bool by_rule = v.by_rule;
  if (have >= v.plan.looks.front() || by_rule) {
    if (v.has_shift) {
      out.log_ratio = v.estimate;
      out.log_ratio_low = v.low;
      out.log_ratio_high = v.high;
      out.verification_pairs = have;
      out.interval_confidence = v.confidence;
    }
    if (v.verdict == Verification::kSlower) {
      out.verified = true;
      const bool range = best_first != best_last;
      return Finish(
          out, range ? SearchOutcome::Kind::kRange : SearchOutcome::Kind::kCulprit,
          range ? fmt::format("the change is among {}..{} ({:.1f}% model posterior); "
                              "{}..{} could not be built; {} vs {}: {}",
                              best_first, best_last, 100 * best_mass, best_first, best_last - 1,
                              culprit, parent, RatioText(v.estimate, v.low, v.high, v.used))
                : fmt::format(
                      "commit {} ({:.1f}% model posterior), "
                      "verified against its parent: {}{}",
                      culprit, 100 * best_mass, RatioText(v.estimate, v.low, v.high, v.used),
                      by_rule ? " (the near-deterministic rule: every ratio of their runs)" : ""));
    }
    // A tie or a speed-up refutes the block (Refuted), which then holds no posterior and is
    // not verified again; only a verification that ran out of looks undecided ends here.
    if (v.verdict == Verification::kUndecided && have >= options_.verify_pairs_max) {
      return Finish(out, SearchOutcome::Kind::kInconclusive,
                    fmt::format("the search points at {} ({:.1f}%) but {} vs its parent {} "
                                "is not an EFFECT ({}); {}",
                                culprit, 100 * best_mass, culprit, parent,
                                RatioText(v.estimate, v.low, v.high, v.used), credible));
    }
  }
  if (budget <= 0) {
    return Finish(out, SearchOutcome::Kind::kInconclusive,
                  fmt::format("the pair budget ran out while verifying {}; {}", culprit, credible));
  }
  // In batches of at most kVerifyBatchPairs: their pairs are folded into the posterior, so a
  // wrong candidate (the search stopped at target_probability, not at certainty) loses its
  // mass and the search resumes after a batch, not after a whole planned look.
  int want = std::min(NextLook(v.plan.looks, have) - have, kVerifyBatchPairs);
  // A near-deterministic metric's first batch is the rule's: identical repeats decide there.
  if (options_.near_deterministic && have < kNearDeterministicPairs) {
    want = std::min(want, kNearDeterministicPairs - have);
  }
  return {{Action::Kind::kVerify, culprit, parent, std::min(want, budget)}, out};
}

// 4. Search: keep measuring the current candidate until its side is decisive, else pick
// the buildable commit that splits the posterior most evenly (nearest the median).
BisectSearch::Decision BisectSearch::Split(SearchOutcome out, const std::vector<double>& cdf,
                                           int batch, double odds, int budget,
                                           const std::string& credible) const {
  if (budget <= 0) {
    return Finish(out, SearchOutcome::Kind::kInconclusive,
                  fmt::format("the pair budget ({}) ran out; {}", max_pairs(), credible));
  }
  const double step_threshold = std::log(odds);
  auto decisive = [&](int c) {
    const double p = std::clamp(cdf[c], 1e-300, 1.0);
    const double q = std::clamp(1 - cdf[c], 1e-300, 1.0);
    return std::abs(std::log(p) - std::log(q)) >= step_threshold;
  };
  if (!observations_.empty()) {
    const Observation& last = observations_.back();
    const int c = last.commit;
    if (!last.verification && c < n_) {
      int step_pairs = 0;
      for (auto it = observations_.rbegin(); it != observations_.rend(); ++it) {
        if (it->verification || it->commit != c) break;
        step_pairs += static_cast<int>(it->d.size());
      }
      if (step_pairs < options_.max_pairs_per_step && !decisive(c)) {
        const int want = std::min(batch, options_.max_pairs_per_step - step_pairs);
        return {{Action::Kind::kMeasure, c, 0, std::min(want, budget)}, out};
      }
    }
  }
  const bool may_build = builds_used() < max_builds();
  int best = -1, best_cheap = -1;
  double best_balance = 0, cheap_balance = 0;
  // Only a commit that splits the credible set can tell its members apart: measuring one
  // outside it (a decided neighbour) moves mass the set does not hold. On zstd, with the
  // builds spent, such pairs were measured for 14 steps (~100 pairs) before it stopped.
  const int set_front = out.credible_set.empty() ? 1 : out.credible_set.front();
  const int set_back = out.credible_set.empty() ? n_ : out.credible_set.back();
  for (int c = std::max(1, set_front); c < std::min(n_, set_back); ++c) {
    if (IsUnbuildable(c)) continue;
    const bool built = IsBuilt(c);
    if (!built && !may_build) continue;
    const double balance = std::min(cdf[c], 1 - cdf[c]);
    if (balance > best_balance) {
      best_balance = balance;
      best = c;
    }
    if ((built || std::binary_search(cached_.begin(), cached_.end(), c)) &&
        balance > cheap_balance) {
      cheap_balance = balance;
      best_cheap = c;
    }
  }
  // A commit that costs no build is worth a slightly less even split: 0.8 of the best
  // balance loses at most a few percent of a bit of information.
  if (best_cheap >= 0 && cheap_balance >= 0.8 * best_balance) best = best_cheap;
  if (best < 0 || best_balance < 1e-9) {
    // Nothing left to split (the wary target not reached): the block that holds the first
    // target is verified rather than given up on.
    if (out.probability >= options_.target_probability) return Verify(out, budget, credible);
    return Finish(
        out, SearchOutcome::Kind::kInconclusive,
        fmt::format("no commit left to build{} can separate the remaining "
                    "hypotheses; {}",
                    may_build ? "" : fmt::format(" within the budget of {} builds", max_builds()),
                    credible));
  }
  return {{Action::Kind::kMeasure, best, 0, std::min(batch, budget)}, out};
}

Action BisectSearch::Next() const { return Decide().action; }

SearchOutcome BisectSearch::Result() const {
  Decision dec = Decide();
  if (dec.action.kind != Action::Kind::kDone) {
    dec.outcome.kind = SearchOutcome::Kind::kInProgress;
    dec.outcome.reason = "the search is not finished";
  }
  return dec.outcome;
}

}  // namespace culprit
