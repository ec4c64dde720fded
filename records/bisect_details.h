#pragma once

// The flat facts of a `bisect` record (its Record::details): the range, what the search
// spent and concluded, and the culprit or the merge it stopped at. Written by the bisect's
// report (bisect/bisect_report.cc) and read by the reporters and by `investigate`, so the
// keys and their spellings live in bisect_details.cc alone. The structured part (commits,
// posterior, changes, segments) is the payload, records/bisect_payload.h.
//
// Every field is optional: set means "the record holds this fact". WriteTo writes the set
// fields and leaves the others alone (the report fills the record in several passes);
// FromDetails reads any record, archived ones included: a missing or unparsable value reads
// as nullopt, never throws. The spellings are those written since the first bisect record.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/detail_fields.h"
#include "records/record.h"

namespace culprit {

/// Whether the culprit is the range's first change, as `culprit_is_first` says.
enum class CulpritIsFirst {
  kYes,    ///< "yes": every commit before it was measured.
  kEnds,   ///< "ends": the ties before it show their ends only.
  kNo,     ///< "no": an earlier part of the range may hold a change.
  kMerge,  ///< "merge": the bisect stopped at a merge, not a culprit.
};
/// "yes", "ends", "no", "merge", as written.
std::string_view CulpritIsFirstName(CulpritIsFirst value);

/// The merge a bisect stopped at: the move came in with a merge's branch.
struct BisectMergeDetails {
  std::optional<std::string> commit;       ///< merge_commit
  std::optional<std::string> branch_good;  ///< merge_branch_good
  std::optional<std::string> branch_bad;   ///< merge_branch_bad
  std::optional<int> brought_in;           ///< merge_brought_in: commits the branch brought
  std::optional<std::string> subject;      ///< merge_subject
  bool operator==(const BisectMergeDetails&) const = default;
};

struct BisectDetails {
  std::optional<std::string> bisect_run;  ///< The bisect's run id.
  std::optional<std::string> good_commit, bad_commit;
  std::optional<int> range_commits;        ///< Commits after good, bad included.
  std::optional<int> log2_minimum_builds;  ///< ⌈log2 range_commits⌉.
  std::optional<int> builds_used, pairs_used;
  std::optional<double> probability;                     ///< The search's mass where it stopped.
  std::optional<std::vector<std::string>> credible_set;  ///< Short commit ids.
  std::optional<double> largest_step_drift;              ///< The worst step's calibration change.
  /// The culprit named (never a merge: `investigate` and `judge` read it).
  std::optional<std::string> culprit_commit;
  std::optional<std::string> first_commit;  ///< The change's first commit.
  std::optional<std::string> culprit_subject;
  std::optional<std::vector<std::string>> changed_files;
  BisectMergeDetails merge;
  std::optional<std::vector<std::string>> changes;  ///< Every verified change's commit.
  std::optional<CulpritIsFirst> culprit_is_first;
  std::optional<std::string> decomposition;  ///< The move taken apart, as printed.

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any bisect record's details.
  static BisectDetails FromDetails(const DetailMap& details);
  static BisectDetails FromRecord(const Record& record) { return FromDetails(record.details); }

  bool operator==(const BisectDetails&) const = default;
};

}  // namespace culprit
