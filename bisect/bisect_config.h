#pragma once

// [bisect] of culprit.toml: when the noise-aware search stops; and the parts
// of the file the bisect reads.

#include "base/config_reader.h"
#include "base/result.h"
#include "probes/probe_sections.h"

namespace culprit {

/// [bisect]
struct BisectConfig {
  /// The search stops and verifies its candidate once it holds this posterior probability
  /// (SearchOptions::target_probability; in (0, 1)). 0.99 until issue 27: the verification
  /// is the guard, docs/bisect.md "Stop and verify".
  double target_probability = 0.90;
  /// A search step ends when the odds of "at or before the candidate" against "after it"
  /// exceed this either way (SearchOptions::step_odds; > 1). 99 until issue 27.
  double step_odds = 19;
  /// Plan the verification's looks from the search's fitted effect and noise
  /// (PlanVerification); false: the fixed looks 12, 20, 40, … up to confirm_max_pairs.
  bool plan_verification = true;
  /// Read the looks of the confirmation, the verification and the checks together
  /// (GroupSequentialAlphas: the whole α kept over their close looks, where one at a time
  /// keeps about 0.03 of 0.05); false: one at a time (Bonferroni), as before issue 27's
  /// joint looks.
  bool joint_looks = true;
  /// The confirmation's EFFECT and a planned verification's looks after its first spend α by
  /// Pocock's function of √(pairs / budget) (Spending::kPocockOnRootTime): more of it at the
  /// looks where moves of 10–30% stop, less at the last few, which only a move at the band's
  /// edge reaches. false: Pocock's function of pairs / budget, as before issue 27's spending
  /// on √t. Either keeps the overall α.
  bool spend_on_root_time = true;
  int max_builds = 0;      ///< 0: automatic. All >= 0.
  int max_pairs = 0;       ///< 0: automatic.
  int pairs_per_step = 0;  ///< 0: automatic.
  /// Changes searched for in one range (>= 1). After a change is verified, the parts of the
  /// range it does not explain are checked; a part that still moves (either way: a part
  /// that moves the other way is searched in its own direction) is searched like the whole
  /// range, until this many searches were made. A part left over is reported
  /// as unplaced, with its segment and its ratio, never silently dropped.
  int max_changes = 3;
  /// The most pairs of the endpoint confirmation (0: [measure] max_pairs), of the
  /// verification of a culprit against its parent, and of each check's search for a further
  /// move in a part a verified change leaves unexplained: whether something moves. More
  /// than a probe's: a confirmed range is a dozen builds spent, and a move a little beyond the
  /// band on a noisy host needs several hundred pairs to be told from the band. Large moves
  /// still stop at the first looks (12 or 20 pairs), and a confirmation or a check stops as soon
  /// as neither a move nor a tie is within reach. `bisect run --max-pairs N` sets it and
  /// check_max_pairs for one bisect.
  int confirm_max_pairs = 1280;
  /// The endpoint confirmation and the checks look at min_pairs, then each look this many
  /// times the last, in whole blocks, up to its budget (ConfirmationLooks; in (1, 4)); 2 or more
  /// is the sitting's doubling; finer looks stop a move (or a check's tie) nearer the pairs it
  /// needs, and the spending is applied to them, so the overall α is kept
  /// (docs/bisect-evidence.md, "The confirmation's looks", "The checks' looks and a tie's wild
  /// pairs").
  double confirm_look_growth = 1.41421356;
  /// The most pairs a check spends seeking a tie (0: [measure] max_pairs). A tie of the part
  /// before a change is what shows it is the first bad commit; within a few percent of the
  /// band it takes hundreds of pairs to show, on every bisect that finds a change, so the
  /// default keeps [measure]'s budget and says "not shown to be the first bad commit" when it
  /// was not enough; docs/bisect-evidence.md has the figures of both choices ("More for the
  /// tie").
  int check_max_pairs = 0;
  /// The most pairs of the whole bisect: the confirmation, every search with its
  /// verification, every check (0: no cap beyond each one's own budget). Each search and
  /// check is given at most what is left; a part the cap leaves unchecked or unsearched is
  /// reported as unplaced, with the cap as the reason, never dropped.
  int max_total_pairs = 0;
  /// Seek the tie that shows the earliest change is the first bad commit with a budget that
  /// holds the pairs it is predicted to need (up to the check's whole budget,
  /// confirm_max_pairs), as `bisect run --prove-first` does. Off: a check seeks that tie only
  /// when the prediction fits check_max_pairs, and otherwise says how many pairs it would take.
  bool prove_first = false;
};

/// Reads [bisect].
Status ReadBisectSection(const ConfigTable& root, BisectConfig* bisect);

/// What the bisect reads from the file: the probes' parts and [bisect].
struct BisectSections : ProbeSections {
  BisectConfig bisect;
};

}  // namespace culprit
