#pragma once

// The flat facts of a `multi-bisect` record (its Record::details): the range and the queries
// bisected over it, and the table they came from. Written by bisect/multi_query_report.cc, so
// the keys and their spellings live in multi_bisect_details.cc alone; what moved each query
// is the payload (records/multi_bisect_payload.h).
//
// Every field is optional: set means "the record holds this fact". WriteTo writes the set
// fields; FromDetails reads any record, archived ones included, and never throws.

#include <optional>
#include <string>
#include <vector>

#include "records/detail_fields.h"
#include "records/record.h"

namespace culprit {

struct MultiBisectDetails {
  std::optional<std::string> good, bad;             ///< The range's ends, as given.
  std::optional<std::vector<std::string>> queries;  ///< The queries' names, in order.
  std::optional<std::string> from_table;            ///< The table record they came from.

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any multi-bisect record's details.
  static MultiBisectDetails FromDetails(const DetailMap& details);

  bool operator==(const MultiBisectDetails&) const = default;
};

}  // namespace culprit
