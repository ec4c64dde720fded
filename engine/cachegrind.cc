#include "engine/cachegrind.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>

#include <algorithm>
#include <charconv>
#include <system_error>

#include "base/atomic_file.h"
#include "base/strings.h"
#include "engine/spawn.h"

namespace culprit {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kOutPrefix = "cachegrind.out.";
constexpr std::string_view kLogPrefix = "valgrind.";
/// Lines of valgrind's own log shown with a failed run.
constexpr size_t kValgrindLogTailLines = 4;

/// A directory removed, with what it holds, when this goes.
struct ScratchDir {
  fs::path path;
  ScratchDir() = default;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

std::optional<uint64_t> ParseCount(std::string_view word) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size()) return std::nullopt;
  return value;
}

/// The files of `dir` whose names start with `prefix`, sorted.
std::vector<fs::path> FilesStartingWith(const fs::path& dir, std::string_view prefix) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().starts_with(prefix)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// The last lines valgrind wrote to its logs that say something (not its banner), for a
/// failed run's reason; "" when it wrote none.
std::string ValgrindLastWords(const fs::path& dir) {
  std::string words;
  for (const fs::path& log : FilesStartingWith(dir, kLogPrefix)) {
    Result<std::string> text = ReadFile(log);
    if (!text) continue;
    std::string kept;
    for (std::string_view line : SplitLines(*text)) {
      // "==123== " starts every line; the banner, the count and blank lines say nothing of
      // the failure, nor do "--123-- warning:" lines about the host's caches.
      size_t body = line.find("== ");
      std::string_view rest = body == std::string_view::npos ? line : line.substr(body + 3);
      rest = TrimBlanks(rest);
      if (rest.empty() || rest.starts_with("Cachegrind, a cache") ||
          rest.starts_with("Copyright (C)") || rest.starts_with("Using Valgrind") ||
          rest.starts_with("Command:") || rest.starts_with("Parent PID:") ||
          rest.starts_with("I   refs:") || line.starts_with("--")) {
        continue;
      }
      kept += std::string(rest) + "\n";
    }
    words += kept;
  }
  return TailLines(words, kValgrindLogTailLines);
}

}  // namespace

bool IsCachegrindMetric(MetricRule::Kind kind) { return !CachegrindEvents(kind).empty(); }

std::vector<std::string_view> CachegrindEvents(MetricRule::Kind kind) {
  switch (kind) {
    case MetricRule::Kind::kInstructions:
      return {"Ir"};
    case MetricRule::Kind::kLlMisses:
      return {"DLmr", "DLmw"};
    case MetricRule::Kind::kD1Misses:
      return {"D1mr", "D1mw"};
    default:
      break;
  }
  return {};
}

Result<fs::path> FindValgrind(MetricRule::Kind kind, std::string_view program,
                              std::optional<std::string_view> search_path) {
  ProcessSpec spec;
  spec.argv = {std::string(program)};
  if (search_path) spec.set_env["PATH"] = std::string(*search_path);
  Result<std::string> found = ResolveProgram(spec);
  if (found) return fs::path(*found);
  return Error(fmt::format("metric \"{}\" runs the query under valgrind, which is not here ({})",
                           NamedMetricName(kind), found.error().message()))
      .WithHint("install it: apt install valgrind (scripts/install-deps does)");
}

Result<std::string> ValgrindVersion(const fs::path& path) {
  ProcessSpec spec;
  spec.argv = {path.string(), "--version"};
  spec.timeout = std::chrono::seconds(10);
  ProcessResult result = RunProcess(spec);
  std::string version(TrimBlanks(FirstLine(result.stdout_text)));
  if (!result.ok() || version.empty()) {
    return Error(fmt::format("{} --version {}", path.string(), result.Describe(spec)));
  }
  return version;
}

Result<std::map<std::string, uint64_t>> ParseCachegrindSummary(std::string_view out_file) {
  std::vector<std::string_view> events;
  std::optional<std::vector<std::string_view>> summary;
  for (std::string_view line : SplitLines(out_file)) {
    if (line.starts_with("events:")) {
      events = SplitWords(line.substr(7));
    } else if (line.starts_with("summary:")) {
      summary = SplitWords(line.substr(8));
    }
  }
  if (events.empty()) return Error("the cachegrind out file has no 'events:' line");
  if (!summary) return Error("the cachegrind out file has no 'summary:' line");
  if (summary->size() != events.size()) {
    return Error(
        fmt::format("the cachegrind out file's summary has {} counts for its {} events ({})",
                    summary->size(), events.size(), fmt::join(events, " ")));
  }
  std::map<std::string, uint64_t> counts;
  for (size_t i = 0; i < events.size(); ++i) {
    std::optional<uint64_t> count = ParseCount((*summary)[i]);
    if (!count) {
      return Error(fmt::format("the cachegrind out file's summary count '{}' of {} is not a count",
                               EscapeControlChars((*summary)[i]), events[i]));
    }
    counts[std::string(events[i])] += *count;
  }
  return counts;
}

Result<double> CachegrindFigure(MetricRule::Kind kind,
                                const std::map<std::string, uint64_t>& counts) {
  const std::vector<std::string_view> events = CachegrindEvents(kind);
  if (events.empty()) return Error("not a cachegrind metric");
  uint64_t total = 0;
  for (std::string_view event : events) {
    auto it = counts.find(std::string(event));
    if (it == counts.end()) {
      return Error(
          fmt::format("cachegrind counted no {} events (run without --cache-sim=yes?)", event));
    }
    total += it->second;
  }
  if (total == 0) {
    return Error(fmt::format("cachegrind counted 0 {} ({}); a ratio needs a count above 0",
                             NamedMetricName(kind), fmt::join(events, " + ")));
  }
  return static_cast<double>(total);
}

std::vector<std::string> CachegrindArgv(const fs::path& valgrind, MetricRule::Kind kind,
                                        const fs::path& dir, const std::vector<std::string>& argv) {
  std::vector<std::string> out = {valgrind.string(), "--tool=cachegrind"};
  if (kind == MetricRule::Kind::kInstructions) {
    out.push_back("--cache-sim=no");
  } else {
    out.push_back("--cache-sim=yes");
    for (std::string_view cache : kCachegrindCaches) out.emplace_back(cache);
  }
  out.push_back("--trace-children=yes");
  out.push_back("--cachegrind-out-file=" + (dir / (std::string(kOutPrefix) + "%p")).string());
  out.push_back("--log-file=" + (dir / (std::string(kLogPrefix) + "%p.log")).string());
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

Status CheckInProcessMetric(MetricRule::Kind kind, std::string_view query) {
  if (!IsCachegrindMetric(kind)) return {};
  return Error::Usage(
             fmt::format("query '{}' is measured by \"{}\", which valgrind counts of a whole "
                         "process, but here it runs inside the one long-lived harness process "
                         "that every run of every condition shares: no run has a count of its "
                         "own, and the harness's times are not {}",
                         query, NamedMetricName(kind), NamedMetricName(kind)))
      .WithHint(fmt::format(
          "measure {} as a process per run: culprit probe -q {} --override ... (or compare, "
          "run); for isolate, give the query a wall-time metric, and `culprit isolate "
          "--simulate {}` adds each condition's count from fresh harness processes",
          NamedMetricName(kind), query, NamedMetricName(kind)));
}

CachegrindRun RunUnderCachegrind(const ProcessSpec& spec, MetricRule::Kind kind,
                                 const fs::path& valgrind) {
  CachegrindRun run;
  ScratchDir scratch;
  std::string pattern = (fs::temp_directory_path() / "culprit-cachegrind-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    run.failure = "cannot create a temporary directory for cachegrind's out files";
    return run;
  }
  scratch.path = pattern;
  ProcessSpec wrapped = spec;
  wrapped.argv = CachegrindArgv(valgrind, kind, scratch.path, spec.argv);
  run.process = RunProcess(wrapped);
  if (!run.process.ok()) {
    run.failure = fmt::format("under valgrind, the run {}", run.process.Describe(wrapped));
    std::string words = ValgrindLastWords(scratch.path);
    if (!words.empty()) run.failure += "; valgrind says:\n" + words;
    std::string tail = TailLines(run.process.stderr_text, 3);
    if (!tail.empty()) run.failure += "; stderr ends: " + tail;
    return run;
  }
  const std::vector<fs::path> outs = FilesStartingWith(scratch.path, kOutPrefix);
  if (outs.empty()) {
    run.failure = "valgrind exited with status 0 but cachegrind wrote no out file";
    std::string words = ValgrindLastWords(scratch.path);
    if (!words.empty()) run.failure += "; valgrind says:\n" + words;
    return run;
  }
  std::map<std::string, uint64_t> counts;
  for (const fs::path& out : outs) {
    Result<std::string> text = ReadFile(out);
    Result<std::map<std::string, uint64_t>> file =
        text ? ParseCachegrindSummary(*text)
             : Result<std::map<std::string, uint64_t>>(text.error());
    if (!file) {
      run.failure = fmt::format("{}: {}", out.filename().string(), file.error().message());
      return run;
    }
    for (const auto& [event, count] : *file) counts[event] += count;
    run.out_files.push_back(std::move(*text));
  }
  Result<double> figure = CachegrindFigure(kind, counts);
  if (!figure) {
    run.failure = figure.error().message();
    return run;
  }
  run.value = *figure;
  return run;
}

}  // namespace culprit
