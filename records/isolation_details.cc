#include "records/isolation_details.h"

#include <fmt/format.h>

namespace culprit {
namespace {

// The keys, as isolate records have spelled them from the start.
constexpr std::string_view kPlan = "plan";
constexpr std::string_view kSuspect = "suspect";
constexpr std::string_view kConclusion = "conclusion";
constexpr std::string_view kDesign = "design";
constexpr std::string_view kRounds = "rounds";
constexpr std::string_view kMaxRounds = "max_rounds";
constexpr std::string_view kRunsPerVisit = "runs_per_visit";
constexpr std::string_view kSettleRuns = "settle_runs";
constexpr std::string_view kSampleTags = "sample_tags";
constexpr std::string_view kCorrection = "correction";
constexpr std::string_view kConditionAlpha = "condition_alpha";
constexpr std::string_view kReversibility = "reversibility";
constexpr std::string_view kPartial = "partial";
constexpr std::string_view kFailedCondition = "failed_condition";
constexpr std::string_view kFailedCommand = "failed_command";

// In the enum's order.
constexpr std::string_view kReversibilityNames[] = {"not tested", "reversible", "not reversible",
                                                    "undecided"};

}  // namespace

std::string_view ReversibilityName(Reversibility value) {
  return NameIn(kReversibilityNames, value);
}

std::optional<Reversibility> ParseReversibility(std::string_view name) {
  return ParseIn<Reversibility>(kReversibilityNames, name);
}

void IsolationDetails::WriteTo(DetailMap* out) const {
  sitting.WriteTo(out);
  PutText(out, kPlan, plan);
  PutText(out, kSuspect, suspect);
  PutText(out, kConclusion, conclusion);
  PutText(out, kDesign, design);
  PutCount(out, kRounds, rounds);
  PutCount(out, kMaxRounds, max_rounds);
  PutCount(out, kRunsPerVisit, runs_per_visit);
  PutCount(out, kSettleRuns, settle_runs);
  PutText(out, kSampleTags, sample_tags);
  PutText(out, kCorrection, correction);
  if (condition_alpha) {
    (*out)[std::string(kConditionAlpha)] = fmt::format("{:.6g}", *condition_alpha);
  }
  PutEnum(kReversibilityNames, out, kReversibility, reversibility);
  PutFlag(out, kPartial, partial, "true", "false");
  PutText(out, kFailedCondition, failed_condition);
  PutText(out, kFailedCommand, failed_command);
}

IsolationDetails IsolationDetails::FromDetails(const DetailMap& in) {
  IsolationDetails d;
  d.sitting = SittingDetails::FromDetails(in);
  d.plan = TextIn(in, kPlan);
  d.suspect = TextIn(in, kSuspect);
  d.conclusion = TextIn(in, kConclusion);
  d.design = TextIn(in, kDesign);
  d.rounds = CountIn(in, kRounds);
  d.max_rounds = CountIn(in, kMaxRounds);
  d.runs_per_visit = CountIn(in, kRunsPerVisit);
  d.settle_runs = CountIn(in, kSettleRuns);
  d.sample_tags = TextIn(in, kSampleTags);
  d.correction = TextIn(in, kCorrection);
  d.condition_alpha = NumberIn(in, kConditionAlpha);
  d.reversibility = EnumIn<Reversibility>(kReversibilityNames, in, kReversibility);
  d.partial = FlagIn(in, kPartial, "true", "false");
  d.failed_condition = TextIn(in, kFailedCondition);
  d.failed_command = TextIn(in, kFailedCommand);
  return d;
}

}  // namespace culprit
