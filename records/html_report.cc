// The HTML reporter: one self-contained page (inline CSS and SVG, no
// scripts), so a report can be mailed or archived as a single file.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "records/report.h"
#include "records/report_facts.h"

namespace culprit {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                    "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
constexpr int kPlotWidth = 720, kPlotHeight = 240;
constexpr int kLeft = 64, kRight = 16, kTop = 16, kBottom = 36;

std::string Escape(std::string_view text) {
  std::string out;
  for (char c : text) {
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
      default:
        out += c;
    }
  }
  return out;
}

const char* Colour(int arm) {
  constexpr int kColours = sizeof(kPalette) / sizeof(kPalette[0]);
  return kPalette[((arm % kColours) + kColours) % kColours];
}

// Every sample at its execution position; y is the value. Warm-ups are hollow,
// dropped samples grey, failed samples a red cross under the axis; a dashed
// line marks each arm's median.
std::string SamplePlot(const Record& r) {
  if (r.samples.empty()) return "<p class=\"muted\">No samples.</p>\n";
  double low = std::numeric_limits<double>::infinity(), high = -low;
  int max_sequence = 0;
  // The scale comes from the measured samples: a cold warm-up can be several
  // times slower and would flatten the comparison the plot is for. Samples
  // off the scale are pinned to its edge and say so in their tooltip.
  bool any_measured = std::any_of(r.samples.begin(), r.samples.end(), [](const Sample& s) {
    return s.ok && !s.warmup && std::isfinite(s.value);
  });
  for (const Sample& s : r.samples) {
    max_sequence = std::max(max_sequence, s.sequence);
    if (s.ok && std::isfinite(s.value) && (!s.warmup || !any_measured)) {
      low = std::min(low, s.value);
      high = std::max(high, s.value);
    }
  }
  if (!std::isfinite(low)) low = 0, high = 1;
  if (high - low < 1e-12 * std::max(1.0, std::fabs(high))) {
    double pad = std::max(std::fabs(high) * 0.05, 1e-9);
    low -= pad;
    high += pad;
  }
  double pad = (high - low) * 0.08;
  low -= pad;
  high += pad;
  const double plot_w = kPlotWidth - kLeft - kRight, plot_h = kPlotHeight - kTop - kBottom;
  auto x = [&](int sequence) {
    return kLeft + (max_sequence == 0 ? plot_w / 2 : plot_w * sequence / max_sequence);
  };
  auto y = [&](double value) { return kTop + plot_h * (high - value) / (high - low); };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"samples of {2} in execution order\">\n",
      kPlotWidth, kPlotHeight, Escape(r.id));
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" "
      "stroke=\"#ccc\"/>\n",
      kLeft, kTop, plot_w, plot_h);
  for (double value : {high - pad, (high + low) / 2, low + pad}) {
    svg +=
        fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\">{}</text>\n",
                    kLeft - 4, y(value) + 4, Escape(FormatValue(value) + " " + r.unit));
  }
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">sample, in "
      "execution order (0–{})</text>\n",
      kLeft + plot_w / 2, kPlotHeight - 6, max_sequence);
  for (size_t arm = 0; arm < r.arms.size(); ++arm) {
    ArmFacts facts = SummarizeArm(r, static_cast<int>(arm));
    if (!facts.median) continue;
    svg += fmt::format(
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-dasharray=\"4 3\" opacity=\"0.7\"/>\n",
        kLeft, kLeft + plot_w, y(*facts.median), y(*facts.median), Colour(static_cast<int>(arm)));
  }
  for (const Sample& s : r.samples) {
    double cx = x(s.sequence);
    std::string title =
        Escape(fmt::format("#{} {}: {}", s.sequence, ArmName(r, s.arm),
                           s.ok ? FormatValue(s.value) + " " + r.unit : "failed: " + s.failure));
    if (!s.ok || !std::isfinite(s.value)) {
      double cy = kTop + plot_h + 8;
      svg += fmt::format(
          "<path class=\"failed\" d=\"M{0:.1f} {1:.1f}l6 6m0 -6l-6 6\" "
          "stroke=\"#d00\" stroke-width=\"1.5\"><title>{2}</title></path>\n",
          cx - 3, cy - 3, title);
      continue;
    }
    std::string colour = s.dropped ? "#999" : Colour(s.arm);
    double value = std::clamp(s.value, low, high);
    if (value != s.value) title += " (off scale)";
    svg += fmt::format(
        "<circle class=\"sample\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" "
        "fill=\"{}\" stroke=\"{}\"><title>{}</title></circle>\n",
        cx, y(value), s.warmup ? "none" : colour, colour, title);
  }
  svg += "</svg>\n";

  std::string legend = "<p class=\"legend\">";
  for (size_t arm = 0; arm < r.arms.size(); ++arm) {
    legend += fmt::format("<span style=\"color:{}\">&#9679;</span> {} &nbsp; ",
                          Colour(static_cast<int>(arm)), Escape(ArmName(r, static_cast<int>(arm))));
  }
  legend +=
      "hollow: warm-up (pinned to the edge when off scale) · grey: dropped · red ×: failed · "
      "dashed: arm median</p>\n";
  return svg + legend;
}

std::string FactRow(std::string_view name, std::string_view value) {
  return fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", Escape(name), Escape(value));
}

std::string RecordSection(const Record& r) {
  std::string out = fmt::format("<section id=\"{0}\">\n<h2>{1} {2} — {3}</h2>\n", Escape(r.id),
                                Escape(r.kind), Escape(r.query), Escape(VerdictText(r)));
  out += "<table class=\"facts\">\n";
  out += FactRow("id", r.id);
  out += FactRow("time", r.time);
  if (!r.hypothesis.empty()) out += FactRow("hypothesis", r.hypothesis);
  out += FactRow("verdict", VerdictText(r));
  if (!r.verdict_detail.empty()) out += FactRow("detail", r.verdict_detail);
  out += FactRow(RatioLabel(r), r.estimate ? FormatEstimate(*r.estimate) : "none");
  out += FactRow("band", FormatBand(r.band));
  out += FactRow("calibration", FormatCalibration(r));
  out += FactRow("load (1 min)", FormatStartEnd(r.start.load1, r.end.load1, ""));
  out += FactRow("load (5/15 min)", FormatLongerLoads(r.start, r.end));
  out += FactRow("memory available", FormatMemoryAvailable(r.start, r.end));
  out += FactRow("cpu frequency", FormatStartEnd(r.start.cpu_mhz, r.end.cpu_mhz, "MHz"));
  out += FactRow("host", FormatHost(r.host));
  out += FactRow("culprit", fmt::format("{} (config {})", OrUnavailable(r.culprit_version),
                                        OrUnavailable(r.config_digest)));
  for (const auto& [key, value] : r.details) out += FactRow(key, value);
  out +=
      "</table>\n<table class=\"arms\">\n<tr><th>#</th><th>arm</th><th>setup</th>"
      "<th>median</th><th>ok</th><th>failed</th><th>dropped</th></tr>\n";
  for (size_t i = 0; i < r.arms.size(); ++i) {
    ArmFacts f = SummarizeArm(r, static_cast<int>(i));
    out += fmt::format(
        "<tr><td style=\"color:{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        Colour(static_cast<int>(i)), i, Escape(ArmName(r, static_cast<int>(i))),
        Escape(ArmSetup(r.arms[i])),
        Escape(f.median ? FormatValue(*f.median) + " " + r.unit : "n/a"), f.ok, f.failed,
        f.dropped);
  }
  out += "</table>\n";
  out += SamplePlot(r);
  std::string failures;
  for (const Sample& s : r.samples) {
    if (s.ok) continue;
    failures += fmt::format("<li>#{} {}: {}</li>\n", s.sequence, Escape(ArmName(r, s.arm)),
                            Escape(s.failure.empty() ? "no reason recorded" : s.failure));
  }
  if (!failures.empty()) out += "<h3>Failed samples</h3>\n<ul>\n" + failures + "</ul>\n";
  if (!r.notes.empty()) {
    out += "<h3>Notes</h3>\n<ul>\n";
    for (const std::string& note : r.notes) out += "<li>" + Escape(note) + "</li>\n";
    out += "</ul>\n";
  }
  if (!r.links.empty()) {
    out += "<h3>Related records</h3>\n<ul>\n";
    for (const std::string& link : r.links) {
      out += fmt::format("<li><a href=\"#{0}\">{0}</a></li>\n", Escape(link));
    }
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

std::string Page(std::string_view title, std::string_view body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
      "<style>\nbody{{font-family:sans-serif;margin:2em;max-width:60em}}\n"
      "table{{border-collapse:collapse;margin:0.5em 0}}\n"
      "th,td{{border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}}\n"
      "th{{background:#f4f4f4}}\n.muted,.legend{{color:#555;font-size:90%}}\n"
      "section{{border-top:2px solid #333;margin-top:2em}}\n</style>\n</head>\n<body>\n{}"
      "</body>\n</html>\n",
      Escape(title), body);
}

class HtmlReporter : public RecordReporter {
 public:
  std::string RenderList(std::span<const Record> records) override {
    std::string body = "<h1>culprit records</h1>\n";
    if (records.empty()) return Page("culprit records", body + "<p>No records.</p>\n");
    body +=
        "<table class=\"summary\">\n<tr><th>id</th><th>time</th><th>kind</th><th>query</th>"
        "<th>verdict</th><th>ratio</th><th>interval</th><th>hypothesis</th></tr>\n";
    for (const Record& r : records) {
      std::string ratio = "-", interval = "-";
      if (r.estimate) {
        ratio = fmt::format("{:.3f}", r.estimate->ratio);
        interval = fmt::format("[{:.3f}, {:.3f}]", r.estimate->low, r.estimate->high);
      }
      body += fmt::format(
          "<tr><td><a href=\"#{0}\">{0}</a></td><td>{1}</td><td>{2}</td><td>{3}</td>"
          "<td><b>{4}</b></td><td>{5}</td><td>{6}</td><td>{7}</td></tr>\n",
          Escape(r.id), Escape(r.time), Escape(r.kind), Escape(r.query), Escape(VerdictText(r)),
          ratio, interval, Escape(r.hypothesis));
    }
    body += "</table>\n";
    for (const Record& r : records) body += RecordSection(r);
    return Page("culprit records", body);
  }

  std::string RenderOne(const Record& record) override {
    return Page("culprit record " + record.id, RecordSection(record));
  }
};

}  // namespace

std::unique_ptr<RecordReporter> MakeHtmlReporter() { return std::make_unique<HtmlReporter>(); }

}  // namespace culprit
