#pragma once

// A published number, where `culprit audit` starts: a culprit `run` record
// (which carries its commit, calibration, host and raw samples), a plain value
// with its revision from the command line, or a row of a published table file
// (JSON or CSV; docs/audit.md gives both formats). Reading only: no
// measurement, no git. Every error names where the bad input is: the flag,
// FILE:LINE for CSV, FILE and the JSON path (with line:column for a JSON
// syntax error).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/process.h"
#include "records/record.h"

namespace culprit {

/// One published figure of one query.
struct PublishedNumber {
  std::string query;     ///< "" when the source does not say (a plain --published value).
  double value = 0;      ///< > 0 and finite, in `unit`.
  std::string unit;      ///< "" when the source does not say.
  std::string revision;  ///< The revision it was measured at, as published.
  std::string commit;    ///< Full id when the source has it, else "".
  std::optional<double> calibration_ms;  ///< The publisher's calibration line, if printed.
  std::optional<HostIdentity> host;      ///< The publisher's host, when the source has it.
  std::vector<double> samples;           ///< Raw samples (from a record), else empty.
  std::string record_id;                 ///< The record it came from, if any.
  /// The record's start snapshot (its host tuning) and where its runs ran (details cpus,
  /// aslr), when it came from a record: the audit says what tuning differs from today's.
  std::optional<HostState> record_start;
  RunPlacement record_placement;
  std::string source;  ///< Where it was read: "--published", "FILE:LINE", ...
};

/// `text` as a published value: a finite number > 0. `what` names the input in
/// the error ("--published").
Result<double> ParsePublishedValue(std::string_view text, std::string_view what);

/// The published number a `run` record holds: its median (details.median, else
/// the median of its kept samples), commit, calibration (the start's, else the
/// end's), host and samples. Errors: another kind, no successful sample.
Result<PublishedNumber> PublishedFromRecord(const Record& record, std::string_view source);

enum class TableFormat { kJson, kCsv };

/// Parses a published table. `name` starts every message. A table has at least
/// one row, each query at most once, each value positive, each row a revision
/// (its own or the table's).
Result<std::vector<PublishedNumber>> ParsePublishedTable(std::string_view text,
                                                         std::string_view name, TableFormat format);

/// Reads a table file; the format is JSON for a name ending in .json, CSV for
/// .csv, an error otherwise.
Result<std::vector<PublishedNumber>> ReadPublishedTable(const std::filesystem::path& file);

/// The row of `query` in `table`; a usage error listing the table's queries.
Result<PublishedNumber> FindPublishedRow(const std::vector<PublishedNumber>& table,
                                         const std::string& query, std::string_view name);

/// The table as culprit.published/v1 JSON (what ParsePublishedTable reads
/// back): the rows' revision, commit, unit and host at the top when all rows
/// share them, each row's value, calibration and record; `produced_by` says how.
std::string PublishedTableToJson(const std::vector<PublishedNumber>& rows,
                                 std::string_view produced_by);

}  // namespace culprit
