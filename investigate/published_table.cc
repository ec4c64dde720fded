#include "investigate/published_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "base/atomic_file.h"
#include "base/json_text.h"
#include "base/numbers.h"
#include "base/strings.h"
#include "probes/host_tuning.h"
#include "probes/statistics.h"

namespace culprit {
namespace {

using json = nlohmann::json;

std::vector<std::string> SplitCsv(std::string_view line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    fields.emplace_back(TrimBlanks(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

// A published value must be a measurement: a number, finite, above zero.
std::optional<double> PositiveNumber(std::string_view text) {
  const std::optional<double> value = ParseFiniteNumber(text);
  if (!value || *value <= 0) return std::nullopt;
  return value;
}

Status CheckRows(const std::vector<PublishedNumber>& rows, std::string_view name) {
  if (rows.empty()) {
    return Error::Usage(fmt::format("{}: the table has no rows", name))
        .WithHint("a published table lists at least one query with its value (docs/audit.md)");
  }
  std::set<std::string> seen;
  for (const PublishedNumber& row : rows) {
    if (!seen.insert(row.query).second) {
      return Error::Usage(
          fmt::format("{}: query '{}' appears twice; each query has one published value",
                      row.source, row.query));
    }
  }
  return {};
}

// ---- CSV ----

/// OK when the header line's fields are known columns, none twice, with query, value and
/// revision among them.
Status CheckCsvHeader(const std::vector<std::string>& fields, const std::string& where) {
  static const std::vector<std::string> kColumns = {"query", "value",  "revision",
                                                    "unit",  "commit", "calibration_ms"};
  for (const std::string& column : fields) {
    if (std::find(kColumns.begin(), kColumns.end(), column) == kColumns.end()) {
      return Error::Usage(fmt::format("{}: unknown column '{}'{}", where, column,
                                      DidYouMean(column, kColumns)))
          .WithHint("columns: " + Join(kColumns, ", ") + " (query, value and revision required)");
    }
    if (std::count(fields.begin(), fields.end(), column) > 1) {
      return Error::Usage(fmt::format("{}: column '{}' appears twice", where, column));
    }
  }
  for (const char* required : {"query", "value", "revision"}) {
    if (std::find(fields.begin(), fields.end(), required) == fields.end()) {
      return Error::Usage(fmt::format("{}: the header has no '{}' column", where, required))
          .WithHint("the first line names the columns, e.g. query,value,revision");
    }
  }
  return {};
}

/// One data line's row, its fields read by the header's columns; an error names the
/// line and the field that is wrong.
Result<PublishedNumber> CsvRow(const std::vector<std::string>& header,
                               const std::vector<std::string>& fields, const std::string& where) {
  if (fields.size() != header.size()) {
    return Error::Usage(
        fmt::format("{}: expected {} fields (as the header on its first line), "
                    "found {}",
                    where, header.size(), fields.size()));
  }
  PublishedNumber row;
  row.source = where;
  for (size_t c = 0; c < header.size(); ++c) {
    const std::string& column = header[c];
    const std::string& field = fields[c];
    if (column == "query") {
      if (field.empty()) return Error::Usage(fmt::format("{}: the query is empty", where));
      row.query = field;
    } else if (column == "value") {
      std::optional<double> value = PositiveNumber(field);
      if (!value) {
        return Error::Usage(
            fmt::format("{}: value: expected a positive number, found '{}'", where, field));
      }
      row.value = *value;
    } else if (column == "revision") {
      if (field.empty()) {
        return Error::Usage(fmt::format("{}: the revision is empty", where))
            .WithHint("each published value names the commit or tag it was measured at");
      }
      row.revision = field;
    } else if (column == "unit") {
      row.unit = field;
    } else if (column == "commit") {
      row.commit = field;
    } else if (column == "calibration_ms" && !field.empty()) {
      std::optional<double> value = PositiveNumber(field);
      if (!value) {
        return Error::Usage(fmt::format(
            "{}: calibration_ms: expected a positive number, found '{}'", where, field));
      }
      row.calibration_ms = value;
    }
  }
  return row;
}

Result<std::vector<PublishedNumber>> ParseCsv(std::string_view text, std::string_view name) {
  std::vector<std::string> header;
  std::vector<PublishedNumber> rows;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string line(TrimBlanks(lines[i]));
    const std::string where = fmt::format("{}:{}", name, i + 1);
    if (line.empty() || line[0] == '#') continue;
    if (line.find('"') != std::string::npos) {
      return Error::Usage(fmt::format("{}: quoted fields are not supported", where))
          .WithHint("query names and values need no quotes; a field cannot hold a comma");
    }
    std::vector<std::string> fields = SplitCsv(line);
    if (header.empty()) {
      CULPRIT_TRY(CheckCsvHeader(fields, where));
      header = std::move(fields);
      continue;
    }
    auto row = CsvRow(header, fields, where);
    if (!row) return row.error();
    rows.push_back(std::move(*row));
  }
  if (header.empty()) {
    return Error::Usage(fmt::format("{}: the table is empty", name))
        .WithHint("the first line names the columns, e.g. query,value,revision");
  }
  CULPRIT_TRY(CheckRows(rows, name));
  return rows;
}

// ---- JSON ----

// "LINE:COLUMN" of byte offset `offset` (1-based, as editors count).
std::string LineColumn(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("{}:{}", line, column);
}

/// A value of the wrong type as the error shows it: its JSON, whatever text it
/// holds, cut short and without control characters (the table is someone else's).
std::string Shown(const json& value) {
  constexpr size_t kMaxShownBytes = 80;
  std::string text = ToJsonText(value);
  if (text.size() > kMaxShownBytes) text = text.substr(0, kMaxShownBytes) + "...";
  return EscapeControlChars(text);
}

Result<std::string> OptionalString(const json& object, const std::string& key,
                                   const std::string& where) {
  if (!object.contains(key) || object[key].is_null()) return std::string();
  if (!object[key].is_string()) {
    return Error::Usage(fmt::format("{}.{}: expected a string", where, key));
  }
  return object[key].get<std::string>();
}

Result<std::optional<double>> OptionalPositive(const json& object, const std::string& key,
                                               const std::string& where) {
  if (!object.contains(key) || object[key].is_null()) return std::optional<double>();
  const json& v = object[key];
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
    return Error::Usage(
        fmt::format("{}.{}: expected a positive number, found {}", where, key, Shown(v)));
  }
  return std::optional<double>(v.get<double>());
}

Result<std::vector<PublishedNumber>> ReadJsonTable(const json& doc, std::string_view name);

Result<std::vector<PublishedNumber>> ParseJson(std::string_view text, std::string_view name) {
  // A third party's table: nested deeper than any table could need, it is
  // refused before parsing, since dump() and copies recurse once per level.
  if (JsonNestsDeeperThan(text)) {
    return Error::Usage(fmt::format("{}: not read: {}", name, JsonTooDeepMessage()));
  }
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann's byte is 1-based and points just past the offending character.
    const size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    return Error::Usage(fmt::format("{}:{}: not valid JSON", name, LineColumn(text, offset)));
  }
  try {
    return ReadJsonTable(doc, name);
  } catch (const json::exception& e) {
    // A field of an unexpected type that the checks above did not name.
    return Error::Usage(fmt::format("{}: {}", name, e.what()));
  }
}

// What a JSON table says once for all its rows; a row's own value wins.
struct TableDefaults {
  std::string revision, commit, unit;
  std::optional<double> calibration_ms;
  std::optional<HostIdentity> host;
};

/// OK when every top-level key of doc is one a published table may have.
Status CheckTableKeys(const json& doc, std::string_view name) {
  static const std::set<std::string> kKeys = {"format",         "revision", "commit",      "unit",
                                              "calibration_ms", "host",     "produced_by", "rows"};
  for (const auto& [key, unused] : doc.items()) {
    if (!kKeys.count(key)) {
      std::vector<std::string> keys(kKeys.begin(), kKeys.end());
      return Error::Usage(
          fmt::format("{}: unknown key \"{}\"{}", name, key, DidYouMean(key, keys)));
    }
  }
  return {};
}

/// The table's host, when it gives one (an object; fields of other types read as absent).
Result<std::optional<HostIdentity>> ReadTableHost(const json& doc, std::string_view name) {
  if (!doc.contains("host")) return std::optional<HostIdentity>();
  const json& h = doc["host"];
  if (!h.is_object()) return Error::Usage(fmt::format("{}: host: expected an object", name));
  HostIdentity id;
  id.hostname = h.value("hostname", std::string());
  id.cpu_model = h.value("cpu_model", std::string());
  id.kernel = h.value("kernel", std::string());
  if (h.contains("machine_id") && h["machine_id"].is_string()) {
    id.machine_id = h["machine_id"].get<std::string>();
  }
  id.logical_cores = h.value("logical_cores", 0);
  return std::optional<HostIdentity>(id);
}

/// The table-wide fields after its format is checked: revision, commit, unit,
/// calibration and host.
Result<TableDefaults> ReadTableDefaults(const json& doc, std::string_view name) {
  const std::string top(name);
  auto format = OptionalString(doc, "format", top);
  if (!format) return format.error();
  if (!format->empty() && *format != "culprit.published/v1") {
    return Error::Usage(
        fmt::format("{}: format '{}' is not supported (this culprit reads culprit.published/v1)",
                    name, *format));
  }
  TableDefaults defaults;
  auto revision = OptionalString(doc, "revision", top);
  if (!revision) return revision.error();
  defaults.revision = *revision;
  auto commit = OptionalString(doc, "commit", top);
  if (!commit) return commit.error();
  defaults.commit = *commit;
  auto unit = OptionalString(doc, "unit", top);
  if (!unit) return unit.error();
  defaults.unit = *unit;
  auto calibration = OptionalPositive(doc, "calibration_ms", top);
  if (!calibration) return calibration.error();
  defaults.calibration_ms = *calibration;
  auto host = ReadTableHost(doc, name);
  if (!host) return host.error();
  defaults.host = *host;
  return defaults;
}

/// rows[i] of the table, its missing revision, commit, unit and calibration taken from
/// the table's.
Result<PublishedNumber> JsonRow(const json& item, size_t i, std::string_view name,
                                const TableDefaults& defaults) {
  const std::string where = fmt::format("{}: rows[{}]", name, i);
  if (!item.is_object()) return Error::Usage(where + ": expected an object");
  PublishedNumber row;
  row.source = fmt::format("{} rows[{}]", name, i);
  auto query = OptionalString(item, "query", where);
  if (!query) return query.error();
  if (query->empty()) return Error::Usage(where + ": expected \"query\": the query's name");
  row.query = *query;
  if (!item.contains("value")) {
    return Error::Usage(where + ".value: missing; expected the published number");
  }
  auto value = OptionalPositive(item, "value", where);
  if (!value) return value.error();
  row.value = **value;
  auto row_revision = OptionalString(item, "revision", where);
  if (!row_revision) return row_revision.error();
  row.revision = row_revision->empty() ? defaults.revision : *row_revision;
  if (row.revision.empty()) {
    return Error::Usage(where + ": no revision (neither the row's nor the table's)")
        .WithHint("give \"revision\": the commit or tag the table was measured at");
  }
  auto row_commit = OptionalString(item, "commit", where);
  if (!row_commit) return row_commit.error();
  row.commit = row_commit->empty() ? defaults.commit : *row_commit;
  auto row_unit = OptionalString(item, "unit", where);
  if (!row_unit) return row_unit.error();
  row.unit = row_unit->empty() ? defaults.unit : *row_unit;
  auto row_calibration = OptionalPositive(item, "calibration_ms", where);
  if (!row_calibration) return row_calibration.error();
  row.calibration_ms = *row_calibration ? *row_calibration : defaults.calibration_ms;
  auto record = OptionalString(item, "record", where);
  if (!record) return record.error();
  row.record_id = *record;
  row.host = defaults.host;
  return row;
}

Result<std::vector<PublishedNumber>> ReadJsonTable(const json& doc, std::string_view name) {
  if (!doc.is_object()) {
    return Error::Usage(fmt::format("{}: expected a JSON object with \"rows\"", name));
  }
  CULPRIT_TRY(CheckTableKeys(doc, name));
  auto defaults = ReadTableDefaults(doc, name);
  if (!defaults) return defaults.error();
  if (!doc.contains("rows") || !doc["rows"].is_array()) {
    return Error::Usage(
        fmt::format("{}: expected \"rows\": an array of {{\"query\", \"value\"}}", name));
  }
  std::vector<PublishedNumber> rows;
  for (size_t i = 0; i < doc["rows"].size(); ++i) {
    auto row = JsonRow(doc["rows"][i], i, name, *defaults);
    if (!row) return row.error();
    rows.push_back(std::move(*row));
  }
  CULPRIT_TRY(CheckRows(rows, name));
  return rows;
}

}  // namespace

Result<double> ParsePublishedValue(std::string_view text, std::string_view what) {
  std::optional<double> value = PositiveNumber(text);
  if (!value) {
    return Error::Usage(fmt::format("{} '{}' is not a positive number", what, text))
        .WithHint("give the published figure as a number in the query's unit, e.g. 59.0");
  }
  return *value;
}

Result<PublishedNumber> PublishedFromRecord(const Record& record, std::string_view source) {
  if (record.kind != RecordKind::kRun) {
    return Error::Usage(
               fmt::format(
                   "{}: a published record is a `culprit run` record (one arm); this one is a {}",
                   source, RecordKindName(record.kind)))
        .WithHint("publish with `culprit run QUERY --rev REV` and audit against that record");
  }
  if (record.arms.empty()) {
    return Error::Usage(fmt::format("{}: the record has no arm", source));
  }
  PublishedNumber n;
  n.query = record.query;
  n.unit = record.unit;
  n.revision = record.arms[0].revision;
  n.commit = record.arms[0].commit;
  n.record_id = record.id;
  n.source = std::string(source);
  n.host = record.host;
  n.record_start = record.start;
  n.record_placement = PlacementOfRecord(record);
  n.calibration_ms =
      record.start.calibration_ms ? record.start.calibration_ms : record.end.calibration_ms;
  for (const Sample& s : record.samples) {
    if (s.ok && !s.warmup && !s.dropped && s.arm == 0 && s.value > 0) n.samples.push_back(s.value);
  }
  if (n.samples.empty()) {
    return Error::Usage(fmt::format("{}: the record has no successful sample to publish", source));
  }
  auto median = record.details.find("median");
  std::optional<double> value =
      median == record.details.end() ? std::nullopt : PositiveNumber(median->second);
  n.value = value ? *value : Median(n.samples);
  if (n.commit.empty()) {
    return Error::Usage(
               fmt::format(
                   "{}: the record measured a working tree, not a commit: it cannot be re-measured",
                   source))
        .WithHint("publish with `culprit run QUERY --rev REV`");
  }
  if (n.revision.empty() || n.revision == "worktree") n.revision = n.commit;
  return n;
}

Result<std::vector<PublishedNumber>> ParsePublishedTable(std::string_view text,
                                                         std::string_view name,
                                                         TableFormat format) {
  return format == TableFormat::kJson ? ParseJson(text, name) : ParseCsv(text, name);
}

Result<std::vector<PublishedNumber>> ReadPublishedTable(const std::filesystem::path& file) {
  const std::string ext = file.extension().string();
  TableFormat format;
  if (ext == ".json") {
    format = TableFormat::kJson;
  } else if (ext == ".csv") {
    format = TableFormat::kCsv;
  } else {
    return Error::Usage(
               fmt::format("{}: a published table is a .json or a .csv file", file.string()))
        .WithHint("docs/audit.md describes both formats");
  }
  Result<std::string> text = ReadFile(file);
  if (!text) return Error::Usage(text.error().message());
  return ParsePublishedTable(*text, file.string(), format);
}

std::string PublishedTableToJson(const std::vector<PublishedNumber>& rows,
                                 std::string_view produced_by) {
  json doc = json::object();
  doc["format"] = "culprit.published/v1";
  if (!produced_by.empty()) doc["produced_by"] = std::string(produced_by);
  auto shared = [&](auto field) {
    return !rows.empty() && std::all_of(rows.begin(), rows.end(), [&](const PublishedNumber& r) {
      return field(r) == field(rows[0]);
    });
  };
  const bool one_revision = shared([](const PublishedNumber& r) { return r.revision; });
  const bool one_commit = shared([](const PublishedNumber& r) { return r.commit; });
  const bool one_unit = shared([](const PublishedNumber& r) { return r.unit; });
  if (one_revision) doc["revision"] = rows[0].revision;
  if (one_commit && !rows[0].commit.empty()) doc["commit"] = rows[0].commit;
  if (one_unit && !rows[0].unit.empty()) doc["unit"] = rows[0].unit;
  if (!rows.empty() && rows[0].host) {
    const HostIdentity& h = *rows[0].host;
    doc["host"] = {{"hostname", h.hostname},
                   {"cpu_model", h.cpu_model},
                   {"kernel", h.kernel},
                   {"logical_cores", h.logical_cores}};
    if (!h.machine_id.empty()) doc["host"]["machine_id"] = h.machine_id;
  }
  doc["rows"] = json::array();
  for (const PublishedNumber& r : rows) {
    json row = {{"query", r.query}, {"value", r.value}};
    if (!one_revision) row["revision"] = r.revision;
    if (!one_commit && !r.commit.empty()) row["commit"] = r.commit;
    if (!one_unit && !r.unit.empty()) row["unit"] = r.unit;
    if (r.calibration_ms) row["calibration_ms"] = *r.calibration_ms;
    if (!r.record_id.empty()) row["record"] = r.record_id;
    doc["rows"].push_back(std::move(row));
  }
  // Commit subjects or units may hold invalid UTF-8: replaced, never thrown on.
  return ToJsonText(doc, 2) + "\n";
}

Result<PublishedNumber> FindPublishedRow(const std::vector<PublishedNumber>& table,
                                         const std::string& query, std::string_view name) {
  std::vector<std::string> queries;
  for (const PublishedNumber& row : table) {
    if (row.query == query) return row;
    queries.push_back(row.query);
  }
  return Error::Usage(
             fmt::format("{} has no row for query '{}'{}", name, query, DidYouMean(query, queries)))
      .WithHint("its queries: " + Join(queries, ", "));
}

}  // namespace culprit
