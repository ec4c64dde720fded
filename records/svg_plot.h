#pragma once

// Hand-written SVG plots for the HTML reports: pure functions from plain
// numbers to one <svg> element each. No scripts, no external resources, no
// ids (so any number of plots can share a page). Ratios are drawn on a log
// scale, where the tie band (1/(1+b), 1+b) is symmetric around 1.
//
// Every plot marks its value axis with the scale it used:
//   <g class="value-axis" data-scale="log|linear" data-domain="V0 V1"
//      data-range="P0 P1">
// so that a reader (or a test) can map any drawn coordinate back to the
// value it stands for: v = Scale::Invert(pixel).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::svg {

/// Text safe inside SVG/HTML text and attribute values.
std::string Escape(std::string_view text);

/// Value -> pixel along one axis, linear or logarithmic (log needs v > 0).
class Scale {
 public:
  static Scale Linear(double v0, double v1, double p0, double p1);
  static Scale Log(double v0, double v1, double p0, double p1);
  double operator()(double value) const;
  double Invert(double pixel) const;
  /// `data-scale=".." data-domain=".." data-range=".."`.
  std::string Attributes() const;
  double v0() const { return v0_; }
  double v1() const { return v1_; }
  double p0() const { return p0_; }
  double p1() const { return p1_; }
  bool log() const { return log_; }

 private:
  Scale(double v0, double v1, double p0, double p1, bool log);
  double v0_, v1_, p0_, p1_;
  bool log_;
};

/// A ratio (B/A) and its interval.
struct RatioInterval {
  double ratio = 1, low = 1, high = 1;
};

/// Where an interval lies against the band (the verdict rule of
/// probes/verdict.h: inside is a tie, beyond on one side an effect).
enum class Tone { kTie, kSlower, kFaster, kUndecided, kNeutral };
Tone ToneOf(const RatioInterval& interval, double band);
/// Fill colour of a tone.
const char* ToneColour(Tone tone);

/// 1. The picture of a verdict: the tie band, 1.0, the interval and the
/// point estimate on one log-scale strip, labelled with the numbers.
struct StripSpec {
  std::string title;  ///< Accessible label, e.g. "ratio PARALLEL=1/default".
  RatioInterval value;
  double band = 0.05;
  std::string verdict;  ///< Printed under the strip when not empty.
  int width = 380;
};
std::string IntervalStrip(const StripSpec& spec);

/// 2. One horizontal bar per row from 1.0 to the ratio, with the interval as
/// a whisker, against the band (isolation conditions against the baseline).
/// A row without a value says "not in this record".
struct IntervalBar {
  std::string name;
  std::string role;  ///< "suspect", "control", "released"... printed after the name.
  std::optional<RatioInterval> value;
  std::string caption;  ///< Printed at the right: verdict, bytes held, ...
};
struct BarsSpec {
  std::string title;
  std::string baseline;  ///< Name of the reference (the line at 1.0).
  std::vector<IntervalBar> bars;
  double band = 0.05;
  int width = 1000;
};
std::string IntervalBars(const BarsSpec& spec);

/// 3. x/y scatter with error bars; y is a ratio on a log scale with the band
/// shaded around 1. Vertical `lines` mark x positions (a culprit), `crosses`
/// mark x positions on the axis (unbuildable commits).
struct ScatterPoint {
  double x = 0;
  RatioInterval y;
  std::string title;  ///< Tooltip.
};
struct XMark {
  double x = 0;
  std::string label;
};
struct ScatterSpec {
  std::string title, x_label;
  double x_min = 0, x_max = 1;
  std::vector<ScatterPoint> points;
  double band = 0.05;
  std::vector<XMark> lines;
  std::vector<XMark> crosses;
  int width = 1000, height = 280;
};
std::string ErrorBarScatter(const ScatterSpec& spec);

/// 4. Columns of a probability (0..1) per x, on the same x layout as an
/// ErrorBarScatter of the same width and x range (so the two stack aligned).
struct Column {
  double x = 0;
  double value = 0;
};
struct ColumnSpec {
  std::string title, x_label;
  double x_min = 0, x_max = 1;
  std::vector<Column> columns;
  std::vector<XMark> lines;
  int width = 1000, height = 150;
};
std::string ColumnStrip(const ColumnSpec& spec);

/// 5. Waterfall: a total, factors that each multiply the running value
/// (a floating bar from before to after, the interval as a whisker at its
/// end: before×low .. before×high), and totals again.
struct WaterfallStep {
  std::string name;
  bool total = false;                   ///< A measured value drawn from 0 (published, today).
  double value = 0;                     ///< For a total.
  std::optional<RatioInterval> factor;  ///< For a factor; none: "not in this record".
  bool cross_sitting = false;           ///< Drawn dashed and said.
  std::string caption;                  ///< Verdict etc., under the name.
};
struct WaterfallSpec {
  std::string title, unit;
  std::vector<WaterfallStep> steps;
  double band = 0.05;
  int width = 1000, height = 320;
};
std::string Waterfall(const WaterfallSpec& spec);

/// 6. A line over labelled positions (calibration across a sitting); gaps
/// where a value is missing; an optional shaded reference range.
struct LineSpec {
  std::string title, unit;
  std::vector<std::string> x_labels;
  std::vector<std::optional<double>> values;  ///< Same size as x_labels.
  std::optional<double> reference_low, reference_high;
  std::string reference_label;
  int width = 540, height = 170;
};
std::string LineStrip(const LineSpec& spec);

/// 7. Signed bars from 0 on a linear scale, one row per item (a function's change in
/// instructions, `culprit explain`): growth drawn to the right in red, shrinkage to the left
/// in green; each row's name on the left, its value and caption on the right.
struct DeltaBar {
  std::string name;
  double value = 0;
  std::string value_text;  ///< Printed at the right ("+5,000,000 (+100.0%)").
  std::string caption;     ///< Under the value ("main.c:3, touched by the change").
};
struct DeltaBarsSpec {
  std::string title, unit;
  std::vector<DeltaBar> bars;
  int width = 1000;
};
std::string DeltaBars(const DeltaBarsSpec& spec);

}  // namespace culprit::svg
