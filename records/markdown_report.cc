// The Markdown reporter: `culprit records report`.

#include <fmt/format.h>

#include "records/report.h"
#include "records/report_facts.h"

namespace culprit {
namespace {

// Table cells cannot hold '|' or line breaks.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out.empty() ? "-" : out;
}

std::string Code(std::string_view text) {
  return text.empty() ? "-" : fmt::format("`{}`", Cell(text));
}

class MarkdownReporter : public RecordReporter {
 public:
  std::string RenderList(std::span<const Record> records) override {
    std::string out = "# culprit records\n\n";
    if (records.empty()) return out + "No records.\n";
    out += "| id | time | kind | query | verdict | ratio | interval | pairs | hypothesis |\n";
    out += "|---|---|---|---|---|---|---|---|---|\n";
    for (const Record& r : records) {
      std::string ratio = "-", interval = "-", pairs = "-";
      if (r.estimate) {
        ratio = fmt::format("{:.3f} ({})", r.estimate->ratio, FormatChange(r.estimate->ratio));
        interval = fmt::format("[{:.3f}, {:.3f}]", r.estimate->low, r.estimate->high);
        pairs = std::to_string(r.estimate->pairs);
      }
      out += fmt::format("| {} | {} | {} | {} | **{}** | {} | {} | {} | {} |\n", Code(r.id),
                         Cell(r.time), Cell(r.kind), Cell(r.query), Cell(VerdictText(r)), ratio,
                         interval, pairs, Cell(r.hypothesis));
    }
    out += fmt::format("\n{} record(s).\n", records.size());
    return out;
  }

  std::string RenderOne(const Record& r) override {
    std::string out =
        fmt::format("# {} {} — {}\n\n", r.kind, r.query.empty() ? "" : r.query, VerdictText(r));
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

    out +=
        "\n## Arms\n\n| # | arm | setup | median | ok | failed | dropped |\n"
        "|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < r.arms.size(); ++i) {
      ArmFacts f = SummarizeArm(r, static_cast<int>(i));
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", i,
                         Cell(ArmName(r, static_cast<int>(i))), Cell(ArmSetup(r.arms[i])),
                         f.median ? FormatValue(*f.median) + " " + r.unit : "n/a", f.ok, f.failed,
                         f.dropped);
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
      for (const std::string& note : r.notes) out += "- " + note + "\n";
    }
    if (!r.links.empty()) {
      out += "\n## Related records\n\n";
      for (const std::string& link : r.links) out += "- " + Code(link) + "\n";
    }
    out += "\n## Samples in execution order\n\n```\nseq arm pair value flags\n";
    for (const Sample& s : r.samples) {
      std::string flags;
      if (s.warmup) flags += " warm-up";
      if (s.dropped) flags += " dropped";
      if (!s.ok) flags += " failed";
      out += fmt::format("{:>3} {} {} {}{}\n", s.sequence, ArmName(r, s.arm),
                         s.pair >= 0 ? std::to_string(s.pair) : "-",
                         s.ok ? FormatValue(s.value) : "-", flags);
    }
    out += "```\n";
    return out;
  }
};

}  // namespace

std::unique_ptr<RecordReporter> MakeMarkdownReporter() {
  return std::make_unique<MarkdownReporter>();
}

}  // namespace culprit
