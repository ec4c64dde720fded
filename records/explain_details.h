#pragma once

// The flat facts of an `explain` record (investigate/explain_report.cc): the change and its
// parent, the metric counted and how (cachegrind, its cache simulation, which valgrind), one
// run per side with ASLR off (records/placement_details.h), the files the change touched and
// the query's code path. The keys and their spellings live in explain_details.cc alone; the
// per-function counts are the payload (records/explain_payload.h).
//
// Every field is optional: set means "the record holds this fact". WriteTo writes the set
// fields; FromDetails reads any record, archived ones included: a missing or unparsable value
// reads as nullopt, never throws.

#include <optional>
#include <string>
#include <vector>

#include "records/detail_fields.h"
#include "records/record.h"

namespace culprit {

struct ExplainDetails {
  std::optional<std::string> parent, change;  ///< The commits compared.
  std::optional<std::string> metric;          ///< What was counted: "instructions".
  /// What counted it ("cachegrind" ...); not constrained.
  std::optional<std::string> metric_source;
  std::optional<std::string> query_metric;  ///< The query's own metric.
  std::optional<bool> cache_sim;            ///< "yes" / "no".
  std::optional<std::string> valgrind;      ///< The valgrind that ran.
  std::optional<int> runs_per_side;
  std::optional<std::vector<std::string>> changed_files;
  std::optional<std::string> code_path;

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any explain record's details.
  static ExplainDetails FromDetails(const DetailMap& details);

  bool operator==(const ExplainDetails&) const = default;
};

}  // namespace culprit
