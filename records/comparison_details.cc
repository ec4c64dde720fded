#include "records/comparison_details.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace culprit {
namespace {

// The keys, as sittings of two arms have spelled them from the start.
constexpr std::string_view kBetter = "better";
constexpr std::string_view kMetric = "metric";
constexpr std::string_view kMetricSource = "metric_source";
constexpr std::string_view kPairsDropped = "pairs_dropped";
constexpr std::string_view kPairsCensored = "pairs_censored";
constexpr std::string_view kFailures = "failures";
constexpr std::string_view kFailureTestP = "failure_test_p";
constexpr std::string_view kFailuresDiffer = "failures_differ";
constexpr std::string_view kCheckpointCalibrationsMs = "checkpoint_calibrations_ms";
constexpr std::string_view kDecidedBy = "decided_by";
constexpr std::string_view kNominalConfidence = "nominal_confidence";
constexpr std::string_view kMeanRatio = "mean_ratio";
constexpr std::string_view kTails = "tails";
constexpr std::string_view kSecondaryPrefix = "secondary.";
constexpr std::string_view kSecondaryConfidence = "secondary_confidence";
constexpr std::string_view kOverrideSets = "override_sets";
constexpr std::string_view kJudge = "judge";

constexpr std::string_view kDecidedByNames[] = {"near-deterministic rule"};

void WriteFigures(const ComparisonDetails& d, DetailMap* out) {
  if (d.failure_test_p)
    (*out)[std::string(kFailureTestP)] = fmt::format("{:.4g}", *d.failure_test_p);
  if (d.checkpoint_calibrations_ms) {
    (*out)[std::string(kCheckpointCalibrationsMs)] =
        fmt::format("{:.4f}", fmt::join(*d.checkpoint_calibrations_ms, ","));
  }
  if (d.nominal_confidence) {
    (*out)[std::string(kNominalConfidence)] = fmt::format("{:.5f}", *d.nominal_confidence);
  }
  for (const auto& [name, figure] : d.secondary) {
    (*out)[std::string(kSecondaryPrefix) + name] = figure;
  }
}

}  // namespace

std::string_view DecidedByName(DecidedBy value) { return NameIn(kDecidedByNames, value); }

void ComparisonDetails::WriteTo(DetailMap* out) const {
  sitting.WriteTo(out);
  if (better) (*out)[std::string(kBetter)] = std::string(MetricDirectionName(*better));
  PutText(out, kMetric, metric);
  PutText(out, kMetricSource, metric_source);
  PutCount(out, kPairsDropped, pairs_dropped);
  PutCount(out, kPairsCensored, pairs_censored);
  PutText(out, kFailures, failures);
  PutFlag(out, kFailuresDiffer, failures_differ, "true", "false");
  PutEnum(kDecidedByNames, out, kDecidedBy, decided_by);
  PutText(out, kMeanRatio, mean_ratio);
  PutText(out, kTails, tails);
  PutText(out, kSecondaryConfidence, secondary_confidence);
  PutList(out, kOverrideSets, override_sets);
  PutText(out, kJudge, judge);
  WriteFigures(*this, out);
}

ComparisonDetails ComparisonDetails::FromDetails(const DetailMap& in) {
  ComparisonDetails d;
  d.sitting = SittingDetails::FromDetails(in);
  if (std::optional<std::string> better = TextIn(in, kBetter)) {
    d.better = ParseMetricDirection(*better);
  }
  d.metric = TextIn(in, kMetric);
  d.metric_source = TextIn(in, kMetricSource);
  d.pairs_dropped = CountIn(in, kPairsDropped);
  d.pairs_censored = CountIn(in, kPairsCensored);
  d.failures = TextIn(in, kFailures);
  d.failure_test_p = NumberIn(in, kFailureTestP);
  d.failures_differ = FlagIn(in, kFailuresDiffer, "true", "false");
  d.checkpoint_calibrations_ms = NumbersIn(in, kCheckpointCalibrationsMs);
  d.decided_by = EnumIn<DecidedBy>(kDecidedByNames, in, kDecidedBy);
  d.nominal_confidence = NumberIn(in, kNominalConfidence);
  d.mean_ratio = TextIn(in, kMeanRatio);
  d.tails = TextIn(in, kTails);
  d.secondary = PrefixedIn(in, kSecondaryPrefix);
  d.secondary_confidence = TextIn(in, kSecondaryConfidence);
  d.override_sets = ListIn(in, kOverrideSets);
  d.judge = TextIn(in, kJudge);
  return d;
}

}  // namespace culprit
