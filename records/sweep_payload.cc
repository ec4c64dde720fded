#include "records/sweep_payload.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "base/strings.h"
#include "records/payload_fields.h"

namespace culprit {
namespace {

using json = nlohmann::json;

std::string Ratio(const std::optional<double>& r, const std::optional<double>& low,
                  const std::optional<double>& high) {
  if (!r) return "no interval";
  if (!low || !high) return fmt::format("×{:.3f}", *r);
  return "×" + FormatRatioInterval(*r, *low, *high);
}

std::string PointName(const SweepQueryFacts& q, int i) {
  if (i < 0 || i >= static_cast<int>(q.points.size())) return "?";
  return fmt::format("#{} {}", q.points[i].index, q.points[i].short_id);
}

/// One line per part, and under a part that holds a move, the bisect that places it.
std::vector<std::string> PartLines(const SweepQueryFacts& q, const SweepFacts& f, bool markdown) {
  std::vector<std::string> out;
  for (const SweepPartFacts& p : q.parts) {
    const std::string between = fmt::format("between {} and {} ({})", PointName(q, p.from),
                                            PointName(q, p.to), CountOf(p.commits, "commit"));
    std::string line;
    if (p.kind == "change") {
      line = fmt::format("moved {} {}", Ratio(p.ratio, p.low, p.high), between);
      if (p.mass < 1) line += fmt::format(", {:.0f}% of its part's posterior", 100 * p.mass);
    } else if (p.kind == "tie") {
      line = fmt::format("no change beyond the band ({}) {}", PercentOf(f.band), between);
    } else {
      line = fmt::format("undecided {}: {}", between, Ratio(p.ratio, p.low, p.high));
    }
    out.push_back(EscapeControlChars(line));
    if (!p.command.empty()) {
      out.push_back(markdown ? "`" + p.command + "`" : "  " + EscapeControlChars(p.command));
    }
  }
  return out;
}

std::string Heading(const SweepFacts& f) {
  int selected = 0, measured = 0;
  if (!f.queries.empty()) {
    for (const SweepPointFacts& p : f.queries[0].points) {
      if (p.index == 0) continue;
      ++selected;
      measured += p.measured;
    }
  }
  return fmt::format(
      "sweep {}..{}: {} commits after the start, {} of them selected ({}), {} measured, each "
      "against the start in one sitting; steps at {:.2f}% confidence, band {}",
      f.good, f.bad, f.commits, selected, f.selection, measured, 100 * f.step_confidence,
      PercentOf(f.band));
}

std::string PointCell(const SweepPointFacts& p) {
  if (p.index == 0) return "the start";
  if (!p.measured) return "not measured: " + FirstLine(p.error);  // The record keeps it all.
  return Ratio(p.ratio, p.low, p.high) + (p.verdict.empty() ? "" : "  " + p.verdict);
}

}  // namespace

std::string SweepFactsToJson(const std::string& table_json, const SweepFacts& f) {
  json doc = json::parse(table_json, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) doc = json::object();
  json sweep;
  sweep["good"] = f.good;
  sweep["bad"] = f.bad;
  sweep["commits"] = f.commits;
  sweep["selection"] = f.selection;
  sweep["band"] = f.band;
  sweep["step_confidence"] = f.step_confidence;
  sweep["queries"] = json::array();
  for (const SweepQueryFacts& q : f.queries) {
    json jq;
    jq["query"] = q.query;
    jq["points"] = json::array();
    for (const SweepPointFacts& p : q.points) {
      jq["points"].push_back({{"index", p.index},
                              {"commit", p.commit},
                              {"short_id", p.short_id},
                              {"subject", p.subject},
                              {"measured", p.measured},
                              {"error", p.error},
                              {"ratio", OptionalNumber(p.ratio)},
                              {"low", OptionalNumber(p.low)},
                              {"high", OptionalNumber(p.high)},
                              {"verdict", p.verdict}});
    }
    jq["parts"] = json::array();
    for (const SweepPartFacts& p : q.parts) {
      jq["parts"].push_back({{"kind", p.kind},
                             {"from", p.from},
                             {"to", p.to},
                             {"commits", p.commits},
                             {"ratio", OptionalNumber(p.ratio)},
                             {"low", OptionalNumber(p.low)},
                             {"high", OptionalNumber(p.high)},
                             {"mass", p.mass},
                             {"command", p.command}});
    }
    sweep["queries"].push_back(std::move(jq));
  }
  doc["sweep"] = std::move(sweep);
  return ToJsonText(doc);
}

std::optional<SweepFacts> ReadSweepFacts(const Record& record) {
  const std::optional<json> section = PayloadSection(record.details_json, "sweep");
  if (!section) return std::nullopt;
  const json& s = *section;
  SweepFacts f;
  f.good = StringAt(s, "good");
  f.bad = StringAt(s, "bad");
  f.commits = IntAt(s, "commits");
  f.selection = StringAt(s, "selection");
  f.band = NumberAt(s, "band").value_or(0.05);
  f.step_confidence = NumberAt(s, "step_confidence").value_or(0.95);
  for (const json& jq : ArrayAt(s, "queries")) {
    if (!jq.is_object()) continue;
    SweepQueryFacts q;
    q.query = StringAt(jq, "query");
    for (const json& jp : ArrayAt(jq, "points")) {
      if (!jp.is_object()) continue;
      SweepPointFacts p;
      p.index = IntAt(jp, "index");
      p.commit = StringAt(jp, "commit");
      p.short_id = StringAt(jp, "short_id");
      p.subject = StringAt(jp, "subject");
      auto m = jp.find("measured");
      p.measured = m == jp.end() || !m->is_boolean() || m->get<bool>();
      p.error = StringAt(jp, "error");
      p.ratio = NumberAt(jp, "ratio");
      p.low = NumberAt(jp, "low");
      p.high = NumberAt(jp, "high");
      p.verdict = StringAt(jp, "verdict");
      q.points.push_back(std::move(p));
    }
    for (const json& jp : ArrayAt(jq, "parts")) {
      if (!jp.is_object()) continue;
      SweepPartFacts p;
      p.kind = StringAt(jp, "kind");
      p.from = IntAt(jp, "from");
      p.to = IntAt(jp, "to");
      p.commits = IntAt(jp, "commits");
      p.ratio = NumberAt(jp, "ratio");
      p.low = NumberAt(jp, "low");
      p.high = NumberAt(jp, "high");
      p.mass = NumberAt(jp, "mass").value_or(1);
      p.command = StringAt(jp, "command");
      q.parts.push_back(std::move(p));
    }
    f.queries.push_back(std::move(q));
  }
  return f;
}

std::string SweepFactsText(const SweepFacts& f) {
  std::string out = EscapeControlChars(Heading(f)) + "\n";
  for (const SweepQueryFacts& q : f.queries) {
    out += fmt::format("\n{}: ratio to the start\n", EscapeControlChars(q.query));
    for (const SweepPointFacts& p : q.points) {
      out += EscapeControlChars(
                 fmt::format("  #{:<4} {:<10}  {}", p.index, p.short_id, PointCell(p))) +
             "\n";
    }
    for (const std::string& line : PartLines(q, f, false)) out += "  " + line + "\n";
  }
  return out;
}

std::string SweepFactsMarkdown(const SweepFacts& f) {
  auto cell = [](const std::string& text) {
    std::string out;
    for (char c : EscapeControlChars(text)) {
      if (c == '|') out += '\\';
      out += c;
    }
    return out;
  };
  std::string out = cell(Heading(f)) + "\n";
  for (const SweepQueryFacts& q : f.queries) {
    out += fmt::format("\n### {}\n\n| # | commit | ratio to the start |\n|---|---|---|\n",
                       cell(q.query));
    for (const SweepPointFacts& p : q.points) {
      out += fmt::format("| {} | `{}` | {} |\n", p.index, cell(p.short_id), cell(PointCell(p)));
    }
    out += "\n";
    for (const std::string& line : PartLines(q, f, true)) out += "- " + cell(line) + "\n";
  }
  return out;
}

}  // namespace culprit
