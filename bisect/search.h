#pragma once

// The noise-aware bisect search: pure decision logic over observations. The
// driver (the real bisect runner, or the simulator) asks Next() what to do,
// measures, and feeds the pairs back; nothing here measures, builds or sleeps.
// The state is the range, the build facts (unbuildable, cached) and every
// observation in order; everything else — the posterior, the effect and noise
// estimates, the next action, the outcome — is recomputed from it, so a search
// restored with FromJson continues exactly as the interrupted one would have.
//
// Commits are indexed 0..N: 0 = the known-good commit, N = the known-bad one;
// the driver maps indices to commit ids (first-parent order). Regressions are
// slowdowns: d > 0 means slower. For a speed-up the driver flips the sign of d.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "bisect/search_model.h"
#include "probes/sequential.h"
#include "probes/verdict.h"

namespace culprit {

/// The build attempts an automatic budget allows beyond ⌈log2 N⌉ (SearchOptions::max_builds).
/// A noisy host's search is led astray now and then by a step's pairs, and builds commits
/// halving would not; out of builds, a bisect ends INCONCLUSIVE with every build before it
/// spent for a credible set. At 8, 8 of bisect-sim's 800 bisects at 18%/24% (seeds 1–8)
/// ended so, and 10%/24% was 92% exact; at 11, 1 of 800 and 95%, the mean builds 8.1–8.7 and
/// 9.3 → 9.4 (docs/bisect-evidence.md, "A build budget that lets a noisy search finish").
inline constexpr int kBuildsBeyondHalving = 11;

struct SearchOptions {
  /// Stop searching when one hypothesis (or block of hypotheses that unbuildable commits
  /// make indistinguishable) holds at least this posterior probability, then verify it. The
  /// verification (fresh pairs of the candidate against its parent) is the guard that keeps a
  /// wrong commit from being named, so the search need not be sure: at 0.90 a wrong candidate
  /// is verified now and then, its pairs pull its posterior down and the search goes on
  /// (docs/bisect.md, "Stop and verify"). 0.99 until issue 27.
  double target_probability = 0.90;
  /// Build attempts allowed for commits strictly between the endpoints (unbuildable ones
  /// count: the attempt was made). 0: ceil(log2 N) + kBuildsBeyondHalving, at most N − 1.
  int max_builds = 0;
  /// Pairs allowed in total (endpoints, search and verification). 0: automatic, generous:
  /// 2 · max_pairs_per_step per allowed build (max_builds()) plus 2 · verify_pairs_max, the
  /// endpoint and verification maxima (BisectSearch::max_pairs). A state saved with
  /// max_builds 0 resumes under this culprit's automatic build budget; its max_pairs, saved
  /// as a number by the runner (MakeSearchOptions), stays what it was.
  int max_pairs = 0;
  /// Pairs asked for at a time while searching, at most (SearchBatchPairs asks for fewer
  /// when the fitted effect stands far above the noise). 4, two blocks of an AB and a BA pair
  /// (5 until issue 27's named-and-verified cost, which the runner measured as 6): a step
  /// ends within a batch of the pairs that decide it, so a smaller batch overshoots less
  /// (docs/bisect-evidence.md, "Named and verified at 18%/24%"). A state keeps the batch it
  /// was saved with.
  int pairs_per_batch = 4;
  /// A search step measures one candidate until its side is decisive or it has this many
  /// pairs; then the candidate is chosen afresh (possibly the same commit again).
  int max_pairs_per_step = 60;
  /// A step is decisive when the posterior odds of "the first bad commit is at or before the
  /// candidate" against "after it" exceed this (either way). 19:1 (99:1 until issue 27): a
  /// step decided the wrong way is undone by later steps, whose pairs pull the posterior
  /// back, and a wrong candidate by its verification.
  double step_odds = 19;
  /// Once a verification has taken its candidate below target_probability or refuted it (a
  /// tie with, or a speed-up against, its parent), the model of one change has been wrong at
  /// least once: most often a range with more than one change, where steps taken at 19:1 on a
  /// few pairs spend the builds on commits that never settle. From then on the search steps
  /// at these odds and stops at this target instead (the larger of each pair). 0: no change;
  /// a state saved without these fields resumes that way.
  double wary_step_odds = 99;
  double wary_target_probability = 0.99;
  /// A verification under way goes on while its block is still the most probable one, holds
  /// more than this posterior and no look has decided: its pairs (the block's last commit
  /// against its parent) are the ones that tell the block from its neighbours, so a batch
  /// that takes it below target_probability no longer sends the search back to measuring,
  /// which turned it wary for the rest of the bisect (issue 27: 18%/24% confirm + search +
  /// verify 539.4 -> 528.4 at seed 1; docs/bisect-evidence.md). 1%: the block is dropped only
  /// once all but ruled out or overtaken. 0: back to measuring below the target, as a state
  /// saved without this field resumes.
  double verify_hold_probability = 0.01;
  /// Sequential looks of the endpoint confirmation and of the verification happen at
  /// verify_pairs_min, doubling up to verify_pairs_max (10, 20, 40, 80, 160, 320; see
  /// LookSchedule), with `spending` across the looks (SpendAlpha).
  int verify_pairs_min = 10;
  int verify_pairs_max = 320;
  /// How the verification (and a confirmation of the endpoints) spends its alpha across the
  /// looks. Pocock stops a large effect at its first looks (10 or 20 pairs), where
  /// O'Brien–Fleming's first looks can never stop; a state saved without this field was
  /// spent the O'Brien–Fleming way and resumes that way.
  Spending spending = Spending::kPocock;
  /// Plan the verification's looks from the search's fitted effect and noise
  /// (PlanVerification). A state saved without this field verified on the fixed schedule
  /// above and resumes that way.
  bool plan_verification = true;
  /// Read the verification's looks together (GroupSequentialAlphas over the spending's
  /// increments), as the confirmation's and the checks' (BisectConfig::joint_looks): the
  /// whole α kept, where one at a time keeps about 0.03 of 0.05. A state saved without this
  /// field read them one at a time and resumes that way.
  bool joint_looks = true;
  /// A planned verification's looks after its first: each this many times the last, in whole
  /// blocks, up to verify_pairs_max (ConfirmationLooks), sharing the rest of α by `spending`.
  /// √2, the confirmation's growth (2, doubling, until issue 27's named-and-verified cost); a
  /// look nearer the pairs a culprit needs stops it sooner, and the α is the same in all. In
  /// (1, 2); 2 or more doubles. A state saved without this field doubled and resumes that way.
  double verify_look_growth = 1.41421356;
  /// How a planned verification spreads the half of α its first look leaves over the looks
  /// after it. On √t (Spending::kPocockOnRootTime), as the confirmation's EFFECT: those looks
  /// run to the verification's budget (1280 pairs), and a culprit the first look misses stops
  /// at the next few, where Pocock's own function has spent little of that half. A state
  /// saved without this field spent it by Pocock's function and resumes that way.
  Spending later_looks_spending = Spending::kPocockOnRootTime;
  /// The metric is near-deterministic (IsNearDeterministicMetric: instructions). The model's
  /// noise floor is then kNearDeterministicMinNoise, not kMinNoise (SearchNoiseFloor), and a
  /// verification also reads the near-deterministic rule (LookNearDeterministic) over the runs
  /// of its two arms (AddVerification's `runs`): its first batch is the rule's 4 pairs, and
  /// when the rule decides, before any sequential look has, its verdict is the verification's.
  /// When an arm spreads (or a batch kept no runs) the planned sequential looks decide, as
  /// without. A state saved without this field is a timed metric's and resumes that way.
  bool near_deterministic = false;
  /// Reproducibility band b: the verdict rule's τ = ln(1 + b).
  double band = 0.05;
  /// Overall confidence of a sequential verdict, spent across its looks.
  double confidence = 0.95;
  /// When true and no pairs of N vs 0 exist, Next() asks for them first and the search
  /// starts only once they are an EFFECT (a driver that confirmed the endpoints itself
  /// feeds its pairs with AddObservation(N, ...) and the search proceeds at once).
  bool confirm_endpoints = true;
};

/// What the driver should do next.
struct Action {
  enum class Kind {
    kMeasure,  ///< Measure `pairs` more pairs of `commit` against `baseline` (the good build, 0).
    kVerify,   ///< Measure `pairs` fresh pairs of `commit` (the culprit) against `baseline`
               ///< (its nearest buildable parent); feed them with AddVerification.
    kDone,     ///< Stop; Result() says what was found.
  };
  Kind kind = Kind::kDone;
  int commit = -1;
  int baseline = 0;
  int pairs = 0;
  friend bool operator==(const Action&, const Action&) = default;
};

/// The search's answer (or where it stands).
struct SearchOutcome {
  enum class Kind {
    kInProgress,       ///< Next() is not kDone yet.
    kCulprit,          ///< `first` == `last` is the first bad commit, verified against its parent.
    kRange,            ///< The first bad commit is in first..last; first..last-1 are unbuildable.
    kInconclusive,     ///< Budgets ran out, a verification could not decide within its
                       ///< pairs, or every candidate was refuted; see credible_set and reason.
    kNotReproducible,  ///< The endpoints are not an EFFECT here; there is nothing to bisect.
  };
  Kind kind = Kind::kInProgress;
  int first = -1;
  int last = -1;
  /// Posterior probability of first..last (or of the best block when inconclusive).
  double probability = 0;
  /// Smallest set of hypotheses holding at least the target probability, ascending.
  std::vector<int> credible_set;
  bool verified = false;
  /// Verification (or endpoint) ratio estimate and interval, as log-ratios; valid when
  /// verification_pairs > 0.
  double log_ratio = 0, log_ratio_low = 0, log_ratio_high = 0;
  int verification_pairs = 0;
  /// The confidence of that interval: the sequential test's level at the look it stopped
  /// at (O'Brien–Fleming spends little alpha early: 1 - 3e-8 at the first look of a 95%
  /// test), not the test's overall confidence. 0 when there is no interval.
  double interval_confidence = 0;
  /// One or two sentences for the user: why this outcome.
  std::string reason;
};

/// Pairs a search step asks for at a time, given the fitted effect δ and noise s (log
/// scale): max_batch, or fewer (never fewer than 2, one AB and one BA pair) when so few
/// pairs make a step decisive: 4 ln(step_odds) s² / δ², twice what a step needs in
/// expectation. At +30% and 3% per-run noise that is 2 pairs; at 18% and 10% it is
/// max_batch. With no fit yet (δ or s not positive) it is max_batch. Pure; the search stays
/// a function of its observations, so a resumed search asks for the same batches.
int SearchBatchPairs(double effect, double noise, int max_batch, double step_odds);

/// The share of the verification's α that a planned verification gives its first look, the
/// one planned to decide; the rest is spent over the later looks as SearchOptions::spending
/// says.
inline constexpr double kPlannedLookShare = 0.5;
/// The share of α the first look gets instead when even kPlannedLookShare puts it at the fewest
/// pairs a signed-rank interval exists at (MinPairsForSignedRank), the effect standing far
/// above the noise, and this share allows a block fewer: 0.035 of a 95% verification lets 6
/// pairs decide (the smallest two-sided p of 6 pairs is 2/64) where 0.025 needs 7, so 8 in
/// blocks. A quiet host's +30% (issue 27) is verified at 6 pairs most of the time.
inline constexpr double kPlannedFloorLookShare = 0.7;
/// The chance, at the fitted effect, that a planned verification's first look shows the
/// EFFECT.
inline constexpr double kPlannedLookPower = 0.5;

/// The most pairs a verification asks for at a time (the looks are where they are planned;
/// between them the search re-reads its posterior after every batch).
inline constexpr int kVerifyBatchPairs = 12;

/// The looks of a verification (the culprit against its parent) and the α each spends.
struct VerificationPlan {
  /// Planned from a fit (false: the fixed schedule, VerificationLooks).
  bool planned = false;
  double effect = 0, noise = 0;  ///< The fit it was planned from (log scale; 0: none).
  std::vector<int> looks;        ///< Pair counts, ascending, the last verify_pairs_max.
  /// Two-sided nominal α of each look: the spending's increments, which sum to 1 - confidence,
  /// read together (GroupSequentialAlphas) when SearchOptions::joint_looks.
  std::vector<double> alphas;
};

/// The verification's looks, planned from the search's fitted effect δ and noise s (the
/// Student-t scale of one pair's d; its standard deviation is s·√2): the first look at
///   n = (π/3) · ((z_{1-α₁/2} + z_{kPlannedLookPower}) · s√2 / (δ - τ))²,
/// τ = ln(1 + band), α₁ = kPlannedLookShare · α (kPlannedFloorLookShare · α when that takes a
/// block off a first look that is at the fewest pairs an interval exists at, and the formula
/// is below them too): the pairs at which the signed-rank interval
/// clears the band with that chance if the culprit moves by δ, at least the pairs an
/// interval at 1 - α₁ needs, in whole blocks, at most verify_pairs_max; then looks growing by
/// options.verify_look_growth (ConfirmationLooks; doubling when it is 2 or more) to
/// verify_pairs_max, sharing the rest of α by `options.spending`. Valid because the search's
/// pairs, which δ and s come from, are not the verification's. The fixed schedule when
/// !options.plan_verification, or δ is not beyond τ, or s is not positive. Pure.
VerificationPlan PlanVerification(double effect, double noise, const SearchOptions& options);

/// The runs of each arm behind a batch of pairs, for the near-deterministic rule: the
/// baseline's and the commit's measured values, in the search's direction (a search for a
/// speed-up, which flips d's sign, gives each arm's runs as the other's).
struct ArmRuns {
  std::vector<double> baseline, commit;
};

class BisectSearch {
 public:
  /// A search over commits 0..n_commits; n_commits >= 1 (FromJson checks it; the
  /// constructor asserts).
  BisectSearch(int n_commits, SearchOptions options = {});

  /// The commit failed to build: it is never chosen again, and a culprit next to it is
  /// reported as a range. Ignored for the endpoints.
  void MarkUnbuildable(int commit);
  /// The commit's build is in the cache: preferred when several candidates split the
  /// posterior about as well.
  void MarkCached(int commit);
  /// Pairs of `commit` against the good build (the pairs of an endpoint confirmation are
  /// observations of commit N). Empty spans are ignored.
  void AddObservation(int commit, std::span<const double> d);
  /// Pairs asked for by a kVerify action (the action's commit against its baseline), and the
  /// runs they were measured from, for the near-deterministic rule (SearchOptions::
  /// near_deterministic): none when a run of the batch failed or timed out, and then the rule
  /// states nothing for that verification (failures need the sequential test).
  void AddVerification(int commit, int baseline, std::span<const double> d,
                       std::optional<ArmRuns> runs = std::nullopt);

  /// What to do next. Pure: depends only on the state.
  Action Next() const;
  /// The answer, or kInProgress while Next() is not kDone.
  SearchOutcome Result() const;

  /// Posterior over "first bad commit is j"; size N + 1, element 0 unused (0).
  std::vector<double> Posterior() const { return Fit().posterior; }
  /// δ and s (log scale) re-estimated from all observations.
  double EffectEstimate() const { return Fit().effect; }
  double NoiseEstimate() const { return Fit().noise; }

  int n_commits() const { return n_; }
  const SearchOptions& options() const { return options_; }
  const std::vector<Observation>& observations() const { return observations_; }
  const std::vector<int>& unbuildable() const { return unbuildable_; }
  /// Build attempts for commits strictly between the endpoints (measured or unbuildable).
  int builds_used() const;
  /// Pairs measured, all kinds.
  int pairs_used() const;
  /// The looks of the verification of `culprit` against `parent`: planned from the fit of the
  /// observations made before its first pair (all of them before it starts), so neither its
  /// own pairs nor the search's after it move its looks.
  VerificationPlan PlanFor(int culprit, int parent) const;
  /// The near-deterministic rule's look at the verification of `culprit` against `parent`,
  /// over its runs so far: when options().near_deterministic and every batch of it kept its
  /// runs; nullopt otherwise. `decided` (when given) says whether the rule's verdict is the
  /// verification's: kDecided before any sequential look had decided (the rule looks at 4
  /// pairs, before the first planned look of a verification at 95%).
  std::optional<NearDeterministicLook> VerificationRule(int culprit, int parent,
                                                        bool* decided = nullptr) const;
  /// Hypotheses that a verification refuted, ascending: every commit of a block whose
  /// verification (its last commit against the commit before the block) reached a look that
  /// says a tie or a speed-up. Such a commit is never named: it has prior zero in the posterior
  /// the search decides on, and the search goes on without it while its budgets last.
  std::vector<int> Refuted() const;
  /// Whether the search has turned wary (SearchOptions::wary_step_odds): a hypothesis was
  /// refuted, or the search measured again after a verification's pairs.
  bool Wary() const;
  /// The rule in force: the options' step odds and target, or the wary ones once Wary().
  double StepOdds() const;
  double TargetProbability() const;
  /// The options with automatic budgets resolved.
  int max_builds() const;
  int max_pairs() const;

  /// The whole state as JSON (schema "culprit.bisect-search/v1"); doubles round-trip exactly.
  std::string ToJson() const;
  /// Restores a state written by ToJson. Errors name what is wrong with the text.
  static culprit::Result<BisectSearch> FromJson(std::string_view json);

 private:
  struct Decision {
    Action action;
    SearchOutcome outcome;
  };
  /// What a look of the verification says of the bad commit against its parent: probes'
  /// verdict rule with the direction kept, since only a slowdown is what the search is after.
  enum class Verification { kUndecided, kSlower, kTie, kFaster };
  /// A sequential verdict, remembered by the number of pairs it was computed from: the
  /// state only grows, so that count identifies the pairs, and the signed-rank interval
  /// (O(n²)) is not recomputed on every call.
  struct VerdictMemo {
    int culprit = -1, parent = -1, pairs = -1;
    Verification verdict = Verification::kUndecided;
    bool has_shift = false;
    double estimate = 0, low = 0, high = 0;
    double confidence = 0;  ///< Of [low, high]: 1 - the look's alpha.
    /// The pairs [low, high] is computed from: the first `look` of them, never more. A batch
    /// cut short by a budget leaves more pairs than the last look reached and fewer than the
    /// next; testing that look's α again on them would be a look the spending never paid for.
    int used = 0;
    VerificationPlan plan;  ///< The looks it was read on.
    /// Observations it saw when the verification had no pair yet (its plan follows them
    /// until then); -1 otherwise.
    int observations = -1;
    /// The near-deterministic rule's look, when it was read (VerificationRule).
    std::optional<NearDeterministicLook> rule;
    /// The rule decided (no sequential look had): it set the verdict and [low, high], the
    /// range of the runs' ratios (confidence 1).
    bool by_rule = false;
  };
  ModelFit Fit() const;
  /// The next action and the outcome so far, in four steps along the search's seams: the
  /// endpoint confirmation (a decision when it is not yet an EFFECT), locating the most
  /// probable block, verifying it once it holds the target, else splitting the posterior.
  Decision Decide() const;
  /// The decision that ends the search with `kind` and `reason`; `out` keeps what it found.
  static Decision Finish(SearchOutcome out, SearchOutcome::Kind kind, std::string reason);
  std::optional<Decision> ConfirmEndpoints(SearchOutcome& out, int budget) const;
  /// Whether the verification of `best` (the most probable block, below the target) goes on
  /// (SearchOptions::verify_hold_probability): the last pairs were its verification's, the
  /// block holds the hold probability, and its looks are undecided.
  bool HoldsVerification(const SearchOutcome& best) const;
  std::vector<double> Locate(const ModelFit& fit, double target, SearchOutcome& out) const;
  Decision Verify(SearchOutcome out, int budget, const std::string& credible) const;
  Decision Split(SearchOutcome out, const std::vector<double>& cdf, int batch, double odds,
                 int budget, const std::string& credible) const;
  const VerdictMemo& LookVerdict(VerdictMemo& memo, int culprit, int parent,
                                 bool verification) const;
  /// LookVerdict's parts: the sequential look that `d` (the block's pairs in order) has
  /// reached, and the near-deterministic rule over the block's runs.
  void ReadLook(VerdictMemo& memo, std::vector<double> d) const;
  void ReadRule(VerdictMemo& memo, int culprit, int parent) const;
  bool IsUnbuildable(int commit) const;
  bool IsBuilt(int commit) const;

  int n_;
  SearchOptions options_;
  std::vector<int> unbuildable_;  // sorted
  std::vector<int> cached_;       // sorted
  std::vector<Observation> observations_;
  /// The runs behind each observation, in the same order (AddVerification's; none for a
  /// measurement).
  std::vector<std::optional<ArmRuns>> runs_;
  mutable VerdictMemo endpoint_memo_, verify_memo_;
  /// One memo per verified block, in the order of their first pairs (Refuted).
  mutable std::vector<VerdictMemo> refutation_memos_;
};

}  // namespace culprit
