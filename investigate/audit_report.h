#pragma once

// What an audit says, pure: from its figures and outcome
// (investigate/audit_figures.h) to the waterfall, the conclusion, the summary
// `culprit audit` prints, the calibration note, and the records of the drift
// factor and of the audit. No sitting, no store: tested on hand-built figures.

#include <optional>
#include <string>
#include <vector>

#include "investigate/audit_figures.h"
#include "investigate/published_table.h"
#include "probes/statistics.h"
#include "records/record.h"

namespace culprit {

/// The waterfall: published -> x drift -> x code -> x order -> today, each
/// factor with its interval, verdict and the running value; then the remainder.
std::string FormatWaterfall(const AuditFigures& figures);

/// One paragraph: which factors are EFFECT, which ties, which undecided, where
/// the remainder stands; with the next step (investigate/bisect for code,
/// the queries before and `culprit isolate` for order).
std::string AuditConclusion(const AuditFigures& figures);

/// The waterfall, the cross-sitting warning, the calibration, the notes, the
/// conclusion and the records, as `culprit audit` prints it.
std::string FormatAuditSummary(const AuditOutcome& outcome);

/// How much of the host drift the calibration loop's change explains (CPU
/// speed: now_ms / published_ms), and the rest once the drift is measured.
std::string CalibrationNote(double now_ms, double published_ms, const AuditFactor& drift);

/// The drift factor's record: the published figure as arm A (its samples when it came
/// from a record), the published commit re-measured now as arm B (the samples of arm A of
/// `code`, the code sitting's record, which it links), and the cross-sitting estimate
/// `shift` with the factor's verdict (ERROR, with the factor's note, without a shift).
Record MakeDriftRecord(const PublishedNumber& published, const Record& code,
                       const std::optional<ShiftEstimate>& shift, const AuditFactor& factor,
                       double band);

/// The `audit` record: the figures, every factor's record linked, the total as its
/// estimate (at `confidence`), the conclusion or the failure, the published number's
/// provenance, and the factors and remainder in details_json. `code` and `order` are the
/// sittings' records (the start and host from the first, the end from the second); either
/// may be null when it did not run.
Record MakeAuditRecord(const AuditOutcome& o, const Record* code, const Record* order,
                       const std::vector<std::string>& invocation, const std::string& config_digest,
                       double confidence);

}  // namespace culprit
