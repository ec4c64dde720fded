#include "records/bisect_payload.h"

#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "records/payload_fields.h"

namespace culprit {
namespace {

using nlohmann::json;

json ChangeToJson(const BisectChangePayload& c) {
  return {{"commit", c.commit},
          // "range": the way the endpoints moved; "other": the other way (an improvement
          // before a regression, or a regression partly undone).
          {"direction", ChangeDirectionName(c.direction)},
          {"first_commit", c.first_commit},
          {"parent_commit", c.parent_commit},
          {"ratio", OptionalNumber(c.ratio)},
          {"low", OptionalNumber(c.low)},
          {"high", OptionalNumber(c.high)},
          {"confidence", c.confidence},
          {"pairs", c.pairs},
          {"probability", c.probability}};
}

json SegmentToJson(const BisectSegmentPayload& s) {
  const BisectFurtherMovePayload& f = s.further_move;
  json j = {{"good_commit", s.good_commit},
            {"bad_commit", s.bad_commit},
            {"lo", s.lo},
            {"hi", s.hi},
            {"check", s.check},
            {"ratio", s.ratio},
            {"low", s.low},
            {"high", s.high},
            {"confidence", s.confidence},
            {"pairs", s.pairs},
            {"check_record", s.check_record},
            {"outcome", s.outcome},
            {"reason", s.reason},
            {"tie_sought", s.tie_sought},
            {"tie_pairs_needed", s.tie_pairs_needed},
            {"tie_budget", s.tie_budget},
            // The hunt for a further move against its alternative A: "ruled_out" says every
            // move of ×A or more was (never first-ness: that is the tie's).
            {"further_move",
             {{"alternative", f.alternative},
              {"ruled_out", f.ruled_out},
              {"pairs_to_rule_out", f.pairs_to_rule_out},
              {"small_move_suspected", f.small_move_suspected}}}};
  // Only a part that was re-checked has them: a payload without one is as it always was.
  if (!s.recheck.empty()) {
    j["recheck"] = s.recheck;
    j["recheck_record"] = s.recheck_record;
  }
  return j;
}

BisectChangePayload ChangeFromJson(const json& j) {
  BisectChangePayload c;
  c.commit = StringAt(j, "commit");
  c.direction =
      StringAt(j, "direction") == "other" ? ChangeDirection::kOther : ChangeDirection::kRange;
  c.first_commit = StringAt(j, "first_commit");
  c.parent_commit = StringAt(j, "parent_commit");
  c.ratio = PositiveAt(j, "ratio");
  c.low = PositiveAt(j, "low");
  c.high = PositiveAt(j, "high");
  c.confidence = NumberAt(j, "confidence").value_or(0);
  c.pairs = IntAt(j, "pairs");
  c.probability = NumberAt(j, "probability").value_or(0);
  return c;
}

BisectSegmentPayload SegmentFromJson(const json& j) {
  BisectSegmentPayload s;
  s.good_commit = StringAt(j, "good_commit");
  s.bad_commit = StringAt(j, "bad_commit");
  s.lo = IntAt(j, "lo");
  s.hi = IntAt(j, "hi");
  s.check = StringAt(j, "check");
  s.ratio = NumberAt(j, "ratio").value_or(1);
  s.low = NumberAt(j, "low").value_or(1);
  s.high = NumberAt(j, "high").value_or(1);
  s.confidence = NumberAt(j, "confidence").value_or(0);
  s.pairs = IntAt(j, "pairs");
  s.check_record = StringAt(j, "check_record");
  s.outcome = StringAt(j, "outcome");
  s.reason = StringAt(j, "reason");
  s.tie_sought = BoolAt(j, "tie_sought");
  s.tie_pairs_needed = IntAt(j, "tie_pairs_needed");
  s.tie_budget = IntAt(j, "tie_budget");
  const json f = ObjectAt(j, "further_move");
  s.further_move.alternative = NumberAt(f, "alternative").value_or(0);
  s.further_move.ruled_out = BoolAt(f, "ruled_out");
  s.further_move.pairs_to_rule_out = IntAt(f, "pairs_to_rule_out");
  s.further_move.small_move_suspected = BoolAt(f, "small_move_suspected");
  // Absent in records archived before a part's move was re-checked: none was.
  s.recheck = StringAt(j, "recheck");
  s.recheck_record = StringAt(j, "recheck_record");
  return s;
}

// [log, low, high] as written; a triple that is not three numbers reads as zeros.
void ReadTriple(const json& o, const char* key, double& log, double& low, double& high) {
  const json a = ArrayAt(o, key);
  if (a.size() != 3 || !a[0].is_number() || !a[1].is_number() || !a[2].is_number()) return;
  log = a[0].get<double>();
  low = a[1].get<double>();
  high = a[2].get<double>();
}

}  // namespace

std::string_view ChangeDirectionName(ChangeDirection direction) {
  return direction == ChangeDirection::kOther ? "other" : "range";
}

std::string BisectPayloadToJson(const BisectPayload& p) {
  json doc = {{"version", p.version},
              {"commits", p.commits},
              {"posterior", p.posterior},
              {"unbuildable", p.unbuildable}};
  // The changes, parts and decomposition exist only when a change was verified: an
  // INCONCLUSIVE bisect's payload has none of the three keys, as before the version.
  if (p.decomposition) {
    doc["changes"] = json::array();
    for (const BisectChangePayload& c : p.changes) doc["changes"].push_back(ChangeToJson(c));
    doc["segments"] = json::array();
    for (const BisectSegmentPayload& s : p.segments) doc["segments"].push_back(SegmentToJson(s));
    const BisectDecompositionPayload& d = *p.decomposition;
    doc["decomposition"] = {{"total", {d.total_log, d.total_low, d.total_high}},
                            {"remainder", {d.remainder_log, d.remainder_low, d.remainder_high}},
                            {"remainder_class", d.remainder_class}};
  }
  if (p.culprit_index) doc["culprit_index"] = *p.culprit_index;
  // Commit subjects and reasons may carry a Latin-1 byte: replaced, not thrown on.
  return ToJsonText(doc);
}

std::optional<BisectPayload> BisectPayloadFromJson(std::string_view text) {
  std::optional<json> doc = PayloadObject(text);
  if (!doc) return std::nullopt;
  BisectPayload p;
  // Written before the payload had a version: the same keys, version 1.
  p.version = doc->contains("version") ? IntAt(*doc, "version") : 1;
  if (p.version != kBisectPayloadVersion) return std::nullopt;
  p.commits = StringsAt(*doc, "commits");
  // A posterior entry that is not a number keeps its place (the index is the commit's).
  for (const json& v : ArrayAt(*doc, "posterior")) {
    p.posterior.push_back(v.is_number() ? v.get<double>() : 0);
  }
  for (const json& v : ArrayAt(*doc, "unbuildable")) {
    if (v.is_number_integer()) p.unbuildable.push_back(v.get<int>());
  }
  for (const json& c : ArrayAt(*doc, "changes")) {
    if (c.is_object()) p.changes.push_back(ChangeFromJson(c));
  }
  for (const json& s : ArrayAt(*doc, "segments")) {
    if (s.is_object()) p.segments.push_back(SegmentFromJson(s));
  }
  if (auto d = doc->find("decomposition"); d != doc->end() && d->is_object()) {
    BisectDecompositionPayload dec;
    ReadTriple(*d, "total", dec.total_log, dec.total_low, dec.total_high);
    ReadTriple(*d, "remainder", dec.remainder_log, dec.remainder_low, dec.remainder_high);
    dec.remainder_class = StringAt(*d, "remainder_class");
    p.decomposition = dec;
  }
  if (std::optional<double> i = NumberAt(*doc, "culprit_index"); i && *i >= 0) {
    p.culprit_index = static_cast<int>(*i);
  }
  return p;
}

std::optional<BisectPayload> ReadBisectPayload(const Record& record) {
  return BisectPayloadFromJson(record.details_json);
}

}  // namespace culprit
