#include "records/investigation_details.h"

#include <climits>

namespace culprit {
namespace {

// The keys, as investigation records have spelled them from the start.
constexpr std::string_view kInvestigationRun = "investigation_run";
constexpr std::string_view kGood = "good";
constexpr std::string_view kBad = "bad";
constexpr std::string_view kOutcome = "outcome";
constexpr std::string_view kCulpritCommit = "culprit_commit";
constexpr std::string_view kCulpritRelevance = "culprit_relevance";
constexpr std::string_view kLaterChange = "later_change";
constexpr std::string_view kRelevance = "relevance";
constexpr std::string_view kExplainPrefix = "explain.";
constexpr std::string_view kWallMsPrefix = "wall_ms.";
constexpr std::string_view kInterruptedAt = "interrupted_at";

}  // namespace

void InvestigationDetails::WriteTo(DetailMap* out) const {
  PutText(out, kInvestigationRun, investigation_run);
  PutText(out, kGood, good);
  PutText(out, kBad, bad);
  PutText(out, kOutcome, outcome);
  PutText(out, kCulpritCommit, culprit_commit);
  PutText(out, kCulpritRelevance, culprit_relevance);
  PutText(out, kLaterChange, later_change);
  PutText(out, kRelevance, relevance);
  for (const auto& [commit, text] : explains) (*out)[std::string(kExplainPrefix) + commit] = text;
  for (const auto& [step, ms] : wall_ms) {
    (*out)[std::string(kWallMsPrefix) + step] = std::to_string(ms);
  }
  PutText(out, kInterruptedAt, interrupted_at);
}

InvestigationDetails InvestigationDetails::FromDetails(const DetailMap& in) {
  InvestigationDetails d;
  d.investigation_run = TextIn(in, kInvestigationRun);
  d.good = TextIn(in, kGood);
  d.bad = TextIn(in, kBad);
  d.outcome = TextIn(in, kOutcome);
  d.culprit_commit = TextIn(in, kCulpritCommit);
  d.culprit_relevance = TextIn(in, kCulpritRelevance);
  d.later_change = TextIn(in, kLaterChange);
  d.relevance = TextIn(in, kRelevance);
  d.explains = PrefixedIn(in, kExplainPrefix);
  for (const auto& [step, text] : PrefixedIn(in, kWallMsPrefix)) {
    std::optional<uint64_t> ms = ParseCount(text);
    if (ms && *ms <= static_cast<uint64_t>(LLONG_MAX))
      d.wall_ms[step] = static_cast<long long>(*ms);
  }
  d.interrupted_at = TextIn(in, kInterruptedAt);
  return d;
}

}  // namespace culprit
