#pragma once

// What a `bisect` record holds besides its flat details: the range's commits, the final
// posterior over "the first bad commit is j" and the unbuildable indexes (what the reports
// plot), and, when the bisect verified changes, each change, each part of the range the
// changes left (its check and what the check found) and the decomposition of the range's
// move; kept in the record's details_json. Written by the bisect's report
// (bisect/bisect_report.cc) and read by the reporters and by `investigate` (the later
// changes it explains), so the keys live here alone.
//
// Records archived before this struct existed have the same keys (the JSON was built by hand
// in the same shape) and no "version": they read as version 1.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/record.h"

namespace culprit {

/// The payload's version: a reader takes the versions it knows (1) and no other.
inline constexpr int kBisectPayloadVersion = 1;

/// Which way a verified change moved the metric, against the way the whole range moved.
enum class ChangeDirection {
  kRange,  ///< The way the range's ends moved.
  kOther,  ///< The other way: an improvement before a regression, or a move partly undone.
};
/// "range" / "other", as written.
std::string_view ChangeDirectionName(ChangeDirection direction);

/// One verified change: the culprit commit, its first commit (the change may span
/// unbuildable commits) and the parent it was verified against.
struct BisectChangePayload {
  std::string commit, first_commit, parent_commit;
  ChangeDirection direction = ChangeDirection::kRange;
  /// The verification's ratio across the change and its interval; none when absent.
  std::optional<double> ratio, low, high;
  double confidence = 0;   ///< Of that interval.
  int pairs = 0;           ///< The verification's pairs.
  double probability = 0;  ///< The search's posterior mass on the change when it stopped.
};

/// A part's hunt for a further move of at least ×`alternative` (0: no hunt).
struct BisectFurtherMovePayload {
  double alternative = 0;
  bool ruled_out = false;  ///< Every move of ×alternative or more ruled out (never first-ness).
  int pairs_to_rule_out = 0;
  bool small_move_suspected = false;  ///< Ruled out on an estimate beyond the band.
};

/// One part of the range between two verified changes (or an end) and its check.
struct BisectSegmentPayload {
  std::string good_commit, bad_commit;
  int lo = 0, hi = 0;  ///< Indexes into `commits`.
  /// The bisect's spellings (SegmentCheckName, SegmentOutcomeName): "" (not measured),
  /// "same", "tie", "opposite", "undecided"; "" (none), "change", "range", "inconclusive",
  /// "unsearched". Kept as written: only the bisect gives them meaning.
  std::string check, outcome;
  double ratio = 1, low = 1, high = 1;  ///< The check's ratio and interval.
  double confidence = 0;
  int pairs = 0;
  std::string check_record;  ///< Id of the check's record; "" when not measured.
  std::string reason;
  bool tie_sought = false;
  int tie_pairs_needed = 0, tie_budget = 0;
  BisectFurtherMovePayload further_move;
  /// A searched part's move measured again once its search's model of one change had failed
  /// (the check's spellings; "" when not re-checked) and that sitting's record.
  std::string recheck, recheck_record;
};

/// The range's move taken apart into the verified changes and what they leave (logs).
struct BisectDecompositionPayload {
  double total_log = 0, total_low = 0, total_high = 0;
  double remainder_log = 0, remainder_low = 0, remainder_high = 0;
  std::string remainder_class;  ///< "tie", "beyond" or "undecided", as written.
};

struct BisectPayload {
  int version = kBisectPayloadVersion;
  std::vector<std::string> commits;  ///< Index 0 = good .. n = bad.
  std::vector<double> posterior;     ///< "First bad commit is j", size n + 1.
  std::vector<int> unbuildable;      ///< Indexes into `commits`.
  /// Only when the bisect verified a change.
  std::vector<BisectChangePayload> changes;
  std::vector<BisectSegmentPayload> segments;
  std::optional<BisectDecompositionPayload> decomposition;
  /// Read from records whose payload named the culprit by index (none is written today).
  std::optional<int> culprit_index;
};

/// The payload as JSON text (a string that is not UTF-8 is replaced, never thrown on).
std::string BisectPayloadToJson(const BisectPayload& payload);
/// The payload of a `bisect` record, read leniently (a missing or mistyped field is absent);
/// nullopt when the record has none, it is not an object, or its version is not known.
std::optional<BisectPayload> ReadBisectPayload(const Record& record);
/// The same from the JSON text alone.
std::optional<BisectPayload> BisectPayloadFromJson(std::string_view text);

}  // namespace culprit
