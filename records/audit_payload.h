#pragma once

// What an `audit` record holds besides its flat details: the published figure and today's,
// each factor of the move (host drift, code, order) with its ratio, interval, verdict and the
// record that measured it, the remainder the factors leave, and the conclusion; kept in the
// record's details_json. Written by the audit (investigate/audit_report.cc) and read by every
// reporter, so the keys live here alone.
//
// Records archived before this struct existed have the same keys and no "version": they read
// as version 1.

#include <optional>
#include <string>
#include <vector>

#include "records/record.h"

namespace culprit {

/// The payload's version: a reader takes the versions it knows (1) and says so of others.
inline constexpr int kAuditPayloadVersion = 1;

struct AuditFactorPayload {
  std::string name;  ///< "host drift", "code", "order".
  /// today's factor as a ratio with its interval; none when the factor was not measured.
  std::optional<double> ratio, low, high;
  std::optional<Verdict> verdict;  ///< None: not measured (`note` says why).
  bool cross_sitting = false;      ///< Its two numbers come from different sittings.
  std::string record;              ///< Id of the record that measured it; "" if none.
  std::string note;
};

struct AuditPayload {
  int version = kAuditPayloadVersion;
  std::optional<double> published, today;  ///< In the query's unit.
  std::vector<AuditFactorPayload> factors;
  /// What the factors leave of today / published, when every factor was measured.
  std::optional<double> remainder_ratio, remainder_low, remainder_high;
  std::string conclusion;
};

/// The payload as details_json.
std::string AuditPayloadToJson(const AuditPayload& payload);

/// The payload of an `audit` record, read leniently (a missing or mistyped field is its
/// default; {"published": {"value": V}} is read as V too); nullopt when the record has no
/// payload object, or a version this build does not know.
std::optional<AuditPayload> ReadAuditPayload(const Record& record);

}  // namespace culprit
