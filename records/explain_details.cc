#include "records/explain_details.h"

namespace culprit {
namespace {

// The keys, as explain records have spelled them from the start.
constexpr std::string_view kParent = "parent";
constexpr std::string_view kChange = "change";
constexpr std::string_view kExplainMetric = "metric";
constexpr std::string_view kExplainMetricSource = "metric_source";
constexpr std::string_view kQueryMetric = "query_metric";
constexpr std::string_view kCacheSim = "cache_sim";
constexpr std::string_view kValgrind = "valgrind";
constexpr std::string_view kRunsPerSide = "runs_per_side";
constexpr std::string_view kExplainChangedFiles = "changed_files";
constexpr std::string_view kCodePath = "code_path";

}  // namespace

void ExplainDetails::WriteTo(DetailMap* out) const {
  PutText(out, kParent, parent);
  PutText(out, kChange, change);
  PutText(out, kExplainMetric, metric);
  PutText(out, kExplainMetricSource, metric_source);
  PutText(out, kQueryMetric, query_metric);
  PutFlag(out, kCacheSim, cache_sim, "yes", "no");
  PutText(out, kValgrind, valgrind);
  PutCount(out, kRunsPerSide, runs_per_side);
  PutList(out, kExplainChangedFiles, changed_files);
  PutText(out, kCodePath, code_path);
}

ExplainDetails ExplainDetails::FromDetails(const DetailMap& in) {
  ExplainDetails d;
  d.parent = TextIn(in, kParent);
  d.change = TextIn(in, kChange);
  d.metric = TextIn(in, kExplainMetric);
  d.metric_source = TextIn(in, kExplainMetricSource);
  d.query_metric = TextIn(in, kQueryMetric);
  d.cache_sim = FlagIn(in, kCacheSim, "yes", "no");
  d.valgrind = TextIn(in, kValgrind);
  d.runs_per_side = CountIn(in, kRunsPerSide);
  d.changed_files = ListIn(in, kExplainChangedFiles);
  d.code_path = TextIn(in, kCodePath);
  return d;
}

}  // namespace culprit
