#include "records/isolation_payload.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "base/median.h"
#include "records/isolation_details.h"
#include "records/payload_fields.h"

namespace culprit {
namespace {

using json = nlohmann::json;

/// A finite number, else JSON null (NaN and infinities are not JSON).
json Finite(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json OptionalFinite(const std::optional<double>& value) {
  return value ? Finite(*value) : json(nullptr);
}

std::vector<int> IntsAt(const json& o, const char* key) {
  std::vector<int> out;
  for (const json& item : ArrayAt(o, key)) {
    if (item.is_number()) out.push_back(static_cast<int>(item.get<double>()));
  }
  return out;
}

json ConditionToJson(const IsolationConditionPayload& c) {
  json bytes = json::object();
  for (const auto& [name, size] : c.bytes) bytes[name] = size;
  json item = {{"name", c.name},
               {"hold", c.hold},
               {"release", c.release},
               {"bytes", bytes},
               {"baseline", c.baseline}};
  if (c.verdict) {
    item["verdict"] = std::string(VerdictName(*c.verdict));
    item["explanation"] = c.explanation;
  }
  if (c.ratio) {
    item["ratio"] = Finite(*c.ratio);
    item["low"] = OptionalFinite(c.low);
    item["high"] = OptionalFinite(c.high);
    item["confidence"] = Finite(c.confidence);
    item["nominal_confidence"] = Finite(c.nominal_confidence);
    item["rounds"] = c.rounds;
  }
  return item;
}

IsolationConditionPayload ConditionFromJson(const json& item) {
  IsolationConditionPayload c;
  c.name = StringAt(item, "name");
  c.hold = StringsAt(item, "hold");
  c.release = StringsAt(item, "release");
  c.baseline = BoolAt(item, "baseline");
  if (auto it = item.find("bytes"); it != item.end() && it->is_object()) {
    for (const auto& [name, size] : it->items()) {
      if (size.is_number_unsigned() || size.is_number_integer()) {
        c.bytes[name] = size.get<uint64_t>();
      }
    }
  }
  c.verdict = ParseVerdict(StringAt(item, "verdict"));
  c.explanation = StringAt(item, "explanation");
  c.ratio = PositiveAt(item, "ratio");
  c.low = PositiveAt(item, "low");
  c.high = PositiveAt(item, "high");
  c.confidence = NumberAt(item, "confidence").value_or(0);
  c.nominal_confidence = NumberAt(item, "nominal_confidence").value_or(0);
  c.rounds = IntAt(item, "rounds");
  return c;
}

json SimulatedToJson(const IsolationSimulatedPayload& s) {
  json values = json::array();
  for (const std::vector<double>& condition : s.values) {
    json row = json::array();
    for (double v : condition) row.push_back(Finite(v));
    values.push_back(std::move(row));
  }
  return {{"metric", s.metric},  {"source", s.source},           {"samples", s.samples},
          {"runs", s.runs},      {"settle_runs", s.settle_runs}, {"values", values},
          {"failure", s.failure}};
}

IsolationSimulatedPayload SimulatedFromJson(const json& o) {
  IsolationSimulatedPayload s;
  s.metric = StringAt(o, "metric");
  s.source = StringAt(o, "source");
  s.samples = IntAt(o, "samples");
  s.runs = IntAt(o, "runs");
  s.settle_runs = IntAt(o, "settle_runs");
  for (const json& row : ArrayAt(o, "values")) {
    std::vector<double> condition;
    if (row.is_array()) {
      for (const json& v : row) {
        if (v.is_number()) condition.push_back(v.get<double>());
      }
    }
    s.values.push_back(std::move(condition));
  }
  s.failure = StringAt(o, "failure");
  return s;
}

}  // namespace

std::optional<double> IsolationSimulatedPayload::MedianOf(size_t c) const {
  if (c >= values.size() || values[c].empty()) return std::nullopt;
  return Median(values[c]);
}

std::optional<double> IsolationSimulatedPayload::RatioOf(size_t c) const {
  std::optional<double> base = MedianOf(0), here = MedianOf(c);
  if (!base || !here || !(*base > 0) || !(*here > 0)) return std::nullopt;
  return *here / *base;
}

std::string_view ConditionRoleName(ConditionRole role) {
  switch (role) {
    case ConditionRole::kBaseline:
      return "baseline";
    case ConditionRole::kSuspect:
      return "suspect";
    case ConditionRole::kReleased:
      return "released";
    case ConditionRole::kControl:
      return "control";
    case ConditionRole::kOther:
      break;
  }
  return "";
}

std::optional<uint64_t> IsolationConditionPayload::HeldBytes() const {
  if (bytes.empty()) return std::nullopt;
  uint64_t sum = 0;
  for (const auto& [name, size] : bytes) sum += size;
  return sum;
}

ConditionRole IsolationPayload::RoleOf(size_t condition) const {
  const int index = static_cast<int>(condition);
  if (condition == 0 || (condition < conditions.size() && conditions[condition].baseline)) {
    return ConditionRole::kBaseline;
  }
  if (suspect > 0 && index == suspect) return ConditionRole::kSuspect;
  if (condition >= conditions.size()) return ConditionRole::kOther;
  const IsolationConditionPayload& c = conditions[condition];
  if ((reversibility_condition > 0 && index == reversibility_condition) || !c.release.empty()) {
    return ConditionRole::kReleased;
  }
  return c.hold.empty() ? ConditionRole::kOther : ConditionRole::kControl;
}

std::string IsolationPayloadToJson(const IsolationPayload& p) {
  json conditions = json::array();
  for (const IsolationConditionPayload& c : p.conditions) conditions.push_back(ConditionToJson(c));
  json doc = {
      {"version", p.version},
      // The seed as text: a 64-bit seed does not survive a reader that takes numbers as doubles.
      {"design",
       {{"method", kIsolationDesign},
        {"seed", std::to_string(p.seed)},
        {"conditions", p.conditions.size()},
        {"orders", p.orders}}},
      {"looks", p.looks},
      {"correction",
       {{"method", kBonferroniCorrection},
        {"comparisons", p.comparisons},
        {"condition_alpha", Finite(p.condition_alpha)}}},
      {"conditions", conditions},
      {"suspect", p.suspect},
      {"reversibility",
       {{"verdict", p.reversibility ? ReversibilityName(*p.reversibility) : ""},
        {"condition", p.reversibility_condition},
        {"sentence", p.reversibility_sentence}}},
      {"calibration",
       {{"start_ms", OptionalFinite(p.calibration_start_ms)},
        {"end_ms", OptionalFinite(p.calibration_end_ms)},
        {"checkpoints_ms", p.checkpoint_calibrations_ms}}},
      {"partial", p.partial},
      {"conclusion", p.conclusion},
  };
  if (p.simulated) doc["simulated"] = SimulatedToJson(*p.simulated);
  // A plan or condition name may carry a Latin-1 byte: replaced, not thrown.
  return ToJsonText(doc);
}

std::optional<IsolationPayload> ReadIsolationPayload(const Record& record) {
  std::optional<json> parsed = PayloadObject(record.details_json);
  if (!parsed) return std::nullopt;
  const json& doc = *parsed;
  auto conditions = doc.find("conditions");
  if (conditions == doc.end() || !conditions->is_array()) return std::nullopt;
  IsolationPayload p;
  // Written before the payload had a version: the same keys, version 1.
  p.version = doc.contains("version") ? IntAt(doc, "version") : 1;
  if (p.version != kIsolationPayloadVersion) return std::nullopt;
  const json design = ObjectAt(doc, "design");
  const std::string seed = StringAt(design, "seed");
  if (!seed.empty()) p.seed = std::strtoull(seed.c_str(), nullptr, 10);
  for (const json& order : ArrayAt(design, "orders")) {
    std::vector<int> o;
    if (order.is_array()) {
      for (const json& i : order) {
        if (i.is_number()) o.push_back(static_cast<int>(i.get<double>()));
      }
    }
    p.orders.push_back(std::move(o));
  }
  p.looks = IntsAt(doc, "looks");
  const json correction = ObjectAt(doc, "correction");
  p.comparisons = IntAt(correction, "comparisons");
  p.condition_alpha = NumberAt(correction, "condition_alpha").value_or(0);
  for (const json& item : *conditions) {
    if (item.is_object()) p.conditions.push_back(ConditionFromJson(item));
  }
  p.suspect = IntAt(doc, "suspect");
  const json reversibility = ObjectAt(doc, "reversibility");
  p.reversibility = ParseReversibility(StringAt(reversibility, "verdict"));
  p.reversibility_condition = IntAt(reversibility, "condition");
  p.reversibility_sentence = StringAt(reversibility, "sentence");
  const json calibration = ObjectAt(doc, "calibration");
  p.calibration_start_ms = PositiveAt(calibration, "start_ms");
  p.calibration_end_ms = PositiveAt(calibration, "end_ms");
  for (const json& v : ArrayAt(calibration, "checkpoints_ms")) {
    if (v.is_number()) p.checkpoint_calibrations_ms.push_back(v.get<double>());
  }
  p.partial = BoolAt(doc, "partial");
  p.conclusion = StringAt(doc, "conclusion");
  if (auto it = doc.find("simulated"); it != doc.end() && it->is_object()) {
    p.simulated = SimulatedFromJson(*it);
  }
  return p;
}

}  // namespace culprit
