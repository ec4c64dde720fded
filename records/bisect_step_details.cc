#include "records/bisect_step_details.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <climits>
#include <ostream>

namespace culprit {
namespace {

// The keys, as bisect step records have spelled them from the start.
constexpr std::string_view kStepBisectRun = "bisect_run";
constexpr std::string_view kStepKind = "step_kind";
constexpr std::string_view kCandidateCommit = "candidate_commit";
constexpr std::string_view kBaselineCommit = "baseline_commit";
constexpr std::string_view kCandidateIndex = "candidate_index";
constexpr std::string_view kBaselineIndex = "baseline_index";
constexpr std::string_view kNearDeterministic = "near_deterministic";
constexpr std::string_view kStepOdds = "step_odds";
constexpr std::string_view kTargetProbability = "target_probability";
constexpr std::string_view kVerifyLooks = "verify_looks";
constexpr std::string_view kVerifyLookAlphas = "verify_look_alphas";
constexpr std::string_view kVerifyPlan = "verify_plan";
constexpr std::string_view kEvidence = "evidence";
constexpr std::string_view kPosteriorAtOrBefore = "posterior_at_or_before";
constexpr std::string_view kBestCommit = "best_commit";
constexpr std::string_view kBestProbability = "best_probability";
constexpr std::string_view kPairs = "pairs";
constexpr std::string_view kReusedRuns = "reused_runs";
constexpr std::string_view kReusedRunsA = "reused_runs_a";
constexpr std::string_view kReusedRunsB = "reused_runs_b";
constexpr std::string_view kReusedSamples = "reused_samples";

constexpr std::string_view kStepKindNames[] = {"confirm", "measure", "verify", "check"};

void PutFormatted(DetailMap* out, std::string_view key, std::string value) {
  (*out)[std::string(key)] = std::move(value);
}

// The list at `key` as counts; nullopt when one is not.
std::optional<std::vector<int>> CountsIn(const DetailMap& in, std::string_view key) {
  std::optional<std::vector<std::string>> parts = ListIn(in, key);
  if (!parts) return std::nullopt;
  std::vector<int> looks;
  for (const std::string& part : *parts) {
    std::optional<uint64_t> n = ParseCount(part);
    if (!n || *n > static_cast<uint64_t>(INT_MAX)) return std::nullopt;
    looks.push_back(static_cast<int>(*n));
  }
  return looks;
}

}  // namespace

std::string_view BisectStepKindName(BisectStepKind kind) { return NameIn(kStepKindNames, kind); }
std::optional<BisectStepKind> ParseBisectStepKind(std::string_view name) {
  return ParseIn<BisectStepKind>(kStepKindNames, name);
}
void PrintTo(BisectStepKind kind, std::ostream* out) { *out << BisectStepKindName(kind); }

void BisectStepDetails::WriteTo(DetailMap* out) const {
  PutText(out, kStepBisectRun, bisect_run);
  PutEnum(kStepKindNames, out, kStepKind, step_kind);
  PutText(out, kCandidateCommit, candidate_commit);
  PutText(out, kBaselineCommit, baseline_commit);
  PutCount(out, kCandidateIndex, candidate_index);
  PutCount(out, kBaselineIndex, baseline_index);
  PutText(out, kNearDeterministic, near_deterministic);
  if (step_odds) PutFormatted(out, kStepOdds, fmt::format("{:g}", *step_odds));
  if (target_probability) {
    PutFormatted(out, kTargetProbability, fmt::format("{:g}", *target_probability));
  }
  if (verify_looks)
    PutFormatted(out, kVerifyLooks, fmt::format("{}", fmt::join(*verify_looks, ",")));
  if (verify_look_alphas) {
    PutFormatted(out, kVerifyLookAlphas,
                 fmt::format("{:.4g}", fmt::join(*verify_look_alphas, ",")));
  }
  PutText(out, kVerifyPlan, verify_plan);
  PutText(out, kEvidence, evidence);
  if (posterior_at_or_before) {
    PutFormatted(out, kPosteriorAtOrBefore, fmt::format("{:.6f}", *posterior_at_or_before));
  }
  PutText(out, kBestCommit, best_commit);
  if (best_probability) {
    PutFormatted(out, kBestProbability, fmt::format("{:.6f}", *best_probability));
  }
  PutCount(out, kPairs, pairs);
  PutText(out, kReusedRuns, reused_runs);
  PutCount(out, kReusedRunsA, reused_runs_a);
  PutCount(out, kReusedRunsB, reused_runs_b);
  if (reused_samples) {
    PutFormatted(out, kReusedSamples, fmt::format("{}", fmt::join(*reused_samples, ",")));
  }
}

BisectStepDetails BisectStepDetails::FromDetails(const DetailMap& in) {
  BisectStepDetails d;
  d.bisect_run = TextIn(in, kStepBisectRun);
  d.step_kind = EnumIn<BisectStepKind>(kStepKindNames, in, kStepKind);
  d.candidate_commit = TextIn(in, kCandidateCommit);
  d.baseline_commit = TextIn(in, kBaselineCommit);
  d.candidate_index = CountIn(in, kCandidateIndex);
  d.baseline_index = CountIn(in, kBaselineIndex);
  d.near_deterministic = TextIn(in, kNearDeterministic);
  d.step_odds = NumberIn(in, kStepOdds);
  d.target_probability = NumberIn(in, kTargetProbability);
  d.verify_looks = CountsIn(in, kVerifyLooks);
  d.verify_look_alphas = NumbersIn(in, kVerifyLookAlphas);
  d.verify_plan = TextIn(in, kVerifyPlan);
  d.evidence = TextIn(in, kEvidence);
  d.posterior_at_or_before = NumberIn(in, kPosteriorAtOrBefore);
  d.best_commit = TextIn(in, kBestCommit);
  d.best_probability = NumberIn(in, kBestProbability);
  d.pairs = CountIn(in, kPairs);
  d.reused_runs = TextIn(in, kReusedRuns);
  d.reused_runs_a = CountIn(in, kReusedRunsA);
  d.reused_runs_b = CountIn(in, kReusedRunsB);
  d.reused_samples = CountsIn(in, kReusedSamples);
  return d;
}

}  // namespace culprit
