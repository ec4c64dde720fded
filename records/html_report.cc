// The HTML reporter: one self-contained page (inline CSS and SVG, no
// scripts), so a report can be mailed or archived as a single file.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/strings.h"
#include "records/explain_payload.h"
#include "records/html_isolation.h"
#include "records/report.h"
#include "records/report_facts.h"
#include "records/report_payload.h"
#include "records/svg_plot.h"
#include "records/sweep_payload.h"
#include "records/table_payload.h"

namespace culprit {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                    "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
constexpr int kPlotWidth = 720, kPlotHeight = 240;
constexpr int kLeft = 64, kRight = 16, kTop = 16, kBottom = 36;

using svg::Escape;

const char* Colour(int arm) {
  constexpr int kColours = sizeof(kPalette) / sizeof(kPalette[0]);
  return kPalette[((arm % kColours) + kColours) % kColours];
}

// The value range and execution span a sample plot draws, padded 8% each side.
struct SampleScale {
  double low = 0, high = 1, pad = 0;
  int max_sequence = 0;
};

/// The scale of r's samples: from the measured ones (warm-ups only when nothing
/// else was measured), widened when flat, then padded.
SampleScale SampleScaleOf(const Record& r) {
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
  return {low - pad, high + pad, pad, max_sequence};
}

// Where a sample plot puts a sequence number (x) and a value (y).
struct SampleFrame {
  SampleScale scale;
  double plot_w = kPlotWidth - kLeft - kRight, plot_h = kPlotHeight - kTop - kBottom;
  double X(int sequence) const {
    return kLeft + (scale.max_sequence == 0 ? plot_w / 2 : plot_w * sequence / scale.max_sequence);
  }
  double Y(double value) const {
    return kTop + plot_h * (scale.high - value) / (scale.high - scale.low);
  }
};

/// The svg element's opening tag, the plot area, three value ticks and the x label.
std::string SampleAxes(const Record& r, const SampleFrame& f) {
  const SampleScale& k = f.scale;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot samples\" width=\"{0}\" "
      "height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"samples of {2} in execution order\">\n",
      kPlotWidth, kPlotHeight, Escape(r.id));
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" "
      "stroke=\"#ccc\"/>\n",
      kLeft, kTop, f.plot_w, f.plot_h);
  for (double value : {k.high - k.pad, (k.high + k.low) / 2, k.low + k.pad}) {
    svg +=
        fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\">{}</text>\n",
                    kLeft - 4, f.Y(value) + 4, Escape(FormatValue(value) + " " + r.unit));
  }
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">sample, in "
      "execution order (0–{})</text>\n",
      kLeft + f.plot_w / 2, kPlotHeight - 6, k.max_sequence);
  return svg;
}

/// A dashed line at each arm's median, in the arm's colour.
std::string ArmMedianLines(const Record& r, const SampleFrame& f) {
  std::string svg;
  for (size_t arm = 0; arm < r.arms.size(); ++arm) {
    ArmFacts facts = SummarizeArm(r, static_cast<int>(arm));
    if (!facts.median) continue;
    svg += fmt::format(
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-dasharray=\"4 3\" opacity=\"0.7\"/>\n",
        kLeft, kLeft + f.plot_w, f.Y(*facts.median), f.Y(*facts.median),
        Colour(static_cast<int>(arm)));
  }
  return svg;
}

/// One sample's mark with its tooltip: a red cross under the axis when it
/// failed, else a dot (hollow for a warm-up, grey when dropped) pinned to the scale.
std::string SampleMark(const Record& r, const Sample& s, const SampleFrame& f) {
  double cx = f.X(s.sequence);
  std::string title =
      Escape(fmt::format("#{} {}: {}", s.sequence, ArmName(r, s.arm),
                         s.ok ? FormatValue(s.value) + " " + r.unit : "failed: " + s.failure));
  if (!s.ok || !std::isfinite(s.value)) {
    double cy = kTop + f.plot_h + 8;
    return fmt::format(
        "<path class=\"failed\" d=\"M{0:.1f} {1:.1f}l6 6m0 -6l-6 6\" "
        "stroke=\"#d00\" stroke-width=\"1.5\"><title>{2}</title></path>\n",
        cx - 3, cy - 3, title);
  }
  std::string colour = s.dropped ? "#999" : Colour(s.arm);
  double value = std::clamp(s.value, f.scale.low, f.scale.high);
  if (value != s.value) title += " (off scale)";
  return fmt::format(
      "<circle class=\"sample\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" "
      "fill=\"{}\" stroke=\"{}\"><title>{}</title></circle>\n",
      cx, f.Y(value), s.warmup ? "none" : colour, colour, title);
}

/// The arms' colours and what each mark means.
std::string SampleLegend(const Record& r) {
  std::string legend = "<p class=\"legend\">";
  for (size_t arm = 0; arm < r.arms.size(); ++arm) {
    legend += fmt::format("<span style=\"color:{}\">&#9679;</span> {} &nbsp; ",
                          Colour(static_cast<int>(arm)), Escape(ArmName(r, static_cast<int>(arm))));
  }
  return legend +
         "hollow: warm-up (pinned to the edge when off scale) · grey: dropped · red ×: failed · "
         "dashed: arm median</p>\n";
}

// Every sample at its execution position; y is the value. Warm-ups are hollow,
// dropped samples grey, failed samples a red cross under the axis; a dashed
// line marks each arm's median.
std::string SamplePlot(const Record& r) {
  if (r.samples.empty()) return "<p class=\"muted\">No samples.</p>\n";
  SampleFrame frame{SampleScaleOf(r)};
  std::string svg = SampleAxes(r, frame) + ArmMedianLines(r, frame);
  for (const Sample& s : r.samples) svg += SampleMark(r, s, frame);
  svg += "</svg>\n";
  return svg + SampleLegend(r);
}

std::string FactRow(std::string_view name, std::string_view value) {
  return fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", Escape(name), Escape(value));
}

// A link to another record: an anchor when it is in the page, else said.
std::string RecordLink(std::string_view id, const RecordIndex& index) {
  if (index.Find(id)) return fmt::format("<a href=\"#{0}\"><code>{0}</code></a>", Escape(id));
  return fmt::format("<code>{}</code> <span class=\"absent\">(not in this report)</span>",
                     Escape(id));
}

std::string Reading(const Record& r) {
  if (!r.estimate) return "";
  return fmt::format("<p class=\"reading\"><b>{}</b>: {}.</p>\n", Escape(VerdictText(r)),
                     Escape(BandSentence(r.estimate->ratio, r.estimate->low, r.estimate->high,
                                         r.band, DirectionOf(r), r.unit)));
}

// The picture of the verdict: the interval against the band.
std::string VerdictStrip(const Record& r) {
  if (!r.estimate) return "";
  svg::StripSpec spec;
  spec.title = RatioLabel(r);
  spec.value = {r.estimate->ratio, r.estimate->low, r.estimate->high};
  spec.band = r.band;
  spec.verdict = VerdictText(r) + " · " + RatioLabel(r);
  spec.width = 360;
  return spec.title.empty() ? "" : svg::IntervalStrip(spec);
}

/// One step's row in the steps table; adds its point to scatter when it has
/// an estimate and a commit index.
std::string StepRow(const Record& step, int n, const RecordIndex& index,
                    svg::ScatterSpec& scatter) {
  std::optional<int> i = StepIndex(step, n);
  const std::string commit = ShortCommit(StepCommit(step));
  const std::string kind = StepKindText(step);
  std::string ratio = "-", interval = "-", reading = "-";
  if (step.estimate) {
    const Estimate& e = *step.estimate;
    ratio = fmt::format("{:.3f} ({})", e.ratio, FormatChange(e.ratio));
    interval = FormatInterval(e.low, e.high);
    reading = BandSentence(e.ratio, e.low, e.high, step.band, DirectionOf(step), step.unit);
    if (i) {
      scatter.points.push_back(
          {static_cast<double>(*i),
           {e.ratio, e.low, e.high},
           fmt::format("{} step at {} ({}): {} {}", kind, *i, commit, ratio, interval)});
    }
  }
  return fmt::format(
      "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td>"
      "<td>{}</td></tr>\n",
      i ? std::to_string(*i) : "?", Escape(kind), Escape(commit), ratio, interval, Escape(reading),
      RecordLink(step.id, index));
}

/// The posterior over the first bad commit as columns over 1..n, or a note
/// that the record has none.
std::string PosteriorColumns(const BisectFacts& facts, int n) {
  if (facts.posterior.size() <= 1) return HtmlMissing("posterior over the commits");
  svg::ColumnSpec columns;
  columns.title = "posterior probability that the first bad commit is j";
  columns.x_label = "commit index j";
  columns.x_min = 0;
  columns.x_max = std::max(1, n);
  for (size_t j = 1; j < facts.posterior.size(); ++j) {
    columns.columns.push_back({static_cast<double>(j), facts.posterior[j]});
  }
  if (facts.culprit_index) columns.lines.push_back({static_cast<double>(*facts.culprit_index), ""});
  return svg::ColumnStrip(columns);
}

std::string BisectPicture(const Record& r, const RecordIndex& index) {
  BisectFacts facts = ReadBisectFacts(r);
  std::vector<const Record*> steps = index.StepsOf(r);
  int n = facts.range_commits;
  for (const Record* step : steps) {
    if (auto i = StepIndex(*step, n)) n = std::max(n, *i);
  }
  std::string out = "<h4>Steps by commit index</h4>\n";
  svg::ScatterSpec scatter;
  scatter.title =
      fmt::format("each step's ratio (candidate / its baseline) by commit index, {}", r.query);
  scatter.x_label = fmt::format("commit index (0 = good … {} = bad)", n);
  scatter.x_min = 0;
  scatter.x_max = std::max(1, n);
  scatter.band = r.band;
  std::string table;
  for (const Record* step : steps) table += StepRow(*step, n, index, scatter);
  if (facts.culprit_index) {
    scatter.lines.push_back({static_cast<double>(*facts.culprit_index),
                             "culprit " + ShortCommit(facts.culprit_commit)});
  }
  for (int u : facts.unbuildable) {
    scatter.crosses.push_back(
        {static_cast<double>(u), u >= 0 && static_cast<size_t>(u) < facts.commits.size()
                                     ? "unbuildable " + ShortCommit(facts.commits[u])
                                     : "unbuildable"});
  }
  if (n > 0) out += svg::ErrorBarScatter(scatter);
  out +=
      "<p class=\"legend\">dots: each step's ratio with its interval (grey: a tie inside the "
      "shaded band, red: slower, blue: faster, amber: undecided) · dashed red line: the culprit · "
      "purple ×: unbuildable commits</p>\n";
  if (steps.empty()) {
    out += fmt::format(
        "<p class=\"missing\">Not in this report: the {} this bisect links to "
        "(<code>culprit records report {}</code> includes them).</p>\n",
        CountOf(r.links.size(), "step record"), Escape(r.id));
  }
  out += PosteriorColumns(facts, n);
  if (!facts.unbuildable_commits.empty() && facts.unbuildable.empty()) {
    out += "<p class=\"missing\">Unbuildable commits (their index is not in this record): ";
    for (const std::string& c : facts.unbuildable_commits)
      out += "<code>" + Escape(ShortCommit(c)) + "</code> ";
    out += "</p>\n";
  }
  if (!table.empty()) {
    out +=
        "<table class=\"steps\">\n<tr><th>index</th><th>step</th><th>commit</th><th>ratio</th>"
        "<th>interval</th><th>reading</th><th>record</th></tr>\n" +
        table + "</table>\n";
  }
  return out;
}

std::string AuditPicture(const Record& r, const RecordIndex& index) {
  AuditFacts facts = ReadAuditFacts(r);
  svg::WaterfallSpec spec;
  spec.title = fmt::format("published → today, {}", r.query);
  spec.unit = r.unit;
  spec.band = r.band;
  double nan = std::numeric_limits<double>::quiet_NaN();
  spec.steps.push_back({"published", true, facts.published.value_or(nan), {}, false, ""});
  double product = 1;
  bool all_known = true;
  std::string table;
  for (const FactorFacts& f : facts.factors) {
    std::string caption = f.verdict ? std::string(VerdictName(*f.verdict)) : "";
    if (f.estimate) {
      caption +=
          (caption.empty() ? "" : " · ") + BandWord(f.estimate->low, f.estimate->high, r.band);
      product *= f.estimate->ratio;
    } else {
      all_known = false;
    }
    spec.steps.push_back({f.name, false, 0, f.estimate, f.cross_sitting, caption});
    table += fmt::format(
        "<tr><td>× {}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", Escape(f.name),
        f.cross_sitting ? " <i>(cross-sitting)</i>" : "",
        f.estimate
            ? fmt::format("{:.3f} ({}) {}", f.estimate->ratio, FormatChange(f.estimate->ratio),
                          FormatInterval(f.estimate->low, f.estimate->high))
            : "not in this record",
        Escape(f.verdict ? VerdictName(*f.verdict) : "-"),
        f.estimate ? Escape(BandSentence(f.estimate->ratio, f.estimate->low, f.estimate->high,
                                         r.band, DirectionOf(r), r.unit))
                   : "-",
        f.record.empty() ? "-" : RecordLink(f.record, index));
  }
  std::optional<RatioInterval> remainder = facts.remainder;
  std::string remainder_caption;
  if (!remainder && facts.published && facts.today && all_known && *facts.published > 0) {
    double ratio = *facts.today / (*facts.published * product);
    remainder = RatioInterval{ratio, ratio, ratio};
    remainder_caption = "no interval in this record";
  } else if (remainder) {
    remainder_caption =
        ReadAgainstBand(remainder->low, remainder->high, r.band) == BandReading::kTie
            ? "fully explained"
            : BandWord(remainder->low, remainder->high, r.band);
  }
  spec.steps.push_back({"remainder", false, 0, remainder, false, remainder_caption});
  spec.steps.push_back({"today", true, facts.today.value_or(nan), {}, false, ""});
  std::string out = "<h4>Waterfall</h4>\n" + svg::Waterfall(spec);
  out +=
      "<p class=\"legend\">bars from 0: measured values · floating bars: each factor, from the "
      "value before it to the value after, its interval as the whisker (grey: a tie inside the "
      "band) · dashed outline: the cross-sitting factor</p>\n";
  if (facts.factors.empty()) out += HtmlMissing("audit factors");
  out += fmt::format(
      "<table class=\"factors\">\n<tr><th>step</th><th>ratio and interval</th><th>verdict</th>"
      "<th>reading</th><th>record</th></tr>\n<tr><td>published</td><td>{}</td><td></td><td></td>"
      "<td></td></tr>\n",
      facts.published ? FormatValue(*facts.published) + " " + Escape(r.unit)
                      : "not in this record");
  out += table;
  out +=
      fmt::format("<tr><td>remainder</td><td>{}</td><td></td><td>{}</td><td></td></tr>\n",
                  remainder ? FormatRatioInterval(remainder->ratio, remainder->low, remainder->high)
                            : "not in this record",
                  Escape(remainder_caption));
  out += fmt::format(
      "<tr><td>today</td><td>{}</td><td></td><td></td><td></td></tr>\n</table>\n",
      facts.today ? FormatValue(*facts.today) + " " + Escape(r.unit) : "not in this record");
  if (!facts.conclusion.empty()) {
    out += "<p class=\"reading\">" + Escape(facts.conclusion) + "</p>\n";
  }
  return out;
}

std::string InvestigationPicture(const Record& r, const RecordIndex& index) {
  if (r.links.empty()) return HtmlMissing("records of the investigation");
  std::string out =
      "<h4>Records of this investigation</h4>\n<table class=\"members\">\n<tr><th>record</th>"
      "<th>kind</th><th>verdict</th><th>reading</th></tr>\n";
  for (const std::string& link : r.links) {
    const Record* m = index.Find(link);
    std::string reading = "-";
    if (m && m->estimate) {
      reading = BandSentence(m->estimate->ratio, m->estimate->low, m->estimate->high, m->band,
                             DirectionOf(*m), m->unit);
    }
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       RecordLink(link, index), m ? Escape(RecordKindName(m->kind)) : "-",
                       m ? Escape(VerdictText(*m)) : "-", Escape(reading));
  }
  return out + "</table>\n";
}

// Calibration (start, between looks, end) and load across the sitting.
std::string HostPicture(const Record& r) {
  CalibrationSeries calibrations = ReadCalibrations(r);
  bool any_calibration = std::any_of(calibrations.values_ms.begin(), calibrations.values_ms.end(),
                                     [](const auto& v) { return v.has_value(); });
  bool any_load = r.start.load1 || r.end.load1;
  if (!any_calibration && !any_load) return HtmlMissing("host calibration and load");
  std::string out = "<div class=\"plots host\">\n";
  svg::LineSpec cal;
  cal.title = "calibration across the sitting";
  cal.unit = "ms";
  cal.x_labels = calibrations.labels;
  cal.values = calibrations.values_ms;
  if (r.start.calibration_ms) {
    cal.reference_low = *r.start.calibration_ms * (1 - kCalibrationDriftLimit);
    cal.reference_high = *r.start.calibration_ms * (1 + kCalibrationDriftLimit);
    cal.reference_label =
        fmt::format("shaded: ±{:.0f}% of the start, the drift limit", kCalibrationDriftLimit * 100);
  }
  out += svg::LineStrip(cal);
  svg::LineSpec load;
  load.title = "load average (1 min)";
  load.x_labels = {"start", "end"};
  load.values = {r.start.load1, r.end.load1};
  if (r.host.logical_cores > 0) {
    load.reference_low = 0;
    load.reference_high = r.host.logical_cores;
    load.reference_label = fmt::format("shaded: 0 .. {} logical cores", r.host.logical_cores);
  }
  out += svg::LineStrip(load);
  return out + "</div>\n";
}

// A table record: a forest plot per arm (each query's ratio to the baseline with its interval,
// the band shaded, the geometric mean last), then the table as the terminal prints it.
std::string TablePicture(const Record& r) {
  std::optional<TableFacts> facts = ReadTableFacts(r);
  if (!facts || facts->arms.empty()) return HtmlMissing("the table's cells");
  std::string out = "<h4>Each query against the baseline</h4>\n";
  for (size_t a = 1; a < facts->arms.size(); ++a) {
    svg::BarsSpec spec;
    spec.title = fmt::format("{} / {}, per query", facts->arms[a].name, facts->arms[0].name);
    spec.baseline = facts->arms[0].name;
    spec.band = facts->band;
    for (size_t row = 0; row < facts->rows.size(); ++row) {
      const TableCellFacts* cell = facts->Cell(static_cast<int>(row), static_cast<int>(a));
      svg::IntervalBar bar;
      bar.name = facts->rows[row].query;
      if (cell && cell->ratio)
        bar.value = svg::RatioInterval{*cell->ratio, *cell->low, *cell->high};
      if (cell && cell->status == "not measured") bar.role = "not measured";
      bar.caption = cell ? cell->verdict : "";
      spec.bars.push_back(std::move(bar));
    }
    for (const TableMeanFacts& mean : facts->means) {
      if (mean.arm != static_cast<int>(a)) continue;
      spec.bars.push_back({"geometric mean", "summary",
                           svg::RatioInterval{mean.ratio, mean.low, mean.high},
                           fmt::format("{} cells", mean.cells)});
    }
    out += svg::IntervalBars(spec);
  }
  return out + "<pre class=\"table\">" + Escape(TableFactsText(*facts)) + "</pre>\n";
}

// A sweep: each query's series (ratio to the start per measured commit, with its interval)
// against the commit's place in the range; a line where a change was located, a cross where a
// commit was not measured.
std::string SweepPicture(const Record& r) {
  std::optional<SweepFacts> facts = ReadSweepFacts(r);
  if (!facts) return HtmlMissing("the sweep's series");
  std::string out = "<h4>Each query's series against the range's start</h4>\n";
  for (const SweepQueryFacts& q : facts->queries) {
    svg::ScatterSpec spec;
    spec.title = fmt::format("{}: ratio to the start", q.query);
    spec.x_label = "commit in the range (first parent)";
    spec.x_max = std::max(1, facts->commits);
    spec.band = facts->band;
    for (const SweepPointFacts& p : q.points) {
      if (p.index == 0) {
        spec.points.push_back({0, svg::RatioInterval{1, 1, 1}, "the start " + p.short_id});
      } else if (!p.measured) {
        spec.crosses.push_back({static_cast<double>(p.index), "not measured"});
      } else if (p.ratio && p.low && p.high) {
        spec.points.push_back({static_cast<double>(p.index),
                               svg::RatioInterval{*p.ratio, *p.low, *p.high},
                               fmt::format("#{} {} {}", p.index, p.short_id, p.verdict)});
      }
    }
    for (const SweepPartFacts& part : q.parts) {
      if (part.kind != "change" || part.to >= static_cast<int>(q.points.size())) continue;
      spec.lines.push_back({static_cast<double>(q.points[part.to].index),
                            part.ratio ? fmt::format("moved ×{:.3f}", *part.ratio) : "moved"});
    }
    out += svg::ErrorBarScatter(spec);
  }
  return out + "<pre class=\"table\">" + Escape(SweepFactsText(*facts)) + "</pre>\n";
}

// An explain: the functions whose instructions moved most, as signed bars, then the diff's
// table (the record keeps every function).
std::string ExplainPicture(const Record& r) {
  std::optional<ExplainFacts> facts = ReadExplainFacts(r);
  if (!facts) return HtmlMissing("the per-function diff");
  svg::DeltaBarsSpec spec;
  spec.title = fmt::format("{}: instructions per function, {} against {}", facts->query,
                           ShortCommit(facts->change), ShortCommit(facts->parent));
  spec.unit = "instructions";
  for (const ExplainFunctionFacts& fn : facts->functions) {
    if (fn.Delta() == 0 || spec.bars.size() == kExplainPictureBars) break;
    svg::DeltaBar bar;
    bar.name = fn.function;
    bar.value = static_cast<double>(fn.Delta());
    bar.value_text = ExplainDeltaText(fn);
    std::string where = fn.first_line > 0 ? fmt::format("{}:{}", fn.file, fn.first_line) : fn.file;
    if (fn.place == FunctionPlace::kTouched) where += ", touched by the change";
    if (fn.place == FunctionPlace::kOnPath) where += ", on the path, untouched";
    bar.caption = where;
    spec.bars.push_back(std::move(bar));
  }
  std::string out = "<h4>The functions whose instructions moved most</h4>\n";
  out += svg::DeltaBars(spec);
  return out + "<pre class=\"table\">" + Escape(ExplainFactsText(*facts, kExplainReportRows)) +
         "</pre>\n";
}

/// The picture that fits r's kind (a bisect's steps, an isolation's samples, ...).
std::string KindPicture(const Record& r, const RecordIndex& index) {
  if (r.kind == RecordKind::kBisect) {
    std::string out = BisectPicture(r, index);
    if (r.estimate)
      out += "<h4>Across the culprit</h4>\n<div class=\"plots\">" + VerdictStrip(r) + "</div>\n";
    return out;
  }
  if (r.kind == RecordKind::kIsolate)
    return IsolatePicture(r) + "<h4>Samples in execution order</h4>\n" + SamplePlot(r);
  if (r.kind == RecordKind::kAudit) return AuditPicture(r, index);
  if (r.kind == RecordKind::kInvestigation) return InvestigationPicture(r, index);
  if (r.kind == RecordKind::kTable) return TablePicture(r);
  if (r.kind == RecordKind::kSweep) return SweepPicture(r);
  if (r.kind == RecordKind::kExplain) return ExplainPicture(r);
  return "<div class=\"plots\">\n" + VerdictStrip(r) + "<div>" + SamplePlot(r) + "</div></div>\n";
}

/// The facts table: identity, verdict, estimate, host and sitting conditions, details.
std::string FactsTable(const Record& r) {
  std::string out = "<h4>Facts</h4>\n<table class=\"facts\">\n";
  out += FactRow("id", r.id);
  out += FactRow("time", r.time);
  if (!r.hypothesis.empty()) out += FactRow("hypothesis", r.hypothesis);
  out += FactRow("verdict", VerdictText(r));
  if (!r.verdict_detail.empty()) out += FactRow("detail", r.verdict_detail);
  out += FactRow(RatioLabel(r), r.estimate ? FormatEstimate(*r.estimate) : "none");
  out += FactRow("band", FormatBand(r.band));
  if (r.estimate) {
    out += FactRow("reading", BandSentence(r.estimate->ratio, r.estimate->low, r.estimate->high,
                                           r.band, DirectionOf(r), r.unit));
  }
  out += FactRow("calibration", FormatCalibration(r));
  out += FactRow("load (1 min)", FormatStartEnd(r.start.load1, r.end.load1, ""));
  out += FactRow("load (5/15 min)", FormatLongerLoads(r.start, r.end));
  out += FactRow("memory available", FormatMemoryAvailable(r.start, r.end));
  out += FactRow("cpu frequency", FormatStartEnd(r.start.cpu_mhz, r.end.cpu_mhz, "MHz"));
  out += FactRow("host", FormatHost(r.host));
  out += FactRow("culprit", fmt::format("{} (config {})", OrUnavailable(r.culprit_version),
                                        OrUnavailable(r.config_digest)));
  for (const auto& [key, value] : r.details) out += FactRow(key, value);
  return out + "</table>\n";
}

/// One row per arm: its colour, name, setup, median and sample counts; empty without arms.
std::string ArmsTable(const Record& r) {
  if (r.arms.empty()) return "";
  std::string out =
      "<table class=\"arms\">\n<tr><th>#</th><th>arm</th><th>setup</th>"
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
  return out + "</table>\n";
}

/// The failed samples, the notes and the linked records, each as a list when there are any.
std::string FailuresNotesLinks(const Record& r, const RecordIndex& index) {
  std::string out, failures;
  for (const Sample& s : r.samples) {
    if (s.ok) continue;
    failures += fmt::format("<li>#{} {}: {}</li>\n", s.sequence, Escape(ArmName(r, s.arm)),
                            Escape(s.failure.empty() ? "no reason recorded" : s.failure));
  }
  if (!failures.empty()) out += "<h4>Failed samples</h4>\n<ul>\n" + failures + "</ul>\n";
  if (!r.notes.empty()) {
    out += "<h4>Notes</h4>\n<ul>\n";
    for (const std::string& note : r.notes) out += "<li>" + Escape(note) + "</li>\n";
    out += "</ul>\n";
  }
  if (!r.links.empty()) {
    out += "<h4>Related records</h4>\n<ul class=\"links\">\n";
    for (const std::string& link : r.links) out += "<li>" + RecordLink(link, index) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

std::string RecordSection(const Record& r, const RecordIndex& index, int level = 2) {
  std::string out =
      fmt::format("<section id=\"{0}\">\n<h{4}>{1} {2} — {3}</h{4}>\n", Escape(r.id),
                  Escape(RecordKindName(r.kind)), Escape(r.query), Escape(VerdictText(r)), level);
  out += Reading(r);
  if (!r.verdict_detail.empty())
    out += "<p class=\"detail\">" + Escape(r.verdict_detail) + "</p>\n";
  out += KindPicture(r, index);
  out += "<h4>Host across the sitting</h4>\n" + HostPicture(r);
  out += FactsTable(r);
  out += ArmsTable(r);
  out += FailuresNotesLinks(r, index);
  return out + "</section>\n";
}

// One row of a summary table. The query column is left out when every
// record of the page has the same query (the heading says it), so that the
// table fits 1200 px with the ids and times on one line. When the query column
// is there, the time column is not: an id starts with its record's time to the
// second (2026-12-04T133558Z-...), and the two together made an archive of
// several queries 1265 px wide (scripts/check-reports, with a table record).
std::string SummaryRow(const Record& r, bool with_query) {
  std::string ratio = "-", interval = "-", reading = "-";
  if (r.estimate) {
    ratio = fmt::format("{:.3f}", r.estimate->ratio);
    interval = FormatInterval(r.estimate->low, r.estimate->high);
    reading = BandWord(r.estimate->low, r.estimate->high, r.band) + " (" + FormatBand(r.band) + ")";
  }
  return fmt::format(
      "<tr><td class=\"id\"><a href=\"#{0}\">{0}</a></td>{1}"
      "<td class=\"kind\">{2}</td>{3}<td><b>{4}</b></td><td>{5}</td><td class=\"num\">{6}</td>"
      "<td class=\"num\">{7}</td><td class=\"hypothesis\">{8}</td></tr>\n",
      Escape(r.id), with_query ? "" : "<td class=\"time\">" + Escape(r.time) + "</td>",
      Escape(RecordKindName(r.kind)), with_query ? "<td>" + Escape(r.query) + "</td>" : "",
      Escape(VerdictText(r)), ratio, interval, Escape(reading), Escape(r.hypothesis));
}

bool SeveralQueries(std::span<const Record> records) {
  return std::any_of(records.begin(), records.end(),
                     [&](const Record& r) { return r.query != records.front().query; });
}

std::string SummaryHead(bool with_query) {
  return fmt::format(
      "<table class=\"summary\">\n<tr><th>id</th>{}<th>kind</th>{}"
      "<th>verdict</th><th>ratio</th><th>interval</th><th>reading (band)</th>"
      "<th>hypothesis</th></tr>\n",
      with_query ? "" : "<th>time</th>", with_query ? "<th>query</th>" : "");
}

std::string Page(std::string_view title, std::string_view body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>{}</title>\n"
      "<style>\n"
      "body{{font-family:sans-serif;font-size:14px;margin:0 auto;padding:16px 20px;"
      "max-width:1140px;color:#222}}\n"
      "table{{border-collapse:collapse;margin:0.5em 0}}\n"
      "th,td{{border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}}\n"
      "th{{background:#f4f4f4}}\ntable.facts th{{white-space:nowrap}}\n"
      "table.facts td{{overflow-wrap:anywhere;max-width:52em}}\n"
      "td.id,td.time,td.num,td.kind{{white-space:nowrap}}\n"
      "td.id,code{{font-family:monospace;font-size:12px}}\n"
      "table.summary{{font-size:13px}}\ntd.hypothesis{{min-width:12em}}\n"
      // A text table's prose lines (a sweep's heading) wrap at the page's width; its aligned
      // rows are shorter than that and stay as printed.
      "pre.table{{white-space:pre-wrap;overflow-wrap:anywhere}}\n"
      "tr.group th{{background:#e8e8e8;font-size:15px}}\n"
      ".muted,.legend,.absent,.missing{{color:#555;font-size:90%}}\n"
      ".missing{{font-style:italic}}\n.reading{{font-size:15px}}\n"
      ".plots{{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}}\n"
      "svg.plot{{max-width:100%;height:auto;display:block;margin:4px 0}}\n"
      "section{{border-top:2px solid #333;margin-top:2em}}\n"
      "h2.group{{border-bottom:1px solid #999;margin-top:2.5em}}\n</style>\n</head>\n<body>\n{}"
      "</body>\n</html>\n",
      Escape(title), body);
}

std::string GroupAnchor(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-';
    out += keep ? c : '-';
  }
  return out;
}

class HtmlReporter : public RecordReporter {
 public:
  std::string RenderList(std::span<const Record> records) override {
    std::string body = "<h1>culprit records</h1>\n";
    if (records.empty()) return Page("culprit records", body + "<p>No records.</p>\n");
    RecordIndex index(records);
    std::vector<RecordGroup> groups = GroupRecords(records);
    body += fmt::format("<p>{} in {}: ", CountOf(records.size(), "record"),
                        CountOf(groups.size(), "group"));
    for (size_t g = 0; g < groups.size(); ++g) {
      body += fmt::format("{}<a href=\"#{}\">{}</a>", g ? " · " : "", GroupAnchor(groups[g].anchor),
                          Escape(groups[g].title));
    }
    body += "</p>\n";
    const bool with_query = SeveralQueries(records);
    body += SummaryHead(with_query);
    for (const RecordGroup& group : groups) {
      // Eight columns either way: the query column takes the time column's place.
      body +=
          fmt::format("<tr class=\"group\"><th colspan=\"8\">{}</th></tr>\n", Escape(group.title));
      for (const Record* r : group.members) body += SummaryRow(*r, with_query);
    }
    body += "</table>\n";
    for (const RecordGroup& group : groups) {
      body += fmt::format("<h2 class=\"group\" id=\"{}\">{}</h2>\n", GroupAnchor(group.anchor),
                          Escape(group.title));
      for (const Record* r : group.members) body += RecordSection(*r, index, 3);
    }
    return Page("culprit records", body);
  }

  std::string RenderOne(const Record& record) override {
    RecordIndex index(std::span<const Record>(&record, 1));
    return Page("culprit record " + record.id, RecordSection(record, index));
  }

  std::string RenderWhole(std::span<const Record> records) override {
    if (records.empty()) return Page("culprit records", "<p>No records.</p>\n");
    RecordIndex index(records);
    const Record& root = records[0];
    std::string body = fmt::format("<h1>{} {} — {}</h1>\n", Escape(RecordKindName(root.kind)),
                                   Escape(root.query), Escape(VerdictText(root)));
    body += fmt::format("<p>{} and the {} it links to.</p>\n", Escape(root.id),
                        CountOf(records.size() - 1, "record"));
    const bool with_query = SeveralQueries(records);
    body += SummaryHead(with_query);
    for (const Record& r : records) body += SummaryRow(r, with_query);
    body += "</table>\n";
    for (const Record& r : records) body += RecordSection(r, index);
    return Page(fmt::format("culprit {} {}", RecordKindName(root.kind), root.id), body);
  }
};

}  // namespace

std::string HtmlMissing(std::string_view what) {
  return fmt::format("<p class=\"missing\">{}: not in this record.</p>\n", Escape(what));
}

std::unique_ptr<RecordReporter> MakeHtmlReporter() { return std::make_unique<HtmlReporter>(); }

}  // namespace culprit
