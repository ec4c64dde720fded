#pragma once

// The real bisect on a synthetic world. SimulatedEngine puts a SimWorld behind
// the three interfaces BisectRunner works on (History, BuildProvider,
// Measurer): commits with made-up ids, builds that fail where the world says,
// and runs whose times the world draws, timeouts included. RunRunnerTrial runs
// `culprit bisect run`'s orchestration on it from start to end (the endpoint
// confirmation, the search, verification, the checks of what a change leaves
// unexplained, records and state on disk) and scores what it printed against
// the world's truth. bench/bisect-sim's table and its tests come from here, so
// the figures are the tool's, not a model of it.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bisect/bisect_config.h"
#include "bisect/bisect_runner.h"
#include "engine/history.h"
#include "probes/build_provider.h"
#include "probes/measurer.h"
#include "simulation/simulation.h"

namespace culprit {

class SimulatedEngine : public History, public BuildProvider, public Measurer {
 public:
  /// `world` must outlive the engine. A run's value is `base_ms` times exp(the world's
  /// log-time); a timed-out run is censored at the world's timeout.
  explicit SimulatedEngine(SimWorld& world, double base_ms = 100);

  /// The id of commit `index` (0 = good, N = bad): 40 hex digits, distinct in the first 10.
  static std::string Id(int index);
  /// The index of a commit id, a "cN" name or "good"/"bad"; nullopt otherwise.
  std::optional<int> IndexOf(std::string_view revision) const;
  /// Commits strictly between the endpoints whose build was asked for (each once).
  int builds_attempted() const;

  Result<std::string> Resolve(std::string_view revision) const override;
  Result<CommitInfo> Commit(std::string_view revision) const override;
  Result<std::vector<CommitInfo>> Range(std::string_view good, std::string_view bad,
                                        bool first_parent) const override;
  Result<bool> IsAncestor(std::string_view ancestor, std::string_view descendant) const override;
  Result<std::vector<std::string>> ChangedFiles(std::string_view revision) const override;

  Result<ResolvedBuild> Resolve(const std::optional<std::string>& revision) override;
  std::optional<bool> KnownBuildable(const std::string& revision) const override;

  Result<PairedRuns> Pair(const QueryConfig& query, const ResolvedBuild& a,
                          const ResolvedBuild& b) override;

  /// Called at the start of each Pair with its number (1 = the first sitting or batch), for a
  /// test that acts mid-bisect: an interruption, a state file that can no longer be written.
  void OnPair(std::function<void(int)> hook) { on_pair_ = std::move(hook); }

 private:
  SimWorld& world_;
  double base_ms_;
  std::vector<bool> attempted_;
  std::function<void(int)> on_pair_;
  int pairs_ = 0;
};

/// The configuration a simulated bisect runs with: [measure] as an empty culprit.toml leaves
/// it, `bisect` as [bisect] (the defaults unless told), one query "q", files under `dir`.
BisectSections SimulatedBisectConfig(const std::filesystem::path& dir,
                                     const BisectConfig& bisect = {});

/// One bisect of good..bad on `engine` through the real BisectRunner, with the files of
/// SimulatedBisectConfig(dir, bisect) in `dir` (emptied first, removed after) and `seed`
/// ordering its sittings; what the runner returned.
Result<BisectReport> RunSimulatedBisect(SimulatedEngine& engine, const std::filesystem::path& dir,
                                        uint64_t seed, BisectReporter& reporter,
                                        const BisectConfig& bisect = {});

/// How a bisect through the runner ended, against the world's truth. The changes that count
/// are those that move the way the whole range moves (a partial undo or an earlier
/// improvement is not a culprit of a regression).
struct RunnerTrialResult {
  TrialResult::Score score = TrialResult::Score::kInconclusive;
  /// Some of several changes named and verified, none wrongly; not all of them.
  bool partial = false;
  /// Why the answer is wrong: a named change that holds no change the way the range moved,
  /// a CULPRIT over a part measured a tie whose commits move beyond the band net, or a
  /// change shown literally first (every commit before it measured) with an earlier one; or
  /// a part's tie or rule-out that the world's net move contradicts (WrongSettledClaim).
  std::string wrong;
  int changes_named = 0;
  bool claimed_first = false;  ///< The earliest change the range's way was called CULPRIT.
  /// CULPRIT, and every commit before it measured (no tie before it shows only its ends,
  /// TiesOfEndsOnlyBeforeTheEarliestChange): "the first bad commit" in the literal sense.
  bool literally_first = false;
  /// A change was verified, and every part whose tie earns no label (TieEarnsFirst false) was
  /// settled: a tie, or every further move of ×A or more ruled out (UnplacedSegments holds
  /// none of them). What "later moves ruled out" of issue 27's table counts.
  bool later_settled = false;
  /// The world has changes the other way from the range, and every one was named (as a
  /// change the other way). They do not count in `score`, which is the range's changes.
  bool others_named = false;
  /// The endpoint confirmation was a NULL: the report said NOT REPRODUCIBLE.
  bool not_reproducible = false;
  int builds = 0;  ///< Commits between the endpoints whose build was asked for.
  int pairs = 0;   ///< Every pair measured: confirmation, search, checks, verification.
  /// The same by the step's kind: the endpoint confirmation, the search's measurements, the
  /// verifications, the checks of what a change leaves unexplained.
  int confirm_pairs = 0, search_pairs = 0, verify_pairs = 0, check_pairs = 0;
  /// Every run the world drew: two per pair, and the warm-ups and retries besides.
  int runs = 0;
  std::string report;  ///< What `bisect run` printed at the end.
  /// The bisect ended with this error (what `bisect run` prints before exiting 1; no
  /// verdict, so never a wrong answer); empty when it finished.
  std::string error;
};

/// The net move of `world`'s changes in commits (lo, hi], as the log of their mean ratios'
/// product: what a part's ends differ by on average (a slow tail's mean among it).
double NetMeanLogMove(const SimWorld& world, int lo, int hi);

/// What is wrong in what a settled part claims, or "": a part measured a tie says its ends
/// differ by no more than the band (|NetMeanLogMove| <= `log_band`), and one whose check ruled
/// out every further move of ×(1 + A) or more says they differ by less than that. Every part,
/// before a CULPRIT or after it, whatever the label it earned: the check's line prints the tie
/// or the rule-out either way. (The first judge held only the ties before a CULPRIT to it.)
std::string WrongSettledClaim(const SimWorld& world, const std::vector<BisectSegment>& segments,
                              double log_band);

/// One bisect of `world` through BisectRunner, files under `dir` (made and removed). `seed`
/// orders the pairs (`--seed`). The error is a directory that cannot be made; the bisect's
/// own error is the result's `error`.
Result<RunnerTrialResult> RunRunnerTrial(SimWorld& world, const std::filesystem::path& dir,
                                         uint64_t seed, const BisectConfig& bisect = {});

/// Aggregate over runner trials.
struct RunnerCellSummary {
  int trials = 0;
  double exact = 0, range = 0, partial = 0, wrong = 0, inconclusive = 0;  ///< Fractions.
  double not_reproducible = 0;  ///< Fraction whose confirmation was a NULL.
  /// Fraction that ended with an error, as `bisect run` would (exit 1, no verdict): e.g. the
  /// bad end's every warm-up try hung. Never a wrong answer; counted apart from the others.
  double errors = 0;
  std::string error_example;   ///< The first error's message.
  double claimed_first = 0;    ///< Fraction whose first change was called CULPRIT.
  double literally_first = 0;  ///< Fraction whose CULPRIT is literally first (every commit).
  double later_settled = 0;    ///< Fraction whose later parts were all settled.
  double others_named = 0;     ///< Fraction that named every change the other way.
  double mean_builds = 0;
  int p95_builds = 0;
  double mean_pairs = 0;
  double mean_confirm_pairs = 0, mean_search_pairs = 0, mean_verify_pairs = 0, mean_check_pairs = 0;
  double mean_runs = 0;  ///< Every run (RunnerTrialResult::runs), over the trials that ended.
  int max_pairs = 0;
  std::vector<std::string> wrong_examples;  ///< The first few `wrong` reasons.
  std::string inconclusive_example;         ///< The report of the first inconclusive trial.
};

/// `trials` worlds seeded from `seed` (the same trial index sees the same world as RunCell's),
/// each bisected through the runner under `dir`. A trial whose bisect ended with an error is
/// counted in `errors`; only a directory that cannot be made is an error here.
Result<RunnerCellSummary> RunRunnerCell(const WorldOptions& world, int trials, uint64_t seed,
                                        const std::filesystem::path& dir,
                                        const BisectConfig& bisect = {});

}  // namespace culprit
