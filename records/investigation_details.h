#pragma once

// The flat facts of an `investigation` record (investigate/investigation_report.cc): the
// ladder's run and range, how it ended, the culprit and its relevance, what `explain` said of
// each change, each step's wall time, and where an interrupted ladder stopped. The keys and
// their spellings live in investigation_details.cc alone.
//
// The ladder's outcome, the relevance and the step are kept as the text investigate's tables
// spell them (investigate/investigation_state.h: LadderOutcomeName, CulpritRelevanceName,
// InvestigationStepName): investigate owns those enums and reads its own state file, not these
// records, to resume.
//
// Every field is optional: set means "the record holds this fact". WriteTo writes the set
// fields; FromDetails reads any record, archived ones included: a missing or unparsable value
// reads as nullopt (an empty map), never throws.

#include <map>
#include <optional>
#include <string>

#include "records/detail_fields.h"
#include "records/record.h"

namespace culprit {

struct InvestigationDetails {
  std::optional<std::string> investigation_run;  ///< The ladder's run id.
  std::optional<std::string> good, bad;          ///< The range, as given.
  std::optional<std::string> outcome;            ///< "not reproducible", "on path" ...
  /// The culprit named; when a later change is the one the ladder explained, the bisect's
  /// culprit on the path, that change in `later_change` and "on path" in `culprit_relevance`.
  std::optional<std::string> culprit_commit, culprit_relevance, later_change;
  std::optional<std::string> relevance;  ///< "on path", "off path", "unknown".
  /// What `explain` made of each change, by short commit (kept as "explain.<commit>"): its
  /// record id, or "<status>: <why>".
  std::map<std::string, std::string> explains;
  /// Each step's wall time in ms, by step name (kept as "wall_ms.<step>"); a value that is
  /// not a count is left out.
  std::map<std::string, long long> wall_ms;
  std::optional<std::string> interrupted_at;  ///< The step Ctrl-C stopped.

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any investigation record's details.
  static InvestigationDetails FromDetails(const DetailMap& details);

  bool operator==(const InvestigationDetails&) const = default;
};

}  // namespace culprit
