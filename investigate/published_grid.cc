#include "investigate/published_grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "base/atomic_file.h"
#include "base/numbers.h"
#include "base/strings.h"
#include "investigate/published_table.h"

namespace culprit {
namespace {

/// One field of a line: its text (blanks trimmed) and the 1-based column of its first
/// character (of the field's start when it is empty).
struct Field {
  std::string text;
  size_t column = 1;
};

Field MakeField(std::string_view line, size_t begin, size_t end) {
  std::string_view raw = line.substr(begin, end - begin);
  const size_t lead = raw.find_first_not_of(" \t\r");
  Field f;
  f.text = std::string(TrimBlanks(raw));
  f.column = begin + (lead == std::string_view::npos ? 0 : lead) + 1;
  return f;
}

std::vector<Field> SplitCsvFields(std::string_view line) {
  std::vector<Field> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    const size_t end = comma == std::string_view::npos ? line.size() : comma;
    fields.push_back(MakeField(line, start, end));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

/// The cells of a Markdown table row `| a | b |` (the outer pipes optional after the first);
/// `\|` is a pipe inside a cell.
std::vector<Field> SplitMarkdownRow(std::string_view line) {
  std::vector<Field> fields;
  size_t start = line.find('|') + 1;
  std::string text;
  for (size_t i = start; i <= line.size(); ++i) {
    if (i < line.size() && line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      ++i;
      continue;
    }
    if (i == line.size() || line[i] == '|') {
      Field f = MakeField(line, start, i);
      std::string unescaped;
      for (size_t k = 0; k < f.text.size(); ++k) {
        if (f.text[k] == '\\' && k + 1 < f.text.size() && f.text[k + 1] == '|') continue;
        unescaped += f.text[k];
      }
      f.text = unescaped;
      // A row ending in '|' has nothing after its last pipe.
      if (!(i == line.size() && TrimBlanks(line.substr(start)).empty() && !fields.empty())) {
        fields.push_back(std::move(f));
      }
      start = i + 1;
    }
  }
  return fields;
}

/// Markdown emphasis around a whole cell ("**12.5**", "`12.5`") is not part of the value.
std::string_view WithoutEmphasis(std::string_view text) {
  for (std::string_view mark : {"**", "__", "*", "_", "`"}) {
    while (text.size() > 2 * mark.size() && text.substr(0, mark.size()) == mark &&
           text.substr(text.size() - mark.size()) == mark) {
      text = TrimBlanks(text.substr(mark.size(), text.size() - 2 * mark.size()));
    }
  }
  return text;
}

bool NotPublished(std::string_view text) {
  return text.empty() || text == "-" || text == "—" || text == "n/a" || text == "N/A" ||
         text == "NA";
}

/// Where the number of "12.5 ms" ends: digits, '.', signs, and an exponent's 'e' when a digit
/// or a sign follows it.
size_t NumberEnd(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const bool exponent = (c == 'e' || c == 'E') && i + 1 < text.size() &&
                          (std::isdigit(static_cast<unsigned char>(text[i + 1])) ||
                           text[i + 1] == '-' || text[i + 1] == '+');
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-' ||
          exponent)) {
      break;
    }
    ++i;
  }
  return i;
}

bool IsUnit(std::string_view unit) {
  return std::all_of(unit.begin(), unit.end(), [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '/' || c == '%' ||
           static_cast<unsigned char>(c) >= 0x80;
  });
}

/// A cell: NUMBER [UNIT] [@ SITTING], or a value not published.
Result<PublishedCell> ParseCell(const Field& field, const std::string& where) {
  PublishedCell cell;
  cell.source = where;
  std::string_view text = WithoutEmphasis(field.text);
  if (NotPublished(text)) return cell;
  const size_t at = text.find('@');
  if (at != std::string_view::npos) {
    cell.sitting = std::string(TrimBlanks(text.substr(at + 1)));
    if (cell.sitting.empty()) {
      return Error::Usage(fmt::format("{}: nothing after '@': expected the sitting's name", where))
          .WithHint("a value with its sitting: 12.5 ms @ 2026-12-01-run-a");
    }
    text = TrimBlanks(text.substr(0, at));
  }
  const size_t end = NumberEnd(text);
  const std::string_view unit = TrimBlanks(text.substr(end));
  const std::optional<double> value = ParseFiniteNumber(text.substr(0, end));
  if (!value || *value <= 0 || !IsUnit(unit)) {
    return Error::Usage(fmt::format("{}: expected a positive number, found '{}'", where,
                                    EscapeControlChars(field.text)))
        .WithHint("a cell is NUMBER [UNIT] [@ SITTING] (12.5 ms @ run-a), or empty, '-' or n/a");
  }
  cell.value = value;
  cell.unit = std::string(unit);
  return cell;
}

/// The heading line's columns: the first names the queries' column, the others must be
/// distinct and not empty.
Result<std::vector<std::string>> Headings(const std::vector<Field>& fields, const std::string& name,
                                          size_t line) {
  std::vector<std::string> columns;
  for (size_t i = 1; i < fields.size(); ++i) {
    const std::string where = fmt::format("{}:{}:{}", name, line, fields[i].column);
    if (fields[i].text.empty()) {
      return Error::Usage(where + ": a column without a heading")
          .WithHint("the first line names the columns: query,ENGINE_A,ENGINE_B");
    }
    if (std::find(columns.begin(), columns.end(), fields[i].text) != columns.end()) {
      return Error::Usage(fmt::format("{}: column '{}' appears twice", where, fields[i].text));
    }
    columns.push_back(fields[i].text);
  }
  if (columns.size() < 2) {
    return Error::Usage(fmt::format("{}:{}: {}: a claim needs two", name, line,
                                    CountOf(columns.size(), "value column")))
        .WithHint("query,BASELINE,OTHER: every column is compared with the first");
  }
  return columns;
}

/// One body line: its query and cells, appended to `grid`.
Status AddRow(PublishedGrid& grid, const std::vector<Field>& fields, const std::string& name,
              size_t line) {
  const std::string where = fmt::format("{}:{}", name, line);
  if (fields.size() != grid.columns.size() + 1) {
    return Error::Usage(fmt::format("{}:{}: expected {} fields (as the heading), found {}", where,
                                    fields.empty() ? 1 : fields.back().column,
                                    grid.columns.size() + 1, fields.size()));
  }
  const std::string query = std::string(WithoutEmphasis(fields[0].text));
  if (query.empty()) {
    return Error::Usage(fmt::format("{}:{}: the query is empty", where, fields[0].column));
  }
  if (grid.Row(query) >= 0) {
    return Error::Usage(
        fmt::format("{}:{}: query '{}' appears twice", where, fields[0].column, query));
  }
  std::vector<PublishedCell> cells;
  for (size_t i = 1; i < fields.size(); ++i) {
    Result<PublishedCell> cell =
        ParseCell(fields[i], fmt::format("{}:{}", where, fields[i].column));
    if (!cell) return cell.error();
    cells.push_back(std::move(*cell));
  }
  grid.rows.push_back(query);
  grid.cells.push_back(std::move(cells));
  return {};
}

Status CheckNotEmpty(const PublishedGrid& grid, std::string_view name) {
  if (grid.columns.empty()) {
    return Error::Usage(fmt::format("{}: no table found", name))
        .WithHint("a heading line query,ENGINE_A,ENGINE_B, then one line per query");
  }
  if (grid.rows.empty()) return Error::Usage(fmt::format("{}: the table has no rows", name));
  return {};
}

/// The values of one row must share a unit (or say none): a ratio of ms to s means nothing.
Status CheckUnits(const PublishedGrid& grid) {
  for (const std::vector<PublishedCell>& row : grid.cells) {
    const PublishedCell* first = nullptr;
    for (const PublishedCell& cell : row) {
      if (!cell.value || cell.unit.empty()) continue;
      if (first == nullptr) {
        first = &cell;
      } else if (cell.unit != first->unit) {
        return Error::Usage(fmt::format("{}: unit '{}' differs from '{}' at {}", cell.source,
                                        cell.unit, first->unit, first->source))
            .WithHint("a row's values are compared as ratios: give them in one unit");
      }
    }
  }
  return {};
}

bool IsTableLine(std::string_view line) { return !line.empty() && line[0] == '|'; }

bool IsDelimiterRow(const std::vector<Field>& fields) {
  if (fields.empty()) return false;
  for (const Field& f : fields) {
    if (f.text.empty() || f.text.find('-') == std::string::npos ||
        f.text.find_first_not_of(":- ") != std::string::npos) {
      return false;
    }
  }
  return true;
}

/// A culprit.published/v1 file: one column, headed by its revision.
Result<PublishedGrid> GridFromJson(const std::filesystem::path& file) {
  Result<std::vector<PublishedNumber>> rows = ReadPublishedTable(file);
  if (!rows) return rows.error();
  PublishedGrid grid;
  grid.name = file.string();
  grid.columns.push_back(rows->front().revision);
  for (const PublishedNumber& row : *rows) {
    if (row.revision != grid.columns[0]) {
      return Error::Usage(
                 fmt::format("{}: a published table is one column here, but {} is at {} and "
                             "{} at {}",
                             row.source, rows->front().query, grid.columns[0], row.query,
                             row.revision))
          .WithHint("give one file per revision: --check v1.0.json --check v1.3.json");
    }
    PublishedCell cell;
    cell.value = row.value;
    cell.unit = row.unit;
    cell.sitting = row.record_id.empty() ? "" : "record " + row.record_id;
    if (row.host) {
      cell.host = !row.host->machine_id.empty() ? row.host->machine_id : row.host->hostname;
    }
    cell.source = row.source;
    grid.rows.push_back(row.query);
    grid.cells.push_back({cell});
  }
  return grid;
}

Result<PublishedGrid> ReadOne(const std::filesystem::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".json") return GridFromJson(file);
  if (ext != ".csv" && ext != ".md" && ext != ".markdown") {
    return Error::Usage(
               fmt::format("{}: a published table is a .csv, .md or .json file", file.string()))
        .WithHint("docs/usage.md, \"Checking a published table\", gives the formats");
  }
  Result<std::string> text = ReadFile(file);
  if (!text) return Error::Usage(text.error().message());
  return ext == ".csv" ? ParsePublishedGridCsv(*text, file.string())
                       : ParsePublishedGridMarkdown(*text, file.string());
}

/// `more`'s columns after `into`'s, rows matched by query.
Status JoinColumns(PublishedGrid& into, const PublishedGrid& more) {
  for (const std::string& column : more.columns) {
    if (std::find(into.columns.begin(), into.columns.end(), column) != into.columns.end()) {
      return Error::Usage(
                 fmt::format("{}: column '{}' is also in {}", more.name, column, into.name))
          .WithHint("each published column once: one file per revision or engine");
    }
  }
  const size_t before = into.columns.size();
  into.columns.insert(into.columns.end(), more.columns.begin(), more.columns.end());
  for (auto& row : into.cells) row.resize(into.columns.size());
  for (size_t r = 0; r < more.rows.size(); ++r) {
    int at = into.Row(more.rows[r]);
    if (at < 0) {
      into.rows.push_back(more.rows[r]);
      into.cells.emplace_back(into.columns.size());
      at = static_cast<int>(into.rows.size()) - 1;
    }
    for (size_t c = 0; c < more.columns.size(); ++c) {
      into.cells[at][before + c] = more.cells[r][c];
    }
  }
  into.name += ", " + more.name;
  return {};
}

}  // namespace

Result<PublishedGrid> ParsePublishedGridCsv(std::string_view text, std::string_view name) {
  const std::string file(name);
  PublishedGrid grid;
  grid.name = file;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view trimmed = TrimBlanks(lines[i]);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    const size_t quote = lines[i].find('"');
    if (quote != std::string_view::npos) {
      return Error::Usage(
                 fmt::format("{}:{}:{}: quoted fields are not supported", file, i + 1, quote + 1))
          .WithHint("query names and values need no quotes; a field cannot hold a comma");
    }
    std::vector<Field> fields = SplitCsvFields(lines[i]);
    if (grid.columns.empty()) {
      Result<std::vector<std::string>> columns = Headings(fields, file, i + 1);
      if (!columns) return columns.error();
      grid.columns = std::move(*columns);
      continue;
    }
    CULPRIT_TRY(AddRow(grid, fields, file, i + 1));
  }
  CULPRIT_TRY(CheckNotEmpty(grid, name));
  CULPRIT_TRY(CheckUnits(grid));
  return grid;
}

Result<PublishedGrid> ParsePublishedGridMarkdown(std::string_view text, std::string_view name) {
  const std::string file(name);
  PublishedGrid grid;
  grid.name = file;
  std::vector<std::string_view> lines = SplitLines(text);
  size_t i = 0;
  while (i < lines.size() && !IsTableLine(TrimBlanks(lines[i]))) ++i;
  if (i == lines.size()) {
    return Error::Usage(fmt::format("{}: no Markdown table found", file))
        .WithHint("| query | ENGINE_A | ENGINE_B |, then |---|---|---|, then one row per query");
  }
  Result<std::vector<std::string>> columns = Headings(SplitMarkdownRow(lines[i]), file, i + 1);
  if (!columns) return columns.error();
  grid.columns = std::move(*columns);
  ++i;
  std::vector<Field> delimiter =
      i < lines.size() ? SplitMarkdownRow(lines[i]) : std::vector<Field>{};
  if (i == lines.size() || !IsTableLine(TrimBlanks(lines[i])) || !IsDelimiterRow(delimiter)) {
    return Error::Usage(fmt::format("{}:{}:1: expected the delimiter row under the heading", file,
                                    std::min(i + 1, lines.size() + 1)))
        .WithHint("|---|---:|---:|");
  }
  for (++i; i < lines.size() && IsTableLine(TrimBlanks(lines[i])); ++i) {
    CULPRIT_TRY(AddRow(grid, SplitMarkdownRow(lines[i]), file, i + 1));
  }
  CULPRIT_TRY(CheckNotEmpty(grid, name));
  CULPRIT_TRY(CheckUnits(grid));
  return grid;
}

Result<PublishedGrid> ReadPublishedGrid(const std::vector<std::filesystem::path>& files) {
  if (files.empty()) return Error::Usage("--check: no published table given");
  Result<PublishedGrid> grid = ReadOne(files[0]);
  if (!grid) return grid.error();
  for (size_t i = 1; i < files.size(); ++i) {
    Result<PublishedGrid> more = ReadOne(files[i]);
    if (!more) return more.error();
    CULPRIT_TRY(JoinColumns(*grid, *more));
  }
  if (grid->columns.size() < 2) {
    return Error::Usage(
               fmt::format("{}: one column ({}): a claim needs two", grid->name, grid->columns[0]))
        .WithHint(
            "check two published tables against each other: --check v1.0.json --check "
            "v1.3.json (the first is the baseline)");
  }
  CULPRIT_TRY(CheckUnits(*grid));
  return *grid;
}

}  // namespace culprit
