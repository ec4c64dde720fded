// The HTML report's section of an `isolate` record.

#include "records/html_isolation.h"

#include <fmt/format.h>

#include <cstdint>

#include "base/strings.h"
#include "records/report_facts.h"
#include "records/report_payload.h"
#include "records/svg_plot.h"

namespace culprit {
namespace {

using svg::Escape;

std::string Bytes(uint64_t bytes) {
  if (bytes >= (1u << 20)) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  if (bytes >= (1u << 10)) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{} B", bytes);
}

/// An isolation's simulated figures, labelled as `isolate` labels them: secondary, never a
/// verdict.
std::string SimulatedTable(const SimulatedFacts& s) {
  std::string out = "<h4>Simulated figures</h4>\n<p class=\"reading\">" + Escape(s.heading) +
                    "</p>\n<table class=\"conditions\">\n<tr><th>condition</th>"
                    "<th>median per run</th><th>samples (min..max)</th><th>vs baseline</th></tr>\n";
  for (const SimulatedRow& row : s.rows) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       Escape(row.condition), Escape(row.median), Escape(row.samples),
                       Escape(row.vs_baseline));
  }
  out += "</table>\n";
  if (!s.failure.empty()) {
    out += "<p class=\"missing\">stopped: " + Escape(s.failure) + "</p>\n";
  }
  return out;
}

}  // namespace

std::string IsolatePicture(const Record& r) {
  IsolateFacts facts = ReadIsolateFacts(r);
  if (facts.conditions.empty()) return HtmlMissing("isolation conditions");
  svg::BarsSpec spec;
  spec.title = fmt::format("each condition against the baseline, {}", r.query);
  spec.baseline = facts.conditions[0].name;
  spec.band = r.band;
  std::string table;
  for (size_t i = 0; i < facts.conditions.size(); ++i) {
    const ConditionFacts& c = facts.conditions[i];
    std::string setup;
    for (const std::string& h : c.hold) setup += (setup.empty() ? "holds " : ", ") + h;
    if (!c.release.empty()) {
      std::string released;
      for (const std::string& h : c.release) released += (released.empty() ? "" : ", ") + h;
      setup += (setup.empty() ? "" : "; ") + std::string("then releases ") + released;
    }
    if (setup.empty()) setup = "nothing held";
    std::string reading = c.estimate
                              ? BandSentence(c.estimate->ratio, c.estimate->low, c.estimate->high,
                                             r.band, DirectionOf(r), r.unit)
                              : (c.baseline ? "the reference" : "not in this record");
    table += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        Escape(c.name), Escape(ConditionRoleName(c.role)), Escape(setup),
        c.bytes ? Bytes(*c.bytes) : "-",
        c.estimate ? FormatRatioInterval(c.estimate->ratio, c.estimate->low, c.estimate->high)
                   : "-",
        Escape(c.verdict ? VerdictName(*c.verdict) : "-"), Escape(reading));
    if (c.baseline) continue;
    std::string caption = c.verdict ? std::string(VerdictName(*c.verdict)) : "";
    if (c.bytes) caption += (caption.empty() ? "" : " · ") + Bytes(*c.bytes) + " held";
    spec.bars.push_back({c.name, std::string(ConditionRoleName(c.role)), c.estimate, caption});
  }
  std::string out = "<h4>Conditions</h4>\n";
  out +=
      spec.bars.empty() ? HtmlMissing("conditions besides the baseline") : svg::IntervalBars(spec);
  if (!facts.reversibility.empty()) {
    out += fmt::format(
        "<p class=\"reading\">reversibility: <b>{}</b>{}</p>\n", Escape(facts.reversibility),
        facts.reversibility_sentence.empty() ? "" : " — " + Escape(facts.reversibility_sentence));
  }
  out +=
      "<table class=\"conditions\">\n<tr><th>condition</th><th>role</th><th>setup</th>"
      "<th>held</th><th>ratio</th><th>verdict</th><th>reading</th></tr>\n" +
      table + "</table>\n";
  if (facts.simulated) out += SimulatedTable(*facts.simulated);
  return out;
}

}  // namespace culprit
