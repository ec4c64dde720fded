#include "records/table_payload.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "base/strings.h"
#include "records/payload_fields.h"
#include "records/report_facts.h"

namespace culprit {
namespace {

using json = nlohmann::json;

json CellToJson(const TableCellFacts& c) {
  return {{"row", c.row},
          {"arm", c.arm},
          {"status", c.status},
          {"verdict", c.verdict},
          {"explanation", c.explanation},
          {"error", c.error},
          {"ratio", OptionalNumber(c.ratio)},
          {"low", OptionalNumber(c.low)},
          {"high", OptionalNumber(c.high)},
          {"confidence", c.confidence},
          {"pairs", c.pairs},
          {"decided_blocks", c.decided_blocks},
          {"runs", c.runs},
          {"failed", c.failed},
          {"median", OptionalNumber(c.median)}};
}

TableCellFacts CellFromJson(const json& o) {
  TableCellFacts c;
  c.row = IntAt(o, "row");
  c.arm = IntAt(o, "arm");
  c.status = StringAt(o, "status");
  c.verdict = StringAt(o, "verdict");
  c.explanation = StringAt(o, "explanation");
  c.error = StringAt(o, "error");
  c.ratio = NumberAt(o, "ratio");
  c.low = NumberAt(o, "low");
  c.high = NumberAt(o, "high");
  c.confidence = NumberAt(o, "confidence").value_or(0);
  c.pairs = IntAt(o, "pairs");
  c.decided_blocks = IntAt(o, "decided_blocks");
  c.runs = IntAt(o, "runs");
  c.failed = IntAt(o, "failed");
  c.median = NumberAt(o, "median");
  return c;
}

json ClaimToJson(const TableClaimFacts& c) {
  return {{"row", c.row},
          {"arm", c.arm},
          {"label", c.label},
          {"published", OptionalNumber(c.published)},
          {"published_baseline", OptionalNumber(c.published_baseline)},
          {"published_ratio", OptionalNumber(c.published_ratio)},
          {"sittings", c.sittings},
          {"explanation", c.explanation}};
}

TableClaimFacts ClaimFromJson(const json& o) {
  TableClaimFacts c;
  c.row = IntAt(o, "row");
  c.arm = IntAt(o, "arm");
  c.label = StringAt(o, "label");
  c.published = NumberAt(o, "published");
  c.published_baseline = NumberAt(o, "published_baseline");
  c.published_ratio = NumberAt(o, "published_ratio");
  c.sittings = StringAt(o, "sittings");
  c.explanation = StringAt(o, "explanation");
  return c;
}

std::string Percent(double fraction) {
  std::string text = fmt::format("{:.3g}%", 100 * fraction);
  return text;
}

// "1.003 [0.991, 1.012] NULL", "baseline", "not measured".
std::string CellText(const TableCellFacts& c) {
  if (c.status == "baseline") return "1 (baseline)";
  if (c.status == "not measured") return "not measured";
  std::string text =
      c.ratio ? FormatRatioInterval(*c.ratio, *c.low, *c.high) : std::string("no interval");
  return text + " " + (c.verdict.empty() ? "-" : c.verdict);
}

std::string MeanText(const TableFacts& f, int arm) {
  for (const TableMeanFacts& m : f.means) {
    if (m.arm == arm) {
      return FormatRatioInterval(m.ratio, m.low, m.high);
    }
  }
  return arm == 0 ? "1 (baseline)" : "-";
}

std::string Heading(const TableFacts& f) {
  const std::string baseline = f.arms.empty() ? "arm 0" : f.arms[0].name;
  std::string text = fmt::format(
      "table: {} quer{} × {} arms in one sitting; each cell is arm / {} (the baseline) of the "
      "query's metric\n",
      f.rows.size(), f.rows.size() == 1 ? "y" : "ies", f.arms.size(), baseline);
  text += fmt::format(
      "each cell: ratio [interval] verdict; intervals at {} each (Bonferroni over {} cells: "
      "{} for the whole table at once); band {}\n",
      Percent(1 - f.cell_alpha), f.cells_tested, Percent(f.confidence), FormatBand(f.band));
  return text;
}

std::string MedianText(const TableCellFacts* c) {
  return c && c->median ? FormatValue(*c->median) : "-";
}

// A Markdown table cell: no line breaks, pipes and Markdown's punctuation escaped.
std::string MdCell(std::string_view text) {
  std::string out;
  for (char ch : text) {
    if (ch == '\n' || ch == '\r' || ch == '\t') {
      out += ' ';
    } else if (std::string_view("\\|*_`<>[]#~").find(ch) != std::string_view::npos) {
      out += '\\';
      out += ch;
    } else {
      out += ch;
    }
  }
  return out.empty() ? "-" : out;
}

std::string MdTable(const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    out += "|";
    for (const std::string& cell : rows[r]) out += " " + MdCell(cell) + " |";
    out += "\n";
    if (r == 0) {
      out += "|";
      for (size_t i = 0; i < rows[r].size(); ++i) out += "---|";
      out += "\n";
    }
  }
  return out;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::vector<std::vector<std::string>> RatioRows(const TableFacts& f) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {"query"};
  for (const TableArmFacts& arm : f.arms) head.push_back(arm.name);
  head.push_back("blocks");
  rows.push_back(head);
  for (size_t r = 0; r < f.rows.size(); ++r) {
    std::vector<std::string> line = {f.rows[r].query};
    for (size_t a = 0; a < f.arms.size(); ++a) {
      const TableCellFacts* c = f.Cell(static_cast<int>(r), static_cast<int>(a));
      line.push_back(c ? CellText(*c) : "-");
    }
    line.push_back(std::to_string(f.rows[r].blocks));
    rows.push_back(line);
  }
  std::vector<std::string> mean = {"geometric mean"};
  for (size_t a = 0; a < f.arms.size(); ++a) mean.push_back(MeanText(f, static_cast<int>(a)));
  mean.push_back("");
  rows.push_back(mean);
  return rows;
}

std::vector<std::vector<std::string>> MedianRows(const TableFacts& f) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {"query"};
  for (const TableArmFacts& arm : f.arms) head.push_back(arm.name);
  head.push_back("unit");
  rows.push_back(head);
  for (size_t r = 0; r < f.rows.size(); ++r) {
    std::vector<std::string> line = {f.rows[r].query};
    for (size_t a = 0; a < f.arms.size(); ++a) {
      line.push_back(MedianText(f.Cell(static_cast<int>(r), static_cast<int>(a))));
    }
    line.push_back(f.rows[r].unit);
    rows.push_back(line);
  }
  return rows;
}

std::string MeansNote(const TableFacts& f) {
  if (f.means.empty()) return "";
  return fmt::format(
      "geometric mean: of each arm's measured cells, with a {} interval (a summary, not one of "
      "the table's tests)\n",
      Percent(f.means.front().confidence));
}

std::vector<std::string> Problems(const TableFacts& f) {
  std::vector<std::string> lines;
  for (const TableCellFacts& c : f.cells) {
    if (c.error.empty()) continue;
    const std::string query = c.row < static_cast<int>(f.rows.size()) ? f.rows[c.row].query : "?";
    const std::string arm = c.arm < static_cast<int>(f.arms.size()) ? f.arms[c.arm].name : "?";
    lines.push_back(fmt::format("{} × {}: not measured: {}", query, arm, c.error));
  }
  return lines;
}

std::string RowName(const TableFacts& f, int row) {
  return row >= 0 && row < static_cast<int>(f.rows.size()) ? f.rows[row].query : "?";
}
std::string ArmName(const TableFacts& f, int arm) {
  return arm >= 0 && arm < static_cast<int>(f.arms.size()) ? f.arms[arm].name : "?";
}

std::string ClaimsHeading(const TableFacts& f) {
  return fmt::format(
      "published claims ({}): each column against {}, the published baseline, re-measured "
      "above in this sitting\n",
      f.check_source, ArmName(f, 0));
}

std::vector<std::vector<std::string>> ClaimRows(const TableFacts& f) {
  std::vector<std::vector<std::string>> rows = {
      {"query", "column", "published ratio", "re-measured", "claim", "published sittings"}};
  for (const TableClaimFacts& c : f.claims) {
    const TableCellFacts* cell = f.Cell(c.row, c.arm);
    rows.push_back({RowName(f, c.row), ArmName(f, c.arm),
                    c.published_ratio ? fmt::format("{:.3f}", *c.published_ratio) : "-",
                    cell ? CellText(*cell) : "-", c.label, c.sittings});
  }
  return rows;
}

// "q1 × theirs: tie: published ×0.975, measured ...": why each claim is labelled so.
std::vector<std::string> ClaimLines(const TableFacts& f) {
  std::vector<std::string> lines;
  for (const TableClaimFacts& c : f.claims) {
    std::string line = fmt::format("{} × {}: {}: {}", RowName(f, c.row), ArmName(f, c.arm), c.label,
                                   c.explanation);
    if (c.sittings == "two unrelated numbers divided") {
      line += "; its published values came from two sittings: two unrelated numbers divided";
    } else if (c.sittings.rfind("cross-host", 0) == 0) {
      line +=
          "; its published values came from two hosts: a cross-host ratio, which says as much "
          "about the hosts as about what they ran (the re-measured cell is from one host)";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string ClaimCounts(const TableFacts& f) {
  std::vector<std::string> parts;
  for (const char* label :
       {"holds", "tie", "reversed", "undecided", "not published", "not checked"}) {
    const auto n = std::count_if(f.claims.begin(), f.claims.end(),
                                 [&](const TableClaimFacts& c) { return c.label == label; });
    if (n > 0) parts.push_back(fmt::format("{} {}", n, label));
  }
  return fmt::format("claims: {} of {}", Join(parts, ", "), f.claims.size());
}

// "q1 × HEAD: <the cell's explanation>" for each undecided cell: an INCONCLUSIVE says why,
// and, where more blocks would settle it, how many (its explanation ends "collect more pairs
// (--max-pairs N)"). A cell whose claim is "undecided" is left to its claim line, which
// prints the same explanation.
std::vector<std::string> UndecidedLines(const TableFacts& f) {
  std::vector<std::string> lines;
  for (const TableCellFacts& c : f.cells) {
    if (c.status != "measured" || c.verdict != "INCONCLUSIVE" || c.explanation.empty()) continue;
    const bool claimed = std::any_of(f.claims.begin(), f.claims.end(), [&](const auto& claim) {
      return claim.row == c.row && claim.arm == c.arm && claim.label == "undecided";
    });
    if (claimed) continue;
    lines.push_back(
        fmt::format("{} × {}: {}", RowName(f, c.row), ArmName(f, c.arm), c.explanation));
  }
  return lines;
}

}  // namespace

const TableCellFacts* TableFacts::Cell(int row, int arm) const {
  for (const TableCellFacts& c : cells) {
    if (c.row == row && c.arm == arm) return &c;
  }
  return nullptr;
}

std::string TableFactsToJson(const TableFacts& f) {
  json doc;
  doc["rows"] = json::array();
  for (const TableRowFacts& row : f.rows) {
    doc["rows"].push_back({{"query", row.query}, {"unit", row.unit}, {"blocks", row.blocks}});
  }
  doc["arms"] = json::array();
  for (const TableArmFacts& arm : f.arms) {
    doc["arms"].push_back({{"name", arm.name}, {"setup", arm.setup}});
  }
  doc["cells"] = json::array();
  for (const TableCellFacts& c : f.cells) doc["cells"].push_back(CellToJson(c));
  doc["means"] = json::array();
  for (const TableMeanFacts& m : f.means) {
    doc["means"].push_back({{"arm", m.arm},
                            {"ratio", m.ratio},
                            {"low", m.low},
                            {"high", m.high},
                            {"confidence", m.confidence},
                            {"cells", m.cells}});
  }
  doc["band"] = f.band;
  doc["confidence"] = f.confidence;
  doc["cell_alpha"] = f.cell_alpha;
  doc["cells_tested"] = f.cells_tested;
  doc["looks"] = f.looks;
  doc["seed"] = std::to_string(f.seed);
  if (!f.claims.empty() || !f.check_source.empty()) {
    doc["check"] = {{"source", f.check_source}, {"claims", json::array()}};
    for (const TableClaimFacts& c : f.claims) doc["check"]["claims"].push_back(ClaimToJson(c));
  }
  return ToJsonText(doc);
}

std::optional<TableFacts> ReadTableFacts(const Record& record) {
  std::optional<json> parsed = PayloadObject(record.details_json);
  if (!parsed || !parsed->contains("cells")) return std::nullopt;
  const json& doc = *parsed;
  TableFacts f;
  auto array = [&](const char* key) {
    auto it = doc.find(key);
    return it != doc.end() && it->is_array() ? *it : json::array();
  };
  for (const json& row : array("rows")) {
    if (!row.is_object()) continue;
    f.rows.push_back({StringAt(row, "query"), StringAt(row, "unit"), IntAt(row, "blocks")});
  }
  for (const json& arm : array("arms")) {
    if (!arm.is_object()) continue;
    f.arms.push_back({StringAt(arm, "name"), StringAt(arm, "setup")});
  }
  for (const json& cell : array("cells")) {
    if (cell.is_object()) f.cells.push_back(CellFromJson(cell));
  }
  for (const json& m : array("means")) {
    if (!m.is_object()) continue;
    TableMeanFacts mean;
    mean.arm = IntAt(m, "arm");
    mean.ratio = NumberAt(m, "ratio").value_or(1);
    mean.low = NumberAt(m, "low").value_or(1);
    mean.high = NumberAt(m, "high").value_or(1);
    mean.confidence = NumberAt(m, "confidence").value_or(0.95);
    mean.cells = IntAt(m, "cells");
    f.means.push_back(mean);
  }
  f.band = NumberAt(doc, "band").value_or(record.band);
  f.confidence = NumberAt(doc, "confidence").value_or(0.95);
  f.cell_alpha = NumberAt(doc, "cell_alpha").value_or(0.05);
  f.cells_tested = IntAt(doc, "cells_tested");
  for (const json& look : array("looks")) {
    if (look.is_number()) f.looks.push_back(look.get<int>());
  }
  auto check = doc.find("check");
  if (check != doc.end() && check->is_object()) {
    f.check_source = StringAt(*check, "source");
    auto claims = check->find("claims");
    if (claims != check->end() && claims->is_array()) {
      for (const json& c : *claims) {
        if (c.is_object()) f.claims.push_back(ClaimFromJson(c));
      }
    }
  }
  return f;
}

std::string TableFactsText(const TableFacts& f) {
  std::string out = Heading(f) + "\n" + AlignColumns(RatioRows(f));
  out += MeansNote(f);
  out += "\nthis sitting's medians (not for comparing across sittings)\n" +
         AlignColumns(MedianRows(f));
  if (std::vector<std::string> undecided = UndecidedLines(f); !undecided.empty()) {
    out += "\nthe undecided cells, and why\n";
    for (const std::string& line : undecided) out += EscapeControlChars(line) + "\n";
  }
  std::vector<std::string> problems = Problems(f);
  if (!problems.empty()) {
    out += "\n";
    for (const std::string& line : problems) out += EscapeControlChars(line) + "\n";
  }
  if (!f.claims.empty()) {
    out += "\n" + ClaimsHeading(f) + AlignColumns(ClaimRows(f));
    for (const std::string& line : ClaimLines(f)) out += EscapeControlChars(line) + "\n";
    out += ClaimCounts(f) + "\n";
  }
  return out;
}

std::string TableFactsMarkdown(const TableFacts& f) {
  std::string out = MdCell(Heading(f)) + "\n\n" + MdTable(RatioRows(f));
  if (!f.means.empty()) out += "\n" + MdCell(MeansNote(f)) + "\n";
  out +=
      "\nThis sitting's medians (not for comparing across sittings):\n\n" + MdTable(MedianRows(f));
  if (std::vector<std::string> undecided = UndecidedLines(f); !undecided.empty()) {
    out += "\nThe undecided cells, and why:\n\n";
    for (const std::string& line : undecided) out += "- " + MdCell(line) + "\n";
  }
  std::vector<std::string> problems = Problems(f);
  if (!problems.empty()) out += "\n";
  for (const std::string& line : problems) out += "- " + MdCell(line) + "\n";
  if (!f.claims.empty()) {
    out += "\n" + MdCell(ClaimsHeading(f)) + "\n\n" + MdTable(ClaimRows(f)) + "\n";
    for (const std::string& line : ClaimLines(f)) out += "- " + MdCell(line) + "\n";
    out += "\n" + MdCell(ClaimCounts(f)) + "\n";
  }
  return out;
}

std::string TableFactsCsv(const TableFacts& f) {
  // With --check, each cell's claim follows its measurement on the same line.
  const bool check = !f.claims.empty();
  std::string out =
      "query,arm,status,verdict,ratio,low,high,confidence,pairs,blocks,median,unit,runs,failed,"
      "error";
  out += check ? ",claim,published_ratio,published_sittings\n" : "\n";
  auto number = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.6g}", *v) : std::string();
  };
  for (const TableCellFacts& c : f.cells) {
    const bool row_ok = c.row >= 0 && c.row < static_cast<int>(f.rows.size());
    const bool arm_ok = c.arm >= 0 && c.arm < static_cast<int>(f.arms.size());
    std::vector<std::string> fields = {row_ok ? f.rows[c.row].query : "",
                                       arm_ok ? f.arms[c.arm].name : "",
                                       c.status,
                                       c.verdict,
                                       number(c.ratio),
                                       number(c.low),
                                       number(c.high),
                                       c.ratio ? fmt::format("{:.6g}", c.confidence) : "",
                                       std::to_string(c.pairs),
                                       row_ok ? std::to_string(f.rows[c.row].blocks) : "",
                                       number(c.median),
                                       row_ok ? f.rows[c.row].unit : "",
                                       std::to_string(c.runs),
                                       std::to_string(c.failed),
                                       c.error};
    if (check) {
      const TableClaimFacts* claim = nullptr;
      for (const TableClaimFacts& k : f.claims) {
        if (k.row == c.row && k.arm == c.arm) claim = &k;
      }
      fields.push_back(claim ? claim->label : "");
      fields.push_back(claim ? number(claim->published_ratio) : "");
      fields.push_back(claim ? claim->sittings : "");
    }
    std::string line;
    for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + CsvField(fields[i]);
    out += line + "\n";
  }
  return out;
}

}  // namespace culprit
