#include "records/record.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "base/json_text.h"
#include "base/strings.h"
#include "records/host_tuning_json.h"

namespace culprit {
namespace {

using Json = nlohmann::ordered_json;

// ---- Writing ----------------------------------------------------------------

// Non-finite numbers have no JSON form; null reads back as "absent".
Json Number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json Optional(const std::optional<double>& value) { return value ? Number(*value) : Json(nullptr); }

Json OptionalInteger(const std::optional<long>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json StateToJson(const HostState& state) {
  return Json{{"time", state.time},
              {"calibration_ms", Optional(state.calibration_ms)},
              {"load1", Optional(state.load1)},
              {"cpu_mhz", Optional(state.cpu_mhz)},
              {"governor", state.governor},
              {"load5", Optional(state.load5)},
              {"load15", Optional(state.load15)},
              {"memory_available_kb", OptionalInteger(state.memory_available_kb)},
              {"swap_used_kb", OptionalInteger(state.swap_used_kb)},
              {"tuning", state.tuning ? HostTuningToJson(*state.tuning) : Json(nullptr)}};
}

Json HostIdentityToJson(const HostIdentity& host) {
  return Json{
      {"hostname", host.hostname},
      {"cpu_model", host.cpu_model},
      {"kernel", host.kernel},
      {"machine_id", host.machine_id.empty() ? Json(nullptr) : Json(host.machine_id)},
      {"logical_cores", host.logical_cores},
      {"memory_total_kb", host.memory_total_kb ? Json(*host.memory_total_kb) : Json(nullptr)}};
}

Json ArmToJson(const Arm& arm) {
  Json env = Json::object();
  for (const auto& [key, value] : arm.env) env[key] = value;
  return Json{{"name", arm.name},
              {"label", arm.label},
              {"commit", arm.commit},
              {"tree", arm.tree},
              {"revision", arm.revision},
              {"env", env},
              {"unset", arm.unset},
              {"effective_env", arm.effective_env},
              {"condition", arm.condition},
              {"command", arm.command},
              {"median", Number(arm.median)},
              {"ok_samples", arm.ok_samples},
              {"failed_samples", arm.failed_samples}};
}

Json SampleToJson(const Sample& sample) {
  Json out{{"sequence", sample.sequence}, {"arm", sample.arm},        {"pair", sample.pair},
           {"warmup", sample.warmup},     {"ok", sample.ok},          {"value", nullptr},
           {"failure", sample.failure},   {"dropped", sample.dropped}};
  if (sample.censored) {
    out["censored"] = true;
    out["value"] = Number(sample.value);  // a lower bound: the run took longer
  }
  if (sample.ok && std::isfinite(sample.value)) {
    out["value"] = sample.value;
  } else if (sample.ok) {
    // A NaN or infinite "measurement" is a failure of the metric, and written
    // as one: otherwise the file would hold an ok sample with no value.
    out["ok"] = false;
    out["failure"] = "the metric was not a finite number";
  }
  out["wall_ms"] = Number(sample.wall_ms);
  out["user_ms"] = Number(sample.user_ms);
  out["system_ms"] = Number(sample.system_ms);
  out["max_rss_kb"] = sample.max_rss_kb;
  out["minor_faults"] = OptionalInteger(sample.minor_faults);
  out["major_faults"] = OptionalInteger(sample.major_faults);
  out["voluntary_switches"] = OptionalInteger(sample.voluntary_switches);
  out["involuntary_switches"] = OptionalInteger(sample.involuntary_switches);
  return out;
}

Json ToJson(const Record& record) {
  Json out;
  out["schema"] = record.schema;
  out["id"] = record.id;
  out["kind"] = RecordKindName(record.kind);
  out["time"] = record.time;
  out["query"] = record.query;
  out["unit"] = record.unit;
  out["hypothesis"] = record.hypothesis;
  // "" for a kind that concludes nothing, as every record has written it.
  out["verdict"] = record.verdict ? VerdictName(*record.verdict) : "";
  out["verdict_detail"] = record.verdict_detail;
  out["interrupted"] = record.interrupted;
  if (record.estimate) {
    const Estimate& e = *record.estimate;
    out["estimate"] = Json{{"ratio", Number(e.ratio)}, {"low", Number(e.low)},
                           {"high", Number(e.high)},   {"confidence", Number(e.confidence)},
                           {"pairs", e.pairs},         {"exact", e.exact},
                           {"method", e.method}};
  } else {
    out["estimate"] = nullptr;
  }
  out["band"] = Number(record.band);
  out["arms"] = Json::array();
  for (const Arm& arm : record.arms) out["arms"].push_back(ArmToJson(arm));
  out["host"] = HostIdentityToJson(record.host);
  out["start"] = StateToJson(record.start);
  out["end"] = StateToJson(record.end);
  out["culprit_version"] = record.culprit_version;
  out["config_digest"] = record.config_digest;
  out["invocation"] = record.invocation;
  out["notes"] = record.notes;
  out["links"] = record.links;
  Json details = Json::object();
  for (const auto& [key, value] : record.details) details[key] = value;
  out["details"] = details;
  if (!record.details_json.empty()) {
    // Structured payloads are embedded so the file stays readable; anything
    // else (a payload too deeply nested to be read back among them) is kept
    // verbatim as a string rather than lost.
    Json payload = JsonNestsDeeperThan(record.details_json)
                       ? Json(Json::value_t::discarded)
                       : Json::parse(record.details_json, nullptr, /*allow_exceptions=*/false);
    if (payload.is_object() || payload.is_array()) {
      out["payload"] = std::move(payload);
    } else {
      out["payload_text"] = record.details_json;
    }
  }
  out["samples"] = Json::array();
  for (const Sample& sample : record.samples) out["samples"].push_back(SampleToJson(sample));
  return out;
}

std::string Scalar(const Json& value) {
  // Engine output can carry invalid UTF-8 (a failure message); replace it
  // rather than fail to archive the record.
  return ToJsonText(value);
}

bool IsFlat(const Json& value) {
  if (value.is_object()) {
    for (const auto& item : value) {
      if (item.is_structured()) return false;
    }
    return true;
  }
  return !value.is_structured();
}

// Pretty printer: nested containers on their own lines, except flat objects
// inside arrays (samples), which take one line each.
void Dump(const Json& value, int indent, std::string* out) {
  std::string pad(indent + 2, ' ');
  if (value.is_object()) {
    if (value.empty()) {
      *out += "{}";
      return;
    }
    *out += "{\n";
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      if (!first) *out += ",\n";
      first = false;
      *out += pad + Scalar(Json(key)) + ": ";
      Dump(item, indent + 2, out);
    }
    *out += "\n" + std::string(indent, ' ') + "}";
  } else if (value.is_array()) {
    if (value.empty()) {
      *out += "[]";
      return;
    }
    *out += "[\n";
    bool first = true;
    for (const auto& item : value) {
      if (!first) *out += ",\n";
      first = false;
      *out += pad;
      if (item.is_object() && IsFlat(item)) {
        *out += "{";
        bool first_field = true;
        for (const auto& [key, field] : item.items()) {
          if (!first_field) *out += ", ";
          first_field = false;
          *out += Scalar(Json(key)) + ": " + Scalar(field);
        }
        *out += "}";
      } else {
        Dump(item, indent + 2, out);
      }
    }
    *out += "\n" + std::string(indent, ' ') + "]";
  } else {
    *out += Scalar(value);
  }
}

// ---- Reading ----------------------------------------------------------------

// Thrown only inside this file, turned into an Error by RecordFromJson.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const Json* Field(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void Wrong(std::string_view path, std::string_view expected) {
  throw FieldError(fmt::format("field '{}' should be {}", path, expected));
}

std::string Path(std::string_view parent, const char* key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

std::string GetString(const Json& o, const char* key, std::string_view parent = "") {
  const Json* v = Field(o, key);
  if (!v) return "";
  if (!v->is_string()) Wrong(Path(parent, key), "a string");
  return v->get<std::string>();
}

std::string RequireString(const Json& o, const char* key) {
  std::string value = GetString(o, key);
  if (value.empty()) throw FieldError(fmt::format("field '{}' is missing or empty", key));
  return value;
}

std::optional<double> GetOptionalNumber(const Json& o, const char* key, std::string_view parent) {
  const Json* v = Field(o, key);
  if (!v) return std::nullopt;
  if (!v->is_number()) Wrong(Path(parent, key), "a number");
  return v->get<double>();
}

std::optional<long> GetOptionalInteger(const Json& o, const char* key, std::string_view parent) {
  const Json* v = Field(o, key);
  if (!v) return std::nullopt;
  if (!v->is_number_integer()) Wrong(Path(parent, key), "an integer");
  return v->get<long>();
}

/// A count the kernel keeps (page faults, context switches): a whole number, 0 or more.
std::optional<long> GetOptionalCount(const Json& o, const char* key, std::string_view parent) {
  std::optional<long> count = GetOptionalInteger(o, key, parent);
  if (count && *count < 0) Wrong(Path(parent, key), "a count of 0 or more");
  return count;
}

double GetNumber(const Json& o, const char* key, double fallback, std::string_view parent = "") {
  return GetOptionalNumber(o, key, parent).value_or(fallback);
}

long GetInteger(const Json& o, const char* key, long fallback, std::string_view parent = "") {
  const Json* v = Field(o, key);
  if (!v) return fallback;
  if (!v->is_number_integer()) Wrong(Path(parent, key), "an integer");
  return v->get<long>();
}

bool GetBool(const Json& o, const char* key, bool fallback, std::string_view parent = "") {
  const Json* v = Field(o, key);
  if (!v) return fallback;
  if (!v->is_boolean()) Wrong(Path(parent, key), "true or false");
  return v->get<bool>();
}

std::vector<std::string> GetStrings(const Json& o, const char* key, std::string_view parent = "") {
  std::vector<std::string> out;
  const Json* v = Field(o, key);
  if (!v) return out;
  if (!v->is_array()) Wrong(Path(parent, key), "an array of strings");
  for (const auto& item : *v) {
    if (!item.is_string()) Wrong(Path(parent, key), "an array of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> GetStringMap(const Json& o, const char* key,
                                                std::string_view parent = "") {
  std::map<std::string, std::string> out;
  const Json* v = Field(o, key);
  if (!v) return out;
  if (!v->is_object()) Wrong(Path(parent, key), "an object of strings");
  for (const auto& [k, item] : v->items()) {
    if (!item.is_string()) Wrong(Path(parent, key), "an object of strings");
    out[k] = item.get<std::string>();
  }
  return out;
}

const Json* GetObject(const Json& o, const char* key, std::string_view parent = "") {
  const Json* v = Field(o, key);
  if (v && !v->is_object()) Wrong(Path(parent, key), "an object");
  return v;
}

const Json* GetArray(const Json& o, const char* key) {
  const Json* v = Field(o, key);
  if (v && !v->is_array()) Wrong(key, "an array");
  return v;
}

HostState StateFromJson(const Json& o, std::string_view path) {
  HostState state;
  state.time = GetString(o, "time", path);
  state.calibration_ms = GetOptionalNumber(o, "calibration_ms", path);
  state.load1 = GetOptionalNumber(o, "load1", path);
  state.cpu_mhz = GetOptionalNumber(o, "cpu_mhz", path);
  state.governor = GetString(o, "governor", path);
  // Records written before these facts were kept simply lack them.
  state.load5 = GetOptionalNumber(o, "load5", path);
  state.load15 = GetOptionalNumber(o, "load15", path);
  state.memory_available_kb = GetOptionalInteger(o, "memory_available_kb", path);
  state.swap_used_kb = GetOptionalInteger(o, "swap_used_kb", path);
  if (const Json* tuning = GetObject(o, "tuning", path)) {
    Result<HostTuning> read = HostTuningFromJson(*tuning, Path(path, "tuning"));
    if (!read) throw FieldError(read.error().message());
    state.tuning = std::move(read).value();
  }
  return state;
}

RecordKind KindFromJson(const Json& j) {
  const std::string kind = RequireString(j, "kind");
  std::optional<RecordKind> parsed = ParseRecordKind(kind);
  if (!parsed) {
    Wrong("kind",
          "one of probe, compare, bisect, bisect-step, isolate, audit, run, investigation, table");
  }
  return *parsed;
}

/// nullopt when the field is absent or empty: a kind that concludes nothing.
std::optional<Verdict> VerdictFromJson(const Json& j) {
  const std::string verdict = GetString(j, "verdict");
  if (verdict.empty()) return std::nullopt;
  std::optional<Verdict> parsed = ParseVerdict(verdict);
  if (!parsed || verdict != VerdictName(*parsed)) {
    Wrong("verdict", "one of EFFECT, NULL, INCONCLUSIVE, ERROR or empty");
  }
  return parsed;
}

Estimate EstimateFromJson(const Json& e) {
  Estimate estimate;
  estimate.ratio = GetNumber(e, "ratio", 1, "estimate");
  estimate.low = GetNumber(e, "low", 1, "estimate");
  estimate.high = GetNumber(e, "high", 1, "estimate");
  estimate.confidence = GetNumber(e, "confidence", 0.95, "estimate");
  estimate.pairs = static_cast<int>(GetInteger(e, "pairs", 0, "estimate"));
  estimate.exact = GetBool(e, "exact", false, "estimate");
  estimate.method = GetString(e, "method", "estimate");
  return estimate;
}

/// `a` is the arm at `path` ("arms[1]"), which field errors name.
Arm ArmFromJson(const Json& a, const std::string& path) {
  if (!a.is_object()) Wrong(path, "an object");
  Arm arm;
  arm.name = GetString(a, "name", path);
  arm.label = GetString(a, "label", path);
  arm.commit = GetString(a, "commit", path);
  arm.tree = GetString(a, "tree", path);
  arm.revision = GetString(a, "revision", path);
  arm.env = GetStringMap(a, "env", path);
  arm.unset = GetStrings(a, "unset", path);
  arm.effective_env = GetStringMap(a, "effective_env", path);
  arm.condition = GetString(a, "condition", path);
  arm.command = GetStrings(a, "command", path);
  arm.median = GetNumber(a, "median", 0, path);
  arm.ok_samples = static_cast<int>(GetInteger(a, "ok_samples", 0, path));
  arm.failed_samples = static_cast<int>(GetInteger(a, "failed_samples", 0, path));
  return arm;
}

std::vector<Arm> ArmsFromJson(const Json& arms) {
  std::vector<Arm> out;
  for (size_t i = 0; i < arms.size(); ++i) {
    out.push_back(ArmFromJson(arms[i], fmt::format("arms[{}]", i)));
  }
  return out;
}

HostIdentity HostIdentityFromJson(const Json& host) {
  HostIdentity identity;
  identity.hostname = GetString(host, "hostname", "host");
  identity.cpu_model = GetString(host, "cpu_model", "host");
  identity.kernel = GetString(host, "kernel", "host");
  // Records written before it was kept lack it; null: the host had none.
  identity.machine_id = GetString(host, "machine_id", "host");
  identity.logical_cores = static_cast<int>(GetInteger(host, "logical_cores", 0, "host"));
  // Records written before it was kept lack it.
  if (auto kb = GetOptionalInteger(host, "memory_total_kb", "host"); kb && *kb >= 0) {
    identity.memory_total_kb = static_cast<uint64_t>(*kb);
  }
  return identity;
}

/// The details_json: the structured payload as its JSON text, else the
/// payload that was not JSON, kept as text.
std::string PayloadFromJson(const Json& j) {
  if (const Json* payload = Field(j, "payload")) return ToJsonText(*payload);
  return GetString(j, "payload_text");
}

/// Sample `i` of the file; a sample's sequence defaults to its position, and
/// its arm must be one of the record's `arms`.
Sample SampleFromJson(const Json& s, size_t i, size_t arms) {
  std::string path = fmt::format("samples[{}]", i);
  if (!s.is_object()) Wrong(path, "an object");
  Sample sample;
  sample.sequence = static_cast<int>(GetInteger(s, "sequence", static_cast<long>(i), path));
  sample.arm = static_cast<int>(GetInteger(s, "arm", 0, path));
  sample.pair = static_cast<int>(GetInteger(s, "pair", -1, path));
  sample.warmup = GetBool(s, "warmup", false, path);
  sample.ok = GetBool(s, "ok", true, path);
  std::optional<double> value = GetOptionalNumber(s, "value", path);
  // An ok sample without a value cannot be used by anyone; say so rather
  // than invent a zero.
  if (sample.ok && !value) throw FieldError(fmt::format("{} is ok but has no value", path));
  sample.value = value.value_or(0);
  sample.failure = GetString(s, "failure", path);
  sample.dropped = GetBool(s, "dropped", false, path);
  sample.censored = GetBool(s, "censored", false, path);
  sample.wall_ms = GetNumber(s, "wall_ms", 0, path);
  sample.user_ms = GetNumber(s, "user_ms", 0, path);
  sample.system_ms = GetNumber(s, "system_ms", 0, path);
  sample.max_rss_kb = GetInteger(s, "max_rss_kb", 0, path);
  // Absent (a record written before they were kept) or null: unknown, not 0.
  sample.minor_faults = GetOptionalCount(s, "minor_faults", path);
  sample.major_faults = GetOptionalCount(s, "major_faults", path);
  sample.voluntary_switches = GetOptionalCount(s, "voluntary_switches", path);
  sample.involuntary_switches = GetOptionalCount(s, "involuntary_switches", path);
  if (sample.arm < 0 || static_cast<size_t>(sample.arm) >= arms) {
    throw FieldError(fmt::format("{} refers to arm {}, but the record has {}", path, sample.arm,
                                 CountOf(arms, "arm")));
  }
  return sample;
}

std::vector<Sample> SamplesFromJson(const Json& samples, size_t arms) {
  std::vector<Sample> out;
  for (size_t i = 0; i < samples.size(); ++i) out.push_back(SampleFromJson(samples[i], i, arms));
  return out;
}

/// Throws FieldError naming the first damaged field it reads.
Record FromJson(const Json& j) {
  if (!j.is_object()) throw FieldError("the file is not a JSON object");
  Record record;
  record.id = RequireString(j, "id");
  record.kind = KindFromJson(j);
  record.time = RequireString(j, "time");
  record.query = GetString(j, "query");
  record.unit = GetString(j, "unit");
  record.hypothesis = GetString(j, "hypothesis");
  record.verdict = VerdictFromJson(j);
  record.verdict_detail = GetString(j, "verdict_detail");
  record.interrupted = GetBool(j, "interrupted", false);
  if (const Json* e = GetObject(j, "estimate")) record.estimate = EstimateFromJson(*e);
  record.band = GetNumber(j, "band", 0.05);
  if (const Json* arms = GetArray(j, "arms")) record.arms = ArmsFromJson(*arms);
  if (const Json* host = GetObject(j, "host")) record.host = HostIdentityFromJson(*host);
  if (const Json* start = GetObject(j, "start")) {
    record.start = StateFromJson(*start, "start");
  }
  if (const Json* end = GetObject(j, "end")) record.end = StateFromJson(*end, "end");
  record.culprit_version = GetString(j, "culprit_version");
  record.config_digest = GetString(j, "config_digest");
  record.invocation = GetStrings(j, "invocation");
  record.notes = GetStrings(j, "notes");
  record.links = GetStrings(j, "links");
  record.details = GetStringMap(j, "details");
  record.details_json = PayloadFromJson(j);
  if (const Json* samples = GetArray(j, "samples")) {
    // After the arms: each sample's arm is checked against them.
    record.samples = SamplesFromJson(*samples, record.arms.size());
  }
  return record;
}

}  // namespace

namespace {
// In the enum's order: the one place each kind is spelled.
constexpr std::string_view kRecordKindNames[] = {"probe",   "compare", "bisect",  "bisect-step",
                                                 "isolate", "audit",   "run",     "investigation",
                                                 "table",   "sweep",   "explain", "multi-bisect"};
}  // namespace

std::string_view RecordKindName(RecordKind kind) { return NameIn(kRecordKindNames, kind); }

void PrintTo(RecordKind kind, std::ostream* out) { *out << RecordKindName(kind); }

std::optional<RecordKind> ParseRecordKind(std::string_view name) {
  return ParseIn<RecordKind>(kRecordKindNames, name);
}

std::string Record::Detail(const std::string& key) const {
  auto it = details.find(key);
  return it == details.end() ? "" : it->second;
}

std::string RecordToJson(const Record& record) {
  std::string out;
  Dump(ToJson(record), 0, &out);
  out += "\n";
  return out;
}

std::string HostToJson(const HostIdentity& host, const HostState& state,
                       const std::vector<std::string>& warnings) {
  Json out{{"schema", "culprit.host/v1"},
           {"host", HostIdentityToJson(host)},
           {"state", StateToJson(state)},
           {"warnings", warnings}};
  return ToJsonText(out, 2);
}

Result<Record> RecordFromJson(std::string_view json, std::string_view source_name) {
  // Depth-limited: a record nested 100k deep (damaged, or someone else's
  // archive) would overflow the stack as soon as it was dumped or copied, and
  // take `records list` for the whole archive with it.
  Result<Json> read = ParseJsonText<Json>(json);
  if (!read) {
    Error damaged(fmt::format("{}: damaged record: {}", source_name, read.error().message()));
    if (JsonNestsDeeperThan(json)) {
      return damaged.WithHint(
          "no record culprit writes nests that deep; move the file out of the records directory");
    }
    return damaged.WithHint(
        "the file is not valid JSON (a crash while writing by hand, or a bad merge); "
        "restore it from version control or move it out of the records directory");
  }
  Json parsed = std::move(read).value();
  // The schema is checked before anything else: a future version may change
  // any other field, and a clear "upgrade" beats a confusing field error.
  std::string schema;
  if (parsed.is_object()) {
    auto it = parsed.find("schema");
    if (it != parsed.end() && it->is_string()) schema = it->get<std::string>();
  }
  if (schema.empty()) {
    return Error(fmt::format("{}: damaged record: no 'schema' field; this is not a culprit record",
                             source_name))
        .WithHint("move files that are not culprit records out of the records directory");
  }
  if (schema != kRecordSchema) {
    return Error(fmt::format(
                     "{}: schema '{}' is not supported by this culprit (reads {}); upgrade culprit",
                     source_name, schema, kRecordSchema))
        .WithHint("the record was written by another culprit version; it is left untouched");
  }
  try {
    Record record = FromJson(parsed);
    record.schema = schema;
    return record;
  } catch (const FieldError& e) {
    return Error(fmt::format("{}: damaged record: {}", source_name, e.what()));
  } catch (const Json::exception& e) {
    return Error(fmt::format("{}: damaged record: {}", source_name, e.what()));
  }
}

}  // namespace culprit
