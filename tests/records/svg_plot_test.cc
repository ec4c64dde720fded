#include "records/svg_plot.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/records/svg_check.h"

namespace culprit::svg {
namespace {

TEST(SvgScale, LinearAndLogInvertWhatTheyMap) {
  Scale lin = Scale::Linear(10, 20, 100, 300);
  EXPECT_DOUBLE_EQ(lin(15), 200);
  EXPECT_DOUBLE_EQ(lin.Invert(250), 17.5);
  Scale log = Scale::Log(0.5, 2, 0, 200);
  EXPECT_DOUBLE_EQ(log(1), 100);
  EXPECT_NEAR(log.Invert(200), 2, 1e-12);
  // A reversed range (y grows downwards) inverts too.
  Scale y = Scale::Log(0.8, 1.25, 240, 20);
  EXPECT_NEAR(y.Invert(y(1.1)), 1.1, 1e-12);
  EXPECT_GT(y(0.9), y(1.1));
}

TEST(SvgTone, FollowsTheVerdictRuleOnTheLogBand) {
  EXPECT_EQ(ToneOf({0.987, 0.971, 1.004}, 0.05), Tone::kTie);
  EXPECT_EQ(ToneOf({1.3, 1.2, 1.4}, 0.05), Tone::kSlower);
  EXPECT_EQ(ToneOf({0.7, 0.6, 0.8}, 0.05), Tone::kFaster);
  EXPECT_EQ(ToneOf({1.04, 1.01, 1.07}, 0.05), Tone::kUndecided);
  // The band reaches down to 1/1.05 = 0.952, not 0.95.
  EXPECT_EQ(ToneOf({0.96, 0.951, 0.97}, 0.05), Tone::kUndecided);
}

TEST(SvgIntervalStrip, DrawsTheIntervalWhereTheRecordSaysAndLabelsIt) {
  StripSpec spec;
  spec.title = "ratio B/A";
  spec.value = {1.384, 1.301, 1.472};
  spec.band = 0.05;
  spec.verdict = "EFFECT";
  std::string out = IntervalStrip(spec);
  ExpectWellFormedSvg(out);
  Scale x = ValueAxis(out);
  EXPECT_TRUE(x.log());
  auto line = Element(out, "line", "interval");
  ASSERT_FALSE(line.empty());
  EXPECT_NEAR(x.Invert(Attr(line, "x1")), 1.301, PixelTolerance(x, 1.301));
  EXPECT_NEAR(x.Invert(Attr(line, "x2")), 1.472, PixelTolerance(x, 1.472));
  EXPECT_NEAR(x.Invert(Attr(Element(out, "circle", "estimate"), "cx")), 1.384,
              PixelTolerance(x, 1.384));
  // The band is shaded from 1/1.05 to 1.05.
  auto band = Element(out, "rect", "band");
  EXPECT_NEAR(x.Invert(Attr(band, "x")), 1 / 1.05, PixelTolerance(x, 1 / 1.05));
  EXPECT_NEAR(x.Invert(Attr(band, "x") + Attr(band, "width")), 1.05, PixelTolerance(x, 1.05));
  EXPECT_NE(out.find("1.384× (+38.4%) [+30.1%, +47.2%]"), std::string::npos) << out;
  EXPECT_NE(out.find("effect (higher)"), std::string::npos);
  ExpectInsideViewBox(out);
}

TEST(SvgIntervalBars, OneBarPerRowFromOneToTheRatioAndMissingRowsSaySo) {
  BarsSpec spec;
  spec.title = "conditions";
  spec.baseline = "nothing held";
  spec.bars = {{"index held", "suspect", RatioInterval{1.29, 1.22, 1.35}, "EFFECT"},
               {"columns held", "control", RatioInterval{1.01, 0.99, 1.03}, "NULL"},
               {"released", "released", std::nullopt, ""}};
  std::string out = IntervalBars(spec);
  ExpectWellFormedSvg(out);
  Scale x = ValueAxis(out);
  EXPECT_EQ(CountElements(out, "g", "bar"), 2);
  std::vector<std::string> intervals = Elements(out, "line", "interval");
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_NEAR(x.Invert(Attr(intervals[0], "x1")), 1.22, PixelTolerance(x, 1.22));
  EXPECT_NEAR(x.Invert(Attr(intervals[0], "x2")), 1.35, PixelTolerance(x, 1.35));
  EXPECT_NEAR(x.Invert(Attr(intervals[1], "x1")), 0.99, PixelTolerance(x, 0.99));
  // The suspect's bar starts at 1.0 and ends at its ratio.
  std::string bar = Element(out, "rect", "", "data-ratio=\"1.29\"");
  EXPECT_NEAR(x.Invert(Attr(bar, "x")), 1.0, PixelTolerance(x, 1.0));
  EXPECT_NEAR(x.Invert(Attr(bar, "x") + Attr(bar, "width")), 1.29, PixelTolerance(x, 1.29));
  EXPECT_NE(out.find("+1.0% [-1.0%, +3.0%] tie"), std::string::npos);
  EXPECT_NE(out.find("not in this record"), std::string::npos);
  ExpectInsideViewBox(out);
}

TEST(SvgScatter, PointsSitAtTheirIndexAndRatioWithMarks) {
  ScatterSpec spec;
  spec.title = "steps";
  spec.x_min = 0;
  spec.x_max = 16;
  spec.points = {{8, {1.004, 0.985, 1.022}, ""}, {12, {1.395, 1.351, 1.440}, ""}};
  spec.lines = {{11, "culprit"}};
  spec.crosses = {{6, "unbuildable"}};
  std::string out = ErrorBarScatter(spec);
  ExpectWellFormedSvg(out);
  Scale y = ValueAxis(out);
  Scale x = Axis(out, "x-axis");
  std::vector<std::string> intervals = Elements(out, "line", "interval");
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_NEAR(x.Invert(Attr(intervals[1], "x1")), 12, 0.1);
  EXPECT_NEAR(y.Invert(Attr(intervals[1], "y1")), 1.351, PixelTolerance(y, 1.351));
  EXPECT_NEAR(y.Invert(Attr(intervals[1], "y2")), 1.440, PixelTolerance(y, 1.440));
  EXPECT_NEAR(x.Invert(Attr(Element(out, "line", "mark"), "x1")), 11, 0.1);
  EXPECT_EQ(CountElements(out, "path", "unbuildable"), 1);
  ExpectInsideViewBox(out);
}

TEST(SvgColumns, AlignWithTheScatterOfTheSameWidth) {
  ScatterSpec scatter;
  scatter.x_min = 0;
  scatter.x_max = 16;
  ColumnSpec columns;
  columns.x_min = 0;
  columns.x_max = 16;
  columns.columns = {{11, 0.97}, {10, 0.01}};
  std::string s = ErrorBarScatter(scatter), c = ColumnStrip(columns);
  ExpectWellFormedSvg(c);
  Scale xs = Axis(s, "x-axis"), xc = Axis(c, "x-axis");
  EXPECT_NEAR(xs(11), xc(11), 1e-9);
  Scale y = ValueAxis(c);
  std::string column = Element(c, "rect", "column");
  EXPECT_NEAR(y.Invert(Attr(column, "y")), 0.97, PixelTolerance(y, 0.97));
}

TEST(SvgWaterfall, EachFactorFloatsFromTheValueBeforeItWithItsInterval) {
  WaterfallSpec spec;
  spec.unit = "ms";
  spec.steps = {{"published", true, 59.0, {}, false, ""},
                {"host drift", false, 0, RatioInterval{1.18, 1.12, 1.24}, true, "EFFECT"},
                {"code", false, 0, std::nullopt, false, ""},
                {"today", true, 84.0, {}, false, ""}};
  std::string out = Waterfall(spec);
  ExpectWellFormedSvg(out);
  Scale y = ValueAxis(out);
  std::string total = Element(out, "rect", "total");
  EXPECT_NEAR(y.Invert(Attr(total, "y")), 59.0, PixelTolerance(y, 59.0));
  std::string factor = Element(out, "rect", "factor");
  EXPECT_NEAR(y.Invert(Attr(factor, "y")), 59.0 * 1.18, PixelTolerance(y, 59.0 * 1.18));
  EXPECT_NEAR(y.Invert(Attr(factor, "y") + Attr(factor, "height")), 59.0, PixelTolerance(y, 59.0));
  std::string interval = Element(out, "line", "interval");
  EXPECT_NEAR(y.Invert(Attr(interval, "y1")), 59.0 * 1.12, PixelTolerance(y, 59.0 * 1.12));
  EXPECT_NEAR(y.Invert(Attr(interval, "y2")), 59.0 * 1.24, PixelTolerance(y, 59.0 * 1.24));
  EXPECT_NE(out.find("×1.180 (+18.0%)"), std::string::npos);
  EXPECT_NE(out.find("cross-sitting"), std::string::npos);
  EXPECT_NE(out.find("stroke-dasharray=\"4 3\""), std::string::npos);
  EXPECT_NE(out.find("not in this record"), std::string::npos);  // the code factor
  ExpectInsideViewBox(out);
}

TEST(SvgLine, GapsForMissingValuesAndSaysWhenNothingIsKnown) {
  LineSpec spec;
  spec.title = "calibration";
  spec.unit = "ms";
  spec.x_labels = {"start", "look 1", "end"};
  spec.values = {101.5, std::nullopt, 103.0};
  std::string out = LineStrip(spec);
  ExpectWellFormedSvg(out);
  Scale y = ValueAxis(out);
  std::vector<std::string> points = Elements(out, "circle", "point");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_NEAR(y.Invert(Attr(points[1], "cy")), 103.0, PixelTolerance(y, 103.0));
  EXPECT_NE(out.find("n/a"), std::string::npos);
  spec.values = {std::nullopt, std::nullopt, std::nullopt};
  EXPECT_NE(LineStrip(spec).find("not in this record"), std::string::npos);
}

TEST(SvgEscape, TextCannotOpenAnElement) {
  StripSpec spec;
  spec.title = "<script>alert(1)</script> & \"x\"";
  std::string out = IntervalStrip(spec);
  EXPECT_EQ(out.find("<script"), std::string::npos);
  EXPECT_NE(out.find("&lt;script&gt;"), std::string::npos);
}

}  // namespace
}  // namespace culprit::svg
