#include "records/report_payload.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "records/bisect_details.h"
#include "records/bisect_payload.h"
#include "records/bisect_step_details.h"
#include "records/comparison_details.h"
#include "records/isolation_details.h"
#include "records/payload_fields.h"

namespace culprit {
namespace {

using nlohmann::json;

// The record's payload object, or an empty object when it has none (records/payload_fields.h).
json Payload(const Record& record) {
  return PayloadObject(record.details_json).value_or(json::object());
}

// A count read from a detail (an index, "range_commits"); none for a value too large to be
// an index of a range.
std::optional<int> Integer(std::optional<int> n) {
  if (!n || *n > 100000000) return std::nullopt;
  return n;
}

std::optional<int> IndexOf(const std::vector<std::string>& commits, std::string_view commit) {
  if (commit.empty()) return std::nullopt;
  for (size_t i = 0; i < commits.size(); ++i) {
    if (commits[i] == commit || (commit.size() >= 7 && commits[i].rfind(commit, 0) == 0)) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

/// The simulated figures as `isolate` prints them (probes/isolate_command.cc): the heading,
/// then per condition the median count per run, the samples' range and the ratio to the
/// baseline's median. `conditions` names them.
SimulatedFacts SimulatedFactsOf(const IsolationSimulatedPayload& s,
                                const std::vector<IsolationConditionPayload>& conditions,
                                const std::string& query) {
  SimulatedFacts facts;
  facts.heading = fmt::format(
      "{} per run of {}, {}: per sample, a fresh harness process [set-up, {} settling, {} runs] "
      "minus one [set-up, {} settling], divided by {}; secondary, never a verdict",
      s.metric, query, s.source.empty() ? std::string("simulated (cachegrind)") : s.source,
      s.settle_runs, s.runs, s.settle_runs, s.runs);
  for (size_t c = 0; c < s.values.size(); ++c) {
    SimulatedRow row;
    row.condition = c < conditions.size() ? conditions[c].name : fmt::format("condition {}", c);
    row.median = row.samples = "-";
    row.vs_baseline = c == 0 ? "baseline" : "-";
    if (std::optional<double> median = s.MedianOf(c)) {
      const std::vector<double>& v = s.values[c];
      row.median = fmt::format("{:.0f}", *median);
      row.samples =
          fmt::format("{} ({:.0f}..{:.0f})", v.size(), *std::min_element(v.begin(), v.end()),
                      *std::max_element(v.begin(), v.end()));
    }
    if (std::optional<double> ratio = c > 0 ? s.RatioOf(c) : std::nullopt) {
      row.vs_baseline = fmt::format("x{:.3f}", *ratio);
    }
    facts.rows.push_back(std::move(row));
  }
  facts.failure = s.failure;
  return facts;
}

}  // namespace

IsolateFacts ReadIsolateFacts(const Record& record) {
  IsolateFacts facts;
  const IsolationDetails details = IsolationDetails::FromRecord(record);
  if (std::optional<IsolationPayload> payload = ReadIsolationPayload(record)) {
    if (payload->reversibility) facts.reversibility = ReversibilityName(*payload->reversibility);
    facts.reversibility_sentence = payload->reversibility_sentence;
    for (size_t i = 0; i < payload->conditions.size(); ++i) {
      const IsolationConditionPayload& p = payload->conditions[i];
      ConditionFacts c;
      c.name = p.name;
      c.hold = p.hold;
      c.release = p.release;
      c.role = payload->RoleOf(i);
      c.baseline = c.role == ConditionRole::kBaseline;
      c.verdict = p.verdict;
      if (p.ratio && p.low && p.high) c.estimate = RatioInterval{*p.ratio, *p.low, *p.high};
      c.bytes = p.HeldBytes();
      facts.conditions.push_back(std::move(c));
    }
    if (payload->simulated) {
      facts.simulated = SimulatedFactsOf(*payload->simulated, payload->conditions, record.query);
    }
  } else {
    // No payload: the arms still name the conditions, and a detail the suspect.
    const std::string suspect = details.suspect.value_or("");
    for (const Arm& arm : record.arms) {
      ConditionFacts c;
      c.name = arm.condition.empty() ? arm.name : arm.condition;
      c.baseline = facts.conditions.empty();
      c.role = c.baseline                              ? ConditionRole::kBaseline
               : !suspect.empty() && c.name == suspect ? ConditionRole::kSuspect
                                                       : ConditionRole::kOther;
      facts.conditions.push_back(std::move(c));
    }
  }
  if (facts.reversibility.empty() && details.reversibility) {
    facts.reversibility = ReversibilityName(*details.reversibility);
  }
  return facts;
}

AuditFacts ReadAuditFacts(const Record& record) {
  AuditFacts facts;
  std::optional<AuditPayload> payload = ReadAuditPayload(record);
  if (!payload) return facts;
  for (const AuditFactorPayload& p : payload->factors) {
    FactorFacts f;
    f.name = p.name;
    if (p.ratio && p.low && p.high) f.estimate = RatioInterval{*p.ratio, *p.low, *p.high};
    f.verdict = p.verdict;
    f.cross_sitting = p.cross_sitting;
    f.record = p.record;
    facts.factors.push_back(std::move(f));
  }
  facts.published = payload->published;
  facts.today = payload->today;
  if (payload->remainder_ratio && payload->remainder_low && payload->remainder_high) {
    facts.remainder =
        RatioInterval{*payload->remainder_ratio, *payload->remainder_low, *payload->remainder_high};
  }
  facts.conclusion = payload->conclusion;
  return facts;
}

BisectFacts ReadBisectFacts(const Record& record) {
  BisectFacts facts;
  const BisectDetails details = BisectDetails::FromRecord(record);
  const BisectPayload payload = ReadBisectPayload(record).value_or(BisectPayload{});
  facts.commits = payload.commits;
  facts.posterior = payload.posterior;
  if (auto n = Integer(details.range_commits)) facts.range_commits = *n;
  if (facts.range_commits == 0 && !facts.commits.empty()) {
    facts.range_commits = static_cast<int>(facts.commits.size()) - 1;
  }
  std::set<int> unbuildable(payload.unbuildable.begin(), payload.unbuildable.end());
  const std::string prefix = "unbuildable or unmeasurable: ";
  for (const std::string& note : record.notes) {
    if (note.rfind(prefix, 0) != 0) continue;
    std::string commit = note.substr(prefix.size());
    facts.unbuildable_commits.push_back(commit);
    if (auto i = IndexOf(facts.commits, commit)) unbuildable.insert(*i);
  }
  facts.unbuildable.assign(unbuildable.begin(), unbuildable.end());
  facts.culprit_index = IndexOf(facts.commits, details.culprit_commit.value_or(""));
  facts.first_index = IndexOf(facts.commits, details.first_commit.value_or(""));
  if (!facts.culprit_index) facts.culprit_index = payload.culprit_index;
  facts.culprit_commit = details.culprit_commit.value_or("");
  facts.merge_commit = details.merge.commit.value_or("");
  return facts;
}

std::optional<int> StepIndex(const Record& step, int bad_index) {
  const BisectStepDetails details = BisectStepDetails::FromRecord(step);
  if (auto i = Integer(details.candidate_index)) return i;
  if (details.step_kind == BisectStepKind::kConfirm && bad_index > 0) return bad_index;
  return std::nullopt;
}

std::string StepKindText(const Record& step) {
  const std::optional<BisectStepKind> kind = BisectStepDetails::FromRecord(step).step_kind;
  return kind ? std::string(BisectStepKindName(*kind)) : std::string();
}

std::string StepCommit(const Record& step) {
  std::string commit = BisectStepDetails::FromRecord(step).candidate_commit.value_or("");
  if (commit.empty() && step.arms.size() == 2) commit = step.arms[1].commit;
  return commit;
}

CalibrationSeries ReadCalibrations(const Record& record) {
  CalibrationSeries series;
  series.labels.push_back("start");
  series.values_ms.push_back(record.start.calibration_ms);
  std::vector<double> checkpoints;
  json doc = Payload(record);
  if (doc.contains("calibration") && doc["calibration"].is_object() &&
      doc["calibration"].contains("checkpoints_ms") &&
      doc["calibration"]["checkpoints_ms"].is_array()) {
    for (const json& v : doc["calibration"]["checkpoints_ms"]) {
      if (v.is_number()) checkpoints.push_back(v.get<double>());
    }
  } else if (std::optional<std::vector<double>> list =
                 ComparisonDetails::FromRecord(record).checkpoint_calibrations_ms) {
    checkpoints = *list;
  }
  for (size_t i = 0; i < checkpoints.size(); ++i) {
    series.labels.push_back("look " + std::to_string(i + 1));
    series.values_ms.push_back(checkpoints[i]);
  }
  series.labels.push_back("end");
  series.values_ms.push_back(record.end.calibration_ms);
  return series;
}

RecordIndex::RecordIndex(std::span<const Record> records) : records_(records) {}

const Record* RecordIndex::Find(std::string_view id) const {
  for (const Record& r : records_) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::vector<const Record*> RecordIndex::StepsOf(const Record& bisect) const {
  std::set<std::string_view> linked(bisect.links.begin(), bisect.links.end());
  const std::string run = BisectDetails::FromRecord(bisect).bisect_run.value_or("");
  std::vector<const Record*> out;
  for (const Record& r : records_) {
    if (r.kind != RecordKind::kBisectStep) continue;
    if (linked.count(r.id) ||
        (!run.empty() && BisectStepDetails::FromRecord(r).bisect_run == run)) {
      out.push_back(&r);
    }
  }
  return out;
}

std::vector<RecordGroup> GroupRecords(std::span<const Record> records) {
  std::map<std::string_view, size_t> position;
  for (size_t i = 0; i < records.size(); ++i) position.emplace(records[i].id, i);
  std::vector<bool> claimed(records.size(), false);
  std::vector<RecordGroup> groups;
  auto claim_tree = [&](size_t root_index, std::string_view label) {
    RecordGroup group;
    const Record& root = records[root_index];
    group.root = &root;
    group.title =
        std::string(label) + (root.query.empty() ? "" : " " + root.query) + " · " + root.id;
    group.anchor = "group-" + root.id;
    std::vector<size_t> found = {root_index};
    claimed[root_index] = true;
    for (size_t k = 0; k < found.size(); ++k) {
      for (const std::string& link : records[found[k]].links) {
        auto it = position.find(link);
        if (it == position.end() || claimed[it->second]) continue;
        claimed[it->second] = true;
        found.push_back(it->second);
      }
    }
    std::sort(found.begin() + 1, found.end());
    for (size_t i : found) group.members.push_back(&records[i]);
    groups.push_back(std::move(group));
  };
  for (RecordKind kind : {RecordKind::kInvestigation, RecordKind::kAudit}) {
    for (size_t i = 0; i < records.size(); ++i) {
      if (!claimed[i] && records[i].kind == kind) claim_tree(i, RecordKindName(kind));
    }
  }
  std::map<std::string, RecordGroup> by_query;
  for (size_t i = 0; i < records.size(); ++i) {
    if (claimed[i]) continue;
    std::string query = records[i].query.empty() ? "(no query)" : records[i].query;
    RecordGroup& group = by_query[query];
    group.title = "query " + query;
    group.anchor = "query-" + query;
    group.members.push_back(&records[i]);
  }
  for (auto& [query, group] : by_query) groups.push_back(std::move(group));
  return groups;
}

}  // namespace culprit

#include "records/report.h"

namespace culprit {

std::string RecordReporter::RenderWhole(std::span<const Record> records) {
  std::string out;
  for (const Record& r : records) out += RenderOne(r);
  return out;
}

std::vector<Record> LinkedRecords(const Record& root, std::span<const Record> archive) {
  std::map<std::string_view, size_t> position;
  for (size_t i = 0; i < archive.size(); ++i) position.emplace(archive[i].id, i);
  std::set<size_t> found;
  std::set<std::string> seen = {root.id};
  std::vector<const Record*> frontier = {&root};
  while (!frontier.empty()) {
    const Record* r = frontier.back();
    frontier.pop_back();
    for (const std::string& link : r->links) {
      if (!seen.insert(link).second) continue;
      auto it = position.find(link);
      if (it == position.end()) continue;
      found.insert(it->second);
      frontier.push_back(&archive[it->second]);
    }
  }
  std::vector<Record> out = {root};
  for (size_t i : found) out.push_back(archive[i]);
  return out;
}

}  // namespace culprit
