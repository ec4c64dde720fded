#include "records/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/strings.h"

namespace culprit::svg {
namespace {

constexpr const char* kFont = "font-family=\"sans-serif\"";
constexpr const char* kBandFill = "#dff0d8";
constexpr const char* kAxis = "#555";
// Wide plots share their horizontal margins, so a scatter and a column strip
// of the same width and x range put each x at the same pixel.
constexpr double kWideLeft = 70, kWideRight = 24;

std::string Open(int width, int height, std::string_view cls, std::string_view label) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot {2}\" width=\"{0}\" "
      "height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{3}\" {4}>\n"
      "<title>{3}</title>\n",
      width, height, cls, Escape(label), kFont);
}

std::string Text(double x, double y, std::string_view text, std::string_view anchor = "start",
                 int size = 11, std::string_view extra = "") {
  return fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{}\" text-anchor=\"{}\"{}{}>{}</text>\n", x, y,
      size, anchor, extra.empty() ? "" : " ", extra, Escape(text));
}

std::string Line(double x1, double y1, double x2, double y2, std::string_view stroke,
                 std::string_view extra = "") {
  return fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"{}{}/>\n", x1, y1,
      x2, y2, stroke, extra.empty() ? "" : " ", extra);
}

std::string Rect(double x, double y, double w, double h, std::string_view fill,
                 std::string_view extra = "") {
  return fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"{}{}/>\n", x,
      y, std::max(0.0, w), std::max(0.0, h), fill, extra.empty() ? "" : " ", extra);
}

bool Positive(double v) { return std::isfinite(v) && v > 0; }

// A log-scale ratio domain holding the band, 1 and every given value, padded.
std::pair<double, double> RatioDomain(const std::vector<double>& values, double band) {
  double lo = 1 / (1 + band), hi = 1 + band;
  for (double v : values) {
    if (!Positive(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  double pad = (std::log(hi) - std::log(lo)) * 0.08;
  return {std::exp(std::log(lo) - pad), std::exp(std::log(hi) + pad)};
}

// Ratio ticks at round percentage changes inside the scale's domain, at
// least `min_px` apart: the roundest changes are placed first, so 1.0 and
// ±10% win over ±1% when space is short.
std::vector<double> RatioTicks(const Scale& scale, double min_px) {
  static constexpr double kChanges[] = {0,     0.1,   -0.1,  0.2,  -0.2, 0.5, -0.5, 1,
                                        0.05,  -0.05, 0.3,   -0.3, 2,    4,   9,    0.02,
                                        -0.02, 0.01,  -0.01, -0.8, -0.9, 19,  49,   99};
  double lo = std::min(scale.v0(), scale.v1()), hi = std::max(scale.v0(), scale.v1());
  std::vector<double> kept;
  for (double c : kChanges) {
    double r = 1 + c;
    if (!(r > lo && r < hi)) continue;
    bool room = std::all_of(kept.begin(), kept.end(),
                            [&](double k) { return std::fabs(scale(k) - scale(r)) >= min_px; });
    if (room) kept.push_back(r);
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

// Round linear ticks (1, 2, 5 × 10^k) covering [lo, hi].
std::vector<double> LinearTicks(double lo, double hi, int most) {
  std::vector<double> out;
  if (!(hi > lo)) return {lo};
  double raw = (hi - lo) / std::max(1, most - 1);
  double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    out.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  }
  return out;
}

std::string Number(double v) {
  if (!std::isfinite(v)) return "n/a";
  double m = std::fabs(v);
  if (m == 0) return "0";
  if (m >= 1000) return fmt::format("{:.0f}", v);
  if (m >= 100) return fmt::format("{:.1f}", v);
  if (m >= 10) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

std::string IntervalText(const RatioInterval& v) {
  return fmt::format("{:.3f}× ({}) [{}, {}]", v.ratio, PercentChange(v.ratio), PercentChange(v.low),
                     PercentChange(v.high));
}

std::string ToneName(Tone tone) {
  switch (tone) {
    case Tone::kTie:
      return "tie";
    case Tone::kSlower:
      return "effect (higher)";
    case Tone::kFaster:
      return "effect (lower)";
    case Tone::kUndecided:
      return "undecided";
    case Tone::kNeutral:
      return "";
  }
  return "";
}

// The band shaded between two y (or x) pixels, with the 1.0 line.
std::string HorizontalBand(const Scale& x, double band, double top, double bottom) {
  double left = x(1 / (1 + band)), right = x(1 + band);
  return Rect(left, top, right - left, bottom - top, kBandFill, "class=\"band\"") +
         Line(x(1), top, x(1), bottom, "#333", "class=\"unity\" stroke-width=\"1\"");
}

std::string VerticalBand(const Scale& y, double band, double left, double right) {
  double top = y(1 + band), bottom = y(1 / (1 + band));
  return Rect(left, top, right - left, bottom - top, kBandFill, "class=\"band\"") +
         Line(left, y(1), right, y(1), "#333", "class=\"unity\" stroke-width=\"1\"");
}

}  // namespace

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

Scale::Scale(double v0, double v1, double p0, double p1, bool log)
    : v0_(v0), v1_(v1), p0_(p0), p1_(p1), log_(log) {}

Scale Scale::Linear(double v0, double v1, double p0, double p1) {
  if (!(v1 > v0)) v1 = v0 + 1;
  return Scale(v0, v1, p0, p1, false);
}

Scale Scale::Log(double v0, double v1, double p0, double p1) {
  if (!Positive(v0)) v0 = 1e-9;
  if (!(v1 > v0)) v1 = v0 * 2;
  return Scale(v0, v1, p0, p1, true);
}

double Scale::operator()(double value) const {
  double t =
      log_ ? (std::log(std::max(value, 1e-300)) - std::log(v0_)) / (std::log(v1_) - std::log(v0_))
           : (value - v0_) / (v1_ - v0_);
  return p0_ + t * (p1_ - p0_);
}

double Scale::Invert(double pixel) const {
  double t = (pixel - p0_) / (p1_ - p0_);
  return log_ ? std::exp(std::log(v0_) + t * (std::log(v1_) - std::log(v0_)))
              : v0_ + t * (v1_ - v0_);
}

std::string Scale::Attributes() const {
  return fmt::format("data-scale=\"{}\" data-domain=\"{:.9g} {:.9g}\" data-range=\"{:.3f} {:.3f}\"",
                     log_ ? "log" : "linear", v0_, v1_, p0_, p1_);
}

Tone ToneOf(const RatioInterval& v, double band) {
  if (!Positive(v.low) || !Positive(v.high)) return Tone::kNeutral;
  double tau = std::log1p(band);
  double low = std::log(v.low), high = std::log(v.high);
  if (low > tau) return Tone::kSlower;
  if (high < -tau) return Tone::kFaster;
  if (-tau < low && high < tau) return Tone::kTie;
  return Tone::kUndecided;
}

const char* ToneColour(Tone tone) {
  switch (tone) {
    case Tone::kTie:
      return "#7f8c8d";
    case Tone::kSlower:
      return "#c0392b";
    case Tone::kFaster:
      return "#1f6fb4";
    case Tone::kUndecided:
      return "#d68910";
    case Tone::kNeutral:
      return "#555";
  }
  return "#555";
}

std::string IntervalStrip(const StripSpec& spec) {
  const int width = spec.width, height = spec.verdict.empty() ? 112 : 130;
  const double left = 16, right = width - 16, top = 34, bottom = 62;
  const RatioInterval& v = spec.value;
  auto [lo, hi] = RatioDomain({v.ratio, v.low, v.high}, spec.band);
  Scale x = Scale::Log(lo, hi, left, right);
  Tone tone = ToneOf(v, spec.band);
  std::string out = Open(width, height, "interval-strip", spec.title + ": " + IntervalText(v));
  out += Text(left, 16, IntervalText(v), "start", 13, "class=\"value-label\" font-weight=\"bold\"");
  out += fmt::format("<g class=\"value-axis\" {}>\n", x.Attributes());
  out += HorizontalBand(x, spec.band, top, bottom);
  out += Line(left, bottom, right, bottom, kAxis);
  for (double t : RatioTicks(x, 44)) {
    out += Line(x(t), bottom, x(t), bottom + 4, kAxis);
    out += Text(x(t), bottom + 15, t == 1 ? "1.0" : PercentChange(t), "middle", 10);
  }
  out += "</g>\n";
  const double mid = (top + bottom) / 2;
  const char* colour = ToneColour(tone);
  out += Line(x(v.low), mid, x(v.high), mid, colour,
              fmt::format("class=\"interval\" stroke-width=\"4\" data-low=\"{:.9g}\" "
                          "data-high=\"{:.9g}\"",
                          v.low, v.high));
  for (double end : {v.low, v.high})
    out += Line(x(end), mid - 7, x(end), mid + 7, colour, "stroke-width=\"2\"");
  out += fmt::format(
      "<circle class=\"estimate\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"#fff\" stroke=\"{}\" "
      "stroke-width=\"2\" data-ratio=\"{:.9g}\"/>\n",
      x(v.ratio), mid, colour, v.ratio);
  out += Text(left, bottom + 32,
              fmt::format("band {:+.1f}% .. +{:.1f}% (shaded): {}", (1 / (1 + spec.band) - 1) * 100,
                          spec.band * 100, ToneName(tone)),
              "start", 10, "fill=\"#444\"");
  if (!spec.verdict.empty()) {
    out += Text(left, bottom + 50, spec.verdict, "start", 12, "font-weight=\"bold\"");
  }
  return out + "</svg>\n";
}

std::string IntervalBars(const BarsSpec& spec) {
  const int row = 34, width = spec.width;
  const int height = 56 + row * static_cast<int>(std::max<size_t>(1, spec.bars.size())) + 34;
  const double label_w = 250, caption_w = 280;
  const double left = label_w, right = width - caption_w, top = 40;
  const double bottom = top + row * static_cast<double>(std::max<size_t>(1, spec.bars.size()));
  std::vector<double> values;
  for (const IntervalBar& b : spec.bars) {
    if (b.value) values.insert(values.end(), {b.value->ratio, b.value->low, b.value->high});
  }
  auto [lo, hi] = RatioDomain(values, spec.band);
  Scale x = Scale::Log(lo, hi, left, right);
  std::string out = Open(width, height, "interval-bars", spec.title);
  out += Text(8, 18, spec.title, "start", 13, "font-weight=\"bold\"");
  out += Text(x(1), 34, "1.0 = " + spec.baseline, "middle", 10, "fill=\"#333\"");
  out += fmt::format("<g class=\"value-axis\" {}>\n", x.Attributes());
  out += HorizontalBand(x, spec.band, top, bottom);
  out += Line(left, bottom, right, bottom, kAxis);
  for (double t : RatioTicks(x, 44)) {
    out += Line(x(t), bottom, x(t), bottom + 4, kAxis);
    out += Text(x(t), bottom + 15, t == 1 ? "1.0" : PercentChange(t), "middle", 10);
  }
  out += "</g>\n";
  for (size_t i = 0; i < spec.bars.size(); ++i) {
    const IntervalBar& b = spec.bars[i];
    double y = top + row * static_cast<double>(i), mid = y + row / 2.0;
    std::string name = b.role.empty() ? b.name : b.name + " (" + b.role + ")";
    name = ClipText(name, 40);
    out += Text(label_w - 8, mid + 4, name, "end", 11);
    if (!b.value) {
      out += Text(x(1) + 6, mid + 4, "not in this record", "start", 11,
                  "class=\"missing\" fill=\"#999\" font-style=\"italic\"");
      continue;
    }
    const RatioInterval& v = *b.value;
    Tone tone = ToneOf(v, spec.band);
    const char* colour = ToneColour(tone);
    double a = x(1), e = x(v.ratio);
    out += fmt::format("<g class=\"bar\" data-name=\"{}\">\n<title>{}: {} — {}</title>\n",
                       Escape(b.name), Escape(b.name), Escape(IntervalText(v)), ToneName(tone));
    out += Rect(std::min(a, e), y + 8, std::fabs(e - a), row - 16, colour,
                fmt::format("fill-opacity=\"0.55\" data-ratio=\"{:.9g}\"", v.ratio));
    out += Line(x(v.low), mid, x(v.high), mid, "#222",
                fmt::format("class=\"interval\" stroke-width=\"2\" data-low=\"{:.9g}\" "
                            "data-high=\"{:.9g}\"",
                            v.low, v.high));
    for (double end : {v.low, v.high})
      out += Line(x(end), mid - 6, x(end), mid + 6, "#222", "stroke-width=\"2\"");
    out += "</g>\n";
    std::string caption = fmt::format("{} [{}, {}] {}", PercentChange(v.ratio),
                                      PercentChange(v.low), PercentChange(v.high), ToneName(tone));
    out += Text(right + 10, mid, caption, "start", 11,
                fmt::format("class=\"value-label\" fill=\"{}\"", colour));
    if (!b.caption.empty())
      out += Text(right + 10, mid + 12, b.caption, "start", 9, "fill=\"#555\"");
  }
  out += Text(left, height - 6,
              fmt::format("shaded: the ±{:.1f}% tie band; whiskers: intervals", spec.band * 100),
              "start", 10, "fill=\"#444\"");
  return out + "</svg>\n";
}

std::string ErrorBarScatter(const ScatterSpec& spec) {
  const int width = spec.width, height = spec.height;
  const double left = kWideLeft, right = width - kWideRight, top = 28, bottom = height - 42;
  std::vector<double> values;
  for (const ScatterPoint& p : spec.points)
    values.insert(values.end(), {p.y.ratio, p.y.low, p.y.high});
  auto [lo, hi] = RatioDomain(values, spec.band);
  double span = spec.x_max - spec.x_min;
  Scale x =
      Scale::Linear(spec.x_min - 0.02 * span - 0.5, spec.x_max + 0.02 * span + 0.5, left, right);
  Scale y = Scale::Log(lo, hi, bottom, top);
  std::string out = Open(width, height, "scatter", spec.title);
  out += Text(8, 16, spec.title, "start", 13, "font-weight=\"bold\"");
  out += Rect(left, top, right - left, bottom - top, "#fcfcfc", "stroke=\"#ccc\"");
  out += fmt::format("<g class=\"value-axis\" {}>\n", y.Attributes());
  out += VerticalBand(y, spec.band, left, right);
  for (double t : RatioTicks(y, 18)) {
    out += Line(left - 4, y(t), left, y(t), kAxis);
    out += Text(left - 6, y(t) + 4, t == 1 ? "1.0" : PercentChange(t), "end", 10);
  }
  out += "</g>\n";
  out += fmt::format("<g class=\"x-axis\" {}>\n", x.Attributes());
  out += Line(left, bottom, right, bottom, kAxis);
  for (double t : LinearTicks(spec.x_min, spec.x_max, 11)) {
    if (t != std::round(t)) continue;
    out += Line(x(t), bottom, x(t), bottom + 4, kAxis);
    out += Text(x(t), bottom + 15, fmt::format("{:.0f}", t), "middle", 10);
  }
  out += "</g>\n";
  out += Text((left + right) / 2, height - 8, spec.x_label, "middle", 11);
  for (const XMark& m : spec.lines) {
    out += Line(x(m.x), top, x(m.x), bottom, "#c0392b",
                fmt::format("class=\"mark\" stroke-width=\"2\" stroke-dasharray=\"5 3\" "
                            "data-x=\"{:.9g}\"",
                            m.x));
    out += Text(std::min(x(m.x) + 4, right - 4), top + 12, m.label,
                x(m.x) + 4 > right - 120 ? "end" : "start", 11,
                "fill=\"#c0392b\" font-weight=\"bold\"");
  }
  for (const XMark& m : spec.crosses) {
    double cx = x(m.x), cy = bottom - 8;
    out += fmt::format(
        "<path class=\"unbuildable\" d=\"M{0:.1f} {1:.1f}l8 8m0 -8l-8 8\" stroke=\"#8e44ad\" "
        "stroke-width=\"2\" data-x=\"{2:.9g}\"><title>{3}</title></path>\n",
        cx - 4, cy - 4, m.x, Escape(m.label));
  }
  for (const ScatterPoint& p : spec.points) {
    Tone tone = ToneOf(p.y, spec.band);
    const char* colour = ToneColour(tone);
    double cx = x(p.x);
    out += fmt::format("<g class=\"point\" data-x=\"{:.9g}\">\n<title>{}</title>\n", p.x,
                       Escape(p.title.empty() ? IntervalText(p.y) : p.title));
    out += Line(cx, y(p.y.low), cx, y(p.y.high), colour,
                fmt::format("class=\"interval\" stroke-width=\"2\" data-low=\"{:.9g}\" "
                            "data-high=\"{:.9g}\"",
                            p.y.low, p.y.high));
    out += fmt::format(
        "<circle class=\"estimate\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\" "
        "data-ratio=\"{:.9g}\"/>\n</g>\n",
        cx, y(p.y.ratio), colour, p.y.ratio);
  }
  return out + "</svg>\n";
}

std::string ColumnStrip(const ColumnSpec& spec) {
  const int width = spec.width, height = spec.height;
  const double left = kWideLeft, right = width - kWideRight, top = 24, bottom = height - 30;
  double span = spec.x_max - spec.x_min;
  Scale x =
      Scale::Linear(spec.x_min - 0.02 * span - 0.5, spec.x_max + 0.02 * span + 0.5, left, right);
  Scale y = Scale::Linear(0, 1, bottom, top);
  double column_w = std::clamp((x(spec.x_min + 1) - x(spec.x_min)) * 0.7, 1.0, 24.0);
  std::string out = Open(width, height, "columns", spec.title);
  out += Text(8, 16, spec.title, "start", 13, "font-weight=\"bold\"");
  out += Rect(left, top, right - left, bottom - top, "#fcfcfc", "stroke=\"#ccc\"");
  out += fmt::format("<g class=\"value-axis\" {}>\n", y.Attributes());
  for (double t : {0.0, 0.5, 1.0}) {
    out += Line(left - 4, y(t), left, y(t), kAxis);
    out += Text(left - 6, y(t) + 4, fmt::format("{:.1f}", t), "end", 10);
  }
  out += "</g>\n";
  out += fmt::format("<g class=\"x-axis\" {}>\n", x.Attributes());
  for (double t : LinearTicks(spec.x_min, spec.x_max, 11)) {
    if (t != std::round(t)) continue;
    out += Text(x(t), bottom + 14, fmt::format("{:.0f}", t), "middle", 10);
  }
  out += "</g>\n";
  out += Text((left + right) / 2, height - 4, spec.x_label, "middle", 11);
  for (const Column& c : spec.columns) {
    double v = std::clamp(c.value, 0.0, 1.0);
    out += fmt::format(
        "<rect class=\"column\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
        "fill=\"#34495e\" data-x=\"{:.9g}\" data-value=\"{:.9g}\"><title>{:.0f}: {:.4f}</title>"
        "</rect>\n",
        x(c.x) - column_w / 2, y(v), column_w, bottom - y(v), c.x, c.value, c.x, c.value);
  }
  for (const XMark& m : spec.lines) {
    out += Line(x(m.x), top, x(m.x), bottom, "#c0392b",
                "class=\"mark\" stroke-width=\"2\" stroke-dasharray=\"5 3\"");
  }
  return out + "</svg>\n";
}

namespace {

// A waterfall step's running value before and after it, and its whisker ends.
struct WaterfallDrawn {
  double before = 0, after = 0, low = 0, high = 0;
  bool known = false;
};

/// Each step's running values: a total sets the running value, a factor
/// scales it; a factor with no running value before it is not known.
std::vector<WaterfallDrawn> WaterfallRunning(const WaterfallSpec& spec) {
  std::vector<WaterfallDrawn> drawn(spec.steps.size());
  double running = std::numeric_limits<double>::quiet_NaN();
  for (size_t i = 0; i < spec.steps.size(); ++i) {
    const WaterfallStep& s = spec.steps[i];
    WaterfallDrawn& d = drawn[i];
    if (s.total) {
      d = {0, s.value, s.value, s.value, std::isfinite(s.value)};
      running = s.value;
    } else if (s.factor && std::isfinite(running)) {
      d = {running, running * s.factor->ratio, running * s.factor->low, running * s.factor->high,
           true};
      running = d.after;
    }
  }
  return drawn;
}

// Where a waterfall draws: the plot area, one slot per step, the bar width, the value scale.
struct WaterfallFrame {
  double left, right, top, bottom, slot, bar_w;
  Scale y;
};

/// The value axis from 0 to 1.12 × top_value, with grid lines and unit labels.
std::string WaterfallValueAxis(const WaterfallSpec& spec, const WaterfallFrame& f,
                               double top_value) {
  const Scale& y = f.y;
  std::string out = fmt::format("<g class=\"value-axis\" {}>\n", y.Attributes());
  out += Line(f.left, f.bottom, f.right, f.bottom, kAxis);
  for (double t : LinearTicks(0, top_value * 1.12, 6)) {
    out += Line(f.left - 4, y(t), f.right, y(t), "#eee");
    out += Text(f.left - 6, y(t) + 4,
                fmt::format("{:g}", t) + (spec.unit.empty() ? "" : " " + spec.unit), "end", 10);
  }
  return out + "</g>\n";
}

/// A step's name, caption and cross-sitting mark under the axis at cx.
std::string WaterfallStepLabels(const WaterfallStep& s, const WaterfallFrame& f, double cx) {
  std::string out = Text(cx, f.bottom + 16, s.total ? s.name : "× " + s.name, "middle", 11,
                         "font-weight=\"bold\"");
  if (!s.caption.empty()) out += Text(cx, f.bottom + 30, s.caption, "middle", 10, "fill=\"#444\"");
  if (s.cross_sitting) {
    out += Text(cx, f.bottom + 43, "cross-sitting", "middle", 10,
                "fill=\"#8e44ad\" font-style=\"italic\"");
  }
  return out;
}

/// A total's bar from 0 to its value, labelled with the value.
std::string WaterfallTotalBar(const WaterfallSpec& spec, const WaterfallStep& s,
                              const WaterfallDrawn& d, const WaterfallFrame& f, double cx) {
  const Scale& y = f.y;
  std::string out = fmt::format(
      "<rect class=\"total\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "fill=\"#34495e\" data-value=\"{:.9g}\"><title>{}: {} {}</title></rect>\n",
      cx - f.bar_w / 2, y(d.after), f.bar_w, f.bottom - y(d.after), d.after, Escape(s.name),
      Number(d.after), Escape(spec.unit));
  out += Text(cx, y(d.after) - 6, Number(d.after) + " " + spec.unit, "middle", 11,
              "class=\"value-label\"");
  return out;
}

/// A factor's floating bar from the running value before to after, toned by
/// the band (dashed when cross-sitting), with its interval's whisker and ratio label.
std::string WaterfallFactorBar(const WaterfallSpec& spec, const WaterfallStep& s,
                               const WaterfallDrawn& d, const WaterfallFrame& f, double cx) {
  const Scale& y = f.y;
  Tone tone = ToneOf(*s.factor, spec.band);
  const char* colour = ToneColour(tone);
  double y0 = y(std::max(d.before, d.after)), y1 = y(std::min(d.before, d.after));
  std::string out = fmt::format(
      "<rect class=\"factor\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "fill=\"{}\" fill-opacity=\"0.6\" stroke=\"{}\"{} data-ratio=\"{:.9g}\" "
      "data-before=\"{:.9g}\"><title>{}: {}</title></rect>\n",
      cx - f.bar_w / 2, y0, f.bar_w, std::max(1.0, y1 - y0), colour, colour,
      s.cross_sitting ? " stroke-dasharray=\"4 3\" stroke-width=\"2\"" : "", s.factor->ratio,
      d.before, Escape(s.name), Escape(IntervalText(*s.factor)));
  out += Line(cx, y(d.low), cx, y(d.high), "#222",
              fmt::format("class=\"interval\" stroke-width=\"2\" data-low=\"{:.9g}\" "
                          "data-high=\"{:.9g}\"",
                          d.low, d.high));
  for (double end : {d.low, d.high})
    out += Line(cx - 6, y(end), cx + 6, y(end), "#222", "stroke-width=\"2\"");
  out += Text(cx, y(std::max(d.high, d.before)) - 6,
              fmt::format("×{:.3f} ({})", s.factor->ratio, PercentChange(s.factor->ratio)),
              "middle", 11, fmt::format("class=\"value-label\" fill=\"{}\"", colour));
  return out;
}

}  // namespace

std::string Waterfall(const WaterfallSpec& spec) {
  const int width = spec.width, height = spec.height;
  const double left = 70, right = width - 20, top = 30, bottom = height - 64;
  const size_t n = std::max<size_t>(1, spec.steps.size());
  std::vector<WaterfallDrawn> drawn = WaterfallRunning(spec);
  double top_value = 0;
  for (const WaterfallDrawn& d : drawn) {
    if (d.known) top_value = std::max({top_value, d.after, d.high, d.before});
  }
  if (!(top_value > 0)) top_value = 1;
  const double slot = (right - left) / static_cast<double>(n), bar_w = std::min(90.0, slot * 0.55);
  WaterfallFrame f{
      left, right, top, bottom, slot, bar_w, Scale::Linear(0, top_value * 1.12, bottom, top)};
  std::string out = Open(width, height, "waterfall", spec.title);
  out += Text(8, 18, spec.title, "start", 13, "font-weight=\"bold\"");
  out += WaterfallValueAxis(spec, f, top_value);
  for (size_t i = 0; i < spec.steps.size(); ++i) {
    const WaterfallStep& s = spec.steps[i];
    const WaterfallDrawn& d = drawn[i];
    double cx = left + slot * (static_cast<double>(i) + 0.5);
    out += WaterfallStepLabels(s, f, cx);
    if (!d.known) {
      out += Text(cx, bottom - 8, "not in this record", "middle", 10,
                  "class=\"missing\" fill=\"#999\" font-style=\"italic\"");
      continue;
    }
    out += s.total ? WaterfallTotalBar(spec, s, d, f, cx) : WaterfallFactorBar(spec, s, d, f, cx);
    // A connector to the next step at the running value.
    if (i + 1 < spec.steps.size()) {
      out += Line(cx + bar_w / 2, f.y(d.after), cx + slot - bar_w / 2, f.y(d.after), "#999",
                  "stroke-dasharray=\"2 2\"");
    }
  }
  return out + "</svg>\n";
}

std::string LineStrip(const LineSpec& spec) {
  const int width = spec.width, height = spec.height;
  const double left = 78, right = width - 24, top = 28, bottom = height - 36;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& v : spec.values) {
    if (v && std::isfinite(*v)) lo = std::min(lo, *v), hi = std::max(hi, *v);
  }
  for (const auto& r : {spec.reference_low, spec.reference_high}) {
    if (r && std::isfinite(*r)) lo = std::min(lo, *r), hi = std::max(hi, *r);
  }
  std::string out = Open(width, height, "line", spec.title);
  out += Text(8, 16, spec.title, "start", 13, "font-weight=\"bold\"");
  if (!std::isfinite(lo)) {
    out += Text(left, (top + bottom) / 2, "not in this record", "start", 11,
                "class=\"missing\" fill=\"#999\" font-style=\"italic\"");
    return out + "</svg>\n";
  }
  double pad = std::max((hi - lo) * 0.15, std::max(std::fabs(hi), 1e-9) * 0.02);
  Scale y = Scale::Linear(lo - pad, hi + pad, bottom, top);
  const size_t n = spec.x_labels.size();
  auto x = [&](size_t i) {
    return n <= 1 ? (left + right) / 2
                  : left + (right - left) * static_cast<double>(i) / static_cast<double>(n - 1);
  };
  out += Rect(left, top, right - left, bottom - top, "#fcfcfc", "stroke=\"#ccc\"");
  out += fmt::format("<g class=\"value-axis\" {}>\n", y.Attributes());
  if (spec.reference_low && spec.reference_high) {
    out += Rect(left, y(*spec.reference_high), right - left,
                y(*spec.reference_low) - y(*spec.reference_high), kBandFill, "class=\"band\"");
  }
  for (double t : LinearTicks(lo - pad, hi + pad, 4)) {
    out += Line(left - 4, y(t), left, y(t), kAxis);
    out += Text(left - 6, y(t) + 4,
                fmt::format("{:g}", t) + (spec.unit.empty() ? "" : " " + spec.unit), "end", 10);
  }
  out += "</g>\n";
  std::string path;
  for (size_t i = 0; i < n && i < spec.values.size(); ++i) {
    out += Text(x(i), bottom + 14, spec.x_labels[i], "middle", 10);
    const auto& v = spec.values[i];
    if (!v) {
      out += Text(x(i), bottom - 6, "n/a", "middle", 9, "class=\"missing\" fill=\"#999\"");
      path += " ";  // a gap
      continue;
    }
    path += fmt::format("{}{:.1f} {:.1f}", path.empty() || path.back() == ' ' ? "M" : " L", x(i),
                        y(*v));
    out += fmt::format(
        "<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"#1f6fb4\" "
        "data-value=\"{:.9g}\"><title>{}: {} {}</title></circle>\n",
        x(i), y(*v), *v, Escape(spec.x_labels[i]), Number(*v), Escape(spec.unit));
  }
  if (!path.empty()) {
    out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#1f6fb4\" stroke-width=\"1.5\"/>\n",
                       path);
  }
  if (!spec.reference_label.empty()) {
    out += Text(left, height - 4, spec.reference_label, "start", 10, "fill=\"#444\"");
  }
  return out + "</svg>\n";
}

std::string DeltaBars(const DeltaBarsSpec& spec) {
  const int row = 34, width = spec.width;
  const size_t rows = std::max<size_t>(1, spec.bars.size());
  const double label_w = 250, caption_w = 280, top = 40;
  const double left = label_w, right = width - caption_w;
  const double bottom = top + row * static_cast<double>(rows);
  const int height = static_cast<int>(bottom) + 40;
  double extent = 0;
  for (const DeltaBar& b : spec.bars) extent = std::max(extent, std::fabs(b.value));
  if (!(extent > 0)) extent = 1;
  bool any_negative = false;
  for (const DeltaBar& b : spec.bars) any_negative = any_negative || b.value < 0;
  // Zero at the left edge when nothing shrank, else in the middle.
  Scale x = Scale::Linear(any_negative ? -extent * 1.05 : 0, extent * 1.05, left, right);
  std::string out = Open(width, height, "delta-bars", spec.title);
  out += Text(8, 18, spec.title, "start", 13, "font-weight=\"bold\"");
  out += fmt::format("<g class=\"value-axis\" {}>\n", x.Attributes());
  out += Line(x(0), top - 4, x(0), bottom, kAxis);
  out += Line(left, bottom, right, bottom, kAxis);
  out += Text(x(0), bottom + 15, "0", "middle", 10);
  out +=
      Text(right, bottom + 15, fmt::format("{} {}", Number(extent * 1.05), spec.unit), "end", 10);
  out += "</g>\n";
  for (size_t i = 0; i < spec.bars.size(); ++i) {
    const DeltaBar& b = spec.bars[i];
    const double y = top + row * static_cast<double>(i), mid = y + row / 2.0;
    const std::string name = ClipText(b.name, 40);
    out += Text(label_w - 8, mid + 4, name, "end", 11);
    const char* colour = b.value > 0 ? "#c0392b" : "#2e8b57";
    const double a = x(0), e = x(b.value);
    out += fmt::format("<g class=\"bar\" data-name=\"{}\">\n<title>{}: {}</title>\n",
                       Escape(b.name), Escape(b.name), Escape(b.value_text));
    out += Rect(std::min(a, e), y + 8, std::fabs(e - a), row - 16, colour,
                fmt::format("class=\"delta\" fill-opacity=\"0.7\" data-value=\"{:.9g}\"", b.value));
    out += "</g>\n";
    const std::string value = ClipText(b.value_text, 44);
    out += Text(right + 10, mid, value, "start", 11,
                fmt::format("class=\"value-label\" fill=\"{}\"", colour));
    if (!b.caption.empty()) {
      const std::string caption = ClipText(b.caption, 50);
      out += Text(right + 10, mid + 12, caption, "start", 9, "fill=\"#555\"");
    }
  }
  if (spec.bars.empty()) {
    out += Text(left + 6, top + row / 2.0 + 4, "nothing moved", "start", 11,
                "class=\"missing\" fill=\"#999\" font-style=\"italic\"");
  }
  out +=
      Text(left, height - 6, "red: more in the change; green: fewer", "start", 10, "fill=\"#444\"");
  return out + "</svg>\n";
}

}  // namespace culprit::svg
