#!/usr/bin/env bash
# What a table of 13 queries x 3 arms costs, against the 26 separate paired sittings
# (`culprit probe`, the design of `compare`) of the same cells, in one run.
#
# The engine is the test fixture `table_engine` (build/tests/table_engine): each query
# loops ~4 ms; with SLOW=1 the first four queries do three times the work. Arms: the
# default environment (the baseline), `same` (an unrelated variable set: an A/A cell) and
# `slow` (SLOW=1). So of the 26 cells, 4 are large effects and 22 ties. The table runs
# once; each cell is also a probe of its own (default vs the arm's variable): the probes of
# q1, q3, ..., q13 before the table and those of q2, ..., q12 after it, so a host whose noise
# changes over the run reaches both sides alike. Printed: runs of the engine (warm-ups
# included) and verdicts, for both, and the wild pairs each side met (a log-ratio more than
# 0.2 from its cell's median: one run about 1.22 times off its pair), the noise that keeps a
# tie waiting for a later look.
#
# Usage: bench/table/pair-cost.sh [--culprit PATH] [--engine PATH] [--max-pairs N] [--seed S]
#                                  [--keep DIR]   (DIR: the records and outputs, kept)
# Needs jq. Takes a few minutes on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
culprit="${CULPRIT:-$root/build/cli/culprit}"
engine="$root/build/tests/table_engine"
max_pairs=160
seed=1
keep=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --culprit) culprit="$2"; shift 2 ;;
    --engine) engine="$2"; shift 2 ;;
    --max-pairs) max_pairs="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "pair-cost.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
command -v jq >/dev/null || { echo "pair-cost.sh: needs jq (apt-get install jq)" >&2; exit 2; }
work="$(mktemp -d)"
finish() {
  if [[ -n "$keep" ]]; then mkdir -p "$keep" && cp -r "$work"/. "$keep"/; fi
  rm -rf "$work"
}
trap finish EXIT
queries=(q1 q2 q3 q4 q5 q6 q7 q8 q9 q10 q11 q12 q13)
{
  for q in "${queries[@]}"; do
    slow=""
    case "$q" in q1|q2|q3|q4) slow=" \${{SLOW:+--slow-on $q}}" ;; esac
    printf '[queries.%s]\ncommand = ["sh", "-c", "exec %s %s%s"]\n' "$q" "$engine" "$q" "$slow"
  done
  printf '[records]\ndir = "records"\n'
} > "$work/culprit.toml"
cd "$work"

# Runs of the engine a record holds: every sample of every arm (warm-ups are samples too).
runs_of() { jq '[.samples[]?] | length' "$1"; }

probe_runs=0
probe_pairs=0
probe_sizes=()
declare -A verdicts=()
# The probe of cell i (1..26: q1 same, q1 slow, q2 same, ...) at seed + i.
probe_cell() {
  local i="$1" q kv pairs v
  read -r q kv <<< "${cells[$((i - 1))]}"
  "$culprit" probe -q "$q" --override "$kv" --seed "$((seed + i))" --max-pairs "$max_pairs" \
    --json > "probe-$i.json" 2> /dev/null || true
  probe_runs=$((probe_runs + $(runs_of "probe-$i.json")))
  pairs="$(jq '.estimate.pairs // 0' "probe-$i.json")"
  probe_pairs=$((probe_pairs + pairs))
  probe_sizes+=("$pairs")
  v="$(jq -r '.verdict' "probe-$i.json")"
  verdicts[$v]=$(( ${verdicts[$v]:-0} + 1 ))
}
cells=()
for q in "${queries[@]}"; do cells+=("$q SAME=1" "$q SLOW=1"); done

echo "== 14 probes (q1, q3, ..., q13), each at the design of compare, max ${max_pairs} pairs"
for i in $(seq 1 26); do
  if (( (i - 1) / 2 % 2 == 0 )); then probe_cell "$i"; fi
done

echo "== one table: ${#queries[@]} queries x 3 arms, max ${max_pairs} blocks a row (seed $seed)"
"$culprit" table --arm default --arm same:SAME=1 --arm slow:SLOW=1 --seed "$seed" \
  --max-pairs "$max_pairs" > table.txt || true
sed -n '/^query /,/^geometric/p' table.txt
grep '^verdict' table.txt
table_record="$(ls records/*table*.json)"
table_runs="$(runs_of "$table_record")"
table_blocks="$(jq '[.payload.rows[]?.blocks] | add' "$table_record")"
# "11 x 39, 2 x 81": how many rows ran how many blocks.
row_spread="$(jq -r '[.payload.rows[]?.blocks] | group_by(.) | map("\(length) x \(.[0])") | join(", ")' \
  "$table_record")"

echo "== 12 probes (q2, q4, ..., q12), each at the design of compare, max ${max_pairs} pairs"
for i in $(seq 1 26); do
  if (( (i - 1) / 2 % 2 == 1 )); then probe_cell "$i"; fi
done
summary=""
for v in "${!verdicts[@]}"; do summary+="$v ${verdicts[$v]}, "; done
echo "probes: ${summary%, }"

echo "== engine runs (warm-ups included)"
echo "table:  $table_runs runs in $table_blocks blocks (3 runs a block; rows: $row_spread)"
probe_spread="$(printf '%s\n' "${probe_sizes[@]}" | sort -n | uniq -c | awk '{printf "%s%s x %s", sep, $1, $2; sep=", "}')"
echo "probes: $probe_runs runs, $probe_pairs pairs (2 runs a pair; probes: $probe_spread)"
python3 - "$table_record" probe-*.json <<'PY'
import json, math, statistics, sys
def wild(cells):
    n = k = 0
    for d in cells:
        if not d: continue
        m = statistics.median(d)
        n += len(d)
        k += sum(abs(x - m) > 0.2 for x in d)
    return k, n
def by_pair(samples, slot_a, slot_b):
    v = {}
    for s in samples:
        if s["warmup"] or not s["ok"] or s.get("dropped"): continue
        v.setdefault(s["arm"], {})[s["pair"]] = s["value"]
    a, b = v.get(slot_a, {}), v.get(slot_b, {})
    return [math.log(b[p]) - math.log(a[p]) for p in sorted(a) if p in b]
table = json.load(open(sys.argv[1]))
arms = 3
rows = len(table["payload"]["rows"])
tk, tn = wild([by_pair(table["samples"], r * arms, r * arms + a)
               for r in range(rows) for a in range(1, arms)])
pk, pn = wild([by_pair(json.load(open(f))["samples"], 0, 1) for f in sys.argv[2:]])
print(f"wild pairs: table {tk} of {tn}, probes {pk} of {pn}")
PY
python3 -c "print(f'table / probes = {$table_runs / $probe_runs:.3f}')"
