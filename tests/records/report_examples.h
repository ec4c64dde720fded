#pragma once

// Records of every kind a report draws, with known numbers: a probe, a bisect
// with its steps, an isolation, an audit with its factor records, and an
// investigation that links them. Shared by the report tests and by
// tests/fixtures/report_examples.cc, which writes them to a records directory
// for scripts/check-reports. The payload shapes are those of docs/reports.md.

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "records/record.h"

namespace culprit::examples {

inline HostState Host(double calibration_ms, double load1, const std::string& time) {
  HostState h;
  h.calibration_ms = calibration_ms;
  h.load1 = load1;
  h.cpu_mhz = 2400;
  h.governor = "performance";
  h.time = time;
  h.load5 = load1 * 0.9;
  h.load15 = load1 * 0.8;
  h.memory_available_kb = 12L * 1024 * 1024;
  return h;
}

inline Record Base(const std::string& id, const std::string& kind, const std::string& time) {
  Record r;
  r.id = id;
  r.kind = ParseRecordKind(kind).value();
  r.time = time;
  r.query = "series.count";
  r.unit = "ms";
  r.band = 0.05;
  r.start = Host(101.5, 0.40, time);
  r.end = Host(102.7, 0.55, time);
  r.host = HostIdentity{"bench-1", "AMD EPYC 7B13", "6.1.0-13-amd64", 8, std::nullopt, ""};
  r.culprit_version = "0.1.0";
  r.config_digest = "sha256:abcd";
  return r;
}

// A paired sitting: `pairs` pairs with B = A × ratio, alternating order, a
// deterministic wobble, one warm-up per arm.
inline void PairedSamples(Record& r, double a_ms, double ratio, int pairs) {
  int seq = 0;
  for (int arm = 0; arm < 2; ++arm) {
    Sample w;
    w.sequence = seq++;
    w.arm = arm;
    w.warmup = true;
    w.value = a_ms * (arm ? ratio : 1) * 1.4;
    r.samples.push_back(w);
  }
  for (int p = 0; p < pairs; ++p) {
    double wobble = 1 + 0.02 * std::sin(p * 1.7);
    for (int k = 0; k < 2; ++k) {
      int arm = (p % 2 == 0) ? k : 1 - k;
      Sample s;
      s.sequence = seq++;
      s.arm = arm;
      s.pair = p;
      s.value = a_ms * wobble * (arm ? ratio * (1 + 0.01 * std::cos(p * 2.3)) : 1);
      r.samples.push_back(s);
    }
  }
}

inline Record TwoArms(Record r, const std::string& a, const std::string& b) {
  Arm arm_a, arm_b;
  arm_a.name = a;
  arm_b.name = b;
  r.arms = {arm_a, arm_b};
  return r;
}

/// A probe 1.3% faster, inside the ±5% band: a tie (NULL).
inline Record Probe() {
  Record r =
      TwoArms(Base("2026-11-30T101500Z-probe-series.count-1a2b", "probe", "2026-11-30T10:15:00Z"),
              "default", "PARALLEL=1");
  r.arms[1].env = {{"PARALLEL", "1"}};
  r.hypothesis = "PARALLEL=1 makes series.count faster";
  r.verdict = Verdict::kNull;
  r.verdict_detail = "no effect: ratio 0.987x, -1.3% [-2.9%, +0.4%], inside the ±5% band";
  r.estimate = Estimate{0.987, 0.971, 1.004, 0.95, 20, true, "paired Hodges-Lehmann"};
  PairedSamples(r, 24.0, 0.987, 20);
  r.details = {
      {"seed", "42"}, {"pairs_dropped", "0"}, {"checkpoint_calibrations_ms", "101.9,102.2"}};
  return r;
}

// A commit-like id (40 hex digits), distinct per index.
inline std::string CommitId(int i) {
  uint64_t h = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(i + 1);
  h ^= h >> 29;
  return fmt::format("{:016x}{:016x}{:08x}", h, h * 0xbf58476d1ce4e5b9ULL,
                     static_cast<uint32_t>(h >> 7));
}

constexpr int kBisectCommits = 16;  // n: commits 0 (good) .. 16 (bad)
constexpr int kCulprit = 11;
constexpr int kUnbuildable = 6;

/// A bisect over 16 commits that names commit 11, with commit 6 unbuildable,
/// and its steps (candidate_index 8, 12, 10, 11, then 10 again, and the
/// confirmation of the endpoints at 16). Element 0 is the bisect record.
inline std::vector<Record> Bisect() {
  const std::string run = "bisect-20261130T110000Z";
  std::vector<Record> steps;
  struct Step {
    std::string kind;
    int index, baseline;
    double ratio, low, high;
  };
  const Step plan[] = {{"confirm", kBisectCommits, 0, 1.402, 1.360, 1.447},
                       {"measure", 8, 0, 1.004, 0.985, 1.022},
                       {"measure", 12, 0, 1.395, 1.351, 1.440},
                       {"measure", 10, 0, 0.996, 0.977, 1.016},
                       {"measure", 11, 0, 1.389, 1.342, 1.437},
                       {"verify", 11, 10, 1.398, 1.362, 1.433}};
  int minute = 0;
  for (const Step& s : plan) {
    Record r = TwoArms(Base(fmt::format("2026-11-30T11{:02d}00Z-bisect-step-series.count-{:04x}",
                                        minute, 0xb000 + minute),
                            "bisect-step", fmt::format("2026-11-30T11:{:02d}:00Z", minute)),
                       s.kind == "confirm" ? "good" : "baseline",
                       s.kind == "confirm" ? "bad" : "candidate");
    ++minute;
    r.arms[0].commit = CommitId(s.baseline);
    r.arms[1].commit = CommitId(s.index);
    r.details["bisect_run"] = run;
    r.details["step_kind"] = s.kind;
    if (s.kind != "confirm") {
      r.details["candidate_index"] = std::to_string(s.index);
      r.details["candidate_commit"] = CommitId(s.index);
      r.details["baseline_commit"] = CommitId(s.baseline);
    }
    r.estimate = Estimate{s.ratio, s.low, s.high, 0.95, 12, false, ""};
    r.verdict = s.ratio > 1.1 ? Verdict::kEffect : Verdict::kNull;
    PairedSamples(r, 59.0, s.ratio, 12);
    steps.push_back(r);
  }
  Record b =
      TwoArms(Base("2026-11-30T112000Z-bisect-series.count-c0de", "bisect", "2026-11-30T11:20:00Z"),
              "parent", "culprit");
  b.arms[0].commit = CommitId(kCulprit - 1);
  b.arms[1].commit = CommitId(kCulprit);
  b.verdict = Verdict::kEffect;
  b.verdict_detail = "commit 11 holds 0.97 of the posterior and its ratio is verified";
  b.estimate = Estimate{1.398, 1.362, 1.433, 0.95, 24, false, ""};
  b.details = {{"bisect_run", run},
               {"good_commit", CommitId(0)},
               {"bad_commit", CommitId(kBisectCommits)},
               {"range_commits", std::to_string(kBisectCommits)},
               {"culprit_commit", CommitId(kCulprit)},
               {"first_commit", CommitId(kCulprit)},
               {"probability", "0.9700"},
               {"builds_used", "5"},
               {"pairs_used", "84"}};
  b.notes = {"unbuildable or unmeasurable: " + CommitId(kUnbuildable)};
  std::string commits, posterior;
  for (int i = 0; i <= kBisectCommits; ++i) {
    commits += (i ? "," : "") + fmt::format("\"{}\"", CommitId(i));
    double p = i == 0 ? 0 : i == kCulprit ? 0.97 : (i == 10 || i == 12) ? 0.01 : 0.01 / 13;
    posterior += (i ? "," : "") + fmt::format("{:.6g}", p);
  }
  b.details_json = fmt::format(R"({{"commits":[{}],"posterior":[{}],"unbuildable":[{}]}})", commits,
                               posterior, kUnbuildable);
  for (const Record& s : steps) b.links.push_back(s.id);
  std::vector<Record> out = {b};
  out.insert(out.end(), steps.begin(), steps.end());
  return out;
}

/// An isolation of the residency of `traversal_index`: the suspect costs
/// +29% (EFFECT), the control `plain_columns` ties, and holding then
/// releasing the suspect ties (reversible). The payload is the isolate
/// record's (probes/isolation.cc).
inline Record Isolate() {
  Record r =
      Base("2026-11-30T120000Z-isolate-series.count-150a", "isolate", "2026-11-30T12:00:00Z");
  const char* names[] = {"nothing held", "traversal_index held", "plain_columns held",
                         "traversal_index released"};
  const double ratios[] = {1, 1.29, 1.01, 1.004};
  for (int c = 0; c < 4; ++c) {
    Arm a;
    a.name = names[c];
    a.condition = names[c];
    r.arms.push_back(a);
  }
  int seq = 0;
  for (int round = 0; round < 12; ++round) {
    for (int k = 0; k < 4; ++k) {
      int c = (k + round) % 4;
      Sample s;
      s.sequence = seq++;
      s.arm = c;
      s.pair = round;
      s.value = 40.0 * ratios[c] * (1 + 0.015 * std::sin(round * 1.3 + c));
      r.samples.push_back(s);
    }
  }
  r.hypothesis = "holding traversal_index slows series.count";
  r.verdict = Verdict::kEffect;
  r.estimate = Estimate{1.29, 1.22, 1.35, 0.983, 12, false, "paired by round, Hodges-Lehmann"};
  r.details = {
      {"plan", "index"}, {"suspect", "traversal_index held"}, {"reversibility", "reversible"}};
  r.details_json =
      R"({"conditions":[)"
      R"({"name":"nothing held","hold":[],"release":[],"bytes":{},"baseline":true},)"
      R"({"name":"traversal_index held","hold":["traversal_index"],"release":[],)"
      R"("bytes":{"traversal_index":67108864},"baseline":false,"verdict":"EFFECT",)"
      R"("ratio":1.29,"low":1.22,"high":1.35},)"
      R"({"name":"plain_columns held","hold":["plain_columns"],"release":[],)"
      R"("bytes":{"plain_columns":67108864},"baseline":false,"verdict":"NULL",)"
      R"("ratio":1.01,"low":0.99,"high":1.03},)"
      R"({"name":"traversal_index released","hold":["traversal_index"],)"
      R"("release":["traversal_index"],"bytes":{},"baseline":false,)"
      R"("verdict":"NULL","ratio":1.004,"low":0.985,"high":1.024}],)"
      R"("suspect":1,"reversibility":{"verdict":"reversible","condition":3,)"
      R"("sentence":"released: tie, a residency effect, not damage"},)"
      R"("calibration":{"start_ms":101.5,"end_ms":102.7,"checkpoints_ms":[101.8,102.4]}})";
  return r;
}

/// An audit of 59.0 ms published → 84.0 ms today: host drift ×1.18
/// (cross-sitting, EFFECT), code ×1.01 (tie), order ×1.19 (EFFECT), and a
/// remainder inside the band. Element 0 is the audit; the others are the
/// factor records it links to.
inline std::vector<Record> Audit() {
  Record drift = TwoArms(
      Base("2026-11-30T130000Z-compare-series.count-d41f", "compare", "2026-11-30T13:00:00Z"),
      "published", "now");
  drift.estimate = Estimate{1.18, 1.12, 1.24, 0.95, 20, false, ""};
  drift.verdict = Verdict::kEffect;
  PairedSamples(drift, 59.0, 1.18, 20);
  Record code = TwoArms(
      Base("2026-11-30T131000Z-compare-series.count-c0d3", "compare", "2026-11-30T13:10:00Z"),
      "v1.0", "v1.3");
  code.estimate = Estimate{1.01, 0.985, 1.035, 0.95, 20, false, ""};
  code.verdict = Verdict::kNull;
  PairedSamples(code, 69.6, 1.01, 20);
  Record order = TwoArms(
      Base("2026-11-30T132000Z-compare-series.count-0rd3", "compare", "2026-11-30T13:20:00Z"),
      "alone", "in registry order");
  order.estimate = Estimate{1.19, 1.14, 1.25, 0.95, 20, false, ""};
  order.verdict = Verdict::kEffect;
  PairedSamples(order, 70.3, 1.19, 20);
  Record a = Base("2026-11-30T133000Z-audit-series.count-a0d1", "audit", "2026-11-30T13:30:00Z");
  a.verdict = Verdict::kEffect;
  a.verdict_detail = "host drift and order explain the move; the code is a tie";
  a.links = {drift.id, code.id, order.id};
  a.details_json = fmt::format(
      R"({{"published":59.0,"today":84.0,"factors":[)"
      R"({{"name":"host drift","ratio":1.18,"low":1.12,"high":1.24,"verdict":"EFFECT","cross_sitting":true,"record":"{}"}},)"
      R"({{"name":"code","ratio":1.01,"low":0.985,"high":1.035,"verdict":"NULL","cross_sitting":false,"record":"{}"}},)"
      R"({{"name":"order","ratio":1.19,"low":1.14,"high":1.25,"verdict":"EFFECT","cross_sitting":false,"record":"{}"}}],)"
      R"("remainder":{{"ratio":1.0135,"low":0.95,"high":1.08}},)"
      R"("conclusion":"host drift (+18%) and order (+19%) are real; code is a tie"}})",
      drift.id, code.id, order.id);
  return {a, drift, code, order};
}

/// An investigation linking the probe, the bisect and the isolation.
inline Record Investigation(const std::vector<std::string>& links) {
  Record r = Base("2026-11-30T140000Z-investigation-series.count-1e55", "investigation",
                  "2026-11-30T14:00:00Z");
  r.verdict = Verdict::kEffect;
  r.links = links;
  return r;
}

}  // namespace culprit::examples
