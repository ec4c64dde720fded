#!/usr/bin/env bash
# The harness protocol's own overhead per `run` round trip, against the
# engine's own in-process time for the same query, in the same sitting.
#
# Builds the demo engine (examples/eventstore) from this source tree, runs
# `culprit isolate` on a one-condition plan with `--runs 1` (every round trip
# carries exactly one run), and reads the record: each measured sample holds
# the engine's own time of the query (value) and culprit's time of the whole
# round trip (wall_ms: write the command, the engine parses it, runs and
# times the query, formats the answer, culprit reads and parses it).
#
# Usage: bench/harness-overhead/run.sh --culprit build/cli/culprit [--rounds N]
#        [--query series.count] [--events 1000000] [--keep]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
culprit="" rounds=60 query="series.count" events=1000000 keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --culprit) culprit="$(realpath "$2")"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --query) query="$2"; shift 2 ;;
    --events) events="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$culprit" ]] || { echo "give --culprit PATH" >&2; exit 2; }
work="$(mktemp -d)"
[[ $keep == 1 ]] && echo "keeping $work" >&2 || trap 'rm -rf "$work"' EXIT

echo "building the demo engine ..." >&2
cmake -S "$root/examples/eventstore" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" -j2 --target eventstore >/dev/null
engine="$work/build/eventstore"

cat > "$work/culprit.toml" <<TOML
[engine]
repo = "$work"
build = [["true"]]

[queries."$query"]
command = ["true"]

[harness]
command = ["$engine", "serve", "--events", "$events"]

[residency."overhead"]
query = "$query"
conditions = [{ name = "nothing held" }]

[records]
dir = "records"
TOML

"$culprit" --config "$work/culprit.toml" isolate --runs 1 --warmup 2 \
  --min-pairs "$rounds" --max-pairs "$rounds" --json > "$work/record.json"

python3 - "$work/record.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
s = [x for x in r["samples"] if not x["warmup"] and x.get("ok", True)]
engine = [x["value"] for x in s]
trip = [x["wall_ms"] for x in s]
over = [t - e for t, e in zip(trip, engine)]
me, mt, mo = statistics.median(engine), statistics.median(trip), statistics.median(over)
print(f"query {r['query']}: {len(s)} round trips of `run QUERY 1` in one sitting")
print(f"  engine's own time (median)      {me:9.4f} ms")
print(f"  round trip seen by culprit      {mt:9.4f} ms")
print(f"  protocol overhead per round trip {mo:8.4f} ms  (min {min(over):.4f}, max {max(over):.4f})")
print(f"  ratio round trip / engine time  {mt / me:9.4f}   (overhead / engine time {mo / me:.4%})")
PY
