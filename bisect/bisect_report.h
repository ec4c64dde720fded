#pragma once

// What a bisect says, as pure functions of its state and of commit facts the runner fetched
// beforehand: the step lines, the archived records' descriptions, the final report's text
// and record, `bisect status` and `bisect log`. No I/O and no history call while formatting:
// what the text says of a commit (subject, author, changed files, a merge's branch) is
// fetched first and passed in, so that every text here is tested on hand-built states.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "bisect/bisect_state.h"
#include "bisect/claims.h"
#include "bisect/search.h"
// The lines each step says as it goes are the report's too: their users see both.
#include "bisect/step_lines.h"
#include "bisect/tie_plan.h"
#include "engine/engine_config.h"
#include "engine/history.h"
#include "probes/measure_commands.h"
#include "records/record.h"

namespace culprit {

/// A merge the bisect landed on, and the branch it brought in: the commits reachable from
/// the merge's second parent `bad` and not from its first, on their own first-parent chain
/// from `good` (the commit the branch forked from). A merge is never named the culprit; the
/// branch is what is searched next.
struct MergeDescent {
  std::string merge;
  std::string good, bad;
  int brought_in = 0;  ///< Commits the merge brought in (every parent, the merge excluded).
};

/// What a finished bisect found.
struct BisectReport {
  SearchOutcome outcome;
  BisectState state;
  std::string text;  ///< The final report, for stdout.
  std::filesystem::path record_path;
  bool found = false;  ///< A culprit (or range) was named and verified.
  /// The earliest change the way the range moved is a merge: found is false, and this says
  /// which branch to search for the commit inside it.
  std::optional<MergeDescent> descend;
};

/// What the report says of a verified change's commit, fetched from the history beforehand.
/// A fact the history could not give is left out of the text, never guessed.
struct CommitFacts {
  std::optional<CommitInfo> info;  ///< Subject, author, time.
  std::optional<std::vector<std::string>> changed_files;
  /// Set when the commit is a merge that brought commits in (asked only of a change, not of a
  /// range): the branch to search next.
  std::optional<MergeDescent> merge;
};

/// The runs a bisect's steps re-used from earlier steps (bisect/run_reuse.h: a count that
/// repeats is measured once), read from the step records before the report is written.
struct ReusedRunFacts {
  int runs = 0;    ///< Measured runs in the step records (warm-ups not counted).
  int reused = 0;  ///< Of them, copies of an earlier step's runs.
  /// By full candidate commit id: what its verification re-used, as its record says it
  /// ("2 runs of A from step 3, ..."); absent when the verification's pairs are all fresh.
  std::map<std::string, std::string> verifications;
};

/// The ending line that says how many runs were re-used and what each verification re-used;
/// "" when nothing was.
std::string ReusedRunsText(const ReusedRunFacts& reused);

/// What the final report of a bisect that searched is written from.
struct SearchedFacts {
  const BisectState* state = nullptr;
  const QueryConfig* query = nullptr;
  double band = 0.05;       ///< The sittings' band: the decomposition's.
  int max_total_pairs = 0;  ///< [bisect]'s, said beside the pairs measured when set.
  /// By full commit id: the facts of every verified change's commit.
  std::map<std::string, CommitFacts> commits;
  /// A verified change whose verification re-used runs never says "fresh pairs".
  ReusedRunFacts reused;
};

/// Why `record` cannot stand for the bisect's confirmation of `good`..`bad` on `query` with
/// `band`, or "" when it can: a whole paired sitting of exactly these two commits, this
/// query and band, without overrides, that found the move (EFFECT).
std::string ConfirmationMismatch(const Record& record, const std::string& good,
                                 const std::string& bad, const std::string& query, double band);

/// For a search that ended with `credible_set` (indexes into `commits`, sorted, the first
/// bad commit's candidates) narrower than the range: the one command that settles it, a
/// bisect of just the commits in the set (`--good` the commit before its first, `--bad` its
/// last), as one line; "" when the set is empty or spans the whole range.
std::string SettleCommand(const std::vector<int>& credible_set,
                          const std::vector<std::string>& commits, std::string_view query);

/// The final record's fields every ending shares: the range, the query, the band, the steps'
/// records. The host's identity and snapshots are the caller's.
Record BisectResultRecord(const BisectState& state, const QueryConfig& query, double band,
                          const std::string& config_digest);

/// The ending of a bisect whose endpoints did not confirm the move (`move`; the confirmation
/// is `state`'s last step, `confirm_summary` its sitting's summary): NOT REPRODUCIBLE for a
/// NULL, INCONCLUSIVE otherwise, with what the confirmation could see. Sets `record`'s
/// verdict and estimate and `report`'s outcome; returns the text.
std::string UnconfirmedEnding(const BisectState& state, const UnconfirmedMove& move,
                              const std::string& confirm_summary, Record& record,
                              BisectReport& report);

/// The ending of a bisect that searched: the changes verified (with their commits' facts) or
/// INCONCLUSIVE with the credible set, and what every search and check spent. Sets `record`'s
/// verdict, estimate, details and payload and `report`'s outcome, found and descend; returns
/// the text, or an error when the state's search cannot be read back.
Result<std::string> SearchedEnding(const SearchedFacts& facts, Record& record,
                                   BisectReport& report);

/// "HOST DRIFT: ..." and a line break when a step of `log` drifted beyond the limit (noted in
/// `record` too); "" otherwise.
std::string DriftEnding(const std::vector<BisectStepLog>& log, Record& record);

/// `culprit bisect status` and `log` as text.
std::string FormatBisectStatus(const BisectState& state);
std::string FormatBisectLog(const BisectState& state);

}  // namespace culprit
