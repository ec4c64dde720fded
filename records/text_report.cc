// The text reporter: `culprit records list` and `culprit records show`.

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "base/strings.h"
#include "records/explain_payload.h"
#include "records/multi_bisect_payload.h"
#include "records/report.h"
#include "records/report_facts.h"
#include "records/report_payload.h"
#include "records/sweep_payload.h"
#include "records/table_payload.h"

namespace culprit {
namespace {

constexpr size_t kWrapColumn = 96;

// Every field a record holds may come from someone else's archive or history (a
// commit subject, an engine's error text): shown with its control characters
// escaped, so that none of it drives the terminal. Tables escape their cells;
// lines built outside a table (AlignColumns) escape each field.
std::string Safe(std::string_view field) { return EscapeControlChars(field); }

// Short arm tags for the compact sample list: the names when they are short,
// else the arm indexes (the arms section says which is which).
std::vector<std::string> ArmTags(const Record& record) {
  bool short_names = std::all_of(record.arms.begin(), record.arms.end(), [](const Arm& arm) {
    return !arm.name.empty() && arm.name.size() <= 3 && arm.name.find(' ') == std::string::npos;
  });
  std::vector<std::string> tags;
  for (size_t i = 0; i < record.arms.size(); ++i) {
    tags.push_back(short_names ? record.arms[i].name : std::to_string(i));
  }
  return tags;
}

std::string SampleToken(const Sample& sample, const std::vector<std::string>& tags) {
  std::string tag = sample.arm >= 0 && static_cast<size_t>(sample.arm) < tags.size()
                        ? tags[sample.arm]
                        : std::to_string(sample.arm);
  std::string value = sample.ok ? FormatValue(sample.value) : "FAILED";
  std::string flags;
  if (sample.warmup) flags += "w";
  if (sample.dropped) flags += "d";
  return fmt::format("{}:{}={}{}", sample.sequence, tag, value, flags.empty() ? "" : "/" + flags);
}

// An isolation's simulated figures, as `isolate` prints them: secondary, never a verdict.
std::string SimulatedText(const SimulatedFacts& s) {
  std::vector<std::vector<std::string>> rows = {
      {"  condition", "median", "samples (min..max)", "vs baseline"}};
  for (const SimulatedRow& row : s.rows) {
    rows.push_back({"  " + row.condition, row.median, row.samples, row.vs_baseline});
  }
  std::string out = "simulated figures\n  " + Safe(s.heading) + "\n" + AlignColumns(rows);
  if (!s.failure.empty()) out += "  stopped: " + Safe(s.failure) + "\n";
  return out;
}

// A record's queries as `records list` shows them, in at most kListedQueryWidth characters: a
// table's record names every query it measured ("q1,q2,...,q20"), which made the column as
// wide as all of them together. The names that fit, and how many more ("q1,q2 +18 more");
// `records show` prints them all.
constexpr size_t kListedQueryWidth = 32;
std::string ListedQueries(std::string_view query) {
  if (query.empty()) return "-";
  if (TextWidth(query) <= kListedQueryWidth) return std::string(query);
  std::vector<std::string_view> names;
  for (size_t start = 0;;) {
    const size_t comma = query.find(',', start);
    names.push_back(query.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::string shown;
  size_t kept = 0;
  for (; kept < names.size(); ++kept) {
    const std::string more = fmt::format(" +{} more", names.size() - kept - 1);
    const std::string next = shown + (kept > 0 ? "," : "") + std::string(names[kept]);
    if (TextWidth(next) + (kept + 1 < names.size() ? TextWidth(more) : 0) > kListedQueryWidth) {
      break;
    }
    shown = next;
  }
  if (kept == 0) return ClipText(query, kListedQueryWidth);
  return shown + fmt::format(" +{} more", names.size() - kept);
}

class TextReporter : public RecordReporter {
 public:
  std::string RenderList(std::span<const Record> records) override {
    if (records.empty()) return "no records\n";
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"ID", "KIND", "QUERY", "ARMS (MEDIANS)", "VERDICT", "RATIO", "INTERVAL",
                    "PAIRS", "HYPOTHESIS"});
    for (const Record& r : records) {
      std::string ratio = "-", interval = "-", pairs = "-";
      if (r.estimate) {
        ratio = fmt::format("{:.3f}", r.estimate->ratio);
        interval = FormatInterval(r.estimate->low, r.estimate->high);
        pairs = std::to_string(r.estimate->pairs);
      }
      const std::string hypothesis = ClipText(r.hypothesis, 50);
      rows.push_back({r.id, std::string(RecordKindName(r.kind)), ListedQueries(r.query),
                      ArmsSummary(r), VerdictText(r), ratio, interval, pairs, hypothesis});
    }
    return AlignColumns(rows) + CountOf(records.size(), "record") + "\n";
  }

  std::string RenderOne(const Record& r) override {
    std::string out = fmt::format("record {}\n", Safe(r.id));
    std::vector<std::vector<std::string>> facts;
    facts.push_back({"  kind", std::string(RecordKindName(r.kind))});
    facts.push_back({"  time", r.time});
    facts.push_back({"  query", r.query.empty()  ? "-"
                                : r.unit.empty() ? r.query
                                                 : fmt::format("{} ({})", r.query, r.unit)});
    if (!r.hypothesis.empty()) facts.push_back({"  hypothesis", r.hypothesis});
    facts.push_back({"  verdict", VerdictText(r)});
    if (!r.verdict_detail.empty()) facts.push_back({"", r.verdict_detail});
    facts.push_back({"  " + RatioLabel(r), r.estimate ? FormatEstimate(*r.estimate) : "none"});
    if (r.estimate && !r.estimate->method.empty()) {
      facts.push_back({"  method", r.estimate->method});
    }
    facts.push_back({"  band", FormatBand(r.band)});
    if (r.interrupted) {
      facts.push_back({"  interrupted", "yes: the samples are those taken before Ctrl-C"});
    }
    out += AlignColumns(facts);
    if (r.kind == RecordKind::kTable) {
      if (std::optional<TableFacts> table = ReadTableFacts(r)) out += "\n" + TableFactsText(*table);
    }
    if (r.kind == RecordKind::kSweep) {
      if (std::optional<SweepFacts> sweep = ReadSweepFacts(r)) out += "\n" + SweepFactsText(*sweep);
    }
    if (r.kind == RecordKind::kExplain) {
      if (std::optional<ExplainFacts> e = ReadExplainFacts(r)) {
        out += "\n" + ExplainFactsText(*e, kExplainReportRows);
      }
    }
    if (r.kind == RecordKind::kIsolate) {
      if (std::optional<SimulatedFacts> s = ReadIsolateFacts(r).simulated) {
        out += "\n" + SimulatedText(*s);
      }
    }
    if (r.kind == RecordKind::kMultiBisect) {
      if (std::optional<MultiBisectFacts> m = ReadMultiBisectFacts(r)) {
        out += "\n" + MultiBisectFactsText(*m);
      }
    }

    out += "\narms\n";
    for (size_t i = 0; i < r.arms.size(); ++i) {
      const Arm& arm = r.arms[i];
      ArmFacts f = SummarizeArm(r, static_cast<int>(i));
      out += fmt::format("  [{}] {}{}\n", i, Safe(ArmName(r, static_cast<int>(i))),
                         arm.label.empty() ? "" : " (" + Safe(arm.label) + ")");
      out += fmt::format("      setup     {}\n", Safe(ArmSetup(arm)));
      if (!arm.commit.empty() || !arm.revision.empty()) {
        out += fmt::format("      build     commit {} tree {} revision {}\n",
                           Safe(OrUnavailable(arm.commit)), Safe(OrUnavailable(arm.tree)),
                           Safe(OrUnavailable(arm.revision)));
      }
      if (!arm.command.empty()) {
        std::string command;
        for (const std::string& word : arm.command) command += (command.empty() ? "" : " ") + word;
        out += fmt::format("      command   {}\n", Safe(command));
      }
      out += fmt::format("      median    {}{}  n={} ok, {} failed, {} dropped, {} warm-up\n",
                         f.median ? FormatValue(*f.median) : "n/a",
                         r.unit.empty() ? "" : " " + Safe(r.unit), f.ok, f.failed, f.dropped,
                         f.warmups);
      if (r.samples.empty() && (arm.ok_samples > 0 || arm.failed_samples > 0)) {
        out += fmt::format("      stored    median {}, {} ok, {} failed (no raw samples kept)\n",
                           FormatValue(arm.median), arm.ok_samples, arm.failed_samples);
      }
    }
    if (r.arms.empty()) out += "  none\n";

    std::string failures;
    for (const Sample& s : r.samples) {
      if (s.ok) continue;
      failures += fmt::format("  #{} {}{}: {}\n", s.sequence, Safe(ArmName(r, s.arm)),
                              s.pair >= 0 ? fmt::format(" pair {}", s.pair) : "",
                              s.failure.empty() ? "no reason recorded" : Safe(s.failure));
    }
    if (!failures.empty()) out += "\nfailed samples\n" + failures;

    out += "\nhost\n";
    std::vector<std::vector<std::string>> host;
    host.push_back({"  machine", FormatHost(r.host)});
    host.push_back(
        {"  time", fmt::format("{} → {}", OrUnavailable(r.start.time), OrUnavailable(r.end.time))});
    host.push_back({"  calibration", FormatCalibration(r)});
    host.push_back({"  load (1 min)", FormatStartEnd(r.start.load1, r.end.load1, "")});
    host.push_back({"  load (5/15 min)", FormatLongerLoads(r.start, r.end)});
    host.push_back({"  memory available", FormatMemoryAvailable(r.start, r.end)});
    host.push_back({"  cpu frequency", FormatStartEnd(r.start.cpu_mhz, r.end.cpu_mhz, "MHz")});
    host.push_back({"  governor", fmt::format("{} → {}", OrUnavailable(r.start.governor),
                                              OrUnavailable(r.end.governor))});
    host.push_back({"  tuning", FormatTuningSummary(r.start.tuning)});
    host.push_back(
        {"  culprit", fmt::format("{}, config digest {}", OrUnavailable(r.culprit_version),
                                  OrUnavailable(r.config_digest))});
    if (!r.invocation.empty()) {
      std::string line;
      for (const std::string& word : r.invocation) line += (line.empty() ? "" : " ") + word;
      host.push_back({"  invocation", line});
    }
    out += AlignColumns(host);

    if (!r.details.empty()) {
      out += "\ndetails\n";
      for (const auto& [key, value] : r.details) {
        out += fmt::format("  {}: {}\n", Safe(key), Safe(value));
      }
    }
    if (r.kind == RecordKind::kExplain && ReadExplainFacts(r)) {
      // Every function of both runs: too long to print, and printed above as a table.
      out += "\npayload\n  the explain diff above (every function: records show --json)\n";
    } else if (!r.details_json.empty()) {
      out += fmt::format("\npayload\n  {}\n", Safe(r.details_json));
    }
    if (!r.notes.empty()) {
      out += "\nnotes\n";
      for (const std::string& note : r.notes) out += "  - " + Safe(note) + "\n";
    }
    if (!r.links.empty()) {
      out += "\nlinks\n";
      for (const std::string& link : r.links) out += "  - " + Safe(link) + "\n";
    }

    out += fmt::format(
        "\nsamples in execution order ({}; sequence:arm=value, /w warm-up, "
        "/d dropped)\n",
        r.samples.size());
    std::vector<std::string> tags = ArmTags(r);
    std::string line = " ";
    for (const Sample& s : r.samples) {
      std::string token = Safe(SampleToken(s, tags));
      if (line.size() + token.size() + 2 > kWrapColumn) {
        out += line + "\n";
        line = " ";
      }
      line += "  " + token;
    }
    if (line.size() > 1) out += line + "\n";
    if (r.samples.empty()) out += "  none\n";
    return out;
  }
};

}  // namespace

std::unique_ptr<RecordReporter> MakeTextReporter() { return std::make_unique<TextReporter>(); }

}  // namespace culprit
