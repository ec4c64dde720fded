#pragma once

// Flat facts (Record::details) exactly as culprit wrote them before records/*_details.h
// existed: copied from the records of one `culprit demo` run (2026-12-05, a build of
// this tree from 06:52 UTC), the record files named beside each. The tests of the structs read
// these and write them back key for key, so that archived records keep reading.

#include "records/detail_fields.h"

namespace culprit::archived {

// 2026-12-05T084223Z-bisect-series.count.registry-4189.json
inline const DetailMap kDemoBisect = {
    {"bad_commit", "0419ee60b4065c1a39aece25425e36356986d693"},
    {"bisect_run", "2026-12-05T083905Z-0de1"},
    {"builds_used", "9"},
    {"changed_files", "src/scan/series_count.cc"},
    {"changes",
     "db8663fb0162da6f4136571c553de3757fee4986,65e10aa75e011091f3114b1207ecf5b970a8dcfd"},
    {"credible_set", "65e10aa75e"},
    {"culprit_commit", "db8663fb0162da6f4136571c553de3757fee4986"},
    {"culprit_is_first", "ends"},
    {"culprit_subject", "series.count: skip rows recorded after the latest snapshot"},
    {"decomposition",
     "the move ×1.644 [1.381, 1.824] = commit db8663fb01 ×1.159 [1.093, 1.221] · commit 65e10aa75e "
     "×1.336 [1.198, 1.665]; unexplained ×1.061 [0.679, 1.394] (undecided: the intervals are too "
     "wide)"},
    {"first_commit", "db8663fb0162da6f4136571c553de3757fee4986"},
    {"good_commit", "0c8c9ae87f466f2d181741a5e05e20631cc205b7"},
    {"log2_minimum_builds", "5"},
    {"pairs_used", "388"},
    {"probability", "1.0000"},
    {"range_commits", "31"},
};
// 2026-12-05T083932Z-bisect-step-series.count.registry-624f.json
inline const DetailMap kDemoVerifyStep = {
    {"alpha_spending", "none: a plain interval, not a sequential test"},
    {"aslr", "on"},
    {"baseline_commit", "9ec778cffa7413e7ba2ff8c323adb1cfbeabfa2f"},
    {"best_commit", "65e10aa75e011091f3114b1207ecf5b970a8dcfd"},
    {"best_probability", "0.999991"},
    {"better", "lower"},
    {"bisect_run", "2026-12-05T083905Z-0de1"},
    {"calibration_change", "+0.0310"},
    {"candidate_commit", "65e10aa75e011091f3114b1207ecf5b970a8dcfd"},
    {"candidate_index", "14"},
    {"cpus", "any"},
    {"evidence", "bisect search"},
    {"metric", "regex"},
    {"nominal_confidence", "0.95000"},
    {"pairs", "8"},
    {"pairs_dropped", "0"},
    {"posterior_at_or_before", "0.999996"},
    {"secondary.cpu", "1.287 [1.147, 1.509] (A 312.5 ms, B 398.6 ms; 8 pairs)"},
    {"secondary.ctx_switches", "3.143 [2.451, 3.975] (A 51 switches, B 170 switches; 8 pairs)"},
    {"secondary.major_faults", "unavailable: not known in any kept pair"},
    {"secondary.max_rss", "1.315 [1.314, 1.317] (A 5.146e+04 KiB, B 6.768e+04 KiB; 8 pairs)"},
    {"secondary.minor_faults",
     "1.350 [1.348, 1.355] (A 1.245e+04 faults, B 1.68e+04 faults; 8 pairs)"},
    {"secondary.wall", "1.196 [1.114, 1.365] (A 203.2 ms, B 251 ms; 8 pairs)"},
    {"secondary_confidence", "95%"},
    {"seed", "0"},
    {"step_kind", "verify"},
    {"step_odds", "19"},
    {"target_probability", "0.9"},
    {"verify_look_alphas", "0.025,0.001051,0.001009,0.001904,0.003421,0.005694,0.01192"},
    {"verify_looks", "8,16,32,64,128,256,640"},
    {"verify_plan", "planned from the search's fit: effect 0.4860, noise 0.1195"},
};
// 2026-12-05T083948Z-bisect-step-series.count.registry-1166.json
inline const DetailMap kDemoCheckStep = {
    {"alpha_spending", "pocock-increments"},
    {"aslr", "on"},
    {"baseline_commit", "0c8c9ae87f466f2d181741a5e05e20631cc205b7"},
    {"baseline_index", "0"},
    {"better", "lower"},
    {"bisect_run", "2026-12-05T083905Z-0de1"},
    {"calibration_change", "-0.0470"},
    {"candidate_commit", "9ec778cffa7413e7ba2ff8c323adb1cfbeabfa2f"},
    {"candidate_index", "13"},
    {"cpus", "any"},
    {"mean_ratio", "1.106 [1.053, 1.162]"},
    {"metric", "regex"},
    {"nominal_confidence", "0.99751"},
    {"pairs_dropped", "0"},
    {"secondary.cpu", "1.074 [1.053, 1.098] (A 289.1 ms, B 309.2 ms; 40 pairs)"},
    {"secondary.ctx_switches", "1.016 [0.970, 1.065] (A 52 switches, B 53 switches; 40 pairs)"},
    {"secondary.major_faults", "unavailable: not known in any kept pair"},
    {"secondary.max_rss", "1.000 [1.000, 1.000] (A 5.146e+04 KiB, B 5.146e+04 KiB; 40 pairs)"},
    {"secondary.minor_faults",
     "1.000 [1.000, 1.000] (A 1.245e+04 faults, B 1.245e+04 faults; 40 pairs)"},
    {"secondary.wall", "1.050 [1.029, 1.071] (A 190.9 ms, B 201 ms; 40 pairs)"},
    {"secondary_confidence", "95%"},
    {"seed", "13899102586973345073"},
    {"step_kind", "check"},
    {"tails", "beyond x1.221: B slower 1, faster 1; p = 1"},
};
// 2026-12-05T083905Z-probe-series.count-2daf.json
inline const DetailMap kDemoProbe = {
    {"alpha_spending", "pocock-increments"},
    {"aslr", "on"},
    {"better", "lower"},
    {"calibration_change", "-0.0046"},
    {"cpus", "any"},
    {"mean_ratio", "0.992 [0.957, 1.029]"},
    {"metric", "regex"},
    {"nominal_confidence", "0.99186"},
    {"override_sets", "parallel_gate"},
    {"pairs_dropped", "0"},
    {"secondary.cpu", "1.002 [0.984, 1.017] (A 254.9 ms, B 257.7 ms; 40 pairs)"},
    {"secondary.ctx_switches", "1.007 [0.964, 1.058] (A 56 switches, B 58.5 switches; 40 pairs)"},
    {"secondary.major_faults", "unavailable: not known in any kept pair"},
    {"secondary.max_rss", "1.000 [0.999, 1.001] (A 3.488e+04 KiB, B 3.489e+04 KiB; 40 pairs)"},
    {"secondary.minor_faults", "1.000 [1.000, 1.000] (A 7986 faults, B 7986 faults; 40 pairs)"},
    {"secondary.wall", "1.004 [0.982, 1.020] (A 153 ms, B 153.8 ms; 40 pairs)"},
    {"secondary_confidence", "95%"},
    {"seed", "15211931542535782911"},
    {"tails", "beyond x1.207: B slower 0, faster 1; p = 1"},
};
// 2026-12-05T083847Z-table-path.traverse-series.count-interval.join-e8ac.json
inline const DetailMap kDemoTable = {
    {"alpha_spending", "pocock-increments"},
    {"aslr", "on"},
    {"calibration_change", "-0.0148"},
    {"cell_alpha", "0.0166667"},
    {"cells_tested", "3"},
    {"cpus", "any"},
    {"multiplicity", "bonferroni"},
    {"order", "registry"},
    {"seed", "13213711235256154493"},
    {"tail_sighting", "cell-alpha"},
};
// 2026-12-05T084228Z-explain-series.count.registry-2d89.json
inline const DetailMap kDemoExplain = {
    {"aslr", "off"},
    {"cache_sim", "no"},
    {"change", "db8663fb0162da6f4136571c553de3757fee4986"},
    {"changed_files", "src/scan/series_count.cc"},
    {"code_path", "globs src/scan/**, src/store/**, src/session/session.*, src/main.cc"},
    {"metric", "instructions"},
    {"metric_source", "cachegrind"},
    {"parent", "fd8c9fc588681da540987af694d268df37d78e0e"},
    {"query_metric", "regex"},
    {"runs_per_side", "1"},
    {"valgrind", "valgrind-3.19.0"},
};
// 2026-12-05T084534Z-investigation-series.count.registry-4bfd.json
inline const DetailMap kDemoInvestigation = {
    {"bad", "v1.3"},
    {"culprit_commit", "db8663fb0162da6f4136571c553de3757fee4986"},
    {"culprit_relevance", "on path"},
    {"explain.65e10aa75e", "2026-12-05T084234Z-explain-series.count.registry-206b"},
    {"explain.db8663fb01", "2026-12-05T084228Z-explain-series.count.registry-2d89"},
    {"good", "v1.0"},
    {"investigation_run", "2026-12-05T083847Z-dd8e"},
    {"later_change", "65e10aa75e011091f3114b1207ecf5b970a8dcfd"},
    {"outcome", "isolated"},
    {"relevance", "off path"},
    {"wall_ms.bisect", "197664"},
    {"wall_ms.confirm", "5071"},
    {"wall_ms.explain", "11160"},
    {"wall_ms.isolation", "179953"},
    {"wall_ms.probes", "12852"},
    {"wall_ms.relevance", "0"},
};

// The isolate records' flat facts, copied later (2026-12-05) from records written before
// records/isolation_details.h existed: the first from a `culprit demo` run at 10:00 UTC, the
// other two from `culprit isolate` on tests/fixtures/residency_engine with a build of this
// tree at d6a1ef6 (`--simulate ll_misses --simulate-samples 2`; then the engine's
// `--fault crash --fault-after 30`, a partial record).
// 2026-12-05T100008Z-isolate-series.count-c21a.json
inline const DetailMap kDemoIsolate = {
    {"alpha_spending", "pocock-increments"},
    {"calibration_change", "-0.0286"},
    {"conclusion",
     "holding `traversal_index`: series.count +5.0% [+4.5%, +5.5%] (inconclusive); `plain_columns` "
     "+4.3% [+3.8%, +4.8%] (tie); `index_sources` -0.5% [-4.7%, +4.3%] (tie); released: tie → "
     "undecided: the sitting could not tell whether holding `traversal_index` moves series.count "
     "beyond the band (more rounds, --max-pairs, may settle it)"},
    {"condition_alpha", "0.0125"},
    {"correction", "bonferroni"},
    {"design", "random Latin square per block of rounds"},
    {"max_rounds", "160"},
    {"plan", "traversal index"},
    {"reversibility", "reversible"},
    {"rounds", "160"},
    {"runs_per_visit", "3"},
    {"sample_tags",
     "arm = condition, pair = round (-1: warm-up visit); warmup = true with a round: the settling "
     "run after the condition was set up"},
    {"seed", "13243176173049484283"},
    {"settle_runs", "1"},
    {"suspect", "index held"},
};
// 2026-12-05T120244Z-isolate-scan-3c7d.json
inline const DetailMap kFixtureIsolateSimulated = {
    {"alpha_spending", "pocock-increments"},
    {"calibration_change", "-0.0072"},
    {"conclusion",
     "holding `rollup` (16.0 MiB) costs scan +398.6% [+390.3%, +405.9%]; `ballast` (16.0 MiB) "
     "+0.1% [-0.6%, +0.9%] (tie); released: tie → a residency effect of `rollup` itself, not of "
     "memory held in general"},
    {"condition_alpha", "0.0166667"},
    {"correction", "bonferroni"},
    {"design", "random Latin square per block of rounds"},
    {"max_rounds", "40"},
    {"plan", "rollup"},
    {"reversibility", "reversible"},
    {"rounds", "40"},
    {"runs_per_visit", "3"},
    {"sample_tags",
     "arm = condition, pair = round (-1: warm-up visit); warmup = true with a round: the settling "
     "run after the condition was set up"},
    {"seed", "5095855033445606324"},
    {"settle_runs", "1"},
    {"suspect", "rollup held"},
};
// 2026-12-05T120304Z-isolate-scan-6ca0.json
inline const DetailMap kFixtureIsolatePartial = {
    {"alpha_spending", "pocock-increments"},
    {"conclusion",
     "no conclusion: the engine broke (condition 'rollup held': 'run scan 3': the harness killed "
     "by signal 11 (SIGSEGV) (/work/main/build/tests/residency_engine --fault crash --fault-after "
     "30); last lines of its stderr:\nresidency_engine: 1048576 elements; commands: hold, release, "
     "run, quit)"},
    {"condition_alpha", "0.0166667"},
    {"correction", "bonferroni"},
    {"design", "random Latin square per block of rounds"},
    {"failed_command", "run scan 3"},
    {"failed_condition", "rollup held"},
    {"max_rounds", "40"},
    {"partial", "true"},
    {"plan", "rollup"},
    {"reversibility", "undecided"},
    {"rounds", "3"},
    {"runs_per_visit", "3"},
    {"sample_tags",
     "arm = condition, pair = round (-1: warm-up visit); warmup = true with a round: the settling "
     "run after the condition was set up"},
    {"seed", "10904833343067495338"},
    {"settle_runs", "1"},
    {"suspect", "rollup held"},
};

}  // namespace culprit::archived
