#include "records/audit_payload.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "records/payload_fields.h"

namespace culprit {
namespace {

using json = nlohmann::json;

/// The number at `key`, or at `key`.value.
std::optional<double> ValueAt(const json& o, const char* key) {
  if (std::optional<double> n = NumberAt(o, key)) return std::isfinite(*n) ? n : std::nullopt;
  auto it = o.find(key);
  if (it != o.end() && it->is_object()) {
    std::optional<double> n = NumberAt(*it, "value");
    if (n && std::isfinite(*n)) return n;
  }
  return std::nullopt;
}

void PutInterval(json& j, const std::optional<double>& ratio, const std::optional<double>& low,
                 const std::optional<double>& high) {
  if (!ratio || !low || !high) return;
  j["ratio"] = *ratio;
  j["low"] = *low;
  j["high"] = *high;
}

}  // namespace

std::string AuditPayloadToJson(const AuditPayload& p) {
  json doc;
  doc["version"] = p.version;
  if (p.published) doc["published"] = *p.published;
  if (p.today) doc["today"] = *p.today;
  doc["factors"] = json::array();
  for (const AuditFactorPayload& f : p.factors) {
    json j;
    j["name"] = f.name;
    PutInterval(j, f.ratio, f.low, f.high);
    j["verdict"] = f.verdict ? VerdictName(*f.verdict) : "";
    j["cross_sitting"] = f.cross_sitting;
    if (!f.record.empty()) j["record"] = f.record;
    if (!f.note.empty()) j["note"] = f.note;
    doc["factors"].push_back(std::move(j));
  }
  if (p.remainder_ratio && p.remainder_low && p.remainder_high) {
    json rem;
    PutInterval(rem, p.remainder_ratio, p.remainder_low, p.remainder_high);
    doc["remainder"] = rem;
  }
  doc["conclusion"] = p.conclusion;
  // Factor names, notes and the conclusion may carry a Latin-1 subject: replaced, not thrown.
  return ToJsonText(doc);
}

std::optional<AuditPayload> ReadAuditPayload(const Record& record) {
  std::optional<json> parsed = PayloadObject(record.details_json);
  if (!parsed) return std::nullopt;
  const json& doc = *parsed;
  AuditPayload p;
  // Written before the payload had a version: the same keys, version 1.
  p.version = doc.contains("version") ? IntAt(doc, "version") : 1;
  if (p.version != kAuditPayloadVersion) return std::nullopt;
  p.published = ValueAt(doc, "published");
  p.today = ValueAt(doc, "today");
  for (const json& item : ArrayAt(doc, "factors")) {
    if (!item.is_object()) continue;
    AuditFactorPayload f;
    f.name = StringAt(item, "name");
    f.ratio = PositiveAt(item, "ratio");
    f.low = PositiveAt(item, "low");
    f.high = PositiveAt(item, "high");
    f.verdict = ParseVerdict(StringAt(item, "verdict"));
    f.cross_sitting = BoolAt(item, "cross_sitting");
    f.record = StringAt(item, "record");
    f.note = StringAt(item, "note");
    p.factors.push_back(std::move(f));
  }
  if (auto rem = doc.find("remainder"); rem != doc.end() && rem->is_object()) {
    p.remainder_ratio = PositiveAt(*rem, "ratio");
    p.remainder_low = PositiveAt(*rem, "low");
    p.remainder_high = PositiveAt(*rem, "high");
  }
  p.conclusion = StringAt(doc, "conclusion");
  return p;
}

}  // namespace culprit
