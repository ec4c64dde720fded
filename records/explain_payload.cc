#include "records/explain_payload.h"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "base/strings.h"
#include "records/payload_fields.h"

namespace culprit {
namespace {

using json = nlohmann::json;

constexpr std::string_view kPlaceNames[] = {"touched", "on-path", "elsewhere"};

/// 1234567 -> "1,234,567"; a sign when asked ("+1,234").
std::string Grouped(int64_t value, bool sign = false) {
  std::string digits =
      std::to_string(value < 0 ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  if (value < 0) return "-" + out;
  return sign ? "+" + out : out;
}

std::string GroupedCount(uint64_t value) { return Grouped(static_cast<int64_t>(value)); }

std::string Relative(const ExplainFunctionFacts& f) {
  std::optional<double> r = f.Relative();
  if (!r) return f.change_instructions > 0 ? "new" : "-";
  return PercentChange(1 + *r);
}

std::string Where(const ExplainFunctionFacts& f) {
  if (f.first_line <= 0) return f.file;
  if (f.hottest_line > 0 && f.hottest_line != f.first_line) {
    return fmt::format("{}:{} (hottest {})", f.file, f.first_line, f.hottest_line);
  }
  return fmt::format("{}:{}", f.file, f.first_line);
}

std::string PlaceLabel(FunctionPlace place) {
  switch (place) {
    case FunctionPlace::kTouched:
      return "touched by the change";
    case FunctionPlace::kOnPath:
      return "on the path, untouched";
    case FunctionPlace::kElsewhere:
      break;
  }
  return "";
}

std::optional<int64_t> MissDelta(const std::optional<uint64_t>& a,
                                 const std::optional<uint64_t>& b) {
  if (!a || !b) return std::nullopt;
  return static_cast<int64_t>(*b) - static_cast<int64_t>(*a);
}

bool Beyond(const ExplainFacts& f, const ExplainFunctionFacts& fn) {
  return static_cast<uint64_t>(std::llabs(fn.Delta())) > f.NoiseFloor();
}

/// The rows a table shows: the `top` functions that moved beyond the floor; when none did,
/// the `top` that moved at all (`*within` set).
std::vector<const ExplainFunctionFacts*> Shown(const ExplainFacts& f, size_t top, bool* within) {
  std::vector<const ExplainFunctionFacts*> out;
  *within = f.functions.empty() || !Beyond(f, f.functions[0]);  // Ranked: the first is largest.
  for (const ExplainFunctionFacts& fn : f.functions) {
    if (fn.Delta() == 0 || (!*within && !Beyond(f, fn))) break;
    if (top > 0 && out.size() == top) break;
    out.push_back(&fn);
  }
  return out;
}

/// A long (C++) name cut in its middle, for a table; the record keeps it whole.
std::string ShortName(const std::string& name) { return ClipMiddle(name, 60); }

std::vector<std::string> Heading(const ExplainFacts& f) {
  std::vector<std::string> out;
  out.push_back(fmt::format("explain {}: {} \"{}\" against its parent {}", f.query,
                            ShortCommit(f.change), f.change_subject, ShortCommit(f.parent)));
  const double ratio = f.parent_instructions > 0 ? static_cast<double>(f.change_instructions) /
                                                       static_cast<double>(f.parent_instructions)
                                                 : 0;
  out.push_back(fmt::format(
      "instructions {} -> {} ({}), one run of each under cachegrind ({}, cache simulation {}, "
      "ASLR off; {:.1f} s and {:.1f} s)",
      GroupedCount(f.parent_instructions), GroupedCount(f.change_instructions),
      PercentChange(ratio), f.valgrind.empty() ? "valgrind" : f.valgrind,
      f.cache_sim ? "on" : "off", f.parent_seconds, f.change_seconds));
  out.push_back(
      "instruction counts repeat within 0.1% from run to run (docs/usage.md), so one run per "
      "side is enough");
  out.push_back("changed files: " +
                (f.changed_files.empty() ? std::string("none") : Join(f.changed_files, ", ")));
  out.push_back("query's path: " + f.code_path);
  return out;
}

/// How many functions moved beyond the floor and within it, the share of the instructions
/// that moved beyond it (sum of |delta|) in each place, and the sentence of the "impossible"
/// culprit when the function that moved most is on the path, untouched.
std::vector<std::string> Summary(const ExplainFacts& f, size_t shown) {
  std::vector<std::string> out;
  double total = 0, by_place[3] = {0, 0, 0};
  size_t moved = 0, within = 0;
  for (const ExplainFunctionFacts& fn : f.functions) {
    if (fn.Delta() == 0) continue;
    if (!Beyond(f, fn)) {
      ++within;
      continue;
    }
    ++moved;
    const double d = static_cast<double>(std::llabs(fn.Delta()));
    total += d;
    by_place[static_cast<int>(fn.place)] += d;
  }
  const std::string floor =
      fmt::format("0.1% of the parent's instructions, {}", GroupedCount(f.NoiseFloor()));
  if (moved == 0) {
    out.push_back(fmt::format(
        "no function moved by more than the run-to-run floor ({}): at this change the query's "
        "instructions did not move, function by function; {} of {} functions moved less{}",
        floor, within, f.functions.size(), within > 0 ? " (the largest above)" : ""));
    return out;
  }
  out.push_back(
      fmt::format("{} of {} functions moved by more than the run-to-run floor ({}){}; "
                  "{} moved less",
                  moved, f.functions.size(), floor,
                  shown < moved ? fmt::format(", the top {} shown (the record has "
                                              "every function)",
                                              shown)
                                : "",
                  within));
  out.push_back(fmt::format(
      "of the instructions that moved beyond it (sum of |delta| {}): {:.1f}% in files the "
      "change touched, {:.1f}% on the query's path untouched, {:.1f}% elsewhere",
      GroupedCount(static_cast<uint64_t>(total)), 100 * by_place[0] / total,
      100 * by_place[1] / total, 100 * by_place[2] / total));
  if (f.functions[0].place == FunctionPlace::kOnPath) {
    out.push_back(fmt::format(
        "the function that moved most, {}, is on the query's path in a file the change did not "
        "touch: the change moved it from elsewhere (layout, what is resident, a caller's "
        "input): the \"impossible\" culprit's fingerprint",
        ShortName(f.functions[0].function)));
  }
  return out;
}

std::vector<std::string> Row(const ExplainFunctionFacts& fn, bool cache_sim) {
  std::vector<std::string> row = {Grouped(fn.Delta(), true), Relative(fn),
                                  GroupedCount(fn.parent_instructions),
                                  GroupedCount(fn.change_instructions)};
  if (cache_sim) {
    std::optional<int64_t> d1 = MissDelta(fn.parent_d1_misses, fn.change_d1_misses);
    std::optional<int64_t> ll = MissDelta(fn.parent_ll_misses, fn.change_ll_misses);
    row.push_back(d1 ? Grouped(*d1, true) : "-");
    row.push_back(ll ? Grouped(*ll, true) : "-");
  }
  row.push_back(ShortName(fn.function));
  row.push_back(Where(fn));
  row.push_back(PlaceLabel(fn.place));
  return row;
}

std::vector<std::string> Header(bool cache_sim) {
  std::vector<std::string> h = {"delta", "relative", "parent", "change"};
  if (cache_sim) {
    h.push_back("delta D1 misses");
    h.push_back("delta LL misses");
  }
  for (const char* c : {"function", "file:line", "place"}) h.push_back(c);
  return h;
}

json FunctionToJson(const ExplainFunctionFacts& fn) {
  auto count = [](const std::optional<uint64_t>& v) { return v ? json(*v) : json(nullptr); };
  return {{"function", fn.function},
          {"file", fn.file},
          {"first_line", fn.first_line},
          {"hottest_line", fn.hottest_line},
          {"parent_instructions", fn.parent_instructions},
          {"change_instructions", fn.change_instructions},
          {"parent_d1_misses", count(fn.parent_d1_misses)},
          {"change_d1_misses", count(fn.change_d1_misses)},
          {"parent_ll_misses", count(fn.parent_ll_misses)},
          {"change_ll_misses", count(fn.change_ll_misses)},
          {"place", std::string(FunctionPlaceName(fn.place))}};
}

std::optional<uint64_t> CountAt(const json& o, const char* key) {
  std::optional<double> n = NumberAt(o, key);
  if (!n || *n < 0) return std::nullopt;
  return static_cast<uint64_t>(*n);
}

}  // namespace

uint64_t ExplainFacts::NoiseFloor() const { return parent_instructions / 1000; }

int64_t ExplainFunctionFacts::Delta() const {
  return static_cast<int64_t>(change_instructions) - static_cast<int64_t>(parent_instructions);
}

std::optional<double> ExplainFunctionFacts::Relative() const {
  if (parent_instructions == 0) return std::nullopt;
  return static_cast<double>(change_instructions) / static_cast<double>(parent_instructions) - 1;
}

std::string ExplainDeltaText(const ExplainFunctionFacts& fn) {
  return fmt::format("{} ({})", Grouped(fn.Delta(), true), Relative(fn));
}

std::string_view FunctionPlaceName(FunctionPlace place) { return NameIn(kPlaceNames, place); }

std::string ExplainFactsToJson(const ExplainFacts& f) {
  json e;
  e["version"] = f.version;
  e["query"] = f.query;
  e["metric"] = f.metric;
  e["parent"] = f.parent;
  e["change"] = f.change;
  e["change_subject"] = f.change_subject;
  e["cache_sim"] = f.cache_sim;
  e["valgrind"] = f.valgrind;
  e["parent_instructions"] = f.parent_instructions;
  e["change_instructions"] = f.change_instructions;
  e["parent_seconds"] = f.parent_seconds;
  e["change_seconds"] = f.change_seconds;
  e["changed_files"] = f.changed_files;
  e["code_path"] = f.code_path;
  e["functions"] = json::array();
  for (const ExplainFunctionFacts& fn : f.functions) e["functions"].push_back(FunctionToJson(fn));
  json doc;
  doc["explain"] = std::move(e);
  return ToJsonText(doc);
}

std::optional<ExplainFacts> ReadExplainFacts(const Record& record) {
  const std::optional<json> section = PayloadSection(record.details_json, "explain");
  if (!section) return std::nullopt;
  const json& e = *section;
  ExplainFacts f;
  f.version = IntAt(e, "version");
  if (f.version != kExplainPayloadVersion) return std::nullopt;
  f.query = StringAt(e, "query");
  f.metric = StringAt(e, "metric");
  f.parent = StringAt(e, "parent");
  f.change = StringAt(e, "change");
  f.change_subject = StringAt(e, "change_subject");
  f.cache_sim = BoolAt(e, "cache_sim");
  f.valgrind = StringAt(e, "valgrind");
  f.parent_instructions = CountAt(e, "parent_instructions").value_or(0);
  f.change_instructions = CountAt(e, "change_instructions").value_or(0);
  f.parent_seconds = NumberAt(e, "parent_seconds").value_or(0);
  f.change_seconds = NumberAt(e, "change_seconds").value_or(0);
  for (const json& file : ArrayAt(e, "changed_files")) {
    if (file.is_string()) f.changed_files.push_back(file.get<std::string>());
  }
  f.code_path = StringAt(e, "code_path");
  for (const json& j : ArrayAt(e, "functions")) {
    if (!j.is_object()) continue;
    ExplainFunctionFacts fn;
    fn.function = StringAt(j, "function");
    fn.file = StringAt(j, "file");
    fn.first_line = IntAt(j, "first_line");
    fn.hottest_line = IntAt(j, "hottest_line");
    fn.parent_instructions = CountAt(j, "parent_instructions").value_or(0);
    fn.change_instructions = CountAt(j, "change_instructions").value_or(0);
    fn.parent_d1_misses = CountAt(j, "parent_d1_misses");
    fn.change_d1_misses = CountAt(j, "change_d1_misses");
    fn.parent_ll_misses = CountAt(j, "parent_ll_misses");
    fn.change_ll_misses = CountAt(j, "change_ll_misses");
    fn.place = ParseIn<FunctionPlace>(kPlaceNames, StringAt(j, "place"))
                   .value_or(FunctionPlace::kElsewhere);
    f.functions.push_back(std::move(fn));
  }
  return f;
}

std::string ExplainFactsText(const ExplainFacts& f, size_t top) {
  std::string out;
  for (const std::string& line : Heading(f)) out += EscapeControlChars(line) + "\n";
  bool within = false;
  const std::vector<const ExplainFunctionFacts*> shown = Shown(f, top, &within);
  std::vector<std::vector<std::string>> rows = {Header(f.cache_sim)};
  for (const ExplainFunctionFacts* fn : shown) rows.push_back(Row(*fn, f.cache_sim));
  // Escaped before they are measured, so that a function name's control byte cannot push its
  // row out of line; widths in characters (fmt pads by them too), not bytes.
  for (auto& row : rows) {
    for (std::string& cell : row) cell = EscapeControlChars(cell);
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], TextWidth(row[c]));
  }
  out += "\n";
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t c = 0; c < row.size(); ++c) {
      // Numbers right-aligned, names left-aligned; the last column unpadded.
      const bool number = c + 3 < row.size();
      if (c + 1 == row.size()) {
        line += " " + row[c];
      } else if (number) {
        line += fmt::format(" {:>{}}", row[c], widths[c]);
      } else {
        line += fmt::format(" {:<{}}", row[c], widths[c]);
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += "\n";
  for (const std::string& line : Summary(f, shown.size())) out += EscapeControlChars(line) + "\n";
  return out;
}

std::string ExplainFactsMarkdown(const ExplainFacts& f, size_t top) {
  auto cell = [](const std::string& text) {
    std::string out;
    for (char c : EscapeControlChars(text)) {
      if (c == '|') out += '\\';
      out += c;
    }
    return out;
  };
  std::string out;
  for (const std::string& line : Heading(f)) out += "- " + cell(line) + "\n";
  bool within = false;
  const std::vector<const ExplainFunctionFacts*> shown = Shown(f, top, &within);
  const std::vector<std::string> header = Header(f.cache_sim);
  out += "\n|";
  for (const std::string& h : header) out += " " + h + " |";
  out += "\n|";
  for (size_t c = 0; c < header.size(); ++c) out += c + 3 < header.size() ? "---:|" : "---|";
  out += "\n";
  for (const ExplainFunctionFacts* fn : shown) {
    std::vector<std::string> row = Row(*fn, f.cache_sim);
    out += "|";
    for (size_t c = 0; c < row.size(); ++c) {
      const bool code = c + 3 == row.size() || c + 2 == row.size();
      out += " " + (code ? "`" + cell(row[c]) + "`" : cell(row[c])) + " |";
    }
    out += "\n";
  }
  out += "\n";
  for (const std::string& line : Summary(f, shown.size())) out += "- " + cell(line) + "\n";
  return out;
}

}  // namespace culprit
