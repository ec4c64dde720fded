#include "records/host_tuning_json.h"

#include <fmt/format.h>

namespace culprit {
namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json OrNull(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

const Json* Field(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

Error Wrong(std::string_view path, const char* key, std::string_view expected) {
  return Error(fmt::format("field '{}.{}' should be {}", path, key, expected));
}

Status ReadBool(const Json& o, const char* key, std::string_view path, std::optional<bool>* out) {
  const Json* v = Field(o, key);
  if (!v) return {};
  if (!v->is_boolean()) return Wrong(path, key, "true or false");
  *out = v->get<bool>();
  return {};
}

Status ReadInt(const Json& o, const char* key, std::string_view path, std::optional<int>* out) {
  const Json* v = Field(o, key);
  if (!v) return {};
  if (!v->is_number_integer()) return Wrong(path, key, "an integer");
  *out = v->get<int>();
  return {};
}

Status ReadText(const Json& o, const char* key, std::string_view path,
                std::optional<std::string>* out) {
  const Json* v = Field(o, key);
  if (!v) return {};
  if (!v->is_string()) return Wrong(path, key, "a string");
  *out = v->get<std::string>();
  return {};
}

}  // namespace

Json HostTuningToJson(const HostTuning& t) {
  return Json{{"turbo_disabled", OrNull(t.turbo_disabled)},
              {"boost", OrNull(t.boost)},
              {"randomize_va_space", OrNull(t.randomize_va_space)},
              {"isolated_cpus", OrNull(t.isolated_cpus)},
              {"nohz_full", OrNull(t.nohz_full)},
              {"isolcpus", OrNull(t.isolcpus)},
              {"smt_active", OrNull(t.smt_active)},
              {"smt_control", OrNull(t.smt_control)},
              {"perf_event_paranoid", OrNull(t.perf_event_paranoid)},
              {"counters_usable", OrNull(t.counters_usable)},
              {"counters_error", t.counters_error}};
}

Result<HostTuning> HostTuningFromJson(const Json& json, std::string_view path) {
  if (!json.is_object()) return Error(fmt::format("field '{}' should be an object", path));
  HostTuning t;
  CULPRIT_TRY(ReadBool(json, "turbo_disabled", path, &t.turbo_disabled));
  CULPRIT_TRY(ReadBool(json, "boost", path, &t.boost));
  CULPRIT_TRY(ReadInt(json, "randomize_va_space", path, &t.randomize_va_space));
  CULPRIT_TRY(ReadText(json, "isolated_cpus", path, &t.isolated_cpus));
  CULPRIT_TRY(ReadText(json, "nohz_full", path, &t.nohz_full));
  CULPRIT_TRY(ReadText(json, "isolcpus", path, &t.isolcpus));
  CULPRIT_TRY(ReadBool(json, "smt_active", path, &t.smt_active));
  CULPRIT_TRY(ReadText(json, "smt_control", path, &t.smt_control));
  CULPRIT_TRY(ReadInt(json, "perf_event_paranoid", path, &t.perf_event_paranoid));
  CULPRIT_TRY(ReadBool(json, "counters_usable", path, &t.counters_usable));
  std::optional<std::string> error;
  CULPRIT_TRY(ReadText(json, "counters_error", path, &error));
  t.counters_error = error.value_or("");
  return t;
}

}  // namespace culprit
