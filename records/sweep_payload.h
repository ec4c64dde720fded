#pragma once

// What a `sweep` record holds besides its samples and its table: each query's
// series (every measured commit's ratio to the range's start, with its interval)
// and what the series showed, part by part (a change between two measured
// commits with the bisect command of its sub-range, a tie, an undecided part),
// kept in the record's details_json under "sweep" beside the table's facts
// (records/table_payload.h). The same facts print for `culprit sweep` and for
// `culprit records`, so the two never disagree.

#include <optional>
#include <string>
#include <vector>

#include "records/record.h"

namespace culprit {

struct SweepPointFacts {
  int index = 0;  ///< Position in the range, first-parent order: 0 is the start.
  std::string commit, short_id, subject;
  bool measured = true;
  std::string error;                       ///< Why it is not measured.
  std::optional<double> ratio, low, high;  ///< To the start (the table cell); none for the start.
  std::string verdict;                     ///< The cell's: EFFECT, NULL, INCONCLUSIVE or "".
};

struct SweepPartFacts {
  std::string kind;                        ///< "change", "tie" or "undecided".
  int from = 0, to = 0;                    ///< Indexes into the query's points, both measured.
  int commits = 0;                         ///< Commits after `from` up to and including `to`.
  std::optional<double> ratio, low, high;  ///< to / from, with the interval at step_confidence.
  double mass = 1;  ///< "change": the step's posterior mass in its search; "undecided": the span's.
  std::string command;  ///< The bisect of (from, to]; empty for a tie.
};

struct SweepQueryFacts {
  std::string query;
  std::vector<SweepPointFacts> points;
  std::vector<SweepPartFacts> parts;
};

struct SweepFacts {
  std::string good, bad;  ///< As given.
  int commits = 0;        ///< In the range after its start.
  std::string selection;  ///< "every 4th commit" or "10 evenly spaced points".
  double band = 0.05;
  double step_confidence = 0.95;  ///< Of every step's and part's interval.
  std::vector<SweepQueryFacts> queries;
};

/// `table_json` (TableFactsToJson's object) with the sweep's facts under "sweep".
std::string SweepFactsToJson(const std::string& table_json, const SweepFacts& facts);
/// The facts of a `sweep` record, read leniently; nullopt when the record holds none.
std::optional<SweepFacts> ReadSweepFacts(const Record& record);

/// Per query: the series, one line per measured commit, then each part: "moved ×R [..]
/// between A and B (k commits)" with its bisect command, "no change beyond the band between
/// A and B", or "undecided between A and B".
std::string SweepFactsText(const SweepFacts& facts);
/// The same as Markdown.
std::string SweepFactsMarkdown(const SweepFacts& facts);

}  // namespace culprit
