#pragma once

// The flat facts of an audit's records (investigate/audit.cc, investigate/audit_report.cc):
// the `audit` record itself, its host-drift record and the order factor's `compare` sitting.
// Which factor a record measured, how the registry's order was run, and the published figure
// set against today's. Read by nothing but people and `records show` today; the keys and
// their spellings live in audit_details.cc alone. The factors and the waterfall are the
// payload (records/audit_payload.h).
//
// Every field is optional: set means "the record holds this fact". WriteTo writes the set
// fields and leaves the others alone; FromDetails reads any record, archived ones included:
// a missing or unparsable value reads as nullopt, never throws.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/detail_fields.h"
#include "records/record.h"

namespace culprit {

/// Which factor of the audit a record measured.
enum class AuditFactorKind {
  kOrder,      ///< "order": the registry's order against a query alone.
  kHostDrift,  ///< "host drift": the published commit re-measured now.
};
/// "order", "host drift", as written.
std::string_view AuditFactorKindName(AuditFactorKind kind);

/// How the registry's order was run.
enum class AuditOrderWay {
  kRegistryCommand,  ///< "registry command": [registry] command, one process.
  kHarness,          ///< "harness": the engine's in-process harness.
};
/// "registry command", "harness", as written.
std::string_view AuditOrderWayName(AuditOrderWay way);

struct AuditDetails {
  std::optional<AuditFactorKind> audit_factor;
  std::optional<std::vector<std::string>> registry_before;  ///< The queries run before it.
  std::optional<AuditOrderWay> order_way;
  std::optional<int> runs_per_sample;  ///< Of a harness sample.
  std::optional<bool> cross_sitting;   ///< "true": a ratio across sittings.
  std::optional<double> published_value;
  std::optional<std::string> published_source, published_revision, published_commit;
  std::optional<std::string> published_record;  ///< The record behind the published value.
  std::optional<std::string> today_revision;
  std::optional<std::string> now_samples_from;  ///< The record today's samples came from.
  std::optional<double> published_calibration_ms, calibration_now_ms;

  /// Writes the set fields into `details` in today's spellings.
  void WriteTo(DetailMap* details) const;
  /// Reads the facts of any audit record's details.
  static AuditDetails FromDetails(const DetailMap& details);

  bool operator==(const AuditDetails&) const = default;
};

}  // namespace culprit
