#pragma once

// The published table `culprit table --check` reads (probes/table_check.h's
// PublishedGrid): values per column per query, from
//  - a plain CSV: a header `query,COLUMN,COLUMN...` then one line per query;
//  - a Markdown table: the first table of the file (`| query | A | B |`, the
//    delimiter row, then one row per query), prose around it ignored;
//  - culprit.published/v1 JSON files (what `culprit publish` writes, read by
//    investigate/published_table.h): one column each, headed by the file's
//    revision; each value's sitting is its `record` (a run record is its own
//    sitting).
// A CSV or Markdown cell is a positive number, optionally with a unit ("12.5
// ms") and the sitting it was measured in ("12.5 ms @ 2026-12-01-a"); an empty
// cell, "-", "—" or "n/a" is a value not published. Every error names
// FILE:LINE:COLUMN (1-based; the column of the field's first character). Reading
// only: no measurement.

#include <filesystem>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/table_check.h"

namespace culprit {

/// A wide CSV: `name` starts every message.
Result<PublishedGrid> ParsePublishedGridCsv(std::string_view text, std::string_view name);

/// The first Markdown table of `text`.
Result<PublishedGrid> ParsePublishedGridMarkdown(std::string_view text, std::string_view name);

/// Reads the files, by extension: .csv, .md/.markdown, .json (culprit.published/v1). Several
/// files are joined column by column, rows matched by query (in first-seen order; a query
/// missing from a file is a value not published there). Errors: an unknown extension, a
/// heading twice across the files, fewer than two columns, a row whose values carry
/// different units.
Result<PublishedGrid> ReadPublishedGrid(const std::vector<std::filesystem::path>& files);

}  // namespace culprit
