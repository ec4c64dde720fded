#pragma once

// Reading back the SVG the reports draw: elements by tag and class, numeric
// attributes, the scale a plot declares on its axis (records/svg_plot.h), tag
// balance and the viewBox bounds. For the records tests.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "records/svg_plot.h"

namespace culprit::svg {

/// Opening tags `<tag ...>` whose class contains the word `cls` (any class
/// when empty) and whose text contains `extra`.
inline std::vector<std::string> Elements(const std::string& text, const std::string& tag,
                                         const std::string& cls, const std::string& extra = "") {
  std::vector<std::string> out;
  std::regex open("<" + tag + "\\s[^>]*>");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), open); it != std::sregex_iterator();
       ++it) {
    std::string element = it->str();
    if (!cls.empty()) {
      std::smatch m;
      if (!std::regex_search(element, m, std::regex("class=\"([^\"]*)\""))) continue;
      std::string classes = " " + m[1].str() + " ";
      if (classes.find(" " + cls + " ") == std::string::npos) continue;
    }
    if (!extra.empty() && element.find(extra) == std::string::npos) continue;
    out.push_back(element);
  }
  return out;
}

inline std::string Element(const std::string& text, const std::string& tag, const std::string& cls,
                           const std::string& extra = "") {
  std::vector<std::string> all = Elements(text, tag, cls, extra);
  return all.empty() ? "" : all.front();
}

inline int CountElements(const std::string& text, const std::string& tag, const std::string& cls) {
  return static_cast<int>(Elements(text, tag, cls).size());
}

inline std::string AttrText(const std::string& element, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(element, m, std::regex("\\s" + name + "=\"([^\"]*)\""))) return "";
  return m[1].str();
}

/// A numeric attribute; NaN when absent (so a missing element fails EXPECT_NEAR).
inline double Attr(const std::string& element, const std::string& name) {
  std::string v = AttrText(element, name);
  if (v.empty()) return std::nan("");
  return std::strtod(v.c_str(), nullptr);
}

/// The scale a plot declares on `<g class="CLS" data-scale data-domain data-range>`.
inline Scale Axis(const std::string& svg, const std::string& cls) {
  std::string g = Element(svg, "g", cls);
  double v0 = 0, v1 = 1, p0 = 0, p1 = 1;
  std::sscanf(AttrText(g, "data-domain").c_str(), "%lf %lf", &v0, &v1);
  std::sscanf(AttrText(g, "data-range").c_str(), "%lf %lf", &p0, &p1);
  return AttrText(g, "data-scale") == "log" ? Scale::Log(v0, v1, p0, p1)
                                            : Scale::Linear(v0, v1, p0, p1);
}
inline Scale ValueAxis(const std::string& svg) { return Axis(svg, "value-axis"); }

/// The value one pixel stands for around `value`: "within a pixel".
inline double PixelTolerance(const Scale& scale, double value) {
  return std::fabs(scale.Invert(scale(value) + 1) - value);
}

/// Every element opened is closed, in order; at least one <svg>.
inline void ExpectWellFormedSvg(const std::string& text) {
  std::vector<std::string> stack;
  int svgs = 0;
  std::regex tag("<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*?)(/?)>");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), tag); it != std::sregex_iterator();
       ++it) {
    const std::smatch& m = *it;
    std::string name = m[2].str();
    if (name == "meta" || name == "br" || name == "hr") continue;
    if (m[1].str() == "/") {
      ASSERT_FALSE(stack.empty()) << "closing </" << name << "> with nothing open";
      ASSERT_EQ(stack.back(), name) << "closing </" << name << "> inside <" << stack.back() << ">";
      stack.pop_back();
    } else if (m[4].str() != "/") {
      if (name == "svg") ++svgs;
      stack.push_back(name);
    }
  }
  EXPECT_TRUE(stack.empty()) << "unclosed <" << (stack.empty() ? "" : stack.back()) << ">";
  EXPECT_GT(svgs, 0);
}

/// Every coordinate of every element of one <svg> lies inside its viewBox,
/// and every text, at an estimated 0.55 em per character, fits across it.
inline void ExpectInsideViewBox(const std::string& svg) {
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex("viewBox=\"0 0 ([0-9.]+) ([0-9.]+)\"")));
  double w = std::stod(m[1].str()), h = std::stod(m[2].str());
  std::regex element("<(line|rect|circle|text|path)\\s[^>]*>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element);
       it != std::sregex_iterator(); ++it) {
    std::string e = it->str();
    for (const char* a : {"x", "x1", "x2", "cx"}) {
      double v = Attr(e, a);
      if (!std::isnan(v)) {
        EXPECT_TRUE(v >= -0.5 && v <= w + 0.5) << a << " outside: " << e;
      }
    }
    for (const char* a : {"y", "y1", "y2", "cy"}) {
      double v = Attr(e, a);
      if (!std::isnan(v)) {
        EXPECT_TRUE(v >= -0.5 && v <= h + 0.5) << a << " outside: " << e;
      }
    }
    if ((*it)[1].str() == "rect") {
      EXPECT_LE(Attr(e, "x") + Attr(e, "width"), w + 0.5) << e;
      EXPECT_LE(Attr(e, "y") + Attr(e, "height"), h + 0.5) << e;
    }
    if ((*it)[1].str() == "text") {
      size_t close = svg.find("</text>", static_cast<size_t>(it->position()));
      size_t start = static_cast<size_t>(it->position() + it->length());
      std::string content = svg.substr(start, close - start);
      // Entities and multi-byte characters count as one.
      double chars = 0;
      for (size_t i = 0; i < content.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(content[i]);
        if (c == '&') i = content.find(';', i);
        if ((c & 0xC0) != 0x80) chars += 1;
      }
      double extent = chars * 0.55 * Attr(e, "font-size");
      double x = Attr(e, "x");
      std::string anchor = AttrText(e, "text-anchor");
      double left = anchor == "end" ? x - extent : anchor == "middle" ? x - extent / 2 : x;
      EXPECT_GE(left, -2) << "text cut at the left: " << content;
      EXPECT_LE(left + extent, w + 2) << "text cut at the right: " << content;
    }
  }
}

/// Each <svg ...>...</svg> of a page.
inline std::vector<std::string> Svgs(const std::string& page) {
  std::vector<std::string> out;
  size_t at = 0;
  while ((at = page.find("<svg", at)) != std::string::npos) {
    size_t end = page.find("</svg>", at);
    if (end == std::string::npos) break;
    out.push_back(page.substr(at, end + 6 - at));
    at = end;
  }
  return out;
}

}  // namespace culprit::svg
