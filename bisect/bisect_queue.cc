#include "bisect/bisect_queue.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/json_text.h"

namespace culprit {

using json = nlohmann::json;

std::string BisectQueueToJson(const BisectQueue& q) {
  json j;
  j["schema"] = q.schema;
  j["started"] = q.started;
  j["good"] = q.good;
  j["bad"] = q.bad;
  j["from_table"] = q.from_table;
  j["queries"] = q.queries;
  j["max_pairs"] = q.max_pairs;
  j["seed"] = q.seed;
  j["band"] = q.band;
  j["prove_first"] = q.prove_first;
  j["done"] = json::array();
  for (const MultiBisectQueryFacts& f : q.done) {
    j["done"].push_back(json::parse(MultiBisectQueryToJson(f)));
  }
  j["finished"] = q.finished;
  j["result_record"] = q.result_record;
  return ToJsonText(j, 2) + "\n";
}

Result<BisectQueue> BisectQueueFromJson(std::string_view text, std::string_view source) {
  if (JsonNestsDeeperThan(text)) return Error(fmt::format("{}: {}", source, JsonTooDeepMessage()));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto damaged = [&](std::string_view what) {
    return Error(fmt::format("{}: not a multi-query bisect queue ({})", source, what))
        .WithHint("`culprit bisect reset` discards it; the records stay");
  };
  if (!j.is_object()) return damaged("not a JSON object");
  if (!j.contains("schema") || !j["schema"].is_string()) return damaged("no schema");
  const std::string schema = j["schema"].get<std::string>();
  if (schema != kBisectQueueSchema) {
    return Error(fmt::format("{}: schema '{}' is not supported by this culprit (reads {})", source,
                             schema, kBisectQueueSchema))
        .WithHint("upgrade culprit, or `culprit bisect reset` to discard it");
  }
  try {
    BisectQueue q;
    q.started = j.value("started", "");
    q.good = j.at("good").get<std::string>();
    q.bad = j.at("bad").get<std::string>();
    q.from_table = j.value("from_table", "");
    q.queries = j.at("queries").get<std::vector<std::string>>();
    q.max_pairs = j.value("max_pairs", 0);
    q.seed = j.value("seed", uint64_t{0});
    q.band = j.value("band", 0.0);
    q.prove_first = j.value("prove_first", false);
    for (const json& d : j.at("done")) {
      std::optional<MultiBisectQueryFacts> f = MultiBisectQueryFromJson(d.dump());
      if (!f) return damaged("a finished query is not an object");
      q.done.push_back(std::move(*f));
    }
    q.finished = j.value("finished", false);
    q.result_record = j.value("result_record", "");
    if (q.done.size() > q.queries.size()) return damaged("more queries done than queued");
    return q;
  } catch (const json::exception& e) {
    return damaged(e.what());
  }
}

Result<BisectQueue> LoadBisectQueue(const std::filesystem::path& path) {
  Result<std::string> text = ReadFile(path);
  if (!text) return text.error();
  return BisectQueueFromJson(*text, path.string());
}

Status SaveBisectQueue(const std::filesystem::path& path, const BisectQueue& queue) {
  return WriteFileAtomically(path, BisectQueueToJson(queue));
}

}  // namespace culprit
