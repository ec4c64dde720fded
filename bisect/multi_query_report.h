#pragma once

// What a bisect of several queries says, as pure functions of each query's finished bisect
// (bisect/multi_query_bisect.h runs them): each query's facts (its verified changes, its
// unplaced parts or why nothing was found), the changes whose commit coincides across
// queries merged into one, the exit status and the archived `multi-bisect` record. No I/O:
// tested on hand-built states.

#include <string>
#include <vector>

#include "bisect/bisect_report.h"
#include "bisect/bisect_state.h"
#include "bisect/search.h"
#include "records/multi_bisect_payload.h"
#include "records/record.h"

namespace culprit {

/// `state`'s bisect of `query` as one row of the whole: every verified change (commit,
/// ratio across it, interval), every unplaced part, the range's move as confirmed, and the
/// result record. `outcome` (null when not known: a state finished before the queue said
/// so) gives the outcome's word and reason; `found` is the bisect's (BisectReport::found).
MultiBisectQueryFacts QueryBisectFacts(const std::string& query, const BisectState& state,
                                       const SearchOutcome* outcome, bool found);

/// A query whose bisect stopped on `error` (its message): FAILED, with the error as reason.
MultiBisectQueryFacts FailedQueryFacts(const std::string& query, const std::string& error);

/// Every verified change of `queries` once, in query order then change order: changes of
/// several queries with the same commit (and the same first commit, for a range) are one
/// entry listing each (query, change).
std::vector<MultiBisectCommonChange> CoincidingChanges(
    const std::vector<MultiBisectQueryFacts>& queries);

/// The exit status of the whole, the single-query bisect's codes worst first: 1 when a
/// query's bisect failed on an error, else 4 when one named nothing (not reproduced, not
/// confirmed or not placed) or was not run, else 0 (every query's change named and verified).
int MultiBisectExitCode(const MultiBisectFacts& facts);

/// The `multi-bisect` record of the whole: the payload, links to every query's `bisect`
/// record, verdict EFFECT when a query's change was verified, NULL when every query's
/// endpoints tied, INCONCLUSIVE otherwise; the summary text as verdict_detail's first line.
Record MultiBisectRecord(const MultiBisectFacts& facts, const std::string& config_digest);

}  // namespace culprit
