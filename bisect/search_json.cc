// The search's saved state (BisectSearch::ToJson / FromJson): its schema, and reading it
// back with an error that says what is damaged. Apart from search.cc, which decides.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "bisect/search.h"

namespace culprit {
namespace {

constexpr std::string_view kSchema = "culprit.bisect-search/v1";

constexpr std::string_view kDamagedHint =
    "the bisect state file is damaged or from another version; `culprit bisect reset` "
    "starts the bisect over";

Error Invalid(std::string_view what) {
  return Error(fmt::format("the bisect state has an invalid '{}'", what))
      .WithHint(std::string(kDamagedHint));
}

// The state's names of the spending functions (strings only here, enums inside).
std::string_view SpendingName(Spending spending) {
  switch (spending) {
    case Spending::kPocock:
      return "pocock";
    case Spending::kPocockOnRootTime:
      return "pocock-root-time";
    case Spending::kObrienFleming:
      break;
  }
  return "obrien-fleming";
}

/// The state's JSON object, once its schema is the one this culprit reads.
Result<nlohmann::json> ParseState(std::string_view text) {
  const std::string hint(kDamagedHint);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Error("the bisect state is not valid JSON").WithHint(hint);
  }
  if (!j.contains("schema") || !j["schema"].is_string()) {
    return Error("the bisect state has no schema").WithHint(hint);
  }
  if (j["schema"].get<std::string>() != kSchema) {
    return Error(fmt::format("the bisect state has schema '{}', this culprit reads '{}'",
                             j["schema"].get<std::string>(), kSchema))
        .WithHint(hint);
  }
  return j;
}

// Each key is checked before it is read, so a wrong type is an Error
// returned, never a json exception; an absent key keeps the default.
bool ReadDouble(const nlohmann::json& jo, const char* key, double& field) {
  if (!jo.contains(key)) return true;
  if (!jo[key].is_number()) return false;
  field = jo[key].get<double>();
  return true;
}

bool ReadInt(const nlohmann::json& jo, const char* key, int& field) {
  if (!jo.contains(key)) return true;
  if (!jo[key].is_number_integer()) return false;
  field = jo[key].get<int>();
  return true;
}

// A spending is one of SpendingName's names.
bool ReadSpending(const nlohmann::json& jo, const char* key, Spending& field) {
  if (!jo.contains(key)) return true;
  for (Spending s : {Spending::kObrienFleming, Spending::kPocock, Spending::kPocockOnRootTime}) {
    if (jo[key].is_string() && jo[key].get<std::string>() == SpendingName(s)) {
      field = s;
      return true;
    }
  }
  return false;
}

/// The search's options from the state's "options" object: each present one
/// must have its type and lie in its range; an absent one is the default.
Result<SearchOptions> OptionsFromJson(const nlohmann::json& jo) {
  SearchOptions o;
  if (!ReadDouble(jo, "target_probability", o.target_probability)) {
    return Invalid("target_probability");
  }
  if (!ReadInt(jo, "max_builds", o.max_builds)) return Invalid("max_builds");
  if (!ReadInt(jo, "max_pairs", o.max_pairs)) return Invalid("max_pairs");
  if (!ReadInt(jo, "pairs_per_batch", o.pairs_per_batch) || o.pairs_per_batch < 1)
    return Invalid("pairs_per_batch");
  if (!ReadInt(jo, "max_pairs_per_step", o.max_pairs_per_step) || o.max_pairs_per_step < 1)
    return Invalid("max_pairs_per_step");
  if (!ReadDouble(jo, "step_odds", o.step_odds) || o.step_odds <= 1) return Invalid("step_odds");
  // States written before the fields existed never turned wary.
  o.wary_step_odds = 0;
  o.wary_target_probability = 0;
  if (!ReadDouble(jo, "wary_step_odds", o.wary_step_odds) ||
      (o.wary_step_odds != 0 && o.wary_step_odds <= 1))
    return Invalid("wary_step_odds");
  if (!ReadDouble(jo, "wary_target_probability", o.wary_target_probability) ||
      o.wary_target_probability < 0 || o.wary_target_probability >= 1)
    return Invalid("wary_target_probability");
  // States written before the field existed measured again as soon as a verification took its
  // block below the target.
  o.verify_hold_probability = 0;
  if (!ReadDouble(jo, "verify_hold_probability", o.verify_hold_probability) ||
      o.verify_hold_probability < 0 || o.verify_hold_probability >= 1)
    return Invalid("verify_hold_probability");
  if (!ReadInt(jo, "verify_pairs_min", o.verify_pairs_min) || o.verify_pairs_min < 1)
    return Invalid("verify_pairs_min");
  if (!ReadInt(jo, "verify_pairs_max", o.verify_pairs_max) ||
      o.verify_pairs_max < o.verify_pairs_min)
    return Invalid("verify_pairs_max");
  if (!ReadDouble(jo, "band", o.band) || o.band < 0) return Invalid("band");
  if (!ReadDouble(jo, "confidence", o.confidence) || o.confidence <= 0 || o.confidence >= 1)
    return Invalid("confidence");
  if (jo.contains("confirm_endpoints")) {
    if (!jo["confirm_endpoints"].is_boolean()) return Invalid("confirm_endpoints");
    o.confirm_endpoints = jo["confirm_endpoints"].get<bool>();
  }
  // States written before the field existed were a timed metric's.
  if (jo.contains("near_deterministic")) {
    if (!jo["near_deterministic"].is_boolean()) return Invalid("near_deterministic");
    o.near_deterministic = jo["near_deterministic"].get<bool>();
  }
  // States written before the field existed verified on the fixed schedule.
  o.plan_verification = false;
  if (jo.contains("plan_verification")) {
    if (!jo["plan_verification"].is_boolean()) return Invalid("plan_verification");
    o.plan_verification = jo["plan_verification"].get<bool>();
  }
  // States written before the field existed read their verification's looks one at a time.
  o.joint_looks = false;
  if (jo.contains("joint_looks")) {
    if (!jo["joint_looks"].is_boolean()) return Invalid("joint_looks");
    o.joint_looks = jo["joint_looks"].get<bool>();
  }
  // States written before the field existed doubled their planned looks.
  o.verify_look_growth = 2;
  if (!ReadDouble(jo, "verify_look_growth", o.verify_look_growth) || !(o.verify_look_growth > 1))
    return Invalid("verify_look_growth");
  // States written before the field existed were spent the O'Brien–Fleming way.
  o.spending = Spending::kObrienFleming;
  if (!ReadSpending(jo, "spending", o.spending)) return Invalid("spending");
  // States written before the field existed spent a planned verification's later looks as
  // its first (Pocock's function).
  o.later_looks_spending = Spending::kPocock;
  if (!ReadSpending(jo, "later_looks_spending", o.later_looks_spending))
    return Invalid("later_looks_spending");
  if (!(o.target_probability > 0 && o.target_probability < 1)) {
    return Invalid("target_probability");
  }
  return o;
}

/// The "unbuildable" and "cached" lists, commits in 0..n, marked in `search`.
Status ReadCommitLists(const nlohmann::json& j, int n, BisectSearch& search) {
  for (const char* key : {"unbuildable", "cached"}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_array()) return Invalid(key);
    for (const nlohmann::json& c : j[key]) {
      if (!c.is_number_integer() || c.get<int>() < 0 || c.get<int>() > n) return Invalid(key);
      if (std::string_view(key) == "cached") {
        search.MarkCached(c.get<int>());
      } else {
        search.MarkUnbuildable(c.get<int>());
      }
    }
  }
  return {};
}

/// One observation: a measurement's baseline is commit 0, a verification's
/// lies below its commit, and its d are finite.
Result<Observation> ObservationFromJson(const nlohmann::json& ob, int n) {
  if (!ob.is_object() || !ob.contains("commit") || !ob["commit"].is_number_integer() ||
      !ob.contains("baseline") || !ob["baseline"].is_number_integer() || !ob.contains("d") ||
      !ob["d"].is_array() || !ob.contains("kind") || !ob["kind"].is_string()) {
    return Invalid("observations");
  }
  Observation parsed;
  parsed.commit = ob["commit"].get<int>();
  parsed.baseline = ob["baseline"].get<int>();
  const std::string kind = ob["kind"].get<std::string>();
  if (kind != "measure" && kind != "verify") return Invalid("observations.kind");
  parsed.verification = kind == "verify";
  if (parsed.baseline < 0 || parsed.baseline >= parsed.commit || parsed.commit > n ||
      (!parsed.verification && parsed.baseline != 0)) {
    return Invalid("observations.commit");
  }
  for (const nlohmann::json& x : ob["d"]) {
    if (!x.is_number() || !std::isfinite(x.get<double>())) return Invalid("observations.d");
    parsed.d.push_back(x.get<double>());
  }
  return parsed;
}

/// A verification's runs ("baseline_runs" and "commit_runs", both or neither, positive),
/// none when absent.
Result<std::optional<ArmRuns>> RunsFromJson(const nlohmann::json& ob) {
  if (!ob.contains("baseline_runs") && !ob.contains("commit_runs")) return std::optional<ArmRuns>();
  ArmRuns runs;
  for (const char* key : {"baseline_runs", "commit_runs"}) {
    if (!ob.contains(key) || !ob[key].is_array()) return Invalid("observations.runs");
    std::vector<double>& values =
        std::string_view(key) == "baseline_runs" ? runs.baseline : runs.commit;
    for (const nlohmann::json& x : ob[key]) {
      if (!x.is_number() || !(x.get<double>() > 0) || !std::isfinite(x.get<double>()))
        return Invalid("observations.runs");
      values.push_back(x.get<double>());
    }
  }
  return std::optional<ArmRuns>(std::move(runs));
}

}  // namespace

std::string BisectSearch::ToJson() const {
  nlohmann::json j;
  j["schema"] = kSchema;
  j["n_commits"] = n_;
  const SearchOptions& o = options_;
  j["options"] = {{"target_probability", o.target_probability},
                  {"max_builds", o.max_builds},
                  {"max_pairs", o.max_pairs},
                  {"pairs_per_batch", o.pairs_per_batch},
                  {"max_pairs_per_step", o.max_pairs_per_step},
                  {"step_odds", o.step_odds},
                  {"wary_step_odds", o.wary_step_odds},
                  {"wary_target_probability", o.wary_target_probability},
                  {"verify_hold_probability", o.verify_hold_probability},
                  {"verify_pairs_min", o.verify_pairs_min},
                  {"verify_pairs_max", o.verify_pairs_max},
                  {"band", o.band},
                  {"confidence", o.confidence},
                  {"confirm_endpoints", o.confirm_endpoints},
                  {"plan_verification", o.plan_verification},
                  {"joint_looks", o.joint_looks},
                  {"verify_look_growth", o.verify_look_growth},
                  {"near_deterministic", o.near_deterministic},
                  {"spending", SpendingName(o.spending)},
                  {"later_looks_spending", SpendingName(o.later_looks_spending)}};
  j["unbuildable"] = unbuildable_;
  j["cached"] = cached_;
  nlohmann::json obs = nlohmann::json::array();
  for (size_t k = 0; k < observations_.size(); ++k) {
    const Observation& ob = observations_[k];
    nlohmann::json o = {{"commit", ob.commit},
                        {"baseline", ob.baseline},
                        {"kind", ob.verification ? "verify" : "measure"},
                        {"d", ob.d}};
    if (runs_[k]) {
      o["baseline_runs"] = runs_[k]->baseline;
      o["commit_runs"] = runs_[k]->commit;
    }
    obs.push_back(std::move(o));
  }
  j["observations"] = std::move(obs);
  return j.dump(1) + "\n";
}

culprit::Result<BisectSearch> BisectSearch::FromJson(std::string_view text) {
  culprit::Result<nlohmann::json> parsed = ParseState(text);
  if (!parsed) return parsed.error();
  const nlohmann::json& j = *parsed;
  if (!j.contains("n_commits") || !j["n_commits"].is_number_integer() ||
      j["n_commits"].get<int>() < 1) {
    return Invalid("n_commits");
  }
  const int n = j["n_commits"].get<int>();
  if (!j.contains("options") || !j["options"].is_object()) return Invalid("options");
  culprit::Result<SearchOptions> options = OptionsFromJson(j["options"]);
  if (!options) return options.error();

  BisectSearch search(n, *options);
  CULPRIT_TRY(ReadCommitLists(j, n, search));
  if (!j.contains("observations") || !j["observations"].is_array()) return Invalid("observations");
  for (const nlohmann::json& ob : j["observations"]) {
    culprit::Result<Observation> observation = ObservationFromJson(ob, n);
    if (!observation) return observation.error();
    culprit::Result<std::optional<ArmRuns>> runs = RunsFromJson(ob);
    if (!runs) return runs.error();
    search.observations_.push_back(std::move(*observation));
    search.runs_.push_back(std::move(*runs));
  }
  return search;
}

}  // namespace culprit
