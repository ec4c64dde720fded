#include "engine/function_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "base/numbers.h"
#include "base/strings.h"

namespace culprit {

namespace {

/// The positions of the events a FunctionCost keeps, in the `events:` line's order.
struct EventColumns {
  std::optional<size_t> ir;
  std::vector<size_t> d1, ll;
};

EventColumns ColumnsOf(const std::vector<std::string_view>& events) {
  EventColumns c;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i] == "Ir") c.ir = i;
    if (events[i] == "D1mr" || events[i] == "D1mw") c.d1.push_back(i);
    if (events[i] == "DLmr" || events[i] == "DLmw") c.ll.push_back(i);
  }
  return c;
}

void AddCosts(FunctionCost& into, const FunctionCost& from) {
  into.instructions += from.instructions;
  into.d1_misses += from.d1_misses;
  into.ll_misses += from.ll_misses;
  for (const auto& [line, count] : from.line_instructions) into.line_instructions[line] += count;
}

}  // namespace

int FunctionCost::FirstLine() const {
  for (const auto& [line, count] : line_instructions) {
    if (line > 0) return line;
  }
  return 0;
}

int FunctionCost::HottestLine() const {
  int hottest = 0;
  uint64_t most = 0;
  for (const auto& [line, count] : line_instructions) {
    if (line > 0 && (hottest == 0 || count > most)) {
      hottest = line;
      most = count;
    }
  }
  return hottest;
}

uint64_t FunctionProfile::TotalInstructions() const {
  uint64_t total = 0;
  for (const auto& [key, cost] : functions) total += cost.instructions;
  return total;
}

Result<FunctionProfile> ParseFunctionProfile(std::string_view out_file) {
  FunctionProfile profile;
  std::vector<std::string_view> events;
  EventColumns columns;
  std::string file = "???";
  FunctionCost* current = nullptr;
  size_t number = 0;
  for (std::string_view line : SplitLines(out_file)) {
    ++number;
    if (line.empty()) continue;
    if (line.starts_with("events:")) {
      events = SplitWords(line.substr(7));
      columns = ColumnsOf(events);
      if (!columns.ir) {
        return Error(fmt::format("line {}: the events ({}) have no Ir", number,
                                 EscapeControlChars(TrimBlanks(line.substr(7)))));
      }
      profile.cache_sim = !columns.d1.empty() && !columns.ll.empty();
    } else if (line.starts_with("fl=")) {
      file = std::string(line.substr(3));
      current = nullptr;
    } else if (line.starts_with("fn=")) {
      auto key = std::make_pair(file, std::string(line.substr(3)));
      FunctionCost& cost = profile.functions[key];
      cost.file = key.first;
      cost.function = key.second;
      current = &cost;
    } else if (line.front() >= '0' && line.front() <= '9') {
      if (events.empty()) return Error(fmt::format("line {}: counts before 'events:'", number));
      if (current == nullptr) return Error(fmt::format("line {}: counts before any 'fn='", number));
      std::vector<std::string_view> words = SplitWords(line);
      if (words.size() > events.size() + 1) {
        return Error(fmt::format("line {}: {} counts for {} events", number, words.size() - 1,
                                 events.size()));
      }
      std::vector<uint64_t> counts(events.size(), 0);
      std::optional<uint64_t> source_line = ParseCount(words[0]);
      for (size_t i = 1; i < words.size(); ++i) {
        std::optional<uint64_t> count = ParseCount(words[i]);
        if (!count || !source_line) {
          return Error(fmt::format("line {}: '{}' is not a line number and counts", number,
                                   EscapeControlChars(line)));
        }
        counts[i - 1] = *count;
      }
      if (!source_line) {
        return Error(fmt::format("line {}: '{}' is not a line number", number,
                                 EscapeControlChars(words[0])));
      }
      const uint64_t ir = counts[*columns.ir];
      current->instructions += ir;
      for (size_t i : columns.d1) current->d1_misses += counts[i];
      for (size_t i : columns.ll) current->ll_misses += counts[i];
      current->line_instructions[static_cast<int>(std::min<uint64_t>(*source_line, 1 << 30))] += ir;
    }
    // desc:, cmd:, summary: and anything newer cachegrind writes say nothing per function.
  }
  if (events.empty()) return Error("the cachegrind out file has no 'events:' line");
  return profile;
}

void MergeFunctionProfile(FunctionProfile& into, const FunctionProfile& from) {
  into.cache_sim = into.functions.empty() ? from.cache_sim : into.cache_sim && from.cache_sim;
  for (const auto& [key, cost] : from.functions) {
    FunctionCost& mine = into.functions[key];
    mine.file = cost.file;
    mine.function = cost.function;
    AddCosts(mine, cost);
  }
}

int64_t FunctionDelta::InstructionsDelta() const {
  return static_cast<int64_t>(change_instructions) - static_cast<int64_t>(parent_instructions);
}

std::optional<double> FunctionDelta::RelativeDelta() const {
  if (parent_instructions == 0) return std::nullopt;
  return static_cast<double>(change_instructions) / static_cast<double>(parent_instructions) - 1;
}

std::vector<FunctionDelta> DiffFunctionProfiles(const FunctionProfile& parent,
                                                const FunctionProfile& change) {
  std::map<std::pair<std::string, std::string>, FunctionDelta> by_key;
  for (const auto& [key, cost] : parent.functions) {
    FunctionDelta& d = by_key[key];
    d.file = key.first;
    d.function = key.second;
    d.parent_instructions = cost.instructions;
    d.parent_d1_misses = cost.d1_misses;
    d.parent_ll_misses = cost.ll_misses;
    d.first_line = cost.FirstLine();
    d.hottest_line = cost.HottestLine();
  }
  for (const auto& [key, cost] : change.functions) {
    FunctionDelta& d = by_key[key];
    d.file = key.first;
    d.function = key.second;
    d.change_instructions = cost.instructions;
    d.change_d1_misses = cost.d1_misses;
    d.change_ll_misses = cost.ll_misses;
    if (cost.FirstLine() > 0) d.first_line = cost.FirstLine();
    if (cost.HottestLine() > 0) d.hottest_line = cost.HottestLine();
  }
  std::vector<FunctionDelta> out;
  out.reserve(by_key.size());
  for (auto& [key, d] : by_key) out.push_back(std::move(d));
  std::stable_sort(out.begin(), out.end(), [](const FunctionDelta& a, const FunctionDelta& b) {
    const uint64_t da = static_cast<uint64_t>(std::abs(a.InstructionsDelta()));
    const uint64_t db = static_cast<uint64_t>(std::abs(b.InstructionsDelta()));
    return da > db;  // by_key's order (file, name) breaks ties.
  });
  return out;
}

std::string RepositoryPath(std::string_view profile_file,
                           const std::set<std::string>& repository_files) {
  if (profile_file.empty() || profile_file == "???") return "";
  const std::string normal =
      std::filesystem::path(std::string(profile_file)).lexically_normal().generic_string();
  // From the longest suffix to the shortest, each starting after a '/'.
  size_t start = 0;
  while (start < normal.size()) {
    std::string_view suffix = std::string_view(normal).substr(start);
    if (repository_files.contains(std::string(suffix))) return std::string(suffix);
    size_t slash = normal.find('/', start);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return "";
}

}  // namespace culprit
