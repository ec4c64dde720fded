#include "investigate/explain_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/strings.h"
#include "records/explain_details.h"
#include "records/placement_details.h"

namespace culprit {

FunctionProfile InRepository(const FunctionProfile& profile,
                             const std::set<std::string>& repository_files) {
  FunctionProfile out;
  out.cache_sim = profile.cache_sim;
  for (const auto& [key, cost] : profile.functions) {
    std::string path = RepositoryPath(cost.file, repository_files);
    FunctionProfile one;
    one.cache_sim = profile.cache_sim;
    FunctionCost renamed = cost;
    if (!path.empty()) renamed.file = path;
    one.functions[{renamed.file, renamed.function}] = std::move(renamed);
    MergeFunctionProfile(out, one);
  }
  return out;
}

FunctionPlace PlaceOf(const std::string& file, bool in_repository,
                      const std::vector<std::string>& changed_files, const CodePath& path) {
  if (!in_repository) return FunctionPlace::kElsewhere;
  if (std::find(changed_files.begin(), changed_files.end(), file) != changed_files.end()) {
    return FunctionPlace::kTouched;
  }
  if (!path.known()) return FunctionPlace::kOnPath;  // It ran: the profile is the path.
  return path.Contains(file) ? FunctionPlace::kOnPath : FunctionPlace::kElsewhere;
}

ExplainFacts MakeExplainFacts(const ExplainInputs& in) {
  ExplainFacts f;
  f.query = in.query;
  f.metric = in.metric;
  f.parent = in.parent.commit.id;
  f.change = in.change.commit.id;
  f.change_subject = in.change.commit.subject;
  f.cache_sim = in.cache_sim;
  f.valgrind = in.valgrind;
  f.parent_instructions = in.parent.profile.TotalInstructions();
  f.change_instructions = in.change.profile.TotalInstructions();
  f.parent_seconds = in.parent.wall_ms / 1000;
  f.change_seconds = in.change.wall_ms / 1000;
  f.changed_files = in.changed_files;
  f.code_path = in.code_path.known()
                    ? in.code_path.Describe()
                    : "the repository files either run executed (from the two profiles)";
  std::set<std::string> files = in.parent.repository_files;
  files.insert(in.change.repository_files.begin(), in.change.repository_files.end());
  const FunctionProfile parent = InRepository(in.parent.profile, in.parent.repository_files);
  const FunctionProfile change = InRepository(in.change.profile, in.change.repository_files);
  for (const FunctionDelta& d : DiffFunctionProfiles(parent, change)) {
    ExplainFunctionFacts fn;
    fn.function = d.function;
    fn.file = d.file;
    fn.first_line = d.first_line;
    fn.hottest_line = d.hottest_line;
    fn.parent_instructions = d.parent_instructions;
    fn.change_instructions = d.change_instructions;
    if (in.cache_sim) {
      fn.parent_d1_misses = d.parent_d1_misses;
      fn.change_d1_misses = d.change_d1_misses;
      fn.parent_ll_misses = d.parent_ll_misses;
      fn.change_ll_misses = d.change_ll_misses;
    }
    fn.place = PlaceOf(d.file, files.contains(d.file), in.changed_files, in.code_path);
    f.functions.push_back(std::move(fn));
  }
  return f;
}

Record MakeExplainRecord(const ExplainInputs& in, const ExplainFacts& facts,
                         const std::string& config_digest) {
  Record r;
  r.kind = RecordKind::kExplain;
  r.query = in.query;
  r.unit = "instructions";
  r.band = 0;
  r.hypothesis = fmt::format("where the instructions of {} moved between {} and {}", in.query,
                             ShortCommit(facts.parent), ShortCommit(facts.change));
  const ExplainSide* sides[] = {&in.parent, &in.change};
  const char* names[] = {"parent", "change"};
  for (int i = 0; i < 2; ++i) {
    const ExplainSide& side = *sides[i];
    Arm arm;
    arm.name = names[i];
    arm.label = side.commit.short_id;
    arm.commit = side.commit.id;
    arm.tree = side.commit.tree_id;
    arm.revision = side.commit.id;
    arm.command = side.command;
    arm.median = static_cast<double>(side.profile.TotalInstructions());
    arm.ok_samples = 1;
    r.arms.push_back(std::move(arm));
    Sample s;
    s.sequence = i;
    s.arm = i;
    s.value = static_cast<double>(side.profile.TotalInstructions());
    s.wall_ms = side.wall_ms;
    r.samples.push_back(s);
  }
  r.culprit_version = CULPRIT_VERSION;
  r.config_digest = config_digest;
  ExplainDetails details;
  details.parent = facts.parent;
  details.change = facts.change;
  details.metric = "instructions";
  details.query_metric = in.metric;
  details.cache_sim = in.cache_sim;
  details.valgrind = in.valgrind;
  details.runs_per_side = 1;
  details.changed_files = in.changed_files;
  details.code_path = facts.code_path;
  details.metric_source = "cachegrind";
  details.WriteTo(&r.details);
  PlacementDetails placement;
  placement.aslr = false;
  placement.WriteTo(&r.details);
  r.notes.push_back(
      "one run per side: instruction counts under cachegrind repeat within 0.1% from run to "
      "run with ASLR off (docs/usage.md)");
  r.details_json = ExplainFactsToJson(facts);
  return r;
}

}  // namespace culprit
