#pragma once

// `culprit audit`: why a published number is not today's. The move from the
// published figure to today's (the query measured in the registry's order at
// today's commit) is taken apart into measured factors, each with its interval
// and its own record, linked from one `audit` record (docs/audit.md):
//   host drift  the published commit re-measured now / the published value:
//               the one ratio across sittings (said so wherever it is shown);
//   code        published commit vs today's commit, paired, one sitting;
//   order       today's commit, the query alone in a fresh process vs after
//               the queries [registry] order runs before it, in one process,
//               paired, one sitting ([registry] command, else the harness);
//   remainder   what the product leaves unexplained (probes/decomposition.h).
//
// The run is here (the checks, the builds, the sittings, the archive); the
// figures and the pure functions that compute them are
// investigate/audit_figures.h; the waterfall, the conclusion, the summary and
// the records, pure, are investigate/audit_report.h.

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "investigate/audit_figures.h"
#include "investigate/audit_report.h"
#include "investigate/config.h"
#include "investigate/published_table.h"
#include "probes/build_provider.h"
#include "probes/decomposition.h"
#include "probes/host.h"
#include "probes/measure_commands.h"
#include "probes/statistics.h"

namespace culprit {

/// What to audit. Exactly one published source: a value (with its revision),
/// a record (id, id prefix or file), or a table file.
struct AuditRequest {
  std::string query;  ///< With a table, "" audits every row; otherwise "" = the only query.
  std::optional<std::string> published_value;        ///< --published, checked here.
  std::optional<std::string> published_revision;     ///< --published-rev (with a value).
  std::optional<std::string> published_calibration;  ///< --published-calibration MS.
  std::optional<std::string> published_record;       ///< --published-record ID|FILE.
  std::optional<std::filesystem::path> table;        ///< --table FILE (.json or .csv).
  std::string revision = "HEAD";                     ///< Today's commit.
  MeasureFlags flags;
  std::vector<std::string> invocation;  ///< Recorded in the audit record.
};

struct AuditContext {
  const Config& config;
  BuildProvider& builds;
  const HostProbe* host = nullptr;  ///< Null: no host state (tests).
  SittingProgress* progress = nullptr;
};

/// The published numbers `request` names, checked (a value that is not a
/// positive number, a record of another kind or without commit, a table with
/// a bad row are usage errors). `table` rows are filtered to request.query
/// when it is given.
Result<std::vector<PublishedNumber>> ResolvePublished(const Config& config,
                                                      const AuditRequest& request);

/// Audits one published number of `query` against `revision`: checks the
/// registry and the published number against the configuration, builds both
/// commits (an error before anything is measured when one does not exist or
/// does not build), measures code and order, derives drift, archives every
/// factor and the audit. An error means nothing was measured, or the outcome
/// could not be archived at all; a broken or interrupted sitting returns an
/// outcome with `failure` set, after writing what was measured.
Result<AuditOutcome> RunAudit(const AuditContext& context, const PublishedNumber& published,
                              const std::string& query, const AuditRequest& request);

/// The whole command as one call (the demo's ending uses it): resolves the
/// published numbers of `request` and audits each in turn, stopping at the
/// first failure (whose outcome is the last element, `failure` set).
Result<std::vector<AuditOutcome>> RunAudits(const AuditContext& context,
                                            const AuditRequest& request);

/// The same with the real engine builds (MakeEngineBuildProvider, no rebuild)
/// and the real host probe: the one call the demo ends with, e.g.
///   AuditRequest request;
///   request.query = "series.count";
///   request.table = examples / "eventstore" / "published-v1.0.json";
///   request.revision = "v1.3";
///   Result<std::vector<AuditOutcome>> audit = AuditWithEngine(config, request, progress);
/// then FormatAuditSummary(audit->back()). `progress` and `build_progress` may be null.
Result<std::vector<AuditOutcome>> AuditWithEngine(const Config& config, const AuditRequest& request,
                                                  SittingProgress* progress = nullptr,
                                                  BuildProgress* build_progress = nullptr);

/// What `culprit publish` measures: a published table made by culprit.
struct PublishRequest {
  std::vector<std::string> queries;  ///< Empty: [registry] order, else every query.
  std::string revision;              ///< Required: a published number names its commit.
  int samples = 0;                   ///< Per query; 0: [measure] min_pairs.
  MeasureFlags flags;
};

/// Measures each query at `revision` as `culprit run` does (a `run` record
/// each, archived) and returns the rows of the table: the median, the run's
/// calibration (at its start), the host, the record id. Stops at the first
/// query whose run fails (no successful sample): no row is made up.
Result<std::vector<PublishedNumber>> RunPublish(const AuditContext& context,
                                                const PublishRequest& request);

/// The note of a factor's sitting whose slow runs came in bursts in both arms (its
/// ComparisonOutcome::bursts: the host's noise, which an undecided factor may owe its width
/// to), into `notes`: "the code factor's sitting: slow runs came in bursts: ...". Nothing
/// when there were none.
void AddFactorBurstsNote(std::string_view factor, const ComparisonOutcome& outcome,
                         std::vector<std::string>& notes);

/// What the published number's provenance means for the host drift, as notes: it came from
/// another machine (another host name or CPU model, or, when both sides know it, another
/// machine identity: a renamed host, or two hosts of one name), or it has no calibration to
/// split the drift by. `host` is today's (null: unknown).
void AddProvenanceNotes(const PublishedNumber& published, const HostProbe* host,
                        std::vector<std::string>& notes);

}  // namespace culprit
