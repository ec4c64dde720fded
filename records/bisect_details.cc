#include "records/bisect_details.h"

#include <fmt/format.h>

namespace culprit {
namespace {

// The keys, as bisect records have spelled them from the start.
constexpr std::string_view kBisectRun = "bisect_run";
constexpr std::string_view kGoodCommit = "good_commit";
constexpr std::string_view kBadCommit = "bad_commit";
constexpr std::string_view kRangeCommits = "range_commits";
constexpr std::string_view kLog2MinimumBuilds = "log2_minimum_builds";
constexpr std::string_view kBuildsUsed = "builds_used";
constexpr std::string_view kPairsUsed = "pairs_used";
constexpr std::string_view kProbability = "probability";
constexpr std::string_view kCredibleSet = "credible_set";
constexpr std::string_view kLargestStepDrift = "largest_step_drift";
constexpr std::string_view kCulpritCommit = "culprit_commit";
constexpr std::string_view kFirstCommit = "first_commit";
constexpr std::string_view kCulpritSubject = "culprit_subject";
constexpr std::string_view kChangedFiles = "changed_files";
constexpr std::string_view kMergeCommit = "merge_commit";
constexpr std::string_view kMergeBranchGood = "merge_branch_good";
constexpr std::string_view kMergeBranchBad = "merge_branch_bad";
constexpr std::string_view kMergeBroughtIn = "merge_brought_in";
constexpr std::string_view kMergeSubject = "merge_subject";
constexpr std::string_view kChanges = "changes";
constexpr std::string_view kCulpritIsFirst = "culprit_is_first";
constexpr std::string_view kDecomposition = "decomposition";

constexpr std::string_view kCulpritIsFirstNames[] = {"yes", "ends", "no", "merge"};

void WriteMerge(const BisectMergeDetails& merge, DetailMap* out) {
  PutText(out, kMergeCommit, merge.commit);
  PutText(out, kMergeBranchGood, merge.branch_good);
  PutText(out, kMergeBranchBad, merge.branch_bad);
  PutCount(out, kMergeBroughtIn, merge.brought_in);
  PutText(out, kMergeSubject, merge.subject);
}

BisectMergeDetails ReadMerge(const DetailMap& in) {
  BisectMergeDetails merge;
  merge.commit = TextIn(in, kMergeCommit);
  merge.branch_good = TextIn(in, kMergeBranchGood);
  merge.branch_bad = TextIn(in, kMergeBranchBad);
  merge.brought_in = CountIn(in, kMergeBroughtIn);
  merge.subject = TextIn(in, kMergeSubject);
  return merge;
}

}  // namespace

std::string_view CulpritIsFirstName(CulpritIsFirst value) {
  return NameIn(kCulpritIsFirstNames, value);
}

void BisectDetails::WriteTo(DetailMap* out) const {
  PutText(out, kBisectRun, bisect_run);
  PutText(out, kGoodCommit, good_commit);
  PutText(out, kBadCommit, bad_commit);
  PutCount(out, kRangeCommits, range_commits);
  PutCount(out, kLog2MinimumBuilds, log2_minimum_builds);
  PutCount(out, kBuildsUsed, builds_used);
  PutCount(out, kPairsUsed, pairs_used);
  if (probability) (*out)[std::string(kProbability)] = fmt::format("{:.4f}", *probability);
  PutList(out, kCredibleSet, credible_set);
  if (largest_step_drift) {
    (*out)[std::string(kLargestStepDrift)] = fmt::format("{:+.4f}", *largest_step_drift);
  }
  PutText(out, kCulpritCommit, culprit_commit);
  PutText(out, kFirstCommit, first_commit);
  PutText(out, kCulpritSubject, culprit_subject);
  PutList(out, kChangedFiles, changed_files);
  WriteMerge(merge, out);
  PutList(out, kChanges, changes);
  PutEnum(kCulpritIsFirstNames, out, kCulpritIsFirst, culprit_is_first);
  PutText(out, kDecomposition, decomposition);
}

BisectDetails BisectDetails::FromDetails(const DetailMap& in) {
  BisectDetails d;
  d.bisect_run = TextIn(in, kBisectRun);
  d.good_commit = TextIn(in, kGoodCommit);
  d.bad_commit = TextIn(in, kBadCommit);
  d.range_commits = CountIn(in, kRangeCommits);
  d.log2_minimum_builds = CountIn(in, kLog2MinimumBuilds);
  d.builds_used = CountIn(in, kBuildsUsed);
  d.pairs_used = CountIn(in, kPairsUsed);
  d.probability = NumberIn(in, kProbability);
  d.credible_set = ListIn(in, kCredibleSet);
  d.largest_step_drift = NumberIn(in, kLargestStepDrift);
  d.culprit_commit = TextIn(in, kCulpritCommit);
  d.first_commit = TextIn(in, kFirstCommit);
  d.culprit_subject = TextIn(in, kCulpritSubject);
  d.changed_files = ListIn(in, kChangedFiles);
  d.merge = ReadMerge(in);
  d.changes = ListIn(in, kChanges);
  d.culprit_is_first = EnumIn<CulpritIsFirst>(kCulpritIsFirstNames, in, kCulpritIsFirst);
  d.decomposition = TextIn(in, kDecomposition);
  return d;
}

}  // namespace culprit
