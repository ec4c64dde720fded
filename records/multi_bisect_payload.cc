#include "records/multi_bisect_payload.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "base/strings.h"
#include "records/payload_fields.h"

namespace culprit {
namespace {

using json = nlohmann::json;

constexpr std::string_view kStatusNames[] = {"found", "nothing found", "failed", "not run"};

json ChangeToJson(const MultiBisectChangeFacts& c) {
  return {{"first", c.first}, {"commit", c.commit}, {"ratio", c.ratio},
          {"low", c.low},     {"high", c.high},     {"pairs", c.pairs}};
}

MultiBisectChangeFacts ChangeFromJson(const json& j) {
  MultiBisectChangeFacts c;
  c.first = StringAt(j, "first");
  c.commit = StringAt(j, "commit");
  c.ratio = NumberAt(j, "ratio").value_or(1);
  c.low = NumberAt(j, "low").value_or(1);
  c.high = NumberAt(j, "high").value_or(1);
  c.pairs = IntAt(j, "pairs");
  return c;
}

json QueryToJson(const MultiBisectQueryFacts& q) {
  json j;
  j["query"] = q.query;
  j["status"] = std::string(MultiBisectStatusName(q.status));
  j["outcome"] = q.outcome;
  j["reason"] = q.reason;
  j["result_record"] = q.result_record;
  j["ratio"] = OptionalNumber(q.ratio);
  j["low"] = OptionalNumber(q.low);
  j["high"] = OptionalNumber(q.high);
  j["changes"] = json::array();
  for (const MultiBisectChangeFacts& c : q.changes) j["changes"].push_back(ChangeToJson(c));
  j["unplaced"] = json::array();
  for (const MultiBisectUnplacedFacts& u : q.unplaced) {
    j["unplaced"].push_back({{"good", u.good},
                             {"bad", u.bad},
                             {"check", u.check},
                             {"ratio", u.ratio},
                             {"low", u.low},
                             {"high", u.high}});
  }
  return j;
}

MultiBisectQueryFacts QueryFromJson(const json& j) {
  MultiBisectQueryFacts q;
  q.query = StringAt(j, "query");
  q.status = ParseMultiBisectStatus(StringAt(j, "status")).value_or(MultiBisectStatus::kNotRun);
  q.outcome = StringAt(j, "outcome");
  q.reason = StringAt(j, "reason");
  q.result_record = StringAt(j, "result_record");
  q.ratio = NumberAt(j, "ratio");
  q.low = NumberAt(j, "low");
  q.high = NumberAt(j, "high");
  for (const json& c : ArrayAt(j, "changes")) {
    if (c.is_object()) q.changes.push_back(ChangeFromJson(c));
  }
  for (const json& u : ArrayAt(j, "unplaced")) {
    if (!u.is_object()) continue;
    MultiBisectUnplacedFacts p;
    p.good = StringAt(u, "good");
    p.bad = StringAt(u, "bad");
    p.check = StringAt(u, "check");
    p.ratio = NumberAt(u, "ratio").value_or(1);
    p.low = NumberAt(u, "low").value_or(1);
    p.high = NumberAt(u, "high").value_or(1);
    q.unplaced.push_back(std::move(p));
  }
  return q;
}

std::string RatioText(double ratio, double low, double high) {
  return "×" + FormatRatioInterval(ratio, low, high);
}

std::string ChangeName(const std::string& first, const std::string& commit) {
  if (first.empty() || first == commit) return ShortCommit(commit);
  return ShortCommit(first) + ".." + ShortCommit(commit);
}

// The queries other than `self` that the change (first, commit) also moved.
std::vector<std::string> AlsoMoved(const MultiBisectFacts& f, int self,
                                   const MultiBisectChangeFacts& c) {
  std::vector<std::string> out;
  for (const MultiBisectCommonChange& common : f.changes) {
    if (common.commit != c.commit || common.first != c.first) continue;
    for (const auto& [q, k] : common.moved) {
      if (q != self) out.push_back(f.queries[q].query);
    }
  }
  return out;
}

std::string QueryText(const MultiBisectFacts& f, int index) {
  const MultiBisectQueryFacts& q = f.queries[index];
  std::string out = fmt::format("query {}: {}", q.query, MultiBisectStatusName(q.status));
  if (q.ratio && q.low && q.high) {
    out += fmt::format(", the range moved it {}", RatioText(*q.ratio, *q.low, *q.high));
  }
  if (!q.result_record.empty()) out += fmt::format(" (record {})", q.result_record);
  out += "\n";
  for (const MultiBisectChangeFacts& c : q.changes) {
    out += fmt::format("  CHANGE {} {}, verified over {} pairs", ChangeName(c.first, c.commit),
                       RatioText(c.ratio, c.low, c.high), c.pairs);
    const std::vector<std::string> also = AlsoMoved(f, index, c);
    if (!also.empty()) out += fmt::format(" (also moved {})", Join(also, ", "));
    out += "\n";
  }
  for (const MultiBisectUnplacedFacts& u : q.unplaced) {
    out += fmt::format("  UNPLACED {}..{}: its check {} {}\n", ShortCommit(u.good),
                       ShortCommit(u.bad), u.check, RatioText(u.ratio, u.low, u.high));
  }
  if (q.status != MultiBisectStatus::kFound && !q.reason.empty()) {
    out += fmt::format("  {}{}\n", q.outcome.empty() ? "" : q.outcome + ": ",
                       EscapeControlChars(q.reason));
  }
  return out;
}

}  // namespace

std::string_view MultiBisectStatusName(MultiBisectStatus status) {
  return NameIn(kStatusNames, status);
}

std::optional<MultiBisectStatus> ParseMultiBisectStatus(std::string_view name) {
  return ParseIn<MultiBisectStatus>(kStatusNames, name);
}

std::string MultiBisectQueryToJson(const MultiBisectQueryFacts& facts) {
  return ToJsonText(QueryToJson(facts));
}

std::optional<MultiBisectQueryFacts> MultiBisectQueryFromJson(std::string_view text) {
  std::optional<json> j = PayloadObject(text);
  if (!j) return std::nullopt;
  return QueryFromJson(*j);
}

std::string MultiBisectFactsToJson(const MultiBisectFacts& f) {
  json m;
  m["version"] = f.version;
  m["good"] = f.good;
  m["bad"] = f.bad;
  m["from_table"] = f.from_table;
  m["queries"] = json::array();
  for (const MultiBisectQueryFacts& q : f.queries) m["queries"].push_back(QueryToJson(q));
  m["changes"] = json::array();
  for (const MultiBisectCommonChange& c : f.changes) {
    json moved = json::array();
    for (const auto& [q, k] : c.moved) moved.push_back({{"query", q}, {"change", k}});
    m["changes"].push_back({{"first", c.first}, {"commit", c.commit}, {"moved", moved}});
  }
  json doc;
  doc["multi_bisect"] = std::move(m);
  return ToJsonText(doc);
}

std::optional<MultiBisectFacts> MultiBisectFactsFromJson(std::string_view text) {
  const std::optional<json> section = PayloadSection(text, "multi_bisect");
  if (!section) return std::nullopt;
  const json& m = *section;
  MultiBisectFacts f;
  f.version = IntAt(m, "version");
  if (f.version != kMultiBisectPayloadVersion) return std::nullopt;
  f.good = StringAt(m, "good");
  f.bad = StringAt(m, "bad");
  f.from_table = StringAt(m, "from_table");
  for (const json& q : ArrayAt(m, "queries")) {
    if (q.is_object()) f.queries.push_back(QueryFromJson(q));
  }
  const int n = static_cast<int>(f.queries.size());
  for (const json& c : ArrayAt(m, "changes")) {
    if (!c.is_object()) continue;
    MultiBisectCommonChange common;
    common.first = StringAt(c, "first");
    common.commit = StringAt(c, "commit");
    for (const json& mv : ArrayAt(c, "moved")) {
      if (!mv.is_object()) continue;
      const int q = IntAt(mv, "query"), k = IntAt(mv, "change");
      // An index out of range is a damaged record: dropped, never dereferenced.
      if (q < 0 || q >= n || k < 0 || k >= static_cast<int>(f.queries[q].changes.size())) continue;
      common.moved.emplace_back(q, k);
    }
    f.changes.push_back(std::move(common));
  }
  return f;
}

std::optional<MultiBisectFacts> ReadMultiBisectFacts(const Record& record) {
  return MultiBisectFactsFromJson(record.details_json);
}

std::string MultiBisectFactsText(const MultiBisectFacts& f) {
  std::string out = fmt::format("bisect of {} {}, {}..{}", f.queries.size(),
                                f.queries.size() == 1 ? "query" : "queries", ShortCommit(f.good),
                                ShortCommit(f.bad));
  if (!f.from_table.empty())
    out += fmt::format(" (the queries that moved in table {})", f.from_table);
  out += "\n";
  bool heading = false;
  for (const MultiBisectCommonChange& c : f.changes) {
    if (c.moved.size() < 2) continue;
    if (!heading) out += "\nchanges that moved several queries:\n";
    heading = true;
    out +=
        fmt::format("CHANGE {} moved {} queries:\n", ChangeName(c.first, c.commit), c.moved.size());
    for (const auto& [q, k] : c.moved) {
      const MultiBisectChangeFacts& m = f.queries[q].changes[k];
      out += fmt::format("  {}  {}, verified over {} pairs\n", f.queries[q].query,
                         RatioText(m.ratio, m.low, m.high), m.pairs);
    }
  }
  out += "\nper query:\n";
  for (int i = 0; i < static_cast<int>(f.queries.size()); ++i) out += QueryText(f, i);
  return out;
}

}  // namespace culprit
