#pragma once

// The kind-specific facts the reports draw, read leniently from a record's
// details and details_json (docs/reports.md lists the shapes): a field that is
// missing or of the wrong type is absent here, and the reports say "not in
// this record" instead of drawing it. Internal to records/.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "records/audit_payload.h"
#include "records/isolation_payload.h"
#include "records/record.h"
#include "records/svg_plot.h"

namespace culprit {

using svg::RatioInterval;

/// One isolation condition, as the reports draw it (records/isolation_payload.h has it all).
struct ConditionFacts {
  std::string name;
  std::vector<std::string> hold, release;
  bool baseline = false;
  ConditionRole role = ConditionRole::kOther;
  std::optional<Verdict> verdict;
  std::optional<RatioInterval> estimate;  ///< Against the baseline.
  std::optional<uint64_t> bytes;          ///< Sum of the structures' sizes, when answered.
};
/// One condition's simulated figure, formatted as `culprit isolate` prints it.
struct SimulatedRow {
  std::string condition;
  std::string median;       ///< The median count per run, "647550"; "-" without samples.
  std::string samples;      ///< How many and their range, "2 (647548..647553)"; "-".
  std::string vs_baseline;  ///< "baseline", "x136.250", or "-" without a positive median.
};
/// An isolation's simulated figures (`isolate --simulate`: the payload's `simulated`),
/// labelled as `isolate` labels them on the terminal: simulated, secondary, never a verdict.
struct SimulatedFacts {
  /// "ll_misses per run of scan, simulated (cachegrind, valgrind-3.19.0, --fair-sched=yes):
  /// per sample, a fresh harness process [set-up, 1 settling, 3 runs] minus one [set-up, 1
  /// settling], divided by 3; secondary, never a verdict".
  std::string heading;
  std::vector<SimulatedRow> rows;  ///< One per condition, the baseline first.
  std::string failure;             ///< Why it stopped early; "" when it did not.
};
struct IsolateFacts {
  std::vector<ConditionFacts> conditions;  ///< [0] is the baseline.
  std::string reversibility, reversibility_sentence;
  std::optional<SimulatedFacts> simulated;  ///< Only when the sitting simulated.
};
/// From the isolation payload (ReadIsolationPayload), else from the arms (one per condition,
/// with no per-condition estimate; the suspect by the `suspect` detail). Empty when neither
/// names a condition.
IsolateFacts ReadIsolateFacts(const Record& record);

/// One audit factor (records/audit_payload.h has it all).
struct FactorFacts {
  std::string name;
  std::optional<RatioInterval> estimate;
  std::optional<Verdict> verdict;  ///< None: not measured.
  bool cross_sitting = false;
  std::string record;  ///< Id of the record that measured it, if given.
};
struct AuditFacts {
  std::vector<FactorFacts> factors;
  std::optional<double> published, today;
  std::optional<RatioInterval> remainder;
  std::string conclusion;
};
/// From the audit payload (ReadAuditPayload); empty when the record has none.
AuditFacts ReadAuditFacts(const Record& record);

/// A bisect: its flat facts (records/bisect_details.h: culprit_commit, merge_commit,
/// first_commit, range_commits) and details_json {"commits":[...], "posterior":[...],
/// "unbuildable":[...]}.
struct BisectFacts {
  std::vector<std::string> commits;  ///< Index 0 = good .. n = bad, when recorded.
  std::vector<double> posterior;     ///< "First bad commit is j", size n + 1.
  std::vector<int> unbuildable;      ///< Indexes; from details_json, else notes + commits.
  std::vector<std::string> unbuildable_commits;  ///< As the notes name them.
  std::optional<int> culprit_index, first_index;
  int range_commits = 0;                     ///< n; 0 when not recorded.
  std::string culprit_commit, merge_commit;  ///< As recorded; "" when the record names none.
};
BisectFacts ReadBisectFacts(const Record& record);

/// A bisect step's position: details candidate_index (confirmations: the bad
/// end, `range_commits` of the bisect, passed as `bad_index`).
std::optional<int> StepIndex(const Record& step, int bad_index);
/// A bisect step's kind as its record spells it ("confirm", "measure", "verify", "check"; ""
/// when it names none).
std::string StepKindText(const Record& step);
/// The commit a bisect step measured: its candidate_commit, else its second arm's; "" when
/// neither.
std::string StepCommit(const Record& step);

/// Calibrations across a sitting: start, each between-look calibration
/// (details_json.calibration.checkpoints_ms, or details
/// checkpoint_calibrations_ms as a comma list), end.
struct CalibrationSeries {
  std::vector<std::string> labels;
  std::vector<std::optional<double>> values_ms;
};
CalibrationSeries ReadCalibrations(const Record& record);

/// The records of one report, by id: a link to one of them is an in-page anchor.
class RecordIndex {
 public:
  explicit RecordIndex(std::span<const Record> records);
  const Record* Find(std::string_view id) const;
  /// The bisect-step records of `bisect` in the report: those it links, or
  /// those with its details.bisect_run; in report order.
  std::vector<const Record*> StepsOf(const Record& bisect) const;
  std::span<const Record> records() const { return records_; }

 private:
  std::span<const Record> records_;
};

/// How a whole-archive report is divided: each investigation (and each
/// audit not inside one) with the records it links to, transitively; then
/// the other records by query. Every record is in exactly one group.
struct RecordGroup {
  std::string title;                   ///< "investigation series.count ..." / "query series.count".
  std::string anchor;                  ///< An HTML id for the group.
  const Record* root = nullptr;        ///< The investigation or audit, or null for a query.
  std::vector<const Record*> members;  ///< Root first, then in report order.
};
std::vector<RecordGroup> GroupRecords(std::span<const Record> records);

}  // namespace culprit
