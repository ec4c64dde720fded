#pragma once

// Renderers of records, one per output format, behind one interface so that
// `culprit records` picks a format without knowing any of them.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "records/record.h"

namespace culprit {

class RecordReporter {
 public:
  virtual ~RecordReporter() = default;
  /// Many records (already filtered and sorted by the caller).
  virtual std::string RenderList(std::span<const Record> records) = 0;
  /// One record, in full.
  virtual std::string RenderOne(const Record& record) = 0;
  /// One record as a whole: `records[0]` in full, then the records it links
  /// to (as LinkedRecords gives them), each in full, links resolved inside.
  /// By default each record's RenderOne, one after the other.
  virtual std::string RenderWhole(std::span<const Record> records);
};

/// `root` first, then every record of `archive` reachable from it through
/// links (an investigation's records, a bisect's steps, an audit's factors),
/// transitively, in archive order. Links to ids not in the archive are left
/// for the reporters to say so.
std::vector<Record> LinkedRecords(const Record& root, std::span<const Record> archive);

/// `records list`: an aligned table; `records show`: everything a skeptic
/// asks for (verdict, interval, band, arms, failures, calibration drift, load,
/// host, notes, links, the samples in execution order). Missing host facts
/// print "unavailable".
std::unique_ptr<RecordReporter> MakeTextReporter();

/// `records report`: a Markdown summary, grouped by investigation and by
/// query, with the band and a tie label per row; for one record, its facts,
/// the kind's table (steps of a bisect, conditions of an isolation, the
/// waterfall of an audit), the host across the sitting, arms and samples.
std::unique_ptr<RecordReporter> MakeMarkdownReporter();

/// Self-contained HTML (inline CSS, inline SVG, no scripts, no external
/// resources), readable at 1200 px: each record's picture by kind (the
/// interval against the band beside the samples; a bisect's steps by commit
/// index with the posterior; an isolation's conditions as bars; an audit's
/// waterfall; calibration and load across the sitting). Links to records in
/// the page are anchors; links to others say they are not in the report.
/// docs/reports.md describes each picture.
std::unique_ptr<RecordReporter> MakeHtmlReporter();

/// `records export`: RenderList gives a JSON array of records in the file
/// schema; RenderOne gives the record exactly as RecordToJson writes it.
std::unique_ptr<RecordReporter> MakeJsonReporter();

}  // namespace culprit
