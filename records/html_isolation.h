#pragma once

// The HTML report's section of an `isolate` record (records/html_report.cc draws the rest of
// the page): each condition against the baseline as interval bars, the reversibility verdict,
// the conditions' table, and the simulated figures when the sitting had them (secondary,
// never a verdict). Internal to records/.

#include <string>
#include <string_view>

#include "records/record.h"

namespace culprit {

/// The picture of an isolation's conditions (ReadIsolateFacts), or a paragraph saying the
/// record has none.
std::string IsolatePicture(const Record& r);

/// `<p class="missing">WHAT: not in this record.</p>`: how each section of the HTML report
/// says what a record lacks.
std::string HtmlMissing(std::string_view what);

}  // namespace culprit
