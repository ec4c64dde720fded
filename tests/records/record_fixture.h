#pragma once

// A record with every field set to a distinct, non-default value, shared by
// the records tests.

#include "records/record.h"

namespace culprit {

inline Record FullRecord() {
  Record r;
  r.id = "2026-11-30T101500Z-probe-series.count-1a2b";
  r.kind = RecordKind::kProbe;
  r.time = "2026-11-30T10:15:00Z";
  r.query = "series.count";
  r.unit = "ms";
  r.hypothesis = "the recalibrated gate puts 1M events on the slow path";
  r.verdict = Verdict::kNull;
  r.verdict_detail = "interval inside the ±5% band";
  r.estimate = Estimate{1.012, 0.991, 1.034, 0.9, 20, true, "paired Hodges-Lehmann"};
  r.band = 0.03;
  Arm a;
  a.name = "default";
  a.label = "as configured";
  a.commit = "0123456789abcdef0123456789abcdef01234567";
  a.tree = "fedcba9876543210fedcba9876543210fedcba98";
  a.revision = "HEAD~1";
  a.env = {{"OMP_NUM_THREADS", "2"}};
  a.unset = {"PARALLEL"};
  a.condition = "nothing held";
  a.command = {"eventstore", "bench", "--query", "series.count"};
  a.median = 12.5;
  a.ok_samples = 2;
  a.failed_samples = 1;
  Arm b = a;
  b.name = "PARALLEL=1";
  b.label = "override";
  b.env = {{"PARALLEL", "1"}, {"OMP_NUM_THREADS", "2"}};
  b.unset = {};
  b.median = 12.75;
  b.ok_samples = 2;
  b.failed_samples = 0;
  r.arms = {a, b};
  auto sample = [](int seq, int arm, int pair, double value) {
    Sample s;
    s.sequence = seq;
    s.arm = arm;
    s.pair = pair;
    s.value = value;
    s.wall_ms = value + 1.5;
    s.user_ms = value - 0.25;
    s.system_ms = 0.125;
    s.max_rss_kb = 40960 + seq;
    s.minor_faults = 2000 + seq;
    s.major_faults = seq % 2;  // 0 is a count too
    s.voluntary_switches = 30 + seq;
    s.involuntary_switches = 7 + seq;
    return s;
  };
  Sample warm = sample(0, 0, -1, 30.5);
  warm.warmup = true;
  Sample failed = sample(5, 0, 2, 0);
  failed.ok = false;
  failed.failure = "timed out after 60s";
  Sample dropped = sample(6, 1, 2, 13.25);
  dropped.dropped = true;
  r.samples = {warm,
               sample(1, 0, 0, 12.25),
               sample(2, 1, 0, 12.5),
               sample(3, 1, 1, 13.0),
               sample(4, 0, 1, 12.75),
               failed,
               dropped};
  // Field by field: an aggregate initializer of the first five would leave the rest to
  // -Wmissing-field-initializers.
  r.start.calibration_ms = 101.5;
  r.start.load1 = 0.52;
  r.start.cpu_mhz = 2400.0;
  r.start.governor = "performance";
  r.start.time = "2026-11-30T10:15:00Z";
  r.end.calibration_ms = 103.0;
  r.end.load1 = 0.61;
  r.end.cpu_mhz = 2300.0;
  r.end.governor = "powersave";
  r.end.time = "2026-11-30T10:16:40Z";
  r.start.load5 = 1.25;
  r.start.load15 = 0.75;
  r.end.load5 = 1.5;
  r.end.load15 = 0.8;
  r.start.memory_available_kb = 20 * 1024 * 1024;
  r.end.memory_available_kb = 19 * 1024 * 1024 + 512;
  r.start.swap_used_kb = 0;
  r.end.swap_used_kb = 4096;
  r.host = HostIdentity{"bench-1", "AMD EPYC 7B13", "6.1.0-13-amd64", 8, 32ULL * 1024 * 1024, ""};
  r.host.machine_id = "m-0123456789abcdef";
  r.culprit_version = "0.1.0";
  r.config_digest = "sha256:abcd";
  r.invocation = {"culprit", "probe", "--override", "PARALLEL=1"};
  r.interrupted = true;
  r.notes = {"first note", "second note with \"quotes\""};
  r.links = {"2026-11-30T100000Z-compare-series.count-ffff"};
  r.details = {{"culprit_commit", "89abcdef"}, {"step", "3"}};
  r.details_json = R"({"posterior":[0.25,0.75],"range":{"good":"a","bad":"b"}})";
  return r;
}

}  // namespace culprit
