// The Markdown reporter: `culprit records report`.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "base/strings.h"
#include "records/explain_payload.h"
#include "records/report.h"
#include "records/report_facts.h"
#include "records/report_payload.h"
#include "records/svg_plot.h"
#include "records/sweep_payload.h"
#include "records/table_payload.h"

namespace culprit {
namespace {

// Every text a record holds may be someone else's (a commit subject, a file
// name, a foreign archive's ids and notes): in the .md it is shown, never
// obeyed. Inline text gets its HTML (& < > ") as entities and its Markdown
// syntax (links, emphasis, code, strikethrough, '|' that would end a table
// cell) backslash-escaped; line breaks become spaces, so nothing starts a new
// block. A bare URL may still be autolinked by a GFM renderer: it then shows
// its own address, which is no deception.

bool IsWordByte(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80;
}

std::string Inline(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      case '\\':
      case '`':
      case '*':
      case '[':
      case ']':
      case '~':
      case '|':
        out += '\\';
        out += c;
        break;
      case '_':
        // Inside a word ("OMP_NUM_THREADS") '_' can neither open nor close emphasis:
        // left as it is, so the .md stays readable.
        if (i == 0 || i + 1 == text.size() || !IsWordByte(text[i - 1]) ||
            !IsWordByte(text[i + 1])) {
          out += '\\';
        }
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Inline text at the start of a block (a list item, a paragraph): also what
// would make it a heading, a quote, a list or a rule there.
std::string BlockStart(std::string_view text) {
  std::string out = Inline(text);
  size_t digits = 0;
  while (digits < out.size() && std::isdigit(static_cast<unsigned char>(out[digits]))) ++digits;
  const bool ordered =
      digits > 0 && digits < out.size() && (out[digits] == '.' || out[digits] == ')');
  if (ordered) {
    out.insert(digits, "\\");
  } else if (!out.empty() && (out[0] == '#' || out[0] == '-' || out[0] == '+' || out[0] == '=')) {
    out.insert(0, "\\");
  }
  return out;
}

// A table cell: inline text, "-" when empty.
std::string Cell(std::string_view text) {
  std::string out = Inline(text);
  return out.empty() ? "-" : out;
}

// The longest run of backticks in `text`.
size_t LongestBacktickRun(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// A code span, in a table cell or not: nothing inside it is Markdown or HTML,
// so only what ends it matters. Its backtick fence is longer than any run of
// backticks in the text (padded with spaces when the text touches a backtick);
// '|' is escaped, which GFM honours even inside code in a cell.
std::string Code(std::string_view text) {
  if (text.empty()) return "-";
  std::string body;
  for (char c : text) {
    if (c == '|') {
      body += "\\|";
    } else if (c == '\n' || c == '\r') {
      body += ' ';
    } else {
      body += c;
    }
  }
  const std::string fence(LongestBacktickRun(body) + 1, '`');
  const bool pad = body.front() == '`' || body.back() == '`';
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

// A record id as a URL fragment: its unreserved characters as they are, the
// rest percent-encoded, so that no id can end the link or add to it.
std::string Fragment(std::string_view id) {
  std::string out;
  for (char c : id) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

// An HTML attribute value in double quotes: what the HTML reporter escapes, the same way.
std::string Attribute(std::string_view text) { return svg::Escape(text); }

std::string Interval(double low, double high) { return FormatInterval(low, high); }

// `of` says which way its metric is better, and in what unit.
std::string Reading(double ratio, double low, double high, double band, const Record& of) {
  return Cell(BandSentence(ratio, low, high, band, DirectionOf(of), of.unit));
}

// A link: to the record's heading when it is in the report, else said.
std::string Link(const std::string& id, const RecordIndex& index) {
  if (index.Find(id)) return fmt::format("[{}](#{})", Code(id), Fragment(id));
  return Code(id) + " (not in this report)";
}

std::string SummaryRow(const Record& r) {
  std::string ratio = "-", interval = "-", pairs = "-", reading = "-";
  if (r.estimate) {
    ratio = fmt::format("{:.3f} ({})", r.estimate->ratio, FormatChange(r.estimate->ratio));
    interval = Interval(r.estimate->low, r.estimate->high);
    pairs = std::to_string(r.estimate->pairs);
    reading = Reading(r.estimate->ratio, r.estimate->low, r.estimate->high, r.band, r);
  }
  return fmt::format("| {} | {} | {} | {} | {} | **{}** | {} | {} | {} | {} | {} | {} |\n",
                     Code(r.id), Cell(r.time), Cell(RecordKindName(r.kind)), Cell(r.query),
                     Cell(ArmsSummary(r)), Cell(VerdictText(r)), ratio, interval, pairs,
                     FormatBand(r.band), reading, Cell(r.hypothesis));
}

constexpr const char* kSummaryHead =
    "| id | time | kind | query | arms (medians) | verdict | ratio | interval | pairs | band | "
    "reading | hypothesis |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";

std::string BisectTable(const Record& r, const RecordIndex& index) {
  BisectFacts facts = ReadBisectFacts(r);
  std::string out = "\n## Bisect steps by commit index\n\n";
  std::vector<const Record*> steps = index.StepsOf(r);
  if (steps.empty()) {
    out += fmt::format("Not in this report: the {} it links to.\n",
                       CountOf(r.links.size(), "step record"));
  } else {
    out +=
        "| index | step | commit | ratio | interval | reading | record |\n"
        "|---|---|---|---|---|---|---|\n";
    for (const Record* step : steps) {
      std::optional<int> i = StepIndex(*step, facts.range_commits);
      const std::string commit = ShortCommit(StepCommit(*step));
      std::string ratio = "-", interval = "-", reading = "-";
      if (step->estimate) {
        const Estimate& e = *step->estimate;
        ratio = fmt::format("{:.3f} ({})", e.ratio, FormatChange(e.ratio));
        interval = Interval(e.low, e.high);
        reading = Reading(e.ratio, e.low, e.high, step->band, *step);
      }
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", i ? std::to_string(*i) : "?",
                         Cell(StepKindText(*step)), Code(commit), ratio, interval, reading,
                         Link(step->id, index));
    }
  }
  const std::string& culprit = facts.culprit_commit;
  out +=
      fmt::format("\nculprit: {}{}\n", culprit.empty() ? "none named" : Code(ShortCommit(culprit)),
                  facts.culprit_index ? fmt::format(" (index {})", *facts.culprit_index) : "");
  if (!facts.unbuildable_commits.empty() || !facts.unbuildable.empty()) {
    out += "\nunbuildable:";
    for (int u : facts.unbuildable) {
      out += fmt::format(" index {}{}", u,
                         u >= 0 && static_cast<size_t>(u) < facts.commits.size()
                             ? " " + Code(ShortCommit(facts.commits[u]))
                             : "");
    }
    if (facts.unbuildable.empty()) {
      for (const std::string& c : facts.unbuildable_commits) out += " " + Code(ShortCommit(c));
    }
    out += "\n";
  }
  if (facts.posterior.size() > 1) {
    std::vector<std::pair<double, int>> top;
    for (size_t j = 1; j < facts.posterior.size(); ++j)
      top.push_back({facts.posterior[j], static_cast<int>(j)});
    std::sort(top.rbegin(), top.rend());
    out += "\n| commit index j | posterior P(first bad = j) |\n|---|---|\n";
    for (size_t k = 0; k < top.size() && k < 5; ++k) {
      out += fmt::format("| {} | {:.4f} |\n", top[k].second, top[k].first);
    }
  } else {
    out += "\nposterior: not in this record\n";
  }
  return out;
}

// An isolation's simulated figures, labelled as `isolate` labels them: secondary, never a
// verdict.
std::string SimulatedMarkdown(const SimulatedFacts& s) {
  std::string out = "\n## Simulated figures\n\n" + Inline(s.heading) +
                    "\n\n| condition | median per run | samples (min..max) | vs baseline |\n"
                    "|---|---|---|---|\n";
  for (const SimulatedRow& row : s.rows) {
    out += fmt::format("| {} | {} | {} | {} |\n", Cell(row.condition), Cell(row.median),
                       Cell(row.samples), Cell(row.vs_baseline));
  }
  if (!s.failure.empty()) out += "\nstopped: " + Inline(s.failure) + "\n";
  return out;
}

std::string IsolateTable(const Record& r) {
  IsolateFacts facts = ReadIsolateFacts(r);
  std::string out = "\n## Conditions against the baseline\n\n";
  if (facts.conditions.empty()) return out + "Conditions: not in this record.\n";
  out +=
      "| condition | role | holds | releases | ratio | interval | verdict | reading |\n"
      "|---|---|---|---|---|---|---|---|\n";
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  for (const ConditionFacts& c : facts.conditions) {
    std::string ratio = "-", interval = "-",
                reading = c.baseline ? "the reference" : "not in this record";
    if (c.estimate) {
      ratio = fmt::format("{:.3f} ({})", c.estimate->ratio, FormatChange(c.estimate->ratio));
      interval = Interval(c.estimate->low, c.estimate->high);
      reading = Reading(c.estimate->ratio, c.estimate->low, c.estimate->high, r.band, r);
    }
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", Cell(c.name),
                       Cell(std::string(ConditionRoleName(c.role))), Cell(join(c.hold)),
                       Cell(join(c.release)), ratio, interval,
                       Cell(c.verdict ? std::string(VerdictName(*c.verdict)) : ""), reading);
  }
  if (!facts.reversibility.empty()) {
    out += fmt::format(
        "\nreversibility: **{}**{}\n", Cell(facts.reversibility),
        facts.reversibility_sentence.empty() ? "" : " — " + Inline(facts.reversibility_sentence));
  }
  if (facts.simulated) out += SimulatedMarkdown(*facts.simulated);
  return out;
}

// An investigation: its records in ladder order, each with its verdict and reading.
std::string InvestigationTable(const Record& r, const RecordIndex& index) {
  std::string out = "\n## Records of this investigation\n\n";
  if (r.links.empty()) return out + "Records: none linked.\n";
  out += "| record | kind | verdict | reading |\n|---|---|---|---|\n";
  for (const std::string& link : r.links) {
    const Record* m = index.Find(link);
    std::string reading = "-";
    if (m && m->estimate) {
      reading = Reading(m->estimate->ratio, m->estimate->low, m->estimate->high, m->band, *m);
    }
    out += fmt::format("| {} | {} | {} | {} |\n", Link(link, index),
                       m ? Cell(RecordKindName(m->kind)) : "-", m ? Cell(VerdictText(*m)) : "-",
                       reading);
  }
  return out;
}

std::string AuditTable(const Record& r, const RecordIndex& index) {
  AuditFacts facts = ReadAuditFacts(r);
  std::string out =
      "\n## Waterfall\n\n| step | ratio | interval | value after | verdict | reading | record |\n"
      "|---|---|---|---|---|---|---|\n";
  std::optional<double> running = facts.published;
  auto value = [&](const std::optional<double>& v) {
    return v ? FormatValue(*v) + (r.unit.empty() ? "" : " " + Inline(r.unit))
             : std::string("not in this record");
  };
  out += fmt::format("| published | | | {} | | | |\n", value(facts.published));
  for (const FactorFacts& f : facts.factors) {
    if (!f.estimate) {
      running.reset();
      out += fmt::format("| × {} | not in this record | | | {} | | {} |\n", Cell(f.name),
                         Cell(f.verdict ? VerdictName(*f.verdict) : ""),
                         f.record.empty() ? "-" : Link(f.record, index));
      continue;
    }
    if (running) *running *= f.estimate->ratio;
    out += fmt::format("| × {}{} | {:.3f} ({}) | {} | {} | {} | {} | {} |\n", Cell(f.name),
                       f.cross_sitting ? " (cross-sitting)" : "", f.estimate->ratio,
                       FormatChange(f.estimate->ratio), Interval(f.estimate->low, f.estimate->high),
                       value(running), Cell(f.verdict ? VerdictName(*f.verdict) : ""),
                       Reading(f.estimate->ratio, f.estimate->low, f.estimate->high, r.band, r),
                       f.record.empty() ? "-" : Link(f.record, index));
  }
  if (facts.remainder) {
    const RatioInterval& m = *facts.remainder;
    out += fmt::format("| × remainder | {:.3f} ({}) | {} | | | {} | |\n", m.ratio,
                       FormatChange(m.ratio), Interval(m.low, m.high),
                       ReadAgainstBand(m.low, m.high, r.band) == BandReading::kTie
                           ? "fully explained"
                           : Reading(m.ratio, m.low, m.high, r.band, r));
  } else {
    out += "| × remainder | not in this record | | | | | |\n";
  }
  out += fmt::format("| today | | | {} | | | |\n", value(facts.today));
  if (!facts.conclusion.empty()) out += "\n" + BlockStart(facts.conclusion) + "\n";
  return out;
}

std::string HostTable(const Record& r) {
  CalibrationSeries c = ReadCalibrations(r);
  std::string out =
      "\n## Host across the sitting\n\n| moment | calibration | load (1 min) |\n|---|---|---|\n";
  for (size_t i = 0; i < c.labels.size(); ++i) {
    std::optional<double> load;
    if (i == 0) load = r.start.load1;
    if (i + 1 == c.labels.size()) load = r.end.load1;
    bool edge = i == 0 || i + 1 == c.labels.size();
    out += fmt::format("| {} | {} | {} |\n", Cell(c.labels[i]),
                       c.values_ms[i] ? FormatValue(*c.values_ms[i]) + " ms" : "unavailable",
                       load ? FormatValue(*load) : (edge ? "unavailable" : "-"));
  }
  return out;
}

class MarkdownReporter : public RecordReporter {
 public:
  std::string RenderList(std::span<const Record> records) override {
    std::string out = "# culprit records\n\n";
    if (records.empty()) return out + "No records.\n";
    for (const RecordGroup& group : GroupRecords(records)) {
      out += fmt::format("## {}\n\n", Inline(group.title));
      out += kSummaryHead;
      for (const Record* r : group.members) out += SummaryRow(*r);
      out += "\n";
    }
    out += CountOf(records.size(), "record") + ".\n";
    return out;
  }

  std::string RenderWhole(std::span<const Record> records) override {
    if (records.empty()) return "No records.\n";
    RecordIndex index(records);
    std::string out = fmt::format("# {} {} as a whole\n\n", RecordKindName(records[0].kind),
                                  Inline(records[0].id));
    out += kSummaryHead;
    for (const Record& r : records) out += SummaryRow(r);
    for (const Record& r : records) out += "\n---\n\n" + Render(r, index);
    return out;
  }

  std::string RenderOne(const Record& r) override {
    RecordIndex index(std::span<const Record>(&r, 1));
    return Render(r, index);
  }

 private:
  std::string Render(const Record& r, const RecordIndex& index) {
    std::string out = fmt::format("<a id=\"{}\"></a>\n\n# {} {} — {}\n\n", Attribute(r.id),
                                  RecordKindName(r.kind), Inline(r.query), VerdictText(r));
    if (r.estimate) {
      out += fmt::format("**{}**: {}.\n\n", VerdictText(r),
                         BandSentence(r.estimate->ratio, r.estimate->low, r.estimate->high, r.band,
                                      DirectionOf(r), r.unit));
    }
    out += "| fact | value |\n|---|---|\n";
    out += fmt::format("| id | {} |\n", Code(r.id));
    out += fmt::format("| time | {} |\n", Cell(r.time));
    out += fmt::format("| query | {} |\n",
                       Cell(r.unit.empty() ? r.query : r.query + " (" + r.unit + ")"));
    out += fmt::format("| hypothesis | {} |\n", Cell(r.hypothesis));
    out += fmt::format("| verdict | **{}** |\n", Cell(VerdictText(r)));
    if (!r.verdict_detail.empty()) out += fmt::format("| detail | {} |\n", Cell(r.verdict_detail));
    out += fmt::format("| {} | {} |\n", Cell(RatioLabel(r)),
                       r.estimate ? Cell(FormatEstimate(*r.estimate)) : "none");
    out += fmt::format("| band | {} |\n", FormatBand(r.band));
    if (r.estimate) {
      out += fmt::format("| reading | {} |\n",
                         Reading(r.estimate->ratio, r.estimate->low, r.estimate->high, r.band, r));
    }
    out += fmt::format("| calibration | {} |\n", Cell(FormatCalibration(r)));
    out += fmt::format("| load (1 min) | {} |\n", FormatStartEnd(r.start.load1, r.end.load1, ""));
    out += fmt::format("| load (5/15 min) | {} |\n", FormatLongerLoads(r.start, r.end));
    out += fmt::format("| memory available | {} |\n", FormatMemoryAvailable(r.start, r.end));
    out += fmt::format("| cpu frequency | {} |\n",
                       FormatStartEnd(r.start.cpu_mhz, r.end.cpu_mhz, "MHz"));
    out += fmt::format("| host | {} |\n", Cell(FormatHost(r.host)));
    out += fmt::format("| culprit | {} (config {}) |\n", Cell(OrUnavailable(r.culprit_version)),
                       Code(r.config_digest));
    if (r.interrupted) out += "| interrupted | yes: samples taken before Ctrl-C |\n";
    for (const auto& [key, value] : r.details) {
      out += fmt::format("| {} | {} |\n", Cell(key), Cell(value));
    }

    if (r.kind == RecordKind::kBisect) out += BisectTable(r, index);
    if (r.kind == RecordKind::kIsolate) out += IsolateTable(r);
    if (r.kind == RecordKind::kAudit) out += AuditTable(r, index);
    if (r.kind == RecordKind::kInvestigation) out += InvestigationTable(r, index);
    if (r.kind == RecordKind::kTable) {
      if (std::optional<TableFacts> table = ReadTableFacts(r)) {
        out += "\n## Table\n\n" + TableFactsMarkdown(*table);
      }
    }
    if (r.kind == RecordKind::kSweep) {
      if (std::optional<SweepFacts> sweep = ReadSweepFacts(r)) {
        out += "\n## Sweep\n\n" + SweepFactsMarkdown(*sweep);
      }
    }
    if (r.kind == RecordKind::kExplain) {
      if (std::optional<ExplainFacts> e = ReadExplainFacts(r)) {
        out +=
            "\n## Where the instructions moved\n\n" + ExplainFactsMarkdown(*e, kExplainReportRows);
      }
    }
    out += HostTable(r);
    if (!r.arms.empty()) {
      out +=
          "\n## Arms\n\n| # | arm | setup | median | ok | failed | dropped |\n"
          "|---|---|---|---|---|---|---|\n";
    }
    for (size_t i = 0; i < r.arms.size(); ++i) {
      ArmFacts f = SummarizeArm(r, static_cast<int>(i));
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", i,
                         Cell(ArmName(r, static_cast<int>(i))), Cell(ArmSetup(r.arms[i])),
                         f.median ? FormatValue(*f.median) + " " + Inline(r.unit) : "n/a", f.ok,
                         f.failed, f.dropped);
    }

    bool any_failed = false;
    for (const Sample& s : r.samples) {
      if (s.ok) continue;
      if (!any_failed) out += "\n## Failed samples\n\n";
      any_failed = true;
      out += fmt::format("- #{} {}: {}\n", s.sequence, Cell(ArmName(r, s.arm)),
                         Cell(s.failure.empty() ? "no reason recorded" : s.failure));
    }
    if (!r.notes.empty()) {
      out += "\n## Notes\n\n";
      for (const std::string& note : r.notes) out += "- " + BlockStart(note) + "\n";
    }
    if (!r.links.empty()) {
      out += "\n## Related records\n\n";
      for (const std::string& link : r.links) out += "- " + Link(link, index) + "\n";
    }
    if (r.samples.empty()) return out;
    std::string samples = "seq arm pair value flags\n";
    for (const Sample& s : r.samples) {
      std::string flags;
      if (s.warmup) flags += " warm-up";
      if (s.dropped) flags += " dropped";
      if (!s.ok) flags += " failed";
      // One line per sample: an arm name's line break would forge lines.
      std::string arm = ArmName(r, s.arm);
      std::replace(arm.begin(), arm.end(), '\n', ' ');
      std::replace(arm.begin(), arm.end(), '\r', ' ');
      samples += fmt::format("{:>3} {} {} {}{}\n", s.sequence, arm,
                             s.pair >= 0 ? std::to_string(s.pair) : "-",
                             s.ok ? FormatValue(s.value) : "-", flags);
    }
    // A fence longer than any run of backticks inside, which would otherwise close it.
    const std::string fence(std::max<size_t>(3, LongestBacktickRun(samples) + 1), '`');
    out += "\n## Samples in execution order\n\n" + fence + "\n" + samples + fence + "\n";
    return out;
  }
};

}  // namespace

std::unique_ptr<RecordReporter> MakeMarkdownReporter() {
  return std::make_unique<MarkdownReporter>();
}

}  // namespace culprit
