#pragma once

// Renderers of records, one per output format, behind one interface so that
// `culprit records` picks a format without knowing any of them.

#include <memory>
#include <span>
#include <string>

#include "records/record.h"

namespace culprit {

class RecordReporter {
 public:
  virtual ~RecordReporter() = default;
  /// Many records (already filtered and sorted by the caller).
  virtual std::string RenderList(std::span<const Record> records) = 0;
  /// One record, in full.
  virtual std::string RenderOne(const Record& record) = 0;
};

/// `records list`: an aligned table; `records show`: everything a skeptic
/// asks for (verdict, interval, band, arms, failures, calibration drift, load,
/// host, notes, links, the samples in execution order). Missing host facts
/// print "unavailable".
std::unique_ptr<RecordReporter> MakeTextReporter();

/// `records report`: a Markdown summary table (one row per record) and, for
/// one record, its facts, arms and samples.
std::unique_ptr<RecordReporter> MakeMarkdownReporter();

/// Self-contained HTML (inline CSS, inline SVG, no scripts) with a plot of
/// each record's samples in execution order, one colour per arm.
std::unique_ptr<RecordReporter> MakeHtmlReporter();

/// `records export`: RenderList gives a JSON array of records in the file
/// schema; RenderOne gives the record exactly as RecordToJson writes it.
std::unique_ptr<RecordReporter> MakeJsonReporter();

}  // namespace culprit
